"""Titles and pair names on the site (tools/rlt_rules/site/titles.py): code spans in a title
render as code and nothing else of a title becomes markup; a pair's name reads as its text
writes it."""

from __future__ import annotations

from html.parser import HTMLParser

import markdown

from rlt_rules.render.code import code_span
from rlt_rules.site.titles import md_title, name_as_written

#: The site's Markdown extensions that could turn text into markup (mkdocs.yml).
EXTENSIONS = ["attr_list", "md_in_html", "pymdownx.highlight", "pymdownx.inlinehilite"]


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes += attrs


def _render(title: str) -> str:
    return markdown.markdown(f"**{md_title(title)}**", extensions=EXTENSIONS)


def test_code_spans_in_a_title_render_as_code() -> None:
    html = _render("One `watermark` used as a ratio and a `block_count`")
    assert "<code>watermark</code>" in html
    assert "<code>block_count</code>" in html
    assert "`" not in html


def test_nothing_else_in_a_title_becomes_markup() -> None:
    hostile = (
        '<img src=x onerror="alert(1)"> *stars* [link](javascript:alert(1)) '
        "`<script>alert(2)</script>` `{: onclick=alert(3) }` ``a`b`` &amp;"
    )
    html = _render(hostile)
    parser = _Elements()
    parser.feed(html)
    # Only the paragraph, the bold title and its code spans; no attribute anywhere.
    assert set(parser.tags) == {"p", "strong", "code"}, parser.tags
    assert parser.attributes == [], parser.attributes
    assert "<code>&lt;script&gt;alert(2)&lt;/script&gt;</code>" in html
    assert "<code>a`b</code>" in html
    assert "&amp;amp;" in html  # the characters as written, not an entity


def test_code_span_fence_is_longer_than_any_backtick_run() -> None:
    assert code_span("a``b") == "```a``b```"
    assert code_span("`x") == "`` `x ``"


def test_pair_names_read_as_their_text_writes_them() -> None:
    texts = ("Auto selection ignores CUDA Graph support.", "Can capture CUDA Graphs: no")
    assert name_as_written("cuda-graph-backend-selection", texts) == (
        "CUDA Graph backend selection"
    )
    assert (
        name_as_written("hasattr-guard", ("A hasattr guard hides a rename: `hasattr()`.",))
        == "hasattr guard"
    )
    # A capital that only starts a sentence says nothing; a plain word is capitalised first.
    assert name_as_written("stale-selection", ("Stale selection. A stale selection",)) == (
        "Stale selection"
    )
    # Written two ways: the name's own spelling.
    assert name_as_written("lru-touch", ("an LRU touch", "the lru touch")) == "Lru touch"
    assert name_as_written("hidden-lru-touch", ("a hidden LRU touch",)) == "Hidden LRU touch"
