"""The JSON Schemas (``schema/``) and their compiled validators, one per schema, reused.

``rule.schema.json`` and ``library.schema.json`` check the YAML records, ``findings.schema.json``
a review, ``bundle.schema.json`` a ``rules.json`` bundle (``$ref``-ing the other two by ``$id``).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
from referencing import Registry, Resource


def schema_dir() -> Path:
    """The schemas: the repository's ``schema/`` or, when installed as a wheel, package data."""
    for candidate in (
        Path(__file__).resolve().parents[2] / "schema",
        Path(__file__).resolve().parent / "schema",
    ):
        if (candidate / "rule.schema.json").is_file():
            return candidate
    raise FileNotFoundError("rule.schema.json not found next to the rlt_rules package")


@cache
def load_schema(name: str) -> dict[str, Any]:
    return json.loads((schema_dir() / name).read_text(encoding="utf-8"))


@cache
def validator_for(name: str) -> jsonschema.Draft202012Validator:
    """One compiled validator per schema, reused for every record.

    Local ``#/$defs/...`` references are inlined first: the same checks and messages, without
    jsonschema resolving a reference for every value of every record (a third of its time).
    """
    schema = load_schema(name)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(_inline_local_refs(schema, schema.get("$defs", {})))


def _inline_local_refs(
    node: Any, defs: dict[str, Any], depth: int = 0, inlining: tuple[str, ...] = ()
) -> Any:
    """``node`` with each ``#/$defs/NAME`` reference replaced by the definition. A definition
    that refers to itself (an ast-grep rule object nests rule objects) keeps that inner
    reference, which the validator resolves against the schema's own ``$defs``."""
    if depth > 32:
        raise ValueError("schema $defs nest too deeply to inline")
    if isinstance(node, list):
        return [_inline_local_refs(item, defs, depth, inlining) for item in node]
    if not isinstance(node, dict):
        return node
    reference = node.get("$ref")
    name = reference.removeprefix("#/$defs/") if isinstance(reference, str) else None
    if name is not None and reference.startswith("#/$defs/") and name in inlining:
        return dict(node)
    inlined = {key: _inline_local_refs(value, defs, depth, inlining) for key, value in node.items()}
    if name is not None and reference.startswith("#/$defs/"):
        target = _inline_local_refs(defs[name], defs, depth + 1, (*inlining, name))
        siblings = {key: value for key, value in inlined.items() if key != "$ref"}
        inlined = {**target, **siblings}
    return inlined


@cache
def bundle_validator() -> jsonschema.Draft202012Validator:
    """The bundle schema's validator, resolving the rule and library schemas by ``$id``."""
    registry: Registry = Registry().with_resources(
        (schema["$id"], Resource.from_contents(schema))
        for schema in (load_schema("rule.schema.json"), load_schema("library.schema.json"))
    )
    schema = load_schema("bundle.schema.json")
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, registry=registry)
