"""A scan's result in the four formats of ``rlt-rules scan --format``.

* ``text``: ``path:line:column: R10 message (rule page URL)``, one hit a line;
* ``json``: every hit with its span, detector, severity, message, URL and code;
* ``sarif``: SARIF 2.1.0 whose ``tool.driver`` is the library's own rule metadata
  (:func:`rlt_rules.export.sarif.driver`), so each result's ``ruleId`` links to its page in
  code-scanning tools; files that could not be read are tool notifications;
* ``findings``: a draft review (``schema/findings.schema.json``) with one finding per hit, rule
  and location filled and the reviewer's part marked TODO, which ``findings check`` rejects
  until it is written.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from ..about import NAME, VERSION
from ..export.markdown import rule_url
from ..export.sarif import SARIF_SCHEMA, SARIF_VERSION, driver
from ..jsonout import indented
from ..model import HintSeverity, Library
from . import ScanResult

Renderer = Callable[[ScanResult, Library, str | None], bytes]

#: SARIF result levels and findings severities of the detectors' severities.
LEVELS = {HintSeverity.HINT: "note", HintSeverity.INFO: "note", HintSeverity.WARNING: "warning"}


def text(result: ScanResult, library: Library, site_url: str | None) -> bytes:
    lines = [
        f"{found.path}:{found.hit.line}:{found.hit.column}: {found.hit.rule_id} "
        f"{found.hit.message} ({rule_url(site_url, found.hit.rule_id)})"
        for found in result.hits
    ]
    return "".join(f"{line}\n" for line in lines).encode("utf-8")


def json_data(result: ScanResult, library: Library, site_url: str | None) -> dict[str, Any]:
    return {
        "generator": {"name": NAME, "version": VERSION},
        "library_version": library.version,
        "files_scanned": result.files_scanned,
        "suppressed": result.suppressed,
        "hits": [
            {
                "path": found.path,
                "line": found.hit.line,
                "column": found.hit.column,
                "end_line": found.hit.end_line,
                "end_column": found.hit.end_column,
                "rule": found.hit.rule_id,
                "detector": found.hit.qualified_id,
                "severity": str(found.hit.severity),
                "message": found.hit.message,
                "url": rule_url(site_url, found.hit.rule_id),
                "code": found.hit.text,
            }
            for found in result.hits
        ],
        "problems": [{"path": p.path, "message": p.message} for p in result.problems],
    }


def json_(result: ScanResult, library: Library, site_url: str | None) -> bytes:
    return indented(json_data(result, library, site_url))


def sarif_log(result: ScanResult, library: Library, site_url: str | None) -> dict[str, Any]:
    tool = driver(library, site_url)
    index_of = {descriptor["id"]: index for index, descriptor in enumerate(tool["rules"])}
    results = []
    for found in result.hits:
        hit = found.hit
        results.append(
            {
                "ruleId": hit.rule_id,
                "ruleIndex": index_of[hit.rule_id],
                "level": LEVELS[hit.severity],
                "message": {"text": hit.message},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {"uri": quote(found.path)},
                            "region": {
                                "startLine": hit.line,
                                "startColumn": hit.column,
                                "endLine": hit.end_line,
                                "endColumn": hit.end_column,
                                "snippet": {"text": hit.text},
                            },
                        }
                    }
                ],
                "properties": {"detector": hit.qualified_id},
            }
        )
    notifications = [
        {
            "level": "error",
            "message": {"text": problem.message},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": quote(problem.path)}}}],
        }
        for problem in result.problems
    ]
    invocation: dict[str, Any] = {"executionSuccessful": True}
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    run: dict[str, Any] = {
        "tool": {"driver": tool},
        "invocations": [invocation],
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}


def sarif(result: ScanResult, library: Library, site_url: str | None) -> bytes:
    return indented(sarif_log(result, library, site_url))


#: The reviewer's part of a draft finding; ``findings check`` rejects it until rewritten.
TODO_TRIGGER = "TODO: confirm the hint, then say what in this code matches the rule."
TODO_IMPACT = "TODO: what goes wrong here, for whom and when."
TODO_CORRECTION = "TODO: the change that resolves it, small enough to make in this change."


def _block(key: str, lines: list[str]) -> list[str]:
    """``key: |-`` and the text's lines, indented under it (text fields of a finding)."""
    return [f"    {key}: |-", *(f"      {line}" for line in lines)]


def findings(result: ScanResult, library: Library, site_url: str | None) -> bytes:
    """A findings file (YAML) with one draft finding per hit, written for people to edit."""
    out = [
        "# Draft review from `rlt-rules scan`: one finding per hint. A hint is not a verdict:",
        "# delete each finding whose code does not break its rule, replace the TODO lines of",
        "# the rest, then check it: `rlt-rules findings check FILE --repo .`.",
        f"library_version: {json.dumps(library.version)}",
        "findings:" if result.hits else "findings: []",
    ]
    for found in result.hits:
        hit = found.hit
        correction = " ".join(library.rule(hit.rule_id).correction.split())
        out += [
            f"  - rule: {hit.rule_id}",
            f"    severity: {LEVELS[hit.severity]}",
            "    location:",
            f"      path: {json.dumps(found.path, ensure_ascii=False)}",
            f"      start_line: {hit.line}",
            f"      end_line: {hit.end_line}",
            f"      column: {hit.column}",
            *_block("trigger", [TODO_TRIGGER, f"Hint ({hit.qualified_id}): {hit.message}"]),
            *_block("impact", [TODO_IMPACT]),
            *_block("correction", [TODO_CORRECTION, f"{hit.rule_id} says: {correction}"]),
        ]
    return "".join(f"{line}\n" for line in out).encode("utf-8")


#: Every output format of ``rlt-rules scan``, by name.
FORMATS: dict[str, Renderer] = {"text": text, "json": json_, "sarif": sarif, "findings": findings}
