"""The format reference page, from the JSON schemas' own titles and descriptions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..render.text import one_line
from .markup import md_text


def format_reference_page(rule_schema: Mapping[str, Any], library_schema: Mapping[str, Any]) -> str:
    """The record format, from the schemas' own titles and descriptions."""
    definitions = rule_schema.get("$defs", {})
    example = definitions["example"]
    practice = definitions.get("practiceProgram")
    categories = library_schema["properties"]["categories"]["items"]
    out = [
        "# Format reference",
        "",
        "Generated from `schema/rule.schema.json` and `schema/library.schema.json` (JSON Schema "
        "Draft 2020-12); `rlt-rules validate` checks every file against them. Editors with the "
        "YAML language server validate while you type through the first line of each file.",
        "",
        *_schema_section("##", "file: `rules/<id>.yaml`", rule_schema, rule_schema),
        *_conditions(rule_schema),
        *_schema_section("###", "entries: `examples` {#type-example}", example, rule_schema),
        *(
            _schema_section(
                "###", "entries: `practice` {#type-practiceprogram}", practice, rule_schema
            )
            if practice is not None
            else []
        ),
        *_schema_section("##", "file: `rules/library.yaml`", library_schema, library_schema),
        *_schema_section(
            "###", "entries: `categories` {#type-category}", categories, library_schema
        ),
        "## Value types",
        "",
    ]
    for name, definition in definitions.items():
        if name in ("example", "practiceProgram"):
            continue
        out += [f"### {md_text(name)} {{#type-{name.lower()}}}", ""]
        out += [md_text(definition.get("description", "")), ""]
        details = _constraints(definition)
        if details:
            out += [details, ""]
    return "\n".join(out)


def _schema_section(
    level: str, what: str, schema: Mapping[str, Any], root: Mapping[str, Any]
) -> list[str]:
    """A heading from the schema's title, its description and its property table."""
    return [
        f"{level} {md_text(schema['title'])} {what}",
        "",
        md_text(schema["description"]),
        "",
        *_property_table(schema, root),
    ]


def _property_table(schema: Mapping[str, Any], root: Mapping[str, Any]) -> list[str]:
    required = set(schema.get("required", ()))
    rows = ["| Field | Required | Value | Meaning |", "| --- | --- | --- | --- |"]
    for name, prop in schema["properties"].items():
        title = prop.get("title", name)
        meaning = f"**{md_text(title)}.** {md_text(prop.get('description', ''))}"
        rows.append(
            f"| `{name}` | {'yes' if name in required else 'no'} | "
            f"{one_line(_value_type(prop, name))} | {one_line(meaning)} |"
        )
    return [*rows, ""]


def _value_type(prop: Mapping[str, Any], name: str) -> str:
    if "$ref" in prop:
        target = prop["$ref"].rsplit("/", 1)[-1]
        return f"[{md_text(target)}](#type-{target.lower()})"
    if "enum" in prop:
        return "one of " + ", ".join(_code(str(value)) for value in prop["enum"])
    kind = prop.get("type")
    if kind == "array":
        items = prop.get("items", {})
        text = "list of " + (
            "[category](#type-category)" if name == "categories" else _value_type(items, "")
        )
        if prop.get("minItems"):
            text += f", at least {prop['minItems']}"
        if prop.get("uniqueItems"):
            text += ", no duplicates"
        return text
    constraints = _constraints(prop)
    return (md_text(str(kind)) if kind else "value") + (f"; {constraints}" if constraints else "")


def _constraints(definition: Mapping[str, Any]) -> str:
    parts = []
    if definition.get("minLength"):
        parts.append("non-empty")
    if "pattern" in definition:
        parts.append("matches " + _code(definition["pattern"]))
    if "not" in definition and "pattern" in definition["not"]:
        parts.append("must not match " + _code(definition["not"]["pattern"]))
    return ", ".join(parts)


def _conditions(schema: Mapping[str, Any]) -> list[str]:
    """``allOf`` if/then rules of the form "when FIELD is VALUE, OTHER is required"."""
    lines = []
    for clause in schema.get("allOf", ()):
        condition = clause.get("if", {}).get("properties", {})
        required = clause.get("then", {}).get("required", ())
        for field_name, test in condition.items():
            if "const" in test and required:
                needed = ", ".join(_code(name) for name in required)
                lines.append(
                    f"- When {_code(field_name)} is {_code(test['const'])}: {needed} is required."
                )
    return [*lines, ""] if lines else []


def _code(text: str) -> str:
    return f"<code>{md_text(text)}</code>"
