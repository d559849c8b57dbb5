"""A rule's page: statement first, one line of facts, triggers, impact, correction, rationale,
the examples (:mod:`.examples_section`), related rules and the way to the next one.

A page is a pure function of its :class:`RulePageInput` (the rule and what it shows of its
neighbours), so a :class:`~.cache.PageCache` that outlives a build hands back the Markdown of
every page whose input did not change.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

from ..library.model import Category, Library, Rule, Status
from ..releases import NEXT, RuleHistory
from ..render.markdown import list_item
from .cache import PageCache
from .cite import cite_marker
from .examples_section import examples_section
from .hints import hints_markdown
from .markup import (
    CHANGELOG_URI,
    SECTIONS_MARKER,
    category_uri,
    link,
    markdown,
    md_text,
    rule_label,
    rule_uri,
    with_sections,
)

#: Material's sidebars a rule page leaves out (front matter ``hide``).
RULE_PAGE_HIDES = ("navigation", "toc")
#: Material's search ranks a rule page's entries this many times higher than other pages'
#: (front matter ``search.boost``): a search on this site looks for a rule.
RULE_PAGE_SEARCH_BOOST = 2
_BLOCK_START = re.compile(r"^(```|~~~|    |\t|[-*+] |\d+[.)] |#|>|\||<)")

#: Another rule as a page names it: its id and title.
Named = tuple[str, str]


@dataclass(frozen=True, slots=True)
class RulePageInput:
    """Everything a rule's page shows: the rule, its category, and of other rules the id and
    title (its replacement, related rules, the previous and next rule in reading order)."""

    rule: Rule
    category: Category
    replacement: Named | None
    related: tuple[Named, ...]
    previous: Named | None
    following: Named | None
    history: RuleHistory | None

    @classmethod
    def of(cls, library: Library, rule: Rule, history: RuleHistory | None) -> RulePageInput:
        position = library.position(rule.id)
        rules = library.rules
        return cls(
            rule,
            library.category(rule.category),
            _named(library.rule(rule.replaced_by)) if rule.replaced_by is not None else None,
            tuple(_named(library.rule(rid)) for rid in rule.related),
            _named(rules[position - 1]) if position > 0 else None,
            _named(rules[position + 1]) if position + 1 < len(rules) else None,
            history,
        )


def _named(rule: Rule) -> Named:
    return (rule.id, rule.title)


@dataclass(frozen=True, slots=True)
class RulePageText:
    """A rule page's Markdown with :data:`~.markup.SECTIONS_MARKER` where its examples go, and
    the examples section (rendered on its own: :mod:`.sections`)."""

    markdown: str
    sections: tuple[str, ...]


def rule_page(
    library: Library,
    rule: Rule,
    history: RuleHistory | None = None,
    cache: PageCache | None = None,
) -> str:
    """A rule's page: everything the model holds about it, in reading order."""
    text = rule_page_text(library, rule, history, cache)
    return with_sections(text.markdown, text.sections)


def rule_page_text(
    library: Library,
    rule: Rule,
    history: RuleHistory | None = None,
    cache: PageCache | None = None,
) -> RulePageText:
    """:func:`rule_page` with its examples apart."""
    cache = cache or PageCache()
    return cache.rule_pages.get(
        RulePageInput.of(library, rule, history), lambda page: _rule_page(page, cache)
    )


def _examples(rule: Rule, cache: PageCache) -> tuple[str, ...]:
    return cache.examples.get(
        (rule.id, rule.examples), lambda key: examples_section(rule, cache.markers)
    )


def _label(named: Named) -> str:
    rule_id, title = named
    return f"{rule_id} — {md_text(title)}"


def _rule_page(page: RulePageInput, cache: PageCache) -> RulePageText:
    rule, category = page.rule, page.category
    here = rule_uri(rule.id)
    # Rule pages are not in the navigation: its sidebar gives way to the examples, side by side.
    out: list[str] = ["---", "hide:", *(f"  - {part}" for part in RULE_PAGE_HIDES)]
    out += ["search:", f"  boost: {RULE_PAGE_SEARCH_BOOST}"]
    if rule.tags:
        out += ["tags:", *(f"  - {tag}" for tag in rule.tags)]
    out += ["---", "", f"# {rule_label(rule)}", ""]
    out += _status_notice(page)
    # The statement opens the page (and its search preview); the facts fit on one line.
    facts = [
        f"**Category:** [{md_text(category.title)}]({link(here, category_uri(category.id))})",
        f'**Status:** <span class="rlt-status rlt-status--{rule.status}">{rule.status}</span>',
        *_history_facts(page.history, rule, here),
    ]
    anchors = rule.anchors()

    def cited(kind: str, text: str, anchor: str) -> str:
        return cite_marker(rule.id, kind, text, anchor, target=True)

    out += [
        markdown(rule.statement),
        "",
        _seed_example(rule.seed_example),
        "",
        '<p class="rlt-facts" markdown="span">' + " · ".join(facts) + "</p>",
        "",
        *_search_terms(rule),
        "## When it applies",
        "",
        "A reviewer can spot these in a diff:",
        "",
        *_list(
            [
                cited("trigger", text, anchor) + " " + markdown(text, at_line_start=False)
                for text, anchor in zip(rule.triggers, anchors.triggers, strict=True)
            ]
        ),
        "",
        "## Impact",
        "",
        cited("impact", rule.impact, anchors.impact),
        "",
        markdown(rule.impact),
        "",
        "## Correction",
        "",
        cited("correction", rule.correction, anchors.correction),
        "",
        markdown(rule.correction),
        "",
        "## Rationale",
        "",
        markdown(rule.rationale),
        "",
    ]
    out += hints_markdown(rule, cache)
    sections: tuple[str, ...] = ()
    if rule.examples:
        sections = ("\n".join(_examples(rule, cache)) + "\n",)
        out += [SECTIONS_MARKER, ""]
    if page.related:
        out += ["## Related rules", ""]
        out += [f"- [{_label(named)}]({link(here, rule_uri(named[0]))})" for named in page.related]
        out.append("")
    out += ["---", "", _reading_links(page), ""]
    return RulePageText("\n".join(out), sections)


def _search_terms(rule: Rule) -> list[str]:
    """How reviewers name the rule's code, as plain text in the page's first search entry."""
    if not rule.search_terms:
        return []
    terms = " · ".join(md_text(term) for term in rule.search_terms)
    return [f'<p class="rlt-terms" markdown="span">**Also searched as:** {terms}</p>', ""]


def _history_facts(history: RuleHistory | None, rule: Rule, here: str) -> list[str]:
    """ "Added in" (and "changed in") from the release history, linked to the changelog; a rule
    no release has published yet shows its ``since``."""
    if history is None or history.added_in is None:
        if rule.since == NEXT:
            return ["**Added in:** not released yet"]
        return [f"**Added in:** {md_text(rule.since)} (not released yet)"]
    changelog = link(here, CHANGELOG_URI)
    facts = [f"**Added in:** [{history.added_in}]({changelog}#{_anchor(history.added_in)})"]
    if history.changed_in:
        changed = ", ".join(f"[{v}]({changelog}#{_anchor(v)})" for v in history.changed_in)
        facts.append(f"**Changed in:** {changed}")
    return facts


def _anchor(version: str) -> str:
    """The toc extension's id for a ``## 1.0.0`` heading."""
    return version.replace(".", "")


def _reading_links(page: RulePageInput) -> str:
    """Previous and next rule in reading order, and the way back to the category."""
    here = rule_uri(page.rule.id)
    category = page.category
    parts = []
    if page.previous is not None:
        target = link(here, rule_uri(page.previous[0]))
        parts.append(f"[← {_label(page.previous)}]({target})")
    parts.append(f"[{md_text(category.title)}]({link(here, category_uri(category.id))})")
    if page.following is not None:
        target = link(here, rule_uri(page.following[0]))
        parts.append(f"[{_label(page.following)} →]({target})")
    return (
        '<nav class="rlt-reading" aria-label="Reading order" markdown="span">'
        + " · ".join(parts)
        + "</nav>"
    )


def _status_notice(page: RulePageInput) -> list[str]:
    rule = page.rule
    here = rule_uri(rule.id)
    replacement = ""
    if page.replacement is not None:
        target = link(here, rule_uri(page.replacement[0]))
        replacement = f"[{_label(page.replacement)}]({target})"
    if rule.status is Status.DEPRECATED:
        body = (
            f"This rule is deprecated: apply {replacement} instead. "
            f"It stays published so that findings citing {rule.id} keep their meaning."
        )
        return ['!!! warning "Deprecated"', "", _indent(body), ""]
    if rule.status is Status.RETIRED:
        out = ['!!! danger "Retired"', "", _indent("This rule no longer applies."), ""]
        if rule.retired_reason:
            out += [_indent(markdown(rule.retired_reason)), ""]
        if replacement:
            out += [_indent(f"Its replacement is {replacement}."), ""]
        out += [_indent(f"The id {rule.id} stays reserved and is never reused."), ""]
        return out
    return []


def _seed_example(seed: str) -> str:
    """The authors' example, introduced as the seed does: inline unless it opens with a block."""
    if _BLOCK_START.match(seed):
        return f"**Example:**\n\n{markdown(seed)}"
    return f"**Example:** {markdown(seed, at_line_start=False)}"


def _indent(text: str) -> str:
    return textwrap.indent(text, "    ")


def _list(items: list[str]) -> list[str]:
    """Markdown lines of a bulleted list of ``items``. An item of several paragraphs makes the
    list loose, a blank line after each item: without it Python-Markdown reads the next item's
    bullet as a line of the paragraph before it, and two triggers become one."""
    bullets = [list_item(item, "-   ") for item in items]
    if not any("\n" in item for item in items):
        return bullets
    return [line for bullet in bullets for line in (bullet, "")]
