"""The Learn path: one lesson per category, in the library's order, each followed by practice.

A lesson (:func:`lesson_page`) opens with what goes wrong in the engine when its category is
ignored (the category's ``what_goes_wrong``), then gives each taught rule its statement and one
worked pair: the bad example's explanation, the diff to the good program and the two outputs
side by side. It ends with links to its practice and to the next lesson.

Practice pages (:func:`practice_page`) hold no item themselves: ``site/js/practice.js`` loads
the items of :mod:`.practice` from JSON files beside them (:func:`generated_files`) and asks,
for each program, which rule it breaks: first the practice bank's programs, written for
practice and shown nowhere else, then each pair's bad program. There is one page per category
and one with every item; each shuffles the bank's items and the pairs' apart by the ``seed`` in
its address.

The hook adds :func:`generated_pages` and :func:`generated_files` to the build and the lessons
to the nav after ``learn/index.md`` (:func:`.nav.add_lessons_to_nav`). Rule text reaches these
pages only through :func:`~rlt_rules.site.pages.markdown`, :func:`md_text` and fenced code.
"""

from __future__ import annotations

import html
import posixpath
import textwrap

from ..library.model import Category, Library, Rule, Status, id_span
from ..library.pairs import ExamplePair, pairs_of
from ..render.code import fenced
from ..render.inert import md_text
from ..render.text import expected_output
from .cache import PageCache
from .examples_section import CHANGES_TITLE, differing_lines, split_output
from .markup import (
    SECTIONS_MARKER,
    GeneratedPage,
    href,
    link,
    markdown,
    page_url,
    rule_label,
    rule_uri,
)
from .practice import PracticeItem, items_json, practice_items, taught_rules
from .titles import md_title, pair_heading

LEARN_URI = "learn/index.md"
#: The hand-written page (site/learn/engine.md) naming the components every example uses.
ENGINE_URI = "learn/engine.md"
#: Every item of the library, shuffled: the last step of the path.
PRACTICE_URI = "learn/practice/index.md"
#: The nav title of :data:`PRACTICE_URI`.
PRACTICE_ALL_TITLE = "Practice: every rule"
#: Category ids that would make a lesson or practice page collide with an index page.
_RESERVED = frozenset({"index", "practice"})


def _slug(category_id: str) -> str:
    # "_" is not allowed in a category id: "index_" cannot be another category's slug.
    return f"{category_id}_" if category_id in _RESERVED else category_id


def lesson_uri(category_id: str) -> str:
    return f"learn/{_slug(category_id)}.md"


def practice_uri(category_id: str) -> str:
    return f"learn/practice/{_slug(category_id)}.md"


def items_uri(category_id: str) -> str:
    """The JSON file of a category's practice items, beside the practice pages."""
    return f"learn/practice/{_slug(category_id)}.json"


def lesson_title(library: Library, category: Category) -> str:
    """``1. Responsibilities and State`` as plain text (the nav title)."""
    return f"{_number(library, category)}. {category.title}"


def practice_title(category: Category) -> str:
    """``Practice: Responsibilities and State`` as plain text (the nav title)."""
    return f"Practice: {category.title}"


def _number(library: Library, category: Category) -> int:
    return library.categories.index(category) + 1


def generated_pages(
    library: Library, *, directory_urls: bool = True, cache: PageCache | None = None
) -> tuple[GeneratedPage, ...]:
    """The overview, a lesson and its practice page per category, and the practice of every
    item, all in the nav (each practice after its lesson).

    ``directory_urls`` is MkDocs' ``use_directory_urls``: a practice page names its JSON files
    by URL (see :func:`practice_page`). ``cache`` keeps the practice items and the lessons'
    rule sections for the next build (a live preview generates every lesson again)."""
    cache = cache or PageCache()
    source = library.source.path if library.source is not None else None
    by_category = items_by_category(library, cache)
    total = sum(len(items) for items in by_category.values())
    pages = [
        GeneratedPage(LEARN_URI, overview_page(library, by_category), in_nav=True, source=source)
    ]
    for category in library.categories:
        count = len(by_category[category.id])
        pages.append(
            GeneratedPage(
                lesson_uri(category.id),
                lesson_page(library, category, count),
                in_nav=True,
                source=source,
                sections=lesson_sections(library, category, cache),
            )
        )
        pages.append(
            GeneratedPage(
                practice_uri(category.id),
                practice_page(library, category, count, directory_urls=directory_urls),
                in_nav=True,
                source=source,
            )
        )
    pages.append(
        GeneratedPage(
            PRACTICE_URI,
            practice_page(library, None, total, directory_urls=directory_urls),
            in_nav=True,
            source=source,
        )
    )
    return tuple(pages)


def generated_files(
    library: Library, *, directory_urls: bool = True, cache: PageCache | None = None
) -> dict[str, str]:
    """The practice items, one JSON file per category (:func:`items_uri`). Their rule links are
    relative to the file, which the page's script resolves against the file's own URL."""
    cache = cache or PageCache()
    by_category = items_by_category(library, cache)

    def rule_url(rule_id: str) -> str:
        # PRACTICE_URI's page is in the folder of the JSON files, with or without directory URLs.
        return href(PRACTICE_URI, rule_uri(rule_id), directory_urls=directory_urls)

    return {
        items_uri(category.id): items_json(library, by_category[category.id], rule_url, cache)
        for category in library.categories
    }


def items_by_category(library: Library, cache: PageCache) -> dict[str, tuple[PracticeItem, ...]]:
    """Each category's practice items, in reading order: made once per build, kept in
    ``cache`` (the pages and the files ask)."""

    def group(library: Library) -> dict[str, tuple[PracticeItem, ...]]:
        grouped: dict[str, list[PracticeItem]] = {c.id: [] for c in library.categories}
        for item in practice_items(library, cache):
            grouped[item.rule.category].append(item)
        return {category: tuple(items) for category, items in grouped.items()}

    return cache.practice_items.get(library, group)


# --- the overview ---------------------------------------------------------------------------


def overview_page(library: Library, by_category: dict[str, tuple[PracticeItem, ...]]) -> str:
    here = LEARN_URI
    total = sum(len(items) for items in by_category.values())
    out = [
        "# Learn",
        "",
        "A path through the library for a new team member: one lesson per category, in the "
        "library's order, each followed by practice. A lesson says what goes wrong in the "
        "engine when its category is ignored, gives each rule's statement and works through "
        "one pair per rule: the diff from the bad program to the good one and what each "
        "prints. The practice then shows programs as you would meet them in a diff, without "
        "markers or explanation, and asks which rule each one breaks: first programs written "
        "for practice, which break each rule somewhere the lessons did not go, then the "
        "lessons' own bad programs.",
        "",
        "Each lesson stands on its own; read them in order the first time.",
        "",
        f"Every example is a piece of one serving engine: [The engine in the examples]"
        f"({link(here, ENGINE_URI)}) names its components, the state each one owns and the "
        "operations it offers.",
        "",
    ]
    taught = taught_rules(library)
    for category in library.categories:
        rules = [rule for rule in taught if rule.category == category.id]
        items = len(by_category[category.id])
        out += [
            f"{_number(library, category)}.  **[{md_text(category.title)}]"
            f"({link(here, lesson_uri(category.id))})**: "
            f"{_count(len(rules), 'rule')} ({id_span([rule.id for rule in rules])}), "
            f"[{_count(items, 'practice item')}]({link(here, practice_uri(category.id))})",
            "",
        ]
        if category.what_goes_wrong:
            # The lessons are left out of search (their rules' pages hold the same words):
            # this is where search finds what goes wrong.
            out += [textwrap.indent(markdown(category.what_goes_wrong), "    "), ""]
    out += [
        f"Then [practise every rule]({link(here, PRACTICE_URI)}): all {total} items, shuffled. "
        "Your answers are kept in this browser only.",
        "",
    ]
    return "\n".join(out)


def _count(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


# --- lessons -------------------------------------------------------------------------------


def lesson_page(library: Library, category: Category, item_count: int) -> str:
    """A category's lesson: what goes wrong, then each taught rule with one worked pair (the
    :func:`lesson_sections`, rendered each on its own, at :data:`SECTIONS_MARKER`)."""
    here = lesson_uri(category.id)
    number = _number(library, category)
    taught = [rule for rule in taught_rules(library) if rule.category == category.id]
    others = [rule for rule in library.rules_in(category.id) if rule.status is not Status.ACTIVE]
    out = [
        # Left out of search: every word but what goes wrong (on the overview) is on the
        # rules' own pages, and a lesson is the largest page a rule edit renders again.
        "---",
        "search:",
        "  exclude: true",
        "---",
        "",
        f"# Lesson {number}: {md_text(category.title)}",
        "",
        f'<p class="rlt-facts" markdown="span">Lesson {number} of {len(library.categories)} · '
        f"{_count(len(taught), 'rule')}, {id_span([rule.id for rule in taught])} · "
        f"[practice: {_count(item_count, 'item')}]({link(here, practice_uri(category.id))})</p>",
        "",
    ]
    if category.what_goes_wrong:
        out += ["## What goes wrong", "", markdown(category.what_goes_wrong), ""]
    if not taught:
        out += ["This category has no active rule to learn.", ""]
    if taught:
        out += [SECTIONS_MARKER, ""]
    if others:
        listed = ", ".join(
            f"[{rule_label(rule)}]({link(here, rule_uri(rule.id))}) ({rule.status})"
            for rule in others
        )
        out += [f"Also in this category, not taught here: {listed}.", ""]
    out += ["## Practice", "", *_lesson_end(library, category, item_count), ""]
    return "\n".join(out)


def lesson_sections(
    library: Library, category: Category, cache: PageCache | None = None
) -> tuple[str, ...]:
    """Each taught rule's section of the category's lesson, as Markdown; ``cache`` keeps each
    for the next build."""
    sections = (cache or PageCache()).lesson_sections
    here = lesson_uri(category.id)
    taught = [rule for rule in taught_rules(library) if rule.category == category.id]
    return tuple("\n".join(sections.get((here, rule), _rule_section)) + "\n" for rule in taught)


def _rule_section(key: tuple[str, Rule]) -> tuple[str, ...]:
    """A rule in its lesson (``key``: the lesson's URI and the rule): statement, worked pair,
    link. A function of the rule only, so kept for the next build (a live preview generates
    every lesson again to find the changed ones)."""
    here, rule = key
    out = [f"## {rule_label(rule)}", "", markdown(rule.statement), ""]
    pairs = pairs_of(rule)
    page = link(here, rule_uri(rule.id))
    if pairs:
        out += _worked_pair(rule, pairs[0])
    if pairs:
        more = f", and {_count(len(pairs) - 1, 'more pair')}" if len(pairs) > 1 else ""
        shown = f"both programs{more}"
    else:
        shown = "its examples"
    out += [f"[{rule.id} in full: triggers, impact, correction, {shown}]({page})", ""]
    return tuple(out)


def _worked_pair(rule: Rule, pair: ExamplePair) -> list[str]:
    """The pair's bad explanation, the diff bad → good, both outputs, the good explanation."""
    bad_output, good_output = expected_output(pair.bad.code), expected_output(pair.good.code)
    bad_changed, good_changed = differing_lines(bad_output, good_output)
    diff = "\n".join(pair.diff())
    name = html.escape(pair.name)
    out = [
        f'<div class="rlt-worked" data-pair="{name}" markdown="1">',
        "",
        f"**Worked pair: {md_text(pair_heading(pair))}.** "
        f'<span class="rlt-kind-label">Bad:</span> {md_title(pair.bad.title)}',
        "",
        markdown(pair.bad.explanation),
        "",
    ]
    if diff:
        out += [
            '<div class="rlt-diff" markdown="1">',
            "",
            fenced(diff, "diff", title=f"{CHANGES_TITLE}: bad → good"),
            "",
            "</div>",
            "",
        ]
    else:
        out += ["The two programs are the same; only their output differs.", ""]
    out += ['<div class="rlt-outputs" markdown="1">', ""]
    for kind, example, changed in (
        ("Bad", pair.bad, bad_changed),
        ("Good", pair.good, good_changed),
    ):
        _, output = split_output(example.code)
        shown = (
            fenced(output, "text", title=f"{kind} program prints", hl_lines=changed)
            if output
            else f"*The {kind.lower()} program prints nothing.*"
        )
        out += [f'<div class="rlt-output rlt-output--{kind.lower()}" markdown="1">', "", shown]
        out += ["", "</div>", ""]
    out += [
        "</div>",
        "",
        f'<span class="rlt-kind-label">Good:</span> **{md_title(pair.good.title)}.** '
        + markdown(pair.good.explanation, at_line_start=False),
        "",
        "</div>",
        "",
    ]
    return out


def _lesson_end(library: Library, category: Category, item_count: int) -> list[str]:
    here = lesson_uri(category.id)
    parts = [
        f"[Spot the rule: {_count(item_count, 'program')} on this lesson's rules →]"
        f"({link(here, practice_uri(category.id))})"
    ]
    following = _following(library, category)
    if following is not None:
        parts.append(
            f"[Next lesson: {md_text(lesson_title(library, following))} →]"
            f"({link(here, lesson_uri(following.id))})"
        )
    else:
        parts.append(f"[Last step: practise every rule →]({link(here, PRACTICE_URI)})")
    return [
        '<nav class="rlt-reading rlt-next" aria-label="Next steps" markdown="span">'
        + " · ".join(parts)
        + "</nav>"
    ]


def _following(library: Library, category: Category) -> Category | None:
    position = library.categories.index(category)
    return library.categories[position + 1] if position + 1 < len(library.categories) else None


# --- practice pages -----------------------------------------------------------------------


def practice_page(
    library: Library, category: Category | None, item_count: int, *, directory_urls: bool = True
) -> str:
    """A practice page: the container ``practice.js`` fills from the items' JSON files.

    ``category`` None: every item of the library (:data:`PRACTICE_URI`)."""
    here = PRACTICE_URI if category is None else practice_uri(category.id)
    categories = library.categories if category is None else (category,)
    title = "every rule" if category is None else md_text(category.title)
    files = " ".join(
        _file_url(here, items_uri(c.id), directory_urls=directory_urls) for c in categories
    )
    out = [
        "---",
        "search:",
        "  exclude: true",
        "---",
        "",
        f"# Practice: {title}",
        "",
        f"{_count(item_count, 'program')} as you would meet them in a diff: no marker, no "
        "explanation. Programs written for practice come first, each a rule broken somewhere "
        "the lessons did not go; the lessons' own bad programs follow. Choose the rule each "
        "one breaks; the answer shows the lines that break it and why (and, for a lesson's "
        "program, the diff that corrects it). The order is kept in the page address, so a "
        "link shares it. Your answers are kept in this browser only.",
        "",
        f'<div class="rlt-practice" data-rlt-practice data-rlt-items="{html.escape(files)}">',
        '<p class="rlt-practice__loading">Loading the programs…</p>',
        "<noscript><p>The practice needs JavaScript; each rule's page shows its programs."
        "</p></noscript>",
        "</div>",
        "",
        *_practice_end(library, category),
        "",
    ]
    return "\n".join(out)


def _practice_end(library: Library, category: Category | None) -> list[str]:
    here = PRACTICE_URI if category is None else practice_uri(category.id)
    if category is None:
        parts = [f"[← The lessons]({link(here, LEARN_URI)})"]
    else:
        parts = [
            f"[← Lesson {_number(library, category)}: {md_text(category.title)}]"
            f"({link(here, lesson_uri(category.id))})"
        ]
        following = _following(library, category)
        if following is not None:
            parts.append(
                f"[Next lesson: {md_text(lesson_title(library, following))} →]"
                f"({link(here, lesson_uri(following.id))})"
            )
        else:
            parts.append(f"[Practise every rule →]({link(here, PRACTICE_URI)})")
    return [
        '<nav class="rlt-reading rlt-next" aria-label="Next steps" markdown="span">'
        + " · ".join(parts)
        + "</nav>"
    ]


def _file_url(page_uri: str, file_uri: str, *, directory_urls: bool) -> str:
    """A file's URL relative to the URL of a page (which, with directory URLs, is a folder)."""
    folder = posixpath.dirname(page_url(page_uri, directory_urls=directory_urls))
    return posixpath.relpath(file_uri, folder or ".")
