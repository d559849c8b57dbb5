"""A new rule file for ``rlt-rules new``: the given fields, and a TODO for every other one."""

from __future__ import annotations

import json
import re

_PLAIN = re.compile(r"[A-Za-z(`][^\n#:'\"{}\[\]]*[^\s#:'\"{}\[\]]|[A-Za-z]")
_RESOLVED = re.compile(r"(?i)y|yes|n|no|true|false|on|off|null|[0-9eE._:+-]+")


def _yaml_string(text: str) -> str:
    """``text`` as a one-line YAML scalar: plain when YAML reads it back as this string,
    else double-quoted (a JSON string is a valid YAML double-quoted scalar)."""
    if _PLAIN.fullmatch(text) and not _RESOLVED.fullmatch(text):
        return text
    return json.dumps(text, ensure_ascii=False)


def scaffold_rule(rule_id: str, category: str, title: str) -> str:
    """A new rule file: the given fields set, every other required field a TODO the schema
    rejects (``$defs/text``), so ``validate`` fails until each is written."""
    return f"""\
# yaml-language-server: $schema=../schema/rule.schema.json
id: {rule_id}
title: {_yaml_string(title)}
category: {category}
status: active
since: next
tags: []
related: []
statement: |-
  TODO: the rule, as an imperative statement (Markdown).
seed_example: |-
  TODO: a short example of the contract, in words or a fenced code block.
rationale: |-
  TODO: why the rule exists: the failure it prevents, in one to three sentences.
triggers:
  - |-
    TODO: a concrete condition a reviewer can spot in a diff.
impact: |-
  TODO: what goes wrong when the rule is broken.
correction: |-
  TODO: what to do instead.
examples:
  - name: first-case
    kind: bad
    title: "TODO: one line saying what goes wrong"
    explanation: |-
      TODO: the triggering condition in this code.
    code: |
      TODO: a complete Python program (standard library only) that shows the defect happening;
      mark the lines that break the rule with a '# {rule_id}: why' comment and
      follow each print with its output as '#> ' comment lines.
  - name: first-case
    kind: good
    title: "TODO: one line saying what the correction does"
    explanation: |-
      TODO: the correction applied to the same scenario.
    code: |
      TODO: the same program with only the correction applied, marked with '# {rule_id}: why';
      its printed output as '#> ' lines.
"""
