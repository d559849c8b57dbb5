"""Schema errors as diagnostics: each jsonschema error reported at the position of the key or
value it concerns, with a message that says what was expected and what is there."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import jsonschema

from .load import Document, JsonPath
from .model import Diagnostic
from .schemas import validator_for


@dataclass(frozen=True, slots=True)
class SchemaProblem:
    """One schema error: the diagnostic, and the part of the data it concerns (a missing
    field's own path, not its mapping's), so a caller can go on checking the other parts.
    ``unknown_field`` marks a key the schema does not allow, which leaves the rest of its
    mapping as valid as it was."""

    concerns: JsonPath
    diagnostic: Diagnostic
    unknown_field: bool = False


def schema_diagnostics(document: Document, schema_name: str) -> list[Diagnostic]:
    """Every schema error in ``document`` at the position of the key or value it concerns."""
    return [problem.diagnostic for problem in schema_problems(document, schema_name)]


def schema_problems(document: Document, schema_name: str) -> list[SchemaProblem]:
    """:func:`schema_diagnostics` with the part of the data each concerns."""
    validator = validator_for(schema_name)
    rule_id = document.data.get("id") if isinstance(document.data.get("id"), str) else None
    found = []
    for error in validator.iter_errors(document.data):
        explained = list(_explain(error, document))
        concerned = [path for path, _ in explained]
        if error.validator == "required":  # one message per missing field, in this order
            concerned = [
                (*path, name) for (path, _), name in zip(explained, _missing(error), strict=True)
            ]
        for (path, message), concerns in zip(explained, concerned, strict=True):
            position = _error_position(error, path, document)
            diagnostic = Diagnostic(document.path, position.line, position.column, message, rule_id)
            found.append(
                SchemaProblem(concerns, diagnostic, error.validator == "additionalProperties")
            )
    return sorted(found, key=lambda p: (p.diagnostic.line, p.diagnostic.column))


def _field_name(path: JsonPath) -> str:
    name = ""
    for part in path:
        name += f"[{part}]" if isinstance(part, int) else (f".{part}" if name else part)
    return name or "top level"


def _error_position(error: jsonschema.ValidationError, path: JsonPath, document: Document):
    if error.validator in ("additionalProperties", "required") and path != tuple(error.path):
        # The offending key itself (unknown field) or the mapping missing one (required).
        return document.keys.get(path) or document.value_position(tuple(error.path))
    return document.value_position(path)


def _explain(
    error: jsonschema.ValidationError, document: Document
) -> Iterable[tuple[JsonPath, str]]:
    path: JsonPath = tuple(error.path)
    field = _field_name(path)
    schema = error.schema if isinstance(error.schema, dict) else {}
    kind = error.validator
    if kind == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        for key in sorted(set(error.instance) - set(allowed)):
            yield (
                (*path, key),
                f"unknown field '{key}'"
                + (f" in {field}" if path else "")
                + f"; allowed fields: {', '.join(allowed)}",
            )
        return
    if kind == "required":
        # Every required field the mapping lacks, in the schema's order (as jsonschema
        # reports them), read from the schema and the data rather than from its messages.
        where = f" in {field}" if path else ""
        for missing in _missing(error):
            condition = ""
            if missing == "replaced_by":
                condition = " (a deprecated rule must name the rule that replaces it)"
            elif missing == "retired_reason":
                condition = " (a retired rule must say why it was retired)"
            yield path, f"missing required field '{missing}'{where}{condition}"
        return
    if kind == "type":
        yield (
            path,
            f"{field} must be {_type_phrase(error.validator_value)}, {_got(path, error, document)}",
        )
        return
    if kind == "enum":
        options = ", ".join(str(option) for option in error.validator_value)
        yield path, f"{field} must be one of: {options}; {_got(path, error, document)}"
        return
    if kind == "not":
        # A pattern ignores a value that is not a string, so "not pattern" fails for it too:
        # its type error says what is wrong.
        if isinstance(error.instance, str):
            yield (
                path,
                f"{field} is still a placeholder ({error.instance.strip()[:20]!r}): write it",
            )
        return
    if kind == "pattern":
        hint = _description(error) or f"pattern {error.validator_value}"
        yield path, f"{field} {error.instance!r} is not valid: {hint}"
        return
    if kind == "minLength":
        yield path, f"{field} is empty: write it"
        return
    if kind == "minItems":
        yield path, f"{field} needs at least {error.validator_value} item(s)"
        return
    if kind == "uniqueItems":
        yield path, f"{field} lists the same item twice: remove the duplicate"
        return
    if kind == "contains" or kind == "minContains":
        yield path, f"{field}: {schema.get('description') or error.message}"
        return
    yield path, f"{field}: {error.message}"


def _missing(error: jsonschema.ValidationError) -> list[str]:
    """The required fields a mapping lacks, in the schema's order (as jsonschema reports them)."""
    return [name for name in error.validator_value if name not in error.instance]


def _description(error: jsonschema.ValidationError) -> str | None:
    schema = error.schema if isinstance(error.schema, dict) else {}
    text = schema.get("description")
    return text.rstrip(".") if text else None


def _type_phrase(expected: Any) -> str:
    names = expected if isinstance(expected, list) else [expected]
    words = {
        "string": "a string",
        "array": "a list",
        "object": "a mapping",
        "integer": "an integer",
        "number": "a number",
        "boolean": "true or false",
        "null": "null",
    }
    return " or ".join(words.get(name, name) for name in names)


def _got(path: JsonPath, error: jsonschema.ValidationError, document: Document) -> str:
    source = document.scalars.get(path)
    if source is None:
        instance = error.instance
        if isinstance(instance, list):
            return "got a list"
        if isinstance(instance, dict):
            return "got a mapping"
        return f"got {instance!r}"
    # Every recorded scalar is a boolean, null, number, integer or date (see load._Builder).
    return (
        f"got {source.tag} {source.text!r}: YAML 1.1 reads an unquoted {source.text} as a "
        f'{source.tag}; quote it: "{source.text}"'
    )
