"""Mentions of an example's name in prose link to the example.

Rule text names a pair by its ``name`` in a code span ("see `worker-result-after-resume`"). After
a page is rendered, each code span whose whole text is the name of an example pair becomes a
link to that pair's heading on its rule page (``#name`` on the rule page itself). The link is
built from the library's own names and ids only, never from the page's markup: a name is a
slug, the anchor is the toc extension's id of the pair's heading. Code in blocks, headings and
existing links is left as it is.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from markdown.extensions.toc import slugify

from ..library.model import Library
from ..library.pairs import pairs_of
from .markup import href, rule_uri
from .titles import pair_heading

#: A code span holding only what a pair name can be, or a tag that opens or closes a place
#: where a link must not go (a link, a code block, a heading).
_TOKEN = re.compile(
    r"<code>(?P<name>[a-z0-9][a-z0-9-]*)</code>|<(?P<close>/?)(?P<tag>a|pre|h[1-6])\b[^>]*>"
)


@dataclass(frozen=True, slots=True)
class ExampleTarget:
    """Where a pair is shown: its rule and the id of its heading on the rule page."""

    rule_id: str
    anchor: str


def pair_anchor(heading: str) -> str:
    """The toc extension's id for a pair's heading (Markdown text): its text, code marks
    dropped, slugified."""
    return slugify(heading.replace("`", ""), "-")


def example_targets(library: Library) -> dict[str, tuple[ExampleTarget, ...]]:
    """Every pair name of the library, with each rule that has a pair of that name."""
    targets: dict[str, list[ExampleTarget]] = {}
    for rule in library.rules:
        for pair in pairs_of(rule):
            target = ExampleTarget(rule.id, pair_anchor(pair_heading(pair)))
            targets.setdefault(pair.name, []).append(target)
    return {name: tuple(found) for name, found in targets.items()}


def link_example_names(
    page_html: str,
    page_uri: str,
    targets: dict[str, tuple[ExampleTarget, ...]],
    *,
    directory_urls: bool = True,
) -> str:
    """``page_html`` with each prose code span naming a pair turned into a link to it.

    A name that two rules use links to the page's own rule's pair on a rule page, and is left
    as text elsewhere (which one is meant is not known)."""
    if not targets or "<code>" not in page_html:
        return page_html
    out: list[str] = []
    position = 0
    closed_depth = 0  # inside how many links, code blocks and headings
    for match in _TOKEN.finditer(page_html):
        if match.group("tag") is not None:
            closed_depth += -1 if match.group("close") else 1
            closed_depth = max(closed_depth, 0)
            continue
        name = match.group("name")
        if closed_depth or name not in targets:
            continue
        target = _target(targets[name], page_uri)
        if target is None:
            continue
        here = rule_uri(target.rule_id) == page_uri
        page = (
            "" if here else href(page_uri, rule_uri(target.rule_id), directory_urls=directory_urls)
        )
        url = html.escape(f"{page}#{target.anchor}")
        out += [page_html[position : match.start()], f'<a href="{url}">', match.group(0), "</a>"]
        position = match.end()
    out.append(page_html[position:])
    return "".join(out)


def _target(found: tuple[ExampleTarget, ...], page_uri: str) -> ExampleTarget | None:
    if len(found) == 1:
        return found[0]
    own = [target for target in found if rule_uri(target.rule_id) == page_uri]
    return own[0] if own else None
