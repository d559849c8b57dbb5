"""``rules.json``: the whole library as one JSON document (schema ``bundle.schema.json``).

Layout: ``$schema`` (the bundle schema's ``$id``), ``generator`` (``rlt-rules`` and its
version), ``library`` (``library.yaml``'s data), ``rules`` (each rule exactly in the record
format of ``rule.schema.json``, examples included), ``example_outputs`` (the output each
example's ``#>`` lines promise), ``anchors`` (each rule's triggers, impact, correction and
examples by the anchor its page gives them: :meth:`~rlt_rules.model.Rule.anchors`) and
``content_hash``: ``sha256:`` + the hex digest of the canonical JSON of ``rules`` (keys
sorted, no spaces, UTF-8).

The format's writer lives here, below the exports: the bundle reader checks the hash and the
outputs it computes, and a release is a bundle. ``rlt_rules.export`` lists it as ``json``.

:func:`bundle_data` and :func:`render` are pure; the same library gives the same bytes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..facts.about import NAME, VERSION
from ..files.jsonout import (
    canonical,
    canonical_array_digest,
    element_separator,
    indented,
    indented_array,
    indented_fragment,
    indented_members,
)
from .model import Library, Rule, expected_output

FILE_NAME = "rules.json"
SCHEMA_ID = "https://rlt-rules.example/schema/bundle.schema.json"
GENERATOR = NAME


def content_hash(rules: list[dict[str, Any]]) -> str:
    """``sha256:<hex>`` over the canonical JSON (:func:`~rlt_rules.files.jsonout.canonical`) of the
    rule records."""
    return "sha256:" + hashlib.sha256(canonical(rules)).hexdigest()


def example_outputs(rules: Iterable[Rule]) -> list[dict[str, Any]]:
    """One entry per example, in rule and example order: which example, and its ``#>`` lines."""
    return [
        {
            "rule": rule.id,
            "kind": str(example.kind),
            "name": example.name,
            "output": list(expected_output(example.code)),
        }
        for rule in rules
        for example in rule.examples
    ]


def rule_anchors(rules: Iterable[Rule]) -> list[dict[str, Any]]:
    """One entry per rule, in rule order: its id and the anchors of its citable items, each
    list in the order of the record's ``triggers`` and ``examples``."""
    return [{"rule": rule.id, **rule.anchors().to_dict()} for rule in rules]


def bundle_data(library: Library) -> dict[str, Any]:
    """The bundle as plain JSON data."""
    rules = [rule.to_dict() for rule in library.rules]
    return {
        "$schema": SCHEMA_ID,
        "generator": {"name": GENERATOR, "version": VERSION},
        "library": library.metadata_dict(),
        "rules": rules,
        "example_outputs": example_outputs(library.rules),
        "anchors": rule_anchors(library.rules),
        "content_hash": content_hash(rules),
    }


#: How deep a rule's record and its examples' outputs sit in the bundle: in a top-level array.
_ARRAY_DEPTH = 1


@dataclass(frozen=True, slots=True)
class RuleFragments:
    """One rule's share of ``rules.json``, as bytes the bundle is joined from
    (:func:`assemble`): its record as the bundle indents it, its examples' outputs likewise
    (empty for a rule without examples), its anchors', and its record's canonical JSON
    (hashed)."""

    record: bytes
    outputs: bytes
    anchors: bytes
    canonical: bytes


def rule_fragments(rule: Rule) -> RuleFragments:
    """The rule's :class:`RuleFragments`: the work of the bundle that is the rule's alone."""
    record = rule.to_dict()
    depth = _ARRAY_DEPTH + 1
    outputs = element_separator(_ARRAY_DEPTH).join(
        indented_fragment(entry, depth) for entry in example_outputs((rule,))
    )
    (anchors,) = rule_anchors((rule,))
    return RuleFragments(
        indented_fragment(record, depth),
        outputs,
        indented_fragment(anchors, depth),
        canonical(record),
    )


def assemble(library: Library, fragments: Sequence[RuleFragments]) -> bytes:
    """:func:`render` from each rule's :class:`RuleFragments` (in the library's order): the
    same bytes, with only the whole document's joining and hashing left to do."""
    return indented_members(
        (
            ("$schema", SCHEMA_ID),
            ("generator", {"name": GENERATOR, "version": VERSION}),
            ("library", library.metadata_dict()),
            ("rules", indented_array((f.record for f in fragments), _ARRAY_DEPTH)),
            ("example_outputs", indented_array((f.outputs for f in fragments), _ARRAY_DEPTH)),
            ("anchors", indented_array((f.anchors for f in fragments), _ARRAY_DEPTH)),
            ("content_hash", "sha256:" + canonical_array_digest(f.canonical for f in fragments)),
        )
    )


def render(library: Library) -> bytes:
    """Readable, stable JSON: two-space indent, fields in model order, UTF-8, final newline."""
    return indented(bundle_data(library))


def files(library: Library) -> dict[str, bytes]:
    return {FILE_NAME: render(library)}
