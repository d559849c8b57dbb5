"""Schema errors worded once, for every reader: :func:`schema_messages` says what was expected
and what is there, and where (the key or value it concerns). The YAML readers (rule and library
files, findings, release plans) name fields inside the sentence (``examples[0].kind must be
...``); the bundle reader (:mod:`rlt_rules.library.bundle_load`) puts a JSON pointer before it
(``/rules/0/examples/0/kind: must be ...``). Both get the same sentence otherwise."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import jsonschema

from .load import Document, JsonPath, Position
from .model import Diagnostic
from .schemas import checker

#: A message quotes the offending value; a whole rule quoted helps nobody.
MAX_MESSAGE = 240
#: How much of a value a message quotes.
MAX_QUOTED = 60

#: Type names in YAML's words (a rule author's) and JSON's (a bundle reader's).
YAML_TYPES = {
    "string": "a string",
    "array": "a list",
    "object": "a mapping",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "null": "null",
}
JSON_TYPES = {**YAML_TYPES, "array": "an array", "object": "an object"}


@dataclass(frozen=True, slots=True)
class Wording:
    """How one reader words a schema error: ``name`` names a path inside the sentence (None:
    the reader says where before the sentence), ``got`` says what a wrong value is (``got
    ...``), ``types`` names the JSON types."""

    name: Callable[[JsonPath], str | None]
    got: Callable[[JsonPath, Any], str]
    types: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class SchemaMessage:
    """One schema error, worded. ``path`` is where it is reported: the value there, or its key
    when ``at_key`` (an unknown field). ``concerns`` is the part of the data it is about (a
    missing field's own path, not its mapping's); ``unknown_field`` marks a key the schema does
    not allow, which leaves the rest of its mapping as valid as it was."""

    path: JsonPath
    concerns: JsonPath
    text: str
    at_key: bool = False
    unknown_field: bool = False


def schema_messages(error: jsonschema.ValidationError, wording: Wording) -> list[SchemaMessage]:
    """The messages of one jsonschema error (several for an error about several fields)."""
    path: JsonPath = tuple(error.path)
    name = wording.name(path)
    kind = error.validator
    if kind == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        where = f" in {name}" if path and name else ""
        return [
            SchemaMessage(
                (*path, key),
                (*path, key),
                f"unknown field '{key}'{where}; allowed fields: {', '.join(allowed)}",
                at_key=True,
                unknown_field=True,
            )
            for key in sorted(set(error.instance) - set(allowed))
        ]
    if kind == "required":
        # Every required field the mapping lacks, in the schema's order (as jsonschema
        # reports them), read from the schema and the data rather than from its messages.
        where = f" in {name}" if path and name else ""
        return [
            SchemaMessage(
                path,
                (*path, missing),
                f"missing required field '{missing}'{where}{_why(missing, error)}",
            )
            for missing in error.validator_value
            if missing not in error.instance
        ]
    text = _predicate(error, path, wording)
    if text is None:
        return []
    sentence, joined = text
    if name is not None:
        sentence = f"{name}{joined}{sentence}"
    if len(sentence) > MAX_MESSAGE:
        sentence = sentence[: MAX_MESSAGE - 1] + "…"
    return [SchemaMessage(path, path, sentence)]


def _predicate(
    error: jsonschema.ValidationError, path: JsonPath, wording: Wording
) -> tuple[str, str] | None:
    """What is wrong with the value at ``path``, and how its name joins it (" " or ": ")."""
    kind = error.validator
    if kind == "type":
        expected = error.validator_value
        names = expected if isinstance(expected, list) else [expected]
        phrase = " or ".join(wording.types.get(name, name) for name in names)
        return f"must be {phrase}, {wording.got(path, error.instance)}", " "
    if kind == "enum":
        options = ", ".join(str(option) for option in error.validator_value)
        return f"must be one of: {options}; {wording.got(path, error.instance)}", " "
    if kind == "not":
        # A value forbidden where it stands (``not: {}`` in a conditional branch): the
        # branch's description says what to do.
        if "pattern" not in error.validator_value and _description(error):
            return f"is not allowed here: {_description(error)}", " "
        # A pattern ignores a value that is not a string, so "not pattern" fails for it too:
        # its type error says what is wrong.
        if not isinstance(error.instance, str):
            return None
        return f"is still a placeholder ({error.instance.strip()[:20]!r}): write it", " "
    if kind == "pattern":
        hint = _description(error) or f"pattern {error.validator_value}"
        return f"{_quoted(error.instance)} is not valid: {hint}", " "
    if kind == "minLength":
        return "is empty: write it", " "
    if kind == "minItems":
        return f"needs at least {error.validator_value} item(s)", " "
    if kind == "uniqueItems":
        return "lists the same item twice: remove the duplicate", " "
    if kind in ("contains", "minContains"):
        schema = error.schema if isinstance(error.schema, dict) else {}
        return schema.get("description") or error.message, ": "
    return error.message, ": "


def _why(missing: str, error: jsonschema.ValidationError) -> str:
    schema = error.schema if isinstance(error.schema, dict) else {}
    if "properties" not in schema and schema.get("description"):
        # A condition's branch (``else: {required: [...]}``) says why it asks for the field.
        return f": {schema['description'].rstrip('.')}"
    if missing == "replaced_by":
        return " (a deprecated rule must name the rule that replaces it)"
    if missing == "retired_reason":
        return " (a retired rule must say why it was retired)"
    return ""


def _description(error: jsonschema.ValidationError) -> str | None:
    schema = error.schema if isinstance(error.schema, dict) else {}
    text = schema.get("description")
    return text.rstrip(".") if text else None


def _quoted(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= MAX_QUOTED else shown[: MAX_QUOTED - 1] + "…"


# --- the YAML readers ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SchemaProblem:
    """One schema error of a YAML document: the diagnostic, and the part of the data it
    concerns (see :class:`SchemaMessage`), so a caller can go on checking the other parts."""

    concerns: JsonPath
    diagnostic: Diagnostic
    unknown_field: bool = False


def schema_diagnostics(document: Document, schema_name: str) -> list[Diagnostic]:
    """Every schema error in ``document`` at the position of the key or value it concerns."""
    return [problem.diagnostic for problem in schema_problems(document, schema_name)]


def schema_problems(document: Document, schema_name: str) -> list[SchemaProblem]:
    """:func:`schema_diagnostics` with the part of the data each concerns."""
    errors = checker(schema_name).errors(document.data)
    if not errors:
        return []
    rule_id = document.data.get("id") if isinstance(document.data.get("id"), str) else None
    wording = Wording(_field_name, lambda path, value: _got_yaml(document, path, value), YAML_TYPES)
    found = []
    seen: set[tuple[JsonPath, str]] = set()
    for error in errors:
        for message in schema_messages(error, wording):
            # jsonschema reports a mapping's missing fields one error each, and each names
            # them all: say each once.
            if (message.path, message.text) in seen:
                continue
            seen.add((message.path, message.text))
            position = _position(document, message)
            diagnostic = Diagnostic(
                document.path, position.line, position.column, message.text, rule_id
            )
            found.append(SchemaProblem(message.concerns, diagnostic, message.unknown_field))
    return sorted(found, key=lambda p: (p.diagnostic.line, p.diagnostic.column))


def _position(document: Document, message: SchemaMessage) -> Position:
    """The value at the message's path; for an unknown field its key (else its mapping)."""
    if message.at_key:
        return document.keys.get(message.path) or document.value_position(message.path[:-1])
    return document.value_position(message.path)


def _field_name(path: JsonPath) -> str:
    name = ""
    for part in path:
        name += f"[{part}]" if isinstance(part, int) else (f".{part}" if name else part)
    return name or "top level"


def _got_yaml(document: Document, path: JsonPath, value: Any) -> str:
    source = document.scalars.get(path)
    if source is None:
        if isinstance(value, list):
            return "got a list"
        if isinstance(value, dict):
            return "got a mapping"
        return f"got {_quoted(value)}"
    # Every recorded scalar is a boolean, null, number, integer or date (see load._Builder).
    return (
        f"got {source.tag} {source.text!r}: YAML 1.1 reads an unquoted {source.text} as a "
        f'{source.tag}; quote it: "{source.text}"'
    )


# --- the bundle reader ---------------------------------------------------------------------


def got_json(path: JsonPath, value: Any) -> str:
    """What a JSON value is, with the value itself when it is short (``got integer 5``)."""
    if isinstance(value, dict):
        return "got an object"
    if isinstance(value, list):
        return "got an array"
    kind = {bool: "boolean", int: "integer", float: "number", str: "string"}.get(
        type(value), "null"
    )
    shown = json.dumps(value, ensure_ascii=False)
    return f"got {kind} {shown}" if len(shown) <= 40 else f"got {kind}"


#: The bundle reader's wording: a JSON pointer before each message names the place.
JSON_WORDING = Wording(lambda path: None, got_json, JSON_TYPES)
