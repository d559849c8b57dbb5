"""What every page generator shares: the generated page, source URIs, links, escaping.

Code is fenced by :func:`rlt_rules.render.code.fenced`, as in every view.

Escaping contract: a rule's title, tags, category titles and example titles are plain text and
pass through :func:`md_text` (or :func:`html.escape` inside raw HTML); statement, seed example,
rationale, triggers, impact, correction, retired reason, explanations and the preamble are
Markdown and pass through :func:`markdown` (:func:`rlt_rules.render.inert.inert_markdown`): code,
emphasis and web links render, raw HTML and script links show as text.
Links between pages are relative Markdown links between source URIs (:func:`link`), so
``mkdocs build --strict`` checks them; raw HTML inserted after Markdown (the index table, the
tags listing: :class:`GeneratedPage`) takes its URLs from :func:`href`, which a test checks
against MkDocs' own.
"""

from __future__ import annotations

import html
from dataclasses import KW_ONLY, dataclass

from ..library.model import Rule
from ..render.inert import inert_markdown, md_text
from ..render.links import rule_uri

__all__ = [
    "GeneratedPage",
    "category_uri",
    "href",
    "html_marker",
    "link",
    "markdown",
    "output_path",
    "md_text",
    "page_title",
    "page_url",
    "rule_label",
    "rule_uri",
]

INDEX_URI = "rules/index.md"
#: What the index filter matches typed words against, per rule: a file beside the index page,
#: so that editing a statement does not change the index page itself.
INDEX_TEXT_URI = "rules/filter-text.json"
FORMAT_URI = "reference/format.md"
#: At the docs root: the changelog's rule links are ``rules/<id>.md``.
CHANGELOG_URI = "changelog.md"
HOME_URI = "index.md"


@dataclass(frozen=True, slots=True)
class GeneratedPage:
    """One page to add to the build.

    ``source`` is the file the page is generated from (its "edit this page" target), or None.
    ``html_inserts`` holds, by name, HTML that Markdown need not parse (the index's 1,000
    rows): the page's Markdown has a ``<!-- rlt-html:NAME -->`` line in its place, which the
    plugin replaces in the rendered page (:meth:`insert_html`). ``sections`` are blocks of
    Markdown (each ending with a newline) rendered each on its own (:mod:`.sections`: a
    lesson's or category page's rules, a rule page's examples), which go, in order, where
    the page's :data:`SECTIONS_MARKER` line is.
    """

    src_uri: str
    markdown: str
    _: KW_ONLY
    in_nav: bool
    source: str | None
    html_inserts: tuple[tuple[str, str], ...] = ()
    sections: tuple[str, ...] = ()

    def insert_html(self, rendered: str) -> str:
        """The page's rendered HTML with each insert in place of its marker."""
        for name, block in self.html_inserts:
            rendered = rendered.replace(html_marker(name), block, 1)
        return rendered

    def with_sections(self, markdown: str) -> str:
        """``markdown`` (the page's, or what MkDocs read of it: without front matter) with the
        page's sections in place: what a whole render renders."""
        return with_sections(markdown, self.sections)

    def inlined_markdown(self) -> str:
        """The page as Markdown with its sections in place and its inserts inline as raw HTML
        (for MkDocs on its own)."""
        return self.insert_html(self.with_sections(self.markdown))


def html_marker(name: str) -> str:
    """The line of a generated page's Markdown that an HTML insert replaces."""
    return f"<!-- rlt-html:{name} -->"


#: The line of a generated page's Markdown where its sections go (:mod:`.sections`), and
#: that line with the blank line that follows it.
SECTIONS_MARKER = html_marker("sections")
SECTIONS_LINE = SECTIONS_MARKER + "\n\n"


def with_sections(markdown: str, sections: tuple[str, ...]) -> str:
    """``markdown`` with ``sections`` in place of its :data:`SECTIONS_LINE`."""
    if not sections:
        return markdown
    return markdown.replace(SECTIONS_LINE, "".join(sections), 1)


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


def page_url(uri: str, *, directory_urls: bool = True) -> str:
    """The URL MkDocs publishes a source page at: ``rules/R03.md`` -> ``rules/R03/``,
    ``rules/index.md`` -> ``rules/``, ``index.md`` -> ``""``; without directory URLs
    ``rules/R03.html`` and ``rules/index.html``."""
    stem = uri.removesuffix(".md")
    if not directory_urls:
        return f"{stem}.html"
    if stem == "index" or stem.endswith("/index"):
        return stem.removesuffix("index")
    return f"{stem}/"


def output_path(uri: str, *, directory_urls: bool = True) -> str:
    """The file MkDocs writes a source page to, relative to the site directory:
    ``rules/R03.md`` -> ``rules/R03/index.html``, ``rules/index.md`` -> ``rules/index.html``;
    without directory URLs ``rules/R03.html``."""
    stem = uri.removesuffix(".md")
    if not directory_urls or stem == "index" or stem.endswith("/index"):
        return f"{stem}.html"
    return f"{stem}/index.html"


def href(from_uri: str, to_uri: str, *, directory_urls: bool = True) -> str:
    """The relative URL from one published page to another, as MkDocs writes a link into HTML.

    For raw HTML that MkDocs does not rewrite (the index page's rows, the tags listing);
    Markdown links use :func:`link`, which MkDocs checks.
    """
    here = page_url(from_uri, directory_urls=directory_urls).split("/")[:-1]
    return _relative(here, page_url(to_uri, directory_urls=directory_urls).split("/")) or "./"


def rule_label(rule: Rule) -> str:
    """``R03 — Title`` as Markdown text (a rule page's heading)."""
    return f"{rule.id} — {md_text(rule.title)}"


def page_title(rule: Rule) -> str:
    """The title MkDocs gives a rule's page: the text of its heading (:func:`rule_label`) as
    HTML, its characters escaped (``R22 — a &lt;b&gt; title``). A test checks it against the
    titles of built pages."""
    return f"{rule.id} — {html.escape(rule.title, quote=True).replace('~', '&#126;')}".strip()


def count_rules(n: int) -> str:
    return f"{n} rule" if n == 1 else f"{n} rules"
