"""A review checklist: every rule's triggers as Markdown task items, grouped by category.

Paste it into a pull-request template. Retired rules no longer apply and are left out; a
deprecated rule's heading names its replacement.
"""

from __future__ import annotations

from ..library.model import Library, Status
from ..render.inert import InertRules, inert_library
from ..render.markdown import bullet_list, encode_blocks
from ..render.text import rule_heading

FILE_NAME = "checklist.md"


def render(library: Library) -> bytes:
    blocks = [
        f"# {library.title} review checklist",
        f"{library.title} {library.version}. Tick an item once the change has been checked for "
        "it; a condition that holds is a finding under its rule.",
    ]
    for category in library.categories:
        rules = [
            rule for rule in library.rules_in(category.id) if rule.status is not Status.RETIRED
        ]
        if not rules:
            continue
        blocks.append(f"## {category.title}")
        for rule in rules:
            heading = rule_heading(rule)
            if rule.status is Status.DEPRECATED:
                heading += f" (deprecated: see {rule.replaced_by})"
            blocks.append(f"**{heading}**")
            blocks.append(bullet_list(rule.triggers, marker="- [ ] "))
    return encode_blocks(blocks)


def files(library: Library, inert: InertRules | None = None) -> dict[str, bytes]:
    """``checklist.md``, with the library's text inert (see :mod:`rlt_rules.render.inert`)."""
    return {FILE_NAME: render(inert_library(library, inert))}
