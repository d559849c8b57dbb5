"""An Agent Skill (``SKILL.md``) that teaches a review agent the whole library.

Front matter per the Agent Skills format (``name``: lowercase letters, digits and single
hyphens, at most 64 characters; ``description``: what the skill is and when to use it, at most
1024 characters), then the library in the seed's order and words, each rule followed by its
triggers, impact and correction. Drop the folder into an agent's skills folder as
``<name>/SKILL.md``.
"""

from __future__ import annotations

import re

from ..library.model import Library
from ..render.inert import InertRules, inert_library
from ..render.markdown import encode_blocks, encoded_library, library_blocks
from ..render.yaml_text import yaml_text

FILE_NAME = "SKILL.md"
MAX_NAME = 64
MAX_DESCRIPTION = 1024


def skill_name(library: Library) -> str:
    """The library title as a skill name: ``Rlt Refactor`` -> ``rlt-refactor``."""
    name = re.sub(r"[^a-z0-9]+", "-", library.title.lower()).strip("-")
    return name[:MAX_NAME].rstrip("-")


def skill_description(library: Library) -> str:
    """What the skill is and when to use it, in two sentences."""
    categories = "; ".join(category.title for category in library.categories)
    text = (
        f"{library.title} {library.version} ({library.subtitle}): {len(library.rules)} rules "
        f"({library.id_span()}) on {categories}. Use when reviewing or refactoring code "
        "changes, to find, explain and correct violations, citing each finding by its stable "
        "rule id."
    )
    return text[:MAX_DESCRIPTION]


def front_matter(library: Library) -> str:
    data = {"name": skill_name(library), "description": skill_description(library)}
    dumped = yaml_text(data, width=10_000)
    return f"---\n{dumped}---\n"


def render(library: Library, notice: str | None = None, inert: InertRules | None = None) -> bytes:
    """``SKILL.md``: front matter, then the library with each rule's guidance (after
    ``notice``, a paragraph saying where the file comes from, when given). The library is
    printed as given, unless ``inert`` is given: then it is made inert with it."""
    shown = library if inert is None else inert_library(library, inert)
    prefix = front_matter(shown) + "\n" + (f"{notice}\n\n" if notice else "")
    if inert is None:
        return encode_blocks(library_blocks(library, full=False), prefix=prefix)
    return encoded_library(library, shown, inert, full=False, prefix=prefix)


def files(library: Library, inert: InertRules | None = None) -> dict[str, bytes]:
    """``SKILL.md``, with the library's text inert (raw HTML shows as text: see
    :mod:`rlt_rules.render.inert`)."""
    return {FILE_NAME: render(library, inert=inert or InertRules())}
