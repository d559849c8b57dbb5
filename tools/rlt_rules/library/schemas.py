"""The JSON Schemas (``schema/``) and their compiled validators, one per schema, reused.

``rule.schema.json`` and ``library.schema.json`` check the YAML records, ``findings.schema.json``
a review, ``bundle.schema.json`` a ``rules.json`` bundle. A schema that refers to others by
``$id`` is written as a part (``schema/parts/``) and generated into ``schema/`` with the schemas
it refers to embedded (:func:`bundled_schema`, :func:`generate`; ``rlt-rules schema build``):
one self-contained file, validated with by the bundle reader, published as is, and usable
offline by any client from the repository root.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import jsonschema_rs

from ..files.jsonout import indented

#: The bundle schema: generated self-contained, so checked as it is (no inlining).
BUNDLE_SCHEMA = "bundle.schema.json"


def schema_dir() -> Path:
    """The schemas: the repository's ``schema/`` or, when installed as a wheel, package data."""
    for candidate in (
        Path(__file__).resolve().parents[3] / "schema",
        Path(__file__).resolve().parents[1] / "schema",
    ):
        if (candidate / "rule.schema.json").is_file():
            return candidate
    raise FileNotFoundError("rule.schema.json not found next to the rlt_rules package")


@cache
def load_schema(name: str) -> dict[str, Any]:
    return json.loads((schema_dir() / name).read_text(encoding="utf-8"))


@dataclass(frozen=True, slots=True)
class SchemaChecker:
    """One schema, checked by two validators that agree: ``decider`` (jsonschema-rs, compiled,
    about 100 times faster) says whether a value is valid; ``explainer`` (jsonschema) lists the
    errors of a value the decider rejected, with the paths and keywords the diagnostics are
    worded from (:mod:`rlt_rules.library.schema_errors`). Patterns match the same way in both: the
    explainer's ``pattern`` asks jsonschema-rs (ECMA 262, as Ajv and check-jsonschema do: ``$``
    does not match before a final newline, as Python's ``re`` does).

    The explainer is compiled when a value is first rejected (checking the schema against its
    meta-schema and inlining its references take longer than deciding a whole library)."""

    decider: jsonschema_rs.Draft202012Validator
    name: str

    @property
    def explainer(self) -> jsonschema.protocols.Validator:
        """The schema's jsonschema validator (:func:`validator_for`, :func:`bundle_validator`),
        compiled once."""
        return bundle_validator() if self.name == BUNDLE_SCHEMA else validator_for(self.name)

    def errors(self, instance: Any) -> list[jsonschema.ValidationError]:
        """Every error of ``instance``: none when the decider finds it valid."""
        try:
            if self.decider.is_valid(instance):
                return []
        except ValueError:
            pass  # a value JSON has no type for (a YAML date): the explainer names it
        found = list(self.explainer.iter_errors(instance))
        if found:
            return found
        # Never seen (tests/test_validate.py holds both verdicts equal on every fixture); if
        # they ever differ, the decider's own words, so a rejected value is never unexplained.
        return [
            jsonschema.ValidationError(
                error.message,
                validator="decider",
                path=error.instance_path,
                instance=error.instance,
            )
            for error in self.decider.iter_errors(instance)
        ]


@cache
def checker(name: str) -> SchemaChecker:
    """The schema ``name``'s :class:`SchemaChecker`, compiled once and reused for every record."""
    return SchemaChecker(jsonschema_rs.validator_for(load_schema(name)), name)


def _ecma_pattern(
    validator: jsonschema.protocols.Validator, pattern: str, instance: Any, schema: Any
) -> Iterator[jsonschema.ValidationError]:
    """The ``pattern`` keyword, matched by jsonschema-rs (the decider's regular expressions)."""
    if validator.is_type(instance, "string") and not pattern_validator(pattern).is_valid(instance):
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


@cache
def pattern_validator(pattern: str) -> jsonschema_rs.Draft202012Validator:
    """A string ``pattern`` of the package's schemas, compiled by jsonschema-rs once."""
    return jsonschema_rs.validator_for({"pattern": pattern})


#: Draft 2020-12 with :func:`_ecma_pattern` as its ``pattern`` keyword.
_Explainer = jsonschema.validators.extend(
    jsonschema.Draft202012Validator, {"pattern": _ecma_pattern}
)


@cache
def validator_for(name: str) -> jsonschema.protocols.Validator:
    """One compiled validator per schema, reused for every record (the explainer of
    :func:`checker`).

    Local ``#/$defs/...`` references are inlined first: the same checks and messages, without
    jsonschema resolving a reference for every value of every record (a third of its time).
    """
    schema = load_schema(name)
    jsonschema.Draft202012Validator.check_schema(schema)
    return _Explainer(_inline_local_refs(schema, schema.get("$defs", {})))


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


#: Where schemas that refer to others by ``$id`` are written (``schema/parts/``).
PARTS = "parts"


def bundled_schema(name: str) -> dict[str, Any]:
    """The part ``name`` (``schema/parts/``; else the schema of ``schema/`` itself) with every
    schema of ``schema/`` it refers to by ``$id`` embedded under
    ``$defs`` (JSON Schema 2020-12 bundling: each embedded schema keeps its ``$id``, so the
    references resolve to it and its own ``#/$defs/…`` references stay its own).

    The result validates on its own, offline: a client never fetches a referenced schema
    (``check-jsonschema`` would otherwise try the network, Ajv would fail to resolve it).
    A schema without such references comes back unchanged.
    """
    part = schema_dir() / PARTS / name
    root = json.loads(part.read_text(encoding="utf-8")) if part.is_file() else load_schema(name)
    by_id = {load_schema(other)["$id"]: other for other in _schema_names() if other != name}
    embedded: dict[str, Any] = {}
    pending = sorted(_absolute_refs(root) & by_id.keys())
    while pending:
        uri = pending.pop(0)
        other = by_id[uri]
        if other in embedded:
            continue
        embedded[other] = load_schema(other)
        pending.extend(sorted(_absolute_refs(embedded[other]) & by_id.keys()))
    if not embedded:
        return root
    collisions = embedded.keys() & root.get("$defs", {}).keys()
    if collisions:
        raise ValueError(f"{name}: $defs already holds {sorted(collisions)}")
    return {**root, "$defs": {**root.get("$defs", {}), **embedded}}


def generated_schemas() -> dict[Path, bytes]:
    """Each schema of ``schema/`` generated from a part, by path, with the bytes it should hold
    (:func:`bundled_schema` of its part)."""
    return {
        schema_dir() / part.name: indented(bundled_schema(part.name))
        for part in sorted((schema_dir() / PARTS).glob("*.schema.json"))
    }


def _schema_names() -> list[str]:
    return sorted(path.name for path in schema_dir().glob("*.schema.json"))


def _absolute_refs(node: Any) -> set[str]:
    """The ``$ref`` values of ``node`` that are not local (``#…``) references."""
    if isinstance(node, list):
        return set().union(*(_absolute_refs(item) for item in node))
    if not isinstance(node, dict):
        return set()
    found = set().union(*(_absolute_refs(value) for value in node.values()))
    reference = node.get("$ref")
    if isinstance(reference, str) and not reference.startswith("#"):
        found.add(reference.split("#", 1)[0])
    return found


@cache
def bundle_validator() -> jsonschema.protocols.Validator:
    """The bundle schema's explainer: the generated, self-contained ``schema/bundle.schema.json``
    that is published, so the reader checks exactly what clients check."""
    schema = load_schema(BUNDLE_SCHEMA)
    jsonschema.Draft202012Validator.check_schema(schema)
    return _Explainer(schema)
