"""How a reviewer answers: the findings format (``schema/findings.schema.json``) as instructions.

The fields, their descriptions and which are required come from the schema itself, so the
instructions cannot drift from what ``rlt-rules findings check`` accepts; the short example is
checked against the schema by the tests. The review subagent and ``review-context`` both end
with these blocks.
"""

from __future__ import annotations

from typing import Any

from ..model import Library
from ..schemas import load_schema
from .code import fenced
from .digest import applicable_rules
from .inert import inert_markdown
from .links import site_base

SCHEMA_NAME = "findings.schema.json"

_EXAMPLE = """\
library_version: {version}
findings:
  - rule: {rule}
    severity: error
    location:
      path: src/engine/scheduler.py
      start_line: 57
      end_line: 62
    trigger: |-
      `build_batch()` keeps its selection in `self.selected`, and only `step()` clears it.
    impact: |-
      `admit_urgent()` runs between batches and still protects the previous batch's requests.
    correction: |-
      Make the selection a local of `build_batch()` and pass it on as an argument.
"""


def example(library: Library) -> str:
    """A one-finding answer in the format, citing a rule of ``library`` (R03 if it has one)."""
    ids = [rule.id for rule in applicable_rules(library)] or ["R01"]
    rule = "R03" if "R03" in ids else ids[0]
    return _EXAMPLE.format(version=library.version, rule=rule)


def field_lines() -> list[str]:
    """One list item per field of the format, nested fields by their path (``location.path``),
    in the schema's order: ``- `rule` (required): the id of the rule …``."""
    schema = load_schema(SCHEMA_NAME)
    definitions = schema["$defs"]
    lines = _fields(schema, "", definitions)
    return [line for line in lines if not line.startswith("- `$schema`")]


def _fields(node: dict[str, Any], prefix: str, definitions: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    required = set(node.get("required", ()))
    for name, child in node.get("properties", {}).items():
        child = _resolved(child, definitions)
        path = f"{prefix}{name}"
        item = _resolved(child.get("items", {}), definitions)
        description = " ".join(str(child.get("description", "")).split()).rstrip(".")
        description = inert_markdown(description, at_line_start=False)
        flag = "required" if name in required else "optional"
        if "enum" in child:
            description += f" (one of {', '.join(child['enum'])})"
        lines.append(f"- `{path}` ({flag}): {description}.")
        if "properties" in child:
            lines.extend("  " + line for line in _fields(child, f"{path}.", definitions))
        elif "properties" in item:
            lines.extend("  " + line for line in _fields(item, f"{path}[].", definitions))
    return lines


def _resolved(node: dict[str, Any], definitions: dict[str, Any]) -> dict[str, Any]:
    reference = node.get("$ref", "")
    if reference.startswith("#/$defs/"):
        return definitions[reference.removeprefix("#/$defs/")]
    return node


def answer_blocks(
    library: Library, site_url: str | None, *, check: str | None = None, level: int = 2
) -> list[str]:
    """The section telling a reviewer how to answer: what to write, every field, an example
    and (``check``) the command that checks the answer."""
    blocks = [
        f"{'#' * level} How to answer",
        "Answer with one YAML document in the findings format of "
        f"{site_base(site_url)}schema/{SCHEMA_NAME} and nothing else: the library version "
        "you applied and one finding per place where the code breaks a rule, cited by its id. "
        "A change that breaks no rule is `findings: []`. Report what the code does, at the "
        "lines where it does it; do not modify code to answer.",
        "Fields:",
        "\n".join(field_lines()),
        "Example:",
        fenced(example(library).rstrip("\n"), "yaml"),
    ]
    if check is not None:
        blocks.append(f"The answer is checked with `{check}`: fix every problem it reports.")
    return blocks
