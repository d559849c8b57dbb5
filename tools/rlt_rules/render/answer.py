"""How a reviewer answers: the findings format (``schema/findings.schema.json``) as instructions.

The fields, their descriptions and which are required come from the schema itself, so the
instructions cannot drift from what ``rlt-rules findings check`` accepts; the short example is
checked against the schema by the tests. The review subagent and ``review-context`` both end
with these blocks.
"""

from __future__ import annotations

from typing import Any

from ..library.model import Library
from ..library.schemas import load_schema
from .code import fenced
from .digest import applicable_rules
from .inert import inert_markdown
from .links import site_base

SCHEMA_NAME = "findings.schema.json"

_EXAMPLE = """\
library_version: {version}
findings:
  - rule: {rule}{cited}
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
  - kind: outside-rules
    location:
      path: src/engine/stream.py
      start_line: 31
      end_line: 31
    trigger: |-
      `new_tokens = tokens[-count:]` with `count == 0` is the whole list, not an empty one.
    impact: |-
      A step that adds no token streams the request's whole output again.
    correction: |-
      Slice from the end's index: `tokens[len(tokens) - count:]`.
"""


def example(library: Library, *, anchored: bool = False) -> str:
    """A one-finding answer in the format, citing a rule of ``library`` (R03 if it has one)
    and (``anchored``) its first trigger by its anchor."""
    rules = applicable_rules(library)
    ids = [rule.id for rule in rules] or ["R01"]
    rule = "R03" if "R03" in ids else ids[0]
    cited = ""
    if anchored and rules:
        triggers = library.rule(rule).anchors().triggers
        cited = f"\n    trigger_anchor: {triggers[0]}" if triggers else ""
    return _EXAMPLE.format(version=library.version, rule=rule, cited=cited)


def _flag(name: str, node: dict[str, Any]) -> str:
    """``required``, ``optional``, or when a condition asks for the field,
    ``required unless `kind: outside-rules```."""
    if name in node.get("required", ()):
        return "required"
    condition = node.get("if", {})
    if name in node.get("else", {}).get("required", ()) and len(condition.get("required", ())) == 1:
        (key,) = condition["required"]
        value = condition.get("properties", {}).get(key, {}).get("const")
        if value is not None:
            return f"required unless `{key}: {value}`"
    return "optional"


def field_lines() -> list[str]:
    """One list item per field of the format, nested fields by their path (``location.path``),
    in the schema's order: ``- `rule` (required): the id of the rule …``."""
    schema = load_schema(SCHEMA_NAME)
    definitions = schema["$defs"]
    lines = _fields(schema, "", definitions)
    return [line for line in lines if not line.startswith("- `$schema`")]


def _fields(node: dict[str, Any], prefix: str, definitions: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    for name, child in node.get("properties", {}).items():
        child = _resolved(child, definitions)
        path = f"{prefix}{name}"
        item = _resolved(child.get("items", {}), definitions)
        description = " ".join(str(child.get("description", "")).split()).rstrip(".")
        description = inert_markdown(description, at_line_start=False)
        flag = _flag(name, node)
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


#: What a reviewer is told of ``trigger_anchor`` when the rules it read show the anchors
#: (all of them, or those a budget left room for).
ANCHOR_NOTE = (
    "Cite the trigger the code matches by the anchor after it (`trigger-…`), as `trigger_anchor`."
)


def answer_blocks(
    library: Library,
    site_url: str | None,
    *,
    check: str | None = None,
    level: int = 2,
    anchored: bool = False,
) -> list[str]:
    """The section telling a reviewer how to answer: what to write, every field, an example
    and (``check``) the command that checks the answer; ``anchored``: the rules listed above
    show each trigger's anchor, which a finding may cite (:data:`ANCHOR_NOTE`)."""
    blocks = [
        f"{'#' * level} How to answer",
        "Answer with one YAML document in the findings format of "
        f"{site_base(site_url)}schema/{SCHEMA_NAME} and nothing else: the library version "
        "you applied and one finding per place where the code breaks a rule, cited by its id. "
        "Report what no rule covers as `kind: outside-rules` (without `rule`): a real defect "
        "is a finding even when no rule names it; do not drop it or force it under a rule "
        "that does not fit. A change with nothing to report is `findings: []`. Report what "
        "the code does, at the lines where it does it; do not modify code to answer.",
        *([ANCHOR_NOTE] if anchored else []),
        "Fields:",
        "\n".join(field_lines()),
        "Example:",
        fenced(example(library, anchored=anchored).rstrip("\n"), "yaml"),
    ]
    if check is not None:
        blocks.append(f"The answer is checked with `{check}`: fix every problem it reports.")
    return blocks
