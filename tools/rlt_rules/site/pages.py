"""Markdown for every generated page: pure functions of the :class:`Library` and the schemas.

Escaping contract: a rule's title, tags, category titles and example titles are plain text and
pass through :func:`md_text` (or :func:`html.escape` inside raw HTML); statement, seed example,
rationale, triggers, impact, correction, retired reason, explanations and the preamble are
Markdown and pass through :func:`markdown` (:func:`rlt_rules.export.inert.inert_markdown`): code,
emphasis and web links render, raw HTML and script links show as text.
Links between pages are relative Markdown links between source URIs (:func:`link`), so
``mkdocs build --strict`` checks them; the index table alone is raw HTML inserted after Markdown
(:class:`GeneratedPage`), its URLs from :func:`href`, which a test checks against MkDocs' own.
"""

from __future__ import annotations

import difflib
import functools
import html
import json
import posixpath
import re
import textwrap
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import KW_ONLY, dataclass
from typing import Any

from ..export.changelog import changelog_markdown
from ..export.inert import inert_markdown, md_text
from ..export.markdown import fence_for
from ..export.text import OUTPUT_LINE, expected_output, one_line
from ..model import Example, ExampleKind, Library, Rule, Status, id_span
from ..pairs import ExamplePair, marked_lines, pairs_of
from ..releases import NEXT, History, RuleHistory, rule_history
from .hints import hints_markdown

INDEX_URI = "rules/index.md"
#: The index page's table: an HTML insert (see :class:`GeneratedPage`).
INDEX_TABLE = "index-table"
#: What the index filter matches typed words against, per rule (``index_filter_text``): a file
#: beside the index page, so that editing a statement does not change the index page itself.
INDEX_TEXT_URI = "rules/filter-text.json"
FORMAT_URI = "reference/format.md"
#: At the docs root: the changelog's rule links are ``rules/<id>.md``.
CHANGELOG_URI = "changelog.md"
HOME_URI = "index.md"
#: Material's sidebars a rule page leaves out (front matter ``hide``).
RULE_PAGE_HIDES = ("navigation", "toc")


_MARKER = re.compile(r"^<!--\s*rlt:([a-z-]+)\s*-->[ \t]*$", re.MULTILINE)
_JSON_MARKUP_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})
_BLOCK_START = re.compile(r"^(```|~~~|    |\t|[-*+] |\d+[.)] |#|>|\||<)")


@dataclass(frozen=True, slots=True)
class GeneratedPage:
    """One page to add to the build.

    ``source`` is the file the page is generated from (its "edit this page" target), or None.
    ``html_inserts`` holds, by name, HTML that Markdown need not parse (the index's 1,000
    rows): the page's Markdown has a ``<!-- rlt-html:NAME -->`` line in its place, which the
    hook replaces in the rendered page (:meth:`insert_html`).
    """

    src_uri: str
    markdown: str
    _: KW_ONLY
    in_nav: bool
    source: str | None
    html_inserts: tuple[tuple[str, str], ...] = ()

    def insert_html(self, rendered: str) -> str:
        """The page's rendered HTML with each insert in place of its marker."""
        for name, block in self.html_inserts:
            rendered = rendered.replace(html_marker(name), block, 1)
        return rendered

    def inlined_markdown(self) -> str:
        """The page as Markdown with its inserts inline as raw HTML (for MkDocs on its own)."""
        return self.insert_html(self.markdown)


def html_marker(name: str) -> str:
    """The line of a generated page's Markdown that an HTML insert replaces."""
    return f"<!-- rlt-html:{name} -->"


def rule_uri(rule_id: str) -> str:
    """Source URI of a rule's page; it is published at the permanent URL ``rules/<id>/``."""
    return f"rules/{rule_id}.md"


def category_uri(category_id: str) -> str:
    return f"categories/{category_id}.md"


def markdown(text: str, *, at_line_start: bool = True) -> str:
    """A Markdown field of the library made inert for the site (attr_list braces included).

    ``at_line_start``: the text starts a block (False for a list item's first line).
    """
    return inert_markdown(text, at_line_start=at_line_start, attr_lists=True)


def link(from_uri: str, to_uri: str, fragment: str = "") -> str:
    """Relative link from one source page to another, as MkDocs resolves and validates it.

    Both are normalised source URIs (``rules/R03.md``): the relative path is worked out from
    their folders, as ``posixpath.relpath`` would, without its ten thousand ``abspath`` calls
    per build.
    """
    relative = _relative(from_uri.split("/")[:-1], to_uri.split("/"))
    return relative + (f"#{fragment}" if fragment else "")


def _relative(folder: list[str], target: list[str]) -> str:
    """The path to ``target`` (segments, the last one a file or "") from ``folder``."""
    common = 0
    while common < len(folder) and common < len(target) - 1 and folder[common] == target[common]:
        common += 1
    return "/".join([".."] * (len(folder) - common) + target[common:])


def page_url(uri: str, directory_urls: bool = True) -> str:
    """The URL MkDocs publishes a source page at: ``rules/R03.md`` -> ``rules/R03/``,
    ``rules/index.md`` -> ``rules/``, ``index.md`` -> ``""``; without directory URLs
    ``rules/R03.html`` and ``rules/index.html``."""
    stem = uri.removesuffix(".md")
    if not directory_urls:
        return f"{stem}.html"
    if stem == "index" or stem.endswith("/index"):
        return stem.removesuffix("index")
    return f"{stem}/"


def href(from_uri: str, to_uri: str, directory_urls: bool = True) -> str:
    """The relative URL from one published page to another, as MkDocs writes a link into HTML.

    For raw HTML that MkDocs does not rewrite (the index page's rows); Markdown links use
    :func:`link`, which MkDocs checks.
    """
    here = page_url(from_uri, directory_urls).split("/")[:-1]
    return _relative(here, page_url(to_uri, directory_urls).split("/")) or "./"


def rule_label(rule: Rule) -> str:
    """``R03 — Title`` as Markdown text."""
    return f"{rule.id} — {md_text(rule.title)}"


def split_output(code: str) -> tuple[str, str]:
    """Split an example into the program without its ``#>`` lines and the output they state.

    Output lines are the ones CI checks (:data:`rlt_rules.export.text.OUTPUT_LINE`, as
    pytest-examples reads them: ``#>`` alone or followed by a space).
    """
    program: list[str] = []
    output: list[str] = []
    for line in code.split("\n"):
        match = OUTPUT_LINE.match(line) if "#>" in line else None
        if match is not None:
            output.append(match.group("text") or "")
        else:
            program.append(line)
    while program and not program[-1].strip():
        program.pop()
    return "\n".join(program), "\n".join(output)


def fenced(code: str, language: str, title: str | None = None, hl_lines: Iterable[int] = ()) -> str:
    """A fenced code block whose fence is longer than any backtick run inside ``code``.

    ``hl_lines``: the 1-based lines of ``code`` to highlight (Pygments' ``hl_lines``).
    """
    fence = fence_for(code)
    options = f' title="{html.escape(title)}"' if title else ""
    highlighted = " ".join(str(line) for line in sorted(set(hl_lines)))
    if highlighted:
        options += f' hl_lines="{highlighted}"'
    return f"{fence}{language}{options}\n{code}\n{fence}"


def program_line_numbers(code: str) -> dict[int, int]:
    """For each line of an example's code (1-based), its line in the program as the page shows
    it (:func:`split_output`: without the ``#>`` output lines); output lines have none."""
    numbers: dict[int, int] = {}
    shown = 0
    for number, line in enumerate(code.split("\n"), start=1):
        if "#>" in line and OUTPUT_LINE.match(line):
            continue
        shown += 1
        numbers[number] = shown
    return numbers


def shown_marked_lines(code: str, rule_id: str) -> tuple[int, ...]:
    """The lines of the shown program (:func:`split_output`) that ``rule_id``'s markers cover."""
    program, _ = split_output(code)
    length = program.count("\n") + 1
    numbers = program_line_numbers(code)
    shown = (numbers.get(line) for line in marked_lines(code, rule_id))
    return tuple(sorted(line for line in shown if line is not None and line <= length))


def differing_lines(
    bad: tuple[str, ...], good: tuple[str, ...]
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The 1-based lines of two outputs that are not in both (a line diff of the two)."""
    matcher = difflib.SequenceMatcher(None, bad, good, autojunk=False)
    in_bad: list[int] = []
    in_good: list[int] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            in_bad.extend(range(i1 + 1, i2 + 1))
            in_good.extend(range(j1 + 1, j2 + 1))
    return tuple(in_bad), tuple(in_good)


def generated_pages(
    library: Library,
    rule_schema: Mapping[str, Any],
    library_schema: Mapping[str, Any],
    schema_source: str | None = None,
    history: History | None = None,
    directory_urls: bool = True,
) -> tuple[GeneratedPage, ...]:
    """Every generated page: one per rule (kept out of the nav), the index, one per category,
    the format reference and, from the release history, the changelog.

    ``directory_urls`` is MkDocs' ``use_directory_urls``: the index page's rows link to the
    pages' URLs directly (see :func:`index_page`)."""
    library_source = library.source.path if library.source is not None else None
    history = history if history is not None else History()
    pages = [
        GeneratedPage(
            rule_uri(rule.id),
            rule_page(library, rule, rule_history(history, rule.id)),
            in_nav=False,
            source=rule.source.path if rule.source is not None else None,
        )
        for rule in library.rules
    ]
    index_markdown, index_table = index_page(library, directory_urls)
    pages.append(
        GeneratedPage(
            INDEX_URI,
            index_markdown,
            in_nav=True,
            source=library_source,
            html_inserts=((INDEX_TABLE, index_table),),
        )
    )
    pages.extend(
        GeneratedPage(
            category_uri(category.id),
            category_page(library, category.id),
            in_nav=True,
            source=library_source,
        )
        for category in library.categories
    )
    pages.append(
        GeneratedPage(
            FORMAT_URI,
            format_reference_page(rule_schema, library_schema),
            in_nav=True,
            source=schema_source,
        )
    )
    pages.append(
        GeneratedPage(
            CHANGELOG_URI,
            changelog_markdown(history),
            in_nav=True,
            source=None,
        )
    )
    return tuple(pages)


# --- rule pages ---------------------------------------------------------------------------


def rule_page(
    library: Library,
    rule: Rule,
    history: RuleHistory | None = None,
) -> str:
    """A rule's page: everything the model holds about it, in reading order."""
    here = rule_uri(rule.id)
    category = library.category(rule.category)
    # Rule pages are not in the navigation: its sidebar gives way to the examples, side by side.
    out: list[str] = ["---", "hide:", *(f"  - {part}" for part in RULE_PAGE_HIDES)]
    if rule.tags:
        out += ["tags:", *(f"  - {tag}" for tag in rule.tags)]
    out += ["---", "", f"# {rule_label(rule)}", ""]
    out += _status_notice(library, rule)
    # The statement opens the page (and its search preview); the facts fit on one line.
    facts = [
        f"**Category:** [{md_text(category.title)}]({link(here, category_uri(category.id))})",
        f'**Status:** <span class="rlt-status rlt-status--{rule.status}">{rule.status}</span>',
        *_history_facts(history, rule, here),
    ]
    out += [
        markdown(rule.statement),
        "",
        _seed_example(rule.seed_example),
        "",
        '<p class="rlt-facts" markdown="span">' + " · ".join(facts) + "</p>",
        "",
        "## When it applies",
        "",
        "A reviewer can spot these in a diff:",
        "",
        *(_list_item(markdown(trigger, at_line_start=False)) for trigger in rule.triggers),
        "",
        "## Impact",
        "",
        markdown(rule.impact),
        "",
        "## Correction",
        "",
        markdown(rule.correction),
        "",
        "## Rationale",
        "",
        markdown(rule.rationale),
        "",
    ]
    out += hints_markdown(rule)
    if rule.examples:
        out += _examples_markdown(rule)
    if rule.related:
        out += ["## Related rules", ""]
        out += [
            f"- [{rule_label(library.rule(rid))}]({link(here, rule_uri(rid))})"
            for rid in rule.related
        ]
        out.append("")
    out += ["---", "", _reading_links(library, rule), ""]
    return "\n".join(out)


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


def _reading_links(library: Library, rule: Rule) -> str:
    """Previous and next rule in reading order, and the way back to the category."""
    here = rule_uri(rule.id)
    position = library.position(rule.id)
    category = library.category(rule.category)
    parts = []
    if position > 0:
        previous = library.rules[position - 1]
        parts.append(f"[← {rule_label(previous)}]({link(here, rule_uri(previous.id))})")
    parts.append(f"[{md_text(category.title)}]({link(here, category_uri(category.id))})")
    if position + 1 < len(library.rules):
        following = library.rules[position + 1]
        parts.append(f"[{rule_label(following)} →]({link(here, rule_uri(following.id))})")
    return (
        '<nav class="rlt-reading" aria-label="Reading order" markdown="span">'
        + " · ".join(parts)
        + "</nav>"
    )


def _status_notice(library: Library, rule: Rule) -> list[str]:
    here = rule_uri(rule.id)
    replacement = ""
    if rule.replaced_by is not None:
        target = library.rule(rule.replaced_by)
        replacement = f"[{rule_label(target)}]({link(here, rule_uri(target.id))})"
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


#: What the diff below each pair is titled.
CHANGES_TITLE = "What the correction changes"


@functools.lru_cache(maxsize=4096)
def _examples_markdown(rule: Rule) -> tuple[str, ...]:
    """A rule's examples section: its pairs (:func:`rlt_rules.pairs.pairs_of`), then any example
    without a counterpart. A function of the rule only, so kept for the next build (a live
    preview renders every rule page's Markdown again to find the ones that changed)."""
    pairs = pairs_of(rule)
    in_pairs = {id(example) for pair in pairs for example in (pair.bad, pair.good)}
    unpaired = tuple(example for example in rule.examples if id(example) not in in_pairs)
    out = [
        "## Examples",
        "",
        (
            "Each pair shows one scenario with the rule broken (**Bad**) and applied "
            "(**Good**); the highlighted lines are the ones the rule is about, and "
            f"**{CHANGES_TITLE}** is the diff from one to the other. "
            if pairs
            else ""
        )
        + "Each example is a complete program; **Output** is what it prints, checked in CI.",
        "",
    ]
    for pair in pairs:
        out += [f"### {md_text(_humanize(pair.name))}", ""]
        out += _pair_markdown(rule.id, pair)
    if unpaired:
        if pairs:
            out += ["### Other examples", ""]
            out += _example_tabs(rule.id, _bad_first(unpaired))
        else:
            for heading, group in _example_groups(unpaired):
                if heading:
                    out += [f"### {md_text(heading)}", ""]
                out += _example_tabs(rule.id, group)
    return tuple(out)


def _pair_markdown(rule_id: str, pair: ExamplePair) -> list[str]:
    """One pair: bad and good as two tabs (side by side on a wide screen, see ``rules.css``),
    each output with the lines that differ from the other's highlighted, then the diff."""
    bad_changed, good_changed = differing_lines(
        expected_output(pair.bad.code), expected_output(pair.good.code)
    )
    out = ['=== "Bad"', "", _indent(_example_body(rule_id, pair.bad, bad_changed, paired=True))]
    out += ["", '=== "Good"', ""]
    out += [_indent(_example_body(rule_id, pair.good, good_changed, paired=True)), ""]
    lines = pair.diff()
    diff = "\n".join(lines)
    # pair.changed_lines(), from the diff at hand (it would compute another one).
    removed = sum(1 for line in lines if line.startswith("-"))
    added = sum(1 for line in lines if line.startswith("+"))
    if diff:
        summary = f"{_lines(removed)} removed, {_lines(added)} added."
        shown = fenced(diff, "diff")
    else:
        summary = "The two programs are the same; only their output differs."
        shown = ""
    out += [
        f'<div class="rlt-diff" data-pair="{html.escape(pair.name)}" markdown="1">',
        "",
        f"**{CHANGES_TITLE}:** {summary}",
        "",
        *([shown, ""] if shown else []),
        "</div>",
        "",
    ]
    return out


def _lines(n: int) -> str:
    return f"{n} line" if n == 1 else f"{n} lines"


def _example_groups(
    examples: tuple[Example, ...],
) -> list[tuple[str | None, tuple[Example, ...]]]:
    """Bad/good pairs sharing a name form one group each; otherwise all examples form one."""
    by_name: dict[str, list[Example]] = {}
    for example in examples:
        by_name.setdefault(example.name, []).append(example)
    paired = all(
        sorted(str(example.kind) for example in group) == ["bad", "good"]
        for group in by_name.values()
    )
    if paired and len(by_name) > 1:
        return [(_humanize(name), _bad_first(group)) for name, group in by_name.items()]
    return [(None, _bad_first(examples))]


def _bad_first(examples: Iterable[Example]) -> tuple[Example, ...]:
    return tuple(sorted(examples, key=lambda example: example.kind is not ExampleKind.BAD))


def _humanize(name: str) -> str:
    words = name.replace("-", " ")
    return words[:1].upper() + words[1:]


def _kind_label(kind: ExampleKind) -> str:
    return "Bad" if kind is ExampleKind.BAD else "Good"


def _example_tabs(rule_id: str, examples: tuple[Example, ...]) -> list[str]:
    totals = Counter(example.kind for example in examples)
    seen: Counter[ExampleKind] = Counter()
    out: list[str] = []
    for example in examples:
        seen[example.kind] += 1
        label = _kind_label(example.kind)
        if totals[example.kind] > 1:
            label += f" {seen[example.kind]}"
        out += [f'=== "{label}"', "", _indent(_example_body(rule_id, example)), ""]
    return out


def _example_body(
    rule_id: str, example: Example, output_changed: Iterable[int] = (), paired: bool = False
) -> str:
    """An example: its kind and title, explanation, program (the lines its ``# Rnn:`` markers
    cover highlighted) and output (``output_changed`` highlighted).

    Exactly four blocks inside the example's ``div``, which a pair's grid lines up side by side.
    """
    program, output = split_output(example.code)
    shown_output = (
        fenced(output, "text", title="Output", hl_lines=output_changed)
        if output
        else "*This program prints nothing.*"
    )
    kind = html.escape(str(example.kind))
    classes = f"rlt-example rlt-example--{kind}" + (" rlt-example--paired" if paired else "")
    return "\n\n".join(
        [
            f'<div class="{classes}" data-example="{kind}-{html.escape(example.name)}" '
            'markdown="1">',
            f'<span class="rlt-kind">{_kind_label(example.kind)}:</span> '
            f"**{md_text(example.title)}**",
            '<div class="rlt-explanation" markdown="1">',
            markdown(example.explanation),
            "</div>",
            fenced(program, "python", hl_lines=shown_marked_lines(example.code, rule_id)),
            f'<div class="rlt-output" markdown="1">\n\n{shown_output}\n\n</div>',
            "</div>",
        ]
    )


def _indent(text: str) -> str:
    return textwrap.indent(text, "    ")


def _list_item(text: str) -> str:
    return "-   " + text.replace("\n", "\n    ")


# --- index and category pages -----------------------------------------------------------------


def index_page(library: Library, directory_urls: bool = True) -> tuple[str, str]:
    """Every rule in one table, with the filter controls that ``rules-index.js`` drives: the
    page's Markdown, and the table as HTML (the insert :data:`INDEX_TABLE`).

    The table is not Markdown: a title edit renders this page again, and at 1,000 rules
    Markdown took half a second over the rows as Markdown, and still a quarter as raw HTML.
    The page is left out of the search index: every row repeats a rule page's title, which
    search already finds.
    """
    here = INDEX_URI
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
        '<input type="search" name="q" autocomplete="off" '
        'placeholder="Filter by id, title, tag or statement" aria-label="Filter rules">',
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
    rows = [_index_row(library, rule, here, directory_urls) for rule in library.rules]
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
            "by category, tag or status, or type words from a rule's id, title, tags or "
            "statement. The filter is kept in the page address, so a filtered view can be "
            "bookmarked and shared.",
            "",
            *controls,
            "",
            f'<p class="rlt-count" data-rlt-count aria-live="polite">'
            f"{len(library.rules)} rules</p>",
            "",
            html_marker(INDEX_TABLE),
            "",
            '<p class="rlt-empty" data-rlt-empty hidden>No rule matches these filters.</p>',
            "",
        ]
    )
    return page, table


def index_filter_text(library: Library) -> str:
    """JSON ``{rule id: lower-case words}`` the index filter matches typed words against: the
    rule's id, title, category title, tags and statement (``site/js/rules-index.js``)."""
    texts = {}
    for rule in library.rules:
        category = library.category(rule.category)
        searchable = " ".join([rule.id, rule.title, category.title, *rule.tags, rule.statement])
        texts[rule.id] = one_line(searchable.lower())
    text = json.dumps(texts, ensure_ascii=False, separators=(",", ":"))
    # The same JSON value, with no markup character in it: the file stays inert even if
    # served as HTML or pasted into a page.
    return text.translate(_JSON_MARKUP_ESCAPES) + "\n"


def _index_row(library: Library, rule: Rule, here: str, directory_urls: bool) -> str:
    category = library.category(rule.category)
    attributes = {
        "data-rule": rule.id,
        "data-category": rule.category,
        "data-status": str(rule.status),
        "data-tags": " ".join(rule.tags),
    }
    attrs = " ".join(f'{name}="{html.escape(value)}"' for name, value in attributes.items())
    page = html.escape(href(here, rule_uri(rule.id), directory_urls))
    category_page = html.escape(href(here, category_uri(category.id), directory_urls))
    tag_buttons = " ".join(
        f'<button type="button" class="rlt-tag" data-rlt-tag="{html.escape(tag)}">'
        f"{html.escape(tag)}</button>"
        for tag in rule.tags
    )
    cells = [
        f'<td><a href="{page}">{rule.id}</a></td>',
        f'<td><a href="{page}">{html.escape(rule.title)}</a></td>',
        f'<td><a href="{category_page}">{html.escape(category.title)}</a></td>',
        f'<td><span class="rlt-status rlt-status--{rule.status}">{rule.status}</span></td>',
        f"<td>{tag_buttons}</td>",
    ]
    return f"<tr {attrs}>" + "".join(cells) + "</tr>"


def category_page(library: Library, category_id: str) -> str:
    """A category: its rules in order, each with its statement and a link to its page."""
    here = category_uri(category_id)
    category = library.category(category_id)
    rules = library.rules_in(category_id)
    position = [c.id for c in library.categories].index(category_id) + 1
    index_link = link(here, INDEX_URI) + f"?category={category_id}"
    out = [
        f"# {md_text(category.title)}",
        "",
        f"Category {position} of {len(library.categories)}: {_count(len(rules))} "
        f"({id_span([rule.id for rule in rules])}). "
        f"[Show them in the filterable index]({index_link}).",
        "",
    ]
    for rule in rules:
        out += [f"## [{rule_label(rule)}]({link(here, rule_uri(rule.id))})", ""]
        if rule.status is not Status.ACTIVE:
            out += [f"*{rule.status}*", ""]
        out += [markdown(rule.statement), ""]
    return "\n".join(out)


def _count(n: int) -> str:
    return f"{n} rule" if n == 1 else f"{n} rules"


# --- hand-written pages: markers filled from the model ------------------------------------------


def fill_markers(markdown: str, library: Library, page_uri: str) -> tuple[str, tuple[str, ...]]:
    """Replace ``<!-- rlt:NAME -->`` lines with generated Markdown; also return unknown names."""
    unknown: list[str] = []

    def replace(match: re.Match[str]) -> str:
        render = MARKERS.get(match.group(1))
        if render is None:
            unknown.append(match.group(1))
            return match.group(0)
        return render(library, page_uri)

    return _MARKER.sub(replace, markdown), tuple(unknown)


def _library_summary(library: Library, page_uri: str) -> str:
    return (
        f"**{md_text(library.title)} — {md_text(library.subtitle)}**, version "
        f"{md_text(library.version)}: {_count(len(library.rules))} in "
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
            f"{_count(len(rules))}, {id_span([rule.id for rule in rules])}"
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
}


# --- format reference -----------------------------------------------------------------------


def format_reference_page(rule_schema: Mapping[str, Any], library_schema: Mapping[str, Any]) -> str:
    """The record format, from the schemas' own titles and descriptions."""
    definitions = rule_schema.get("$defs", {})
    example = definitions["example"]
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
        *_schema_section("##", "file: `rules/library.yaml`", library_schema, library_schema),
        *_schema_section(
            "###", "entries: `categories` {#type-category}", categories, library_schema
        ),
        "## Value types",
        "",
    ]
    for name, definition in definitions.items():
        if name == "example":
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
