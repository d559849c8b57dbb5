"""The preview's search sections, parsed one heading's chunk at a time, are Material's.

:class:`rlt_rules.site.search_sections.SectionMemo` parses only the chunks of a page's HTML it
has not parsed before. Its sections must be those of Material's whole-page ``Parser`` for every
page of the repository's site and of the hostile site, and for each case where cutting the page
naively (a fresh parser per chunk) would be wrong: each hand-written case asserts that too, so
it fails if the memo cut naively.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from material.plugins.search.plugin import Parser, SearchIndex
from mkdocs.plugins import BasePlugin
from mkdocs.structure.pages import Page

from rlt_rules import Library, load_library
from rlt_rules.site.search import INDEX_PATH, PreviewSearch, fold_rule_text, split_code
from rlt_rules.site.search_sections import (
    ParsedSection,
    SectionMemo,
    chunks,
    whole_page_sections,
)

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = ROOT / "tests" / "fixtures" / "hostile" / "rules"


def naive_sections(html: str) -> tuple[ParsedSection, ...]:
    """Each chunk parsed by a fresh parser, as if it were a page: what the memo must not do."""
    sections: list[ParsedSection] = []
    for chunk in chunks(html):
        parser = Parser()
        parser.feed(chunk)
        parser.close()
        sections.extend(
            ParsedSection(s.id, "".join(s.title) if s.title else None, "".join(s.text),
                          s.is_excluded())
            for s in parser.data
        )  # fmt: skip
    return tuple(sections)


# --- Material's quirks and the fallbacks, by hand ----------------------------------------------

CASES = {
    # The first section has no id; later ones do.
    "first section has no id": '<h1 id="t">T</h1>\n<p>x</p>\n<h2 id="s">S</h2>\n<p>y</p>',
    # A first heading other than h1 adds an untitled section before it.
    "first heading not h1": '<h2 id="a">A</h2>\n<p>x</p>\n<h2 id="b">B</h2>\n<p>y</p>',
    # Text before the first heading is an untitled section of its own.
    "preface": '<p>intro</p>\n<h2 id="a">A</h2>\n<p>x</p>\n<h3 id="b">B</h3>\n<p>y</p>',
    # A void element makes no section: the heading after it is still the first section.
    "void before first heading": '<hr>\n<h2 id="a">A</h2><p>x</p><h2 id="b">B</h2><p>y</p>',
    # A heading nested in an element: when the element closes, text goes back to the section
    # before the nested one.
    "nested heading": (
        '<h2 id="a">A</h2><div class="admonition"><p>in a</p><h3 id="n">N</h3><p>in n</p>'
        '</div><p>after the div</p><h2 id="b">B</h2><p>b</p>'
    ),
    # A heading inside an excluded element: skipped, its element open across the cut.
    "heading in excluded element": (
        '<h2 id="a">A</h2><div data-search-exclude><h2 id="x">X</h2><p>z</p></div>'
        '<h2 id="y">Y</h2><p>w</p>'
    ),
    # An excluded heading: its section is left out of the entries, not out of the parse.
    "excluded heading": '<h2 id="a">A</h2><p>a</p><h2 id="e" data-search-exclude>E</h2><p>e</p>',
    # A comment across a heading: not a heading.
    "comment": '<h2 id="a">A</h2><p>a</p><!-- <h2 id="c">C</h2> --><p>b</p><h2 id="d">D</h2>',
    # Script and style content across a heading: not a heading.
    "script": '<h2 id="a">A</h2><script>var s = \'<h2 id="s">\';</script><p>x</p><h2 id="t">T</h2>',
    "style": '<h2 id="a">A</h2><style>/* <h2 id="s"> */</style><p>x</p><h2 id="t">T</h2>',
    # A CDATA section across a heading.
    "cdata": '<h2 id="a">A</h2><p>a</p><![CDATA[ <h2 id="q">Q</h2> ]]><p>b</p><h2 id="r">R</h2>',
    # Something that looks like a heading with an id inside an attribute: no section starts.
    "id inside an attribute": (
        '<h2 id="a">A</h2><p>a</p><h2 title=" id=x">T</h2><p>t</p><h2 id="b">B</h2><p>b</p>'
    ),
    # A heading tag inside a quoted attribute value.
    "heading inside an attribute": (
        '<h2 id="a">A</h2><p title=\'<h2 id="z">\'>x</p><p>y</p><h2 id="b">B</h2>'
    ),
    # Line numbers are skipped until their element closes.
    "line numbers across a heading": (
        '<h2 id="a">A</h2><div class="linenodiv"><h3 id="l">1</h3></div><p>b</p><h2 id="b">B</h2>'
    ),
}


@pytest.mark.parametrize("html", CASES.values(), ids=CASES.keys())
def test_a_cut_page_parses_as_material_parses_it_whole(html: str) -> None:
    whole = whole_page_sections(html)
    assert naive_sections(html) != whole, "the case does not test the cut"
    assert SectionMemo().sections("page.md", html) == whole


def test_sections_of_an_unchanged_chunk_are_remembered_and_of_an_edited_one_parsed() -> None:
    memo = SectionMemo()
    page = '<h1 id="t">T</h1><p>intro</p>\n<h2 id="a">A</h2><p>{a}</p>\n<h2 id="b">B</h2><p>b</p>'
    first = memo.sections("page.md", page.format(a="one"))
    again = memo.sections("page.md", page.format(a="one"))
    assert all(one is other for one, other in zip(first, again, strict=True))
    edited = memo.sections("page.md", page.format(a="two"))
    assert edited == whole_page_sections(page.format(a="two"))
    assert edited[0] is first[0] and edited[2] is first[2]  # not parsed again
    assert edited[1] is not first[1] and edited[1].text == "<p>two</p> "
    # The edited chunk replaced the old one: one memo entry per live chunk.
    assert len(memo) == 3


def test_a_chunk_two_pages_share_lives_until_neither_uses_it() -> None:
    memo = SectionMemo()
    shared = '<h2 id="s">Shared</h2><p>s</p>'
    memo.sections("one.md", f'<h1 id="o">One</h1><p>1</p>{shared}')
    memo.sections("two.md", f'<h1 id="t">Two</h1><p>2</p>{shared}')
    assert len(memo) == 3  # the shared chunk once
    memo.sections("one.md", '<h1 id="o">One</h1><p>1</p>')
    assert len(memo) == 3  # "one" lost its shared chunk; "two" still uses it
    memo.sections("two.md", '<h1 id="t">Two</h1><p>2</p>')
    assert len(memo) == 2
    memo.forget_all()
    assert len(memo) == 0


# --- every page of two real sites ---------------------------------------------------------------


class PageCapture(BasePlugin):
    """Keeps every page a build renders (with its content, toc, url and meta)."""

    def __init__(self) -> None:
        self.pages: list[Page] = []

    def on_page_context(self, context, page: Page, config, nav):
        self.pages.append(page)
        return context


def built_pages(rules: Path, site_dir: Path) -> list[Page]:
    """Every page of a clean build of ``rules``, in this process (the pages are needed)."""
    from mkdocs.commands.build import build  # the build is this test's, not the module's
    from mkdocs.config import load_config

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RLT_RULES_DIR", str(rules))
        patch.setenv("NO_MKDOCS_2_WARNING", "1")
        config = load_config(str(ROOT / "mkdocs.yml"), site_dir=str(site_dir))
        capture = PageCapture()
        config.plugins["page-capture"] = capture
        build(config)
    return capture.pages


@pytest.fixture(scope="module", params=["real", "hostile"])
def site_pages(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[list[Page], dict, Library]]:
    rules = ROOT / "rules" if request.param == "real" else HOSTILE
    pages = built_pages(rules, tmp_path_factory.mktemp(f"{request.param}-site"))
    from mkdocs.config import load_config  # the configuration the build read, for search's

    config = load_config(str(ROOT / "mkdocs.yml"))
    yield pages, dict(config.plugins["material/search"].config), load_library(rules)


def test_every_page_of_a_site_gets_materials_sections_and_entries(
    site_pages, tmp_path: Path
) -> None:
    pages, search_config, library = site_pages
    assert len(pages) > 10
    memo, preview = SectionMemo(), PreviewSearch()
    for page in pages:
        uri = page.file.src_uri
        assert memo.sections(uri, page.content) == whole_page_sections(page.content), uri
        material = SearchIndex(**search_config)
        material.add_entry_from_context(page)
        rule_page = re.fullmatch(r"rules/(R\d+)\.md", uri)
        anchors = library.rule(rule_page.group(1)).anchors().triggers if rule_page else None
        split_code(material.entries)  # as the build rewrites the index Material's plugin wrote
        if anchors is not None:
            material.entries[:] = fold_rule_text(material.entries, anchors)
        preview.index(page, search_config, trigger_anchors=anchors)
        preview.restore(page)
        preview.write(str(tmp_path), [uri])
        written = (tmp_path / INDEX_PATH).read_text(encoding="utf-8")
        assert written == material.generate_search_index(None), uri


def test_a_site_has_pages_the_memo_cuts(site_pages) -> None:
    """The pages are cut at their headings (not all parsed whole by a fallback)."""
    pages, _, _ = site_pages
    cut = [page for page in pages if len(chunks(page.content)) > 2]
    assert len(cut) > len(pages) // 2
