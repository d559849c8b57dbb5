"""Hand-written pages (``site/``) with parts from the model: ``<!-- rlt:NAME -->`` lines.

Each marker line becomes generated Markdown (:data:`MARKERS`): the library's summary, the
preamble, the reading path, the tags listing (:mod:`.tags`). An unknown name is left as it is
and reported, which fails a strict build.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

from ..library.model import Library, Status, id_span
from .markup import category_uri, count_rules, link, markdown, md_text, rule_label, rule_uri
from .tags import TAGS_MARKER, tags_markdown

_MARKER = re.compile(r"^<!--\s*rlt:([a-z-]+)\s*-->[ \t]*$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Filled:
    """A hand-written page's Markdown with its markers filled; the names it used that exist
    and those that do not."""

    markdown: str
    used: frozenset[str]
    unknown: tuple[str, ...]


def fill_markers(markdown: str, library: Library, page_uri: str) -> Filled:
    """Replace ``<!-- rlt:NAME -->`` lines with generated Markdown."""
    used: set[str] = set()
    unknown: list[str] = []

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        render = MARKERS.get(name)
        if render is None:
            unknown.append(name)
            return match.group(0)
        used.add(name)
        return render(library, page_uri)

    if "rlt:" not in markdown:
        return Filled(markdown, frozenset(), ())
    filled = _MARKER.sub(replace, markdown)
    return Filled(filled, frozenset(used), tuple(unknown))


def _library_summary(library: Library, page_uri: str) -> str:
    return (
        f"**{md_text(library.title)} — {md_text(library.subtitle)}**, version "
        f"{md_text(library.version)}: {count_rules(len(library.rules))} in "
        f"{len(library.categories)} categories."
    )


def _preamble(library: Library, page_uri: str) -> str:
    """The preamble's paragraphs, quoted: they are the authors' words."""
    return "\n>\n".join(
        textwrap.indent(markdown(paragraph), "> ", lambda line: True)
        for paragraph in library.preamble
    )


def _reading_path(library: Library, page_uri: str) -> str:
    out: list[str] = []
    for number, category in enumerate(library.categories, start=1):
        rules = library.rules_in(category.id)
        target = link(page_uri, category_uri(category.id))
        out.append(
            f"{number}.  **[{md_text(category.title)}]({target})** — "
            f"{count_rules(len(rules))}, {id_span([rule.id for rule in rules])}"
        )
        out.append("")
        for rule in rules:
            note = "" if rule.status is Status.ACTIVE else f" *({rule.status})*"
            out.append(f"    - [{rule_label(rule)}]({link(page_uri, rule_uri(rule.id))}){note}")
        out.append("")
    return "\n".join(out)


#: The markers hand-written pages may use, and what each becomes.
MARKERS: dict[str, Callable[[Library, str], str]] = {
    "library-summary": _library_summary,
    "preamble": _preamble,
    "reading-path": _reading_path,
    TAGS_MARKER: tags_markdown,
}
