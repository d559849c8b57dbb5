"""The pages that list rules: the filterable index (all rules) and one page per category.

The index page's table is an HTML insert (:class:`~.markup.GeneratedPage`): a title edit renders
the page again, and at 1,000 rules Markdown took half a second over the rows as Markdown, and
still a quarter as raw HTML. What the index's text filter matches is a file beside it
(:func:`index_filter_text`), so that a statement edit leaves the index page as it is.
"""

from __future__ import annotations

import html
import json
import posixpath
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from ..library.model import Library, Rule, Status, id_span
from ..render.text import one_line
from .cache import PageCache
from .markup import (
    INDEX_TEXT_URI,
    INDEX_URI,
    SECTIONS_MARKER,
    category_uri,
    count_rules,
    href,
    html_marker,
    link,
    markdown,
    md_text,
    rule_label,
    rule_uri,
)

#: The index page's table: an HTML insert (see :class:`~.markup.GeneratedPage`).
INDEX_TABLE = "index-table"
_JSON_MARKUP_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})


def index_page(
    library: Library, *, directory_urls: bool = True, cache: PageCache | None = None
) -> tuple[str, str]:
    """Every rule in one table, with the filter controls that ``rules-index.js`` drives: the
    page's Markdown, and the table as HTML (the insert :data:`INDEX_TABLE`).

    The table is not Markdown: a title edit renders this page again, and at 1,000 rules
    Markdown took half a second over the rows as Markdown, and still a quarter as raw HTML.
    The page is left out of the search index: every row repeats a rule page's title, which
    search already finds.
    """
    tags = sorted({tag for rule in library.rules for tag in rule.tags})
    statuses = Counter(rule.status for rule in library.rules)

    def options(label: str, values: Iterable[tuple[str, str]]) -> str:
        items = [f'<option value="">{html.escape(label)}</option>']
        items += [
            f'<option value="{html.escape(value)}">{html.escape(text)}</option>'
            for value, text in values
        ]
        return "".join(items)

    controls = [
        '<form class="rlt-filter" data-rlt-filter role="search" onsubmit="return false">',
        '<input type="search" name="filter" autocomplete="off" '
        'placeholder="Filter by id, title, tag, statement or trigger" aria-label="Filter rules">',
        '<select name="category" aria-label="Category">'
        + options(
            "All categories",
            ((c.id, f"{c.title} ({len(library.rules_in(c.id))})") for c in library.categories),
        )
        + "</select>",
        '<select name="tag" aria-label="Tag">'
        + options("All tags", ((tag, tag) for tag in tags))
        + "</select>",
        '<select name="status" aria-label="Status">'
        + options("Any status", ((str(s), f"{s} ({statuses[s]})") for s in Status))
        + "</select>",
        "</form>",
    ]
    home = href(INDEX_URI, "index.md", directory_urls=directory_urls)  # where ?q= searches
    rows_memo = (cache or PageCache()).index_rows
    rows = []
    for rule in library.rules:
        category = library.category(rule.category)
        shown = (rule.id, rule.title, rule.category, category.title, rule.status, rule.tags)
        rows.append(rows_memo.get((shown, directory_urls), _index_row))
    # The page is its folder's index (``rules/``): the filter text file is beside its URL.
    text_url = posixpath.basename(INDEX_TEXT_URI)
    table = "\n".join(
        [
            f'<table data-rlt-index data-rlt-text="{text_url}">',
            "<thead><tr><th>Id</th><th>Rule</th><th>Category</th><th>Status</th><th>Tags</th>"
            "</tr></thead>",
            "<tbody>",
            *rows,
            "</tbody>",
            "</table>",
        ]
    )
    page = "\n".join(
        [
            "---",
            "search:",
            "  exclude: true",
            "---",
            "",
            "# All rules",
            "",
            f"{len(library.rules)} rules in {len(library.categories)} categories. Filter them "
            "by category, tag or status, or type words from a rule's id, title, tags, "
            "statement, triggers or search terms. The filter is kept in the page address, so "
            "a filtered view can be bookmarked and shared.",
            "",
            *controls,
            "",
            f'<p class="rlt-count" data-rlt-count aria-live="polite">'
            f"{len(library.rules)} rules</p>",
            "",
            html_marker(INDEX_TABLE),
            "",
            # rules-index.js puts the typed words in the link: Material's search opens with
            # them (its ``?q=`` deep link, or in place on this page).
            '<p class="rlt-empty" data-rlt-empty hidden>No rule matches these filters. '
            f'<a data-rlt-site-search href="{html.escape(home)}" hidden>Search the whole site '
            "for <q data-rlt-site-words></q></a></p>",
            "",
        ]
    )
    return page, table


def index_filter_text(library: Library, cache: PageCache | None = None) -> str:
    """JSON ``{rule id: lower-case words}`` the index filter matches typed words against: the
    rule's id, title, category title, tags, statement, triggers and search terms, without code
    marks (``site/js/rules-index.js``)."""
    memo = (cache or PageCache()).filter_texts
    texts = {}
    for rule in library.rules:
        category = library.category(rule.category)
        searchable = (
            rule.id,
            rule.title,
            category.title,
            *rule.tags,
            rule.statement,
            *rule.triggers,
            *rule.search_terms,
        )
        texts[rule.id] = memo.get(searchable, _filter_text)
    text = json.dumps(texts, ensure_ascii=False, separators=(",", ":"))
    # The same JSON value, with no markup character in it: the file stays inert even if
    # served as HTML or pasted into a page.
    return text.translate(_JSON_MARKUP_ESCAPES) + "\n"


def _filter_text(searchable: tuple[str, ...]) -> str:
    return one_line(" ".join(searchable).replace("`", "").lower())


def _index_row(key: tuple[tuple, bool]) -> str:
    (rule_id, title, category_id, category_title, status, tags), directory_urls = key
    attributes = {
        "data-rule": rule_id,
        "data-category": category_id,
        "data-status": str(status),
        "data-tags": " ".join(tags),
    }
    attrs = " ".join(f'{name}="{html.escape(value)}"' for name, value in attributes.items())
    page = html.escape(href(INDEX_URI, rule_uri(rule_id), directory_urls=directory_urls))
    category_page = html.escape(
        href(INDEX_URI, category_uri(category_id), directory_urls=directory_urls)
    )
    tag_buttons = " ".join(
        f'<button type="button" class="rlt-tag" data-rlt-tag="{html.escape(tag)}">'
        f"{html.escape(tag)}</button>"
        for tag in tags
    )
    cells = [
        f'<td><a href="{page}">{rule_id}</a></td>',
        f'<td><a href="{page}">{html.escape(title)}</a></td>',
        f'<td><a href="{category_page}">{html.escape(category_title)}</a></td>',
        f'<td><span class="rlt-status rlt-status--{status}">{status}</span></td>',
        f"<td>{tag_buttons}</td>",
    ]
    return f"<tr {attrs}>" + "".join(cells) + "</tr>"


@dataclass(frozen=True, slots=True)
class CategoryPage:
    """A category page's Markdown, with :data:`~.markup.SECTIONS_MARKER` where its rules go,
    and each rule's section (rendered on its own: :mod:`.sections`, so that editing one rule's
    statement renders its section, not the 250 others of a category at 1,000 rules)."""

    markdown: str
    sections: tuple[str, ...]


def category_page(library: Library, category_id: str) -> CategoryPage:
    """A category: its rules in order, each with its statement and a link to its page."""
    here = category_uri(category_id)
    category = library.category(category_id)
    rules = library.rules_in(category_id)
    position = [c.id for c in library.categories].index(category_id) + 1
    index_link = link(here, INDEX_URI) + f"?category={category_id}"
    out = [
        f"# {md_text(category.title)}",
        "",
        f"Category {position} of {len(library.categories)}: {count_rules(len(rules))} "
        f"({id_span([rule.id for rule in rules])}). "
        f"[Show them in the filterable index]({index_link}).",
        "",
    ]
    if rules:
        out += [SECTIONS_MARKER, "", ""]
    return CategoryPage("\n".join(out), tuple(_category_section(here, rule) for rule in rules))


def _category_section(here: str, rule: Rule) -> str:
    out = [f"## [{rule_label(rule)}]({link(here, rule_uri(rule.id))})", ""]
    if rule.status is not Status.ACTIVE:
        out += [f"*{rule.status}*", ""]
    out += [markdown(rule.statement), ""]
    return "\n".join(out) + "\n"
