"""``rules.json``: the whole library as one JSON document (schema ``bundle.schema.json``).

Layout: ``$schema`` (the bundle schema's ``$id``), ``generator`` (``rlt-rules`` and its
version), ``library`` (``library.yaml``'s data), ``rules`` (each rule exactly in the record
format of ``rule.schema.json``, examples included), ``example_outputs`` (the output each
example's ``#>`` lines promise) and ``content_hash``: ``sha256:`` + the hex digest of the
canonical JSON of ``rules`` (keys sorted, no spaces, UTF-8).

The format's writer lives here, below the exports: the bundle reader checks the hash and the
outputs it computes, and a release is a bundle. ``rlt_rules.export`` lists it as ``json``.

:func:`bundle_data` and :func:`render` are pure; the same library gives the same bytes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

from .about import NAME, VERSION
from .jsonout import canonical, indented
from .model import Library, Rule, expected_output

FILE_NAME = "rules.json"
SCHEMA_ID = "https://rlt-rules.example/schema/bundle.schema.json"
GENERATOR = NAME


def content_hash(rules: list[dict[str, Any]]) -> str:
    """``sha256:<hex>`` over the canonical JSON (:func:`.jsonout.canonical`) of the rule records."""
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


def bundle_data(library: Library) -> dict[str, Any]:
    """The bundle as plain JSON data."""
    rules = [rule.to_dict() for rule in library.rules]
    return {
        "$schema": SCHEMA_ID,
        "generator": {"name": GENERATOR, "version": VERSION},
        "library": library.metadata_dict(),
        "rules": rules,
        "example_outputs": example_outputs(library.rules),
        "content_hash": content_hash(rules),
    }


def render(library: Library) -> bytes:
    """Readable, stable JSON: two-space indent, fields in model order, UTF-8, final newline."""
    return indented(bundle_data(library))


def files(library: Library) -> dict[str, bytes]:
    return {FILE_NAME: render(library)}
