"""Rule text full of markup renders as text on the site and in every export; no script runs.

``tests/fixtures/hostile/`` is a valid library whose every free-text field carries payloads
(``<script>``, ``<img onerror>``, ``<svg onload>``, ``javascript:`` links, attr_list braces, code
spans smuggled into attributes). Its site is built by the real command and opened in Chromium;
its exports are rendered by Python-Markdown and by a CommonMark renderer with raw HTML allowed
(the most permissive reader of a Markdown file) and opened in Chromium too. The policy itself
(:mod:`rlt_rules.render.inert`) is also checked on generated Markdown against both renderers.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import textwrap
from collections.abc import Callable, Iterator
from html.parser import HTMLParser
from pathlib import Path

import markdown
import pytest
from markdown_it import MarkdownIt
from playwright.sync_api import Page, expect

from rlt_rules import Library, load_bundle, load_library
from rlt_rules.export import render
from rlt_rules.render.inert import SAFE_SCHEMES, inert_library, inert_markdown
from rlt_rules.site.listing import index_filter_text
from rlt_rules.site.markup import markdown as site_markdown

pytest.register_assert_rewrite("site_fixtures")
pytest_plugins = ["site_fixtures"]

from site_fixtures import (  # noqa: E402
    ROOT,
    WAIT_MS,
    BuiltSite,
    build_site,
    run_cli,
    serve_directory,
)

HOSTILE = ROOT / "tests" / "fixtures" / "hostile" / "rules"
#: What every payload in the fixture does when it runs.
PWNED = "window.__pwned"
#: Markdown exports, by the path the site publishes them at.
MARKDOWN_EXPORTS = ("llms.txt", "llms-full.txt", "skill/SKILL.md", "checklist.md")
PAYLOAD_MARKERS = ("<script>", "onerror=", "onload=", "javascript:", "onfocus=")


# --- renderers and the live-markup check ---------------------------------------------------


def site_renderer() -> Callable[[str], str]:
    """Python-Markdown configured exactly as mkdocs.yml configures it for the site."""
    from mkdocs.config import load_config

    config = load_config(str(ROOT / "mkdocs.yml"))
    renderer = markdown.Markdown(
        extensions=config["markdown_extensions"], extension_configs=config["mdx_configs"]
    )

    def render_site(text: str) -> str:
        renderer.reset()
        return renderer.convert(text)

    return render_site


#: CommonMark with GFM tables and raw HTML passed through: what a lax viewer does with a file.
COMMONMARK = MarkdownIt("commonmark", {"html": True}).enable("table")

#: Elements Markdown (and our extensions: tabs, details, admonitions) produce.
MARKDOWN_TAGS = frozenset(
    {"p", "code", "pre", "span", "div", "a", "strong", "em", "ul", "ol", "li", "h1", "h2", "h3",
     "h4", "h5", "h6", "blockquote", "hr", "br", "table", "thead", "tbody", "tr", "th", "td",
     "img", "details", "summary", "input", "label"}
)  # fmt: skip


class LiveMarkup(HTMLParser):
    """Collects elements and attributes in rendered Markdown that could run or restyle."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in MARKDOWN_TAGS:
            self.found.append(f"<{tag}>")
        for name, value in attrs:
            if name.startswith("on") or name in {"style", "srcdoc", "autofocus", "formaction"}:
                self.found.append(f"<{tag} {name}>")
            if name in {"href", "src"} and value and not _safe_url(value):
                self.found.append(f"<{tag} {name}={value!r}>")

    handle_startendtag = handle_starttag


def _safe_url(url: str) -> bool:
    squeezed = "".join(char for char in url if ord(char) > 0x20 and char != "\x7f").lower()
    scheme = re.match(r"[a-z][a-z0-9+.\-]*:", squeezed)
    return scheme is None or scheme.group(0)[:-1] in SAFE_SCHEMES


def live_markup(rendered: str) -> list[str]:
    parser = LiveMarkup()
    parser.feed(rendered)
    parser.close()
    return parser.found


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def visible_text(rendered: str) -> str:
    """The text a reader sees in rendered HTML (entities decoded)."""
    parser = _Text()
    parser.feed(rendered)
    parser.close()
    return "".join(parser.parts)


def test_the_check_finds_live_markup() -> None:
    """The check can fail: raw payloads rendered as they are are live in both renderers."""
    render_site = site_renderer()
    for raw in ("<script>x</script>", "x <img src=x onerror=y>", "[a](javascript:b)"):
        assert live_markup(render_site(raw)), raw
    assert live_markup(COMMONMARK.render("<svg onload=x>"))
    assert live_markup(render_site("paragraph\n{: onclick=x }"))
    assert live_markup(render_site('[](`"`onerror=x)'))  # Python-Markdown's attribute leak


# --- the fixture ---------------------------------------------------------------------------


def _text_fields(library: Library) -> Iterator[tuple[str, str]]:
    yield "library.title", library.title
    yield "library.subtitle", library.subtitle
    for paragraph in library.preamble:
        yield "library.preamble", paragraph
    for category in library.categories:
        yield "category.title", category.title
        if category.what_goes_wrong is not None:
            yield "category.what_goes_wrong", category.what_goes_wrong
    for rule in library.rules:
        for name in ("title", "statement", "seed_example", "rationale", "impact", "correction"):
            yield f"rule.{name}", getattr(rule, name)
        for trigger in rule.triggers:
            yield "rule.triggers", trigger
        if rule.retired_reason is not None:
            yield "rule.retired_reason", rule.retired_reason
        for example in rule.examples:
            yield "example.title", example.title
            yield "example.explanation", example.explanation
            yield "example.code", example.code


def test_fixture_carries_markup_in_every_text_field() -> None:
    library = load_library(HOSTILE)
    hostile: dict[str, bool] = {}
    for name, text in _text_fields(library):
        carries = any(marker in text for marker in PAYLOAD_MARKERS)
        hostile[name] = hostile.get(name, False) or carries
    assert hostile and all(hostile.values()), [name for name, ok in hostile.items() if not ok]
    assert len(hostile) == 16


# --- the policy: inert_markdown against both renderers -------------------------------------


def test_real_library_text_is_unchanged() -> None:
    """The library's own text has nothing to escape: the seed's words reach every output."""
    library = load_library(ROOT / "rules")
    assert inert_library(library) == library
    for name, text in _text_fields(library):
        if name != "example.code":
            assert site_markdown(text) == text, name


REGRESSIONS = [
    "<script>window.__pwned=1</script>",
    '<img src=x onerror="window.__pwned=1">',
    "line one\n<svg onload=window.__pwned=1>",
    "[click](javascript:window.__pwned=1) [obfuscated](java&#115;cript&#58;window.__pwned=1)",
    "[spaced](java\n  script:x) ![image](JaVaScRiPt:x) [data](data:text/html,x)",
    "A [reference][evil].\n\n[evil]: javascript:window.__pwned=1",
    "[r2][e]\n\n[e]:\n  javascript:x",
    "paragraph\n{: tabindex=0 autofocus onfocus=window.__pwned=1 }",
    "[a](https://example.com/){: onclick=x }",
    '[](`"`onerror=window.__pwned=1)',
    '![`"onerror="window.__pwned=1`](https://example.com/x.png)',
    '[a](https://example.com/ "`"onmouseover="x`")',
    "x `a\n`<script>window.__pwned=1</script>` c",
    "| a | b |\n| --- | --- |\n| `x | <script>x</script>` | y |",
    "text\n  ```\n<script>x</script>\n  ```",
    "```\n<script>x</script>\n````\n<script>y</script>\n```",
    "~~~ {: onclick=x }\n<script>x</script>\n~~~",
    "x\r```\r<script>x</script>\r```",
    "<details open ontoggle=window.__pwned=1>",
    "&lt;script&gt; stays &amp;lt;script&amp;gt; for the reader",
]


@pytest.mark.parametrize("text", REGRESSIONS)
def test_inert_markdown_leaves_nothing_live(text: str) -> None:
    render_site = site_renderer()
    for at_line_start in (True, False):
        site = render_site(inert_markdown(text, at_line_start=at_line_start, attr_lists=True))
        assert not live_markup(site), site
        export = COMMONMARK.render(inert_markdown(text, at_line_start=at_line_start))
        assert not live_markup(export), export


def test_escaped_markup_reads_as_written() -> None:
    render_site = site_renderer()
    text = '<script>window.__pwned=1</script> and <img src=x onerror="y"> & &lt;b&gt;'
    assert visible_text(render_site(site_markdown(text))).strip() == text
    assert visible_text(COMMONMARK.render(inert_markdown(text))).strip() == text


def test_legitimate_markdown_still_renders() -> None:
    text = (
        "Keep **bold**, *emphasis*, `x < y` and [links](https://example.com/a?b=1&c=2).\n\n"
        "```python\nif a < b:\n    pass\n```"
    )
    site = site_renderer()(site_markdown(text))
    for rendered in (site, COMMONMARK.render(inert_markdown(text))):
        assert "<strong>bold</strong>" in rendered
        assert "<em>emphasis</em>" in rendered
        assert "<code>x &lt; y</code>" in rendered
        assert 'href="https://example.com/a?b=1&amp;c=2"' in rendered
        assert "&lt;" in rendered.split("<pre")[1]  # the fenced code, escaped by the renderer
    assert '<span class="k">if</span>' in site  # highlighted: still a code block


#: Pieces of Markdown and HTML from which random documents are drawn.
FRAGMENTS = [
    "`", "`", "``", "```", "````", "~~~", "```python", "\n", "\n", "\n", "\n\n", "  ", "    ",
    "\t", "<script>x</script>", "<img src=x onerror=y>", "<svg onload=z>", "<details ontoggle=q>",
    "<a href='javascript:w'>l</a>", "[a](", "javascript:z", ")", "]", "[", "]:", "![i](", "(",
    "&#58;", "&#x3a;", "&colon;", "&lt;", "{: onclick=q }", "{ onfocus=r autofocus }", "|",
    "| --- |", "---", "> ", "\\", "- ", "* ", "1. ", "x", "word ", "**b**", "_e_", "<", "<!--",
    "java\nscript:", "JaVaScRiPt:", "data:text/html,x", ":", '=== "t"\n', '!!! note "<b>"\n',
    "??? x\n", "`#!js <s>`", "[evil]: javascript:v\n", "<https://x>", "<javascript:y>",
    '`"onerror=1`', '"', "![", '" onmouseover="a" ', "https://example.com/",
]  # fmt: skip


def _documents(seed: int, count: int) -> Iterator[str]:
    chooser = random.Random(seed)
    for _ in range(count):
        yield "".join(chooser.choice(FRAGMENTS) for _ in range(chooser.randint(1, 30)))


#: What follows a field on a page: renderer state must not leak out of it.
_AFTER = "\n\nafter `x` and [l](https://example.com/)\n\n```\n<script>after</script>\n```\n"


def _site_placements(text: str) -> Iterator[str]:
    """The field where the site's pages put Markdown: a block, a list item, the preamble's
    blockquote, and an example's explanation in its tab (also nested inside the example's
    ``div``, as ``examples_section._example_body`` puts it)."""
    yield site_markdown(text)
    yield "-   " + site_markdown(text, at_line_start=False).replace("\n", "\n    ")
    yield textwrap.indent(site_markdown(text), "> ", lambda line: True)
    tab = '<div markdown="1">\n\n' + site_markdown(text) + "\n\n</div>"
    yield '=== "Bad"\n\n' + textwrap.indent(tab, "    ")
    nested = (
        '<div class="rlt-example" markdown="1">\n\n**title**\n\n'
        '<div class="rlt-explanation" markdown="1">\n\n'
        + site_markdown(text)
        + "\n\n</div>\n\n```python\nx = 1\n```\n\n</div>"
    )
    yield '=== "Bad"\n\n' + textwrap.indent(nested, "    ") + '\n\n=== "Good"\n\n    x'


def _export_placements(text: str) -> Iterator[str]:
    """The field where the exports put Markdown: a block, after a label, a task list item."""
    yield inert_markdown(text)
    yield "Impact: " + inert_markdown(text, at_line_start=False)
    lines = inert_markdown(text, at_line_start=False).split("\n")
    yield "- [ ] " + "\n".join([lines[0], *("      " + line if line else "" for line in lines[1:])])


def test_generated_markdown_leaves_nothing_live() -> None:
    """Random mixes of code fences, spans, links, HTML and entities, in every placement."""
    render_site = site_renderer()
    failures = []
    for text in _documents(seed=20_261, count=400):
        for placed in _site_placements(text):
            found = live_markup(render_site(placed + _AFTER))
            if found:
                failures.append(("site", text, found))
        for placed in _export_placements(text):
            found = live_markup(COMMONMARK.render(placed + _AFTER))
            if found:
                failures.append(("commonmark", text, found))
    assert not failures, failures[:5]


# --- the built site ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    return build_site(HOSTILE, tmp_path_factory.mktemp("hostile-site") / "out")


@pytest.fixture(scope="module")
def hostile_url(hostile_site: BuiltSite) -> Iterator[str]:
    with serve_directory(hostile_site.directory) as url:
        yield url


class _PageMarkup(HTMLParser):
    """Payloads that became markup in a built page: handlers, script bodies, javascript: URLs."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self._in: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._in.append(tag)
        for name, value in attrs:
            if name.startswith("on") and value and ("pwned" in value or "alert" in value):
                self.found.append(f"<{tag} {name}={value!r}>")
            if name in {"href", "src", "action"} and value and not _safe_url(value):
                self.found.append(f"<{tag} {name}={value!r}>")
        if tag in {"svg", "iframe", "marquee", "body"} and any(
            name.startswith("on") for name, _ in attrs
        ):
            self.found.append(f"<{tag}> with a handler")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._in:
            del self._in[len(self._in) - 1 - self._in[::-1].index(tag) :]

    def handle_data(self, data: str) -> None:
        inside = self._in[-1] if self._in else ""
        if inside in {"script", "style"} and ("pwned" in data or "display:none" in data):
            self.found.append(f"<{self._in[-1]}>{data.strip()[:60]}")


def test_built_pages_hold_payloads_only_as_text(hostile_site: BuiltSite) -> None:
    pages = sorted(hostile_site.directory.rglob("*.html"))
    assert len(pages) > 8
    for path in pages:
        parser = _PageMarkup()
        parser.feed(path.read_text(encoding="utf-8"))
        parser.close()
        assert not parser.found, f"{path.relative_to(hostile_site.directory)}: {parser.found}"
    page = (hostile_site.directory / "rules" / "R01" / "index.html").read_text(encoding="utf-8")
    title = re.search(r"<title>(.*?)</title>", page, re.DOTALL)
    assert title and "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in title.group(1)
    assert '<a href="https://example.com/">links</a>' in page
    assert "<code>code &lt;b&gt;spans&lt;/b&gt;</code>" in page


def test_search_index_holds_payloads_as_text(hostile_site: BuiltSite) -> None:
    index = json.loads((hostile_site.directory / "search/search_index.json").read_text("utf-8"))
    text = " ".join(doc["title"] + " " + doc["text"] for doc in index["docs"])
    assert "hostilewordalpha" in text
    assert "<script>window" not in text  # entity-escaped, as in the pages
    assert "&lt;script&gt;window.__pwned=1" in text


def test_a_trigger_of_several_paragraphs_keeps_the_next_trigger_apart(
    hostile_site: BuiltSite,
) -> None:
    """R01's second trigger holds two paragraphs; its third still has its own bullet on the
    page and its own search entry at its anchor (in a tight list the third trigger's bullet
    was read as a line of the second's last paragraph)."""
    library = load_library(HOSTILE)
    rule = library.rule("R01")
    assert any("\n\n" in trigger for trigger in rule.triggers)
    page = (hostile_site.directory / "rules" / "R01" / "index.html").read_text(encoding="utf-8")
    section = page.split('id="when-it-applies"', 1)[1].split("</ul>", 1)[0]
    items = re.findall(r"<li>(.*?)</li>", section, re.DOTALL)
    anchors = rule.anchors().triggers
    assert len(items) == len(anchors) == len(rule.triggers)
    for item, anchor in zip(items, anchors, strict=True):
        assert item.count('class="rlt-cite"') == 1 and f'id="{anchor}"' in item, anchor
    index = json.loads((hostile_site.directory / "search/search_index.json").read_text("utf-8"))
    locations = {doc["location"] for doc in index["docs"]}
    assert {f"rules/R01/#{anchor}" for anchor in anchors} <= locations
    assert "rules/R01/#when-it-applies" not in locations


# --- the exports ---------------------------------------------------------------------------


def _export_files(site: BuiltSite) -> dict[str, str]:
    """The Markdown exports as the site publishes them and as ``export`` renders them."""
    files = {
        f"site:{name}": (site.directory / name).read_text(encoding="utf-8")
        for name in MARKDOWN_EXPORTS
    }
    library = load_library(HOSTILE)
    for format_name in ("llms", "skill", "checklist"):
        for name, data in render(format_name, library, "https://rules.example/1.0.0/").items():
            files[f"{format_name}:{name}"] = data.decode("utf-8")
    sarif = json.loads(render("sarif", library, None)["rules.sarif.json"])
    for rule in sarif["runs"][0]["tool"]["driver"]["rules"]:
        files[f"sarif:{rule['id']}:help"] = rule["help"]["markdown"]
        files[f"sarif:{rule['id']}:full"] = rule["fullDescription"]["markdown"]
    return files


def test_markdown_exports_carry_no_live_html(hostile_site: BuiltSite) -> None:
    render_plain = markdown.Markdown(extensions=["tables", "fenced_code"])
    files = _export_files(hostile_site)
    assert len(files) > 10
    for name, text in files.items():
        for rendered in (COMMONMARK.render(text), render_plain.reset().convert(text)):
            assert not live_markup(rendered), (name, live_markup(rendered))
    # The words are all there, shown as the authors wrote them.
    full = visible_text(COMMONMARK.render(files["site:llms-full.txt"]))
    assert "<script>window.__pwned=1</script> titles are text & <b>bold</b> is not" in full
    assert '<img src=x onerror="window.__pwned=1">' in full
    assert "[a javascript link](javascript:window.__pwned=1)" in full


def test_data_exports_keep_the_text_exactly(hostile_site: BuiltSite) -> None:
    library = load_library(HOSTILE)
    assert load_bundle(hostile_site.directory / "rules.json") == library
    sarif = json.loads((hostile_site.directory / "rules.sarif.json").read_text("utf-8"))
    descriptors = {rule["id"]: rule for rule in sarif["runs"][0]["tool"]["driver"]["rules"]}
    for rule in library.rules:
        assert descriptors[rule.id]["shortDescription"]["text"] == rule.title


# --- in Chromium ---------------------------------------------------------------------------


def _watch_dialogs(page: Page) -> list[str]:
    dialogs: list[str] = []

    def dismiss(dialog) -> None:
        dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    page.on("dialog", dismiss)
    return dialogs


def _provoke(page: Page) -> None:
    """Give event-handler payloads their chance: hover over the page, tab through it."""
    for y in range(50, 900, 120):
        for x in range(40, 1280, 160):
            page.mouse.move(x, y)
    for _ in range(12):
        page.keyboard.press("Tab")
    page.wait_for_timeout(300)


def _assert_nothing_ran(page: Page, dialogs: list[str]) -> None:
    assert page.evaluate(f"typeof {PWNED}") == "undefined", page.url
    assert not dialogs, dialogs
    handlers = page.evaluate(
        """() => [...document.querySelectorAll('*')].flatMap(el => [...el.attributes]
            .filter(a => a.name.startsWith('on') && !(el.matches('form[data-rlt-filter]')))
            .map(a => el.tagName + ' ' + a.name))"""
    )
    assert not handlers, handlers
    scripted = page.evaluate(
        """() => [...document.querySelectorAll('a[href], img[src], iframe')]
            .map(el => el.getAttribute('href') || el.getAttribute('src') || '')
            .filter(url => /^\\s*(javascript|data|vbscript):/i.test(url))"""
    )
    assert not scripted, scripted


@pytest.mark.browser
def test_the_browser_check_sees_a_payload_run(page: Page) -> None:
    """Control: the same payload, rendered raw, does run here, so the checks below can fail."""
    dialogs = _watch_dialogs(page)
    page.set_content(COMMONMARK.render('x <img src=x onerror="window.__pwned=1">'))
    page.wait_for_function(f"{PWNED} === 1")
    page.set_content(COMMONMARK.render("<img src=x onerror=alert(1)>"))
    waited = 0
    while not dialogs and waited < WAIT_MS:  # the alert comes when the image fails, under load late
        page.wait_for_timeout(100)
        waited += 100
    assert dialogs


@pytest.mark.browser
@pytest.mark.parametrize(
    ("path", "shown"),
    [
        ("", "<svg onload=window.__pwned=1>"),
        ("rules/", "<script>window.__pwned=1</script> titles are text"),
        ("rules/R01/", '<img src=x onerror="window.__pwned=1">'),
        ("rules/R02/", "<svg onload=alert(1)>"),
        ("rules/R03/", 'Retired because <img src=x onerror="window.__pwned=1">'),
        ("categories/markup-everywhere/", "hostilewordalpha <script>window.__pwned=1</script>"),
        ("categories/lifecycle/", "<script>window.__pwned=1</script> deprecated statement."),
        ("tags/", "<script>window.__pwned=1</script> titles are text"),
        ("changelog/", 'Retired "quoted" <script>window.__pwned=1</script> rule'),
        ("learn/markup-everywhere/", "hostilewordgamma <script>window.__pwned=1</script>"),
        ("learn/", "Markup <img src=x onerror="),
    ],
)
def test_no_payload_runs_in_the_browser(
    page: Page, hostile_url: str, path: str, shown: str
) -> None:
    dialogs = _watch_dialogs(page)
    page.goto(hostile_url + path)
    page.wait_for_load_state("load")
    expect(page.locator(".md-content")).to_contain_text(shown, timeout=WAIT_MS)
    _provoke(page)
    _assert_nothing_ran(page, dialogs)


@pytest.mark.browser
def test_practice_shows_payloads_as_text_before_and_after_the_answer(
    page: Page, hostile_url: str
) -> None:
    """The items' JSON carries the payloads; the script puts them in the page as text."""
    dialogs = _watch_dialogs(page)
    page.goto(f"{hostile_url}learn/practice/?seed=1")
    expect(page.locator("[data-rlt-practice][data-rlt-loaded=true]")).to_have_count(1)
    program = page.locator(".rlt-program code").first
    expect(program).to_contain_text("<script>window.__pwned=1</script>")
    choice = page.locator("button.rlt-choice[data-rlt-choice=R01]")
    expect(choice).to_contain_text("<script>window.__pwned=1</script> titles are text")
    choice.click()
    reveal = page.locator("[data-rlt-reveal]")
    expect(reveal).to_contain_text('<img src=x onerror="window.__pwned=1"> example title')
    expect(reveal).to_contain_text("An explanation <script>window.__pwned=1</script> with")
    expect(reveal.locator("code").first).to_have_text("code")
    expect(reveal).to_contain_text("Good <svg onload=window.__pwned=1> title")
    _provoke(page)
    _assert_nothing_ran(page, dialogs)


@pytest.mark.browser
def test_search_results_show_payloads_as_text(page: Page, hostile_url: str) -> None:
    dialogs = _watch_dialogs(page)
    page.goto(hostile_url)
    page.locator("label.md-search__icon, input.md-search__input").first.click()
    box = page.locator("input.md-search__input")
    box.click()
    box.press_sequentially("hostilewordalpha")
    results = page.locator("li.md-search-result__item")
    expect(results.first).to_be_visible(timeout=WAIT_MS)
    expect(page.locator(".md-search-result")).to_contain_text("window.__pwned=1", timeout=WAIT_MS)
    links = results.locator("a.md-search-result__link").evaluate_all(
        "links => links.map(a => a.href)"
    )
    assert any("/rules/R01/" in link for link in links), links
    box.fill("")
    box.press_sequentially("onerror")
    expect(results.first).to_be_visible(timeout=WAIT_MS)
    _provoke(page)
    _assert_nothing_ran(page, dialogs)


@pytest.mark.browser
def test_index_filter_handles_payload_queries(page: Page, hostile_url: str) -> None:
    dialogs = _watch_dialogs(page)
    page.goto(f"{hostile_url}rules/?filter=%3Cscript%3Ewindow.__pwned%3D1%3C%2Fscript%3E")
    expect(page.locator("input[name=filter]")).to_have_value("<script>window.__pwned=1</script>")
    payload = '<img src=x onerror="window.__pwned=1">'
    page.fill("input[name=filter]", payload)
    # The rules whose filter text (title, statement, triggers...) holds every typed word.
    texts = json.loads(index_filter_text(load_library(HOSTILE)))
    expected = [rid for rid, text in texts.items() if all(w in text for w in payload.split())]
    assert "R01" in expected and len(expected) < len(texts)
    expect(page.locator("[data-rlt-count]")).to_contain_text(f"{len(expected)} of 3")
    assert (
        page.locator("tr[data-rule]:visible").evaluate_all("rows => rows.map(r => r.dataset.rule)")
        == expected
    )
    _assert_nothing_ran(page, dialogs)


@pytest.mark.browser
@pytest.mark.parametrize("name", MARKDOWN_EXPORTS)
def test_markdown_exports_run_nothing_in_the_browser(
    page: Page, hostile_site: BuiltSite, name: str
) -> None:
    """Each Markdown export, rendered with raw HTML allowed, opened as a page."""
    dialogs = _watch_dialogs(page)
    text = (hostile_site.directory / name).read_text(encoding="utf-8")
    page.set_content(COMMONMARK.render(text))
    expect(page.locator("body")).to_contain_text("<script>window.__pwned=1</script>")
    _provoke(page)
    _assert_nothing_ran(page, dialogs)


def test_exports_written_by_the_cli_match_the_site(tmp_path: Path, hostile_site: BuiltSite) -> None:
    """``rlt-rules export`` writes the same inert files the site publishes."""
    result = run_cli("export", "--format", "llms", "--rules", str(HOSTILE), "-o", str(tmp_path))
    assert result.returncode == 0, result.stderr
    full = (tmp_path / "llms-full.txt").read_text(encoding="utf-8")
    assert full == (hostile_site.directory / "llms-full.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("payload", "column", "destination"),
    [
        ("[x](java%0ascript:alert(1))", 7, "java%0ascript:alert(1)"),
        ('![chart](x" onerror="alert(1)")', 12, 'x"'),
    ],
)
def test_a_link_the_strict_build_would_stop_on_is_rejected_first_at_its_position(
    tmp_path: Path, payload: str, column: int, destination: str
) -> None:
    """Unlike the fixture's payloads (shown as text, or absolute), these stay relative links:
    MkDocs' strict build would stop on them. The library check rejects them before a page is
    written, at the line and column of the destination, as ``validate`` does."""
    rules = tmp_path / "rules"
    shutil.copytree(HOSTILE, rules)
    path = rules / "R03.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("  Rationale.\n", f"  Rationale.\n  {payload}\n", 1), "utf-8")
    line = text.splitlines().index("  Rationale.") + 2
    site = tmp_path / "site"
    validate = ("validate", str(rules))
    build = ("site", "build", "--strict", "--rules", str(rules), "--site-dir", str(site))
    for command in (validate, build):
        result = run_cli(*command)
        output = result.stdout + result.stderr
        assert result.returncode == 1, output
        assert f"R03.yaml:{line}:{column}: a link to {destination!r} stays a link" in output
        assert "Aborted" not in output and "Traceback" not in output
    assert not site.exists()
