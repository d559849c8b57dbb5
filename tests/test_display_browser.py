"""Every line visible, in Chromium: code that wraps instead of scrolling, the copy button over no
text, numbered rule-page examples, titles and pair names as written, the home page's way to
Learn, answered practice kept across a reload, and a live preview that asks for no
``versions.json``. At 1280 and 390 px (issue 21, section 4)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from playwright.sync_api import Page, expect

from rlt_rules.library.pairs import pairs_of
from rlt_rules.site.examples_section import split_output
from rlt_rules.site.practice import practice_items
from rlt_rules.site.titles import pair_heading, text_segments

pytest.register_assert_rewrite("site_fixtures")
pytest_plugins = ["site_fixtures"]

from site_fixtures import FIXTURE_RULES, BuiltSite, free_port, make_project  # noqa: E402
from test_browser import PRACTICE_LOADED_MS, _page_at  # noqa: E402

pytestmark = pytest.mark.browser

WIDTHS = (1280, 390)

#: For every visible code block of the page: how far it scrolls sideways, and which characters
#: of it lie under a button of its block (Material's copy button).
HIDDEN_TEXT = """() => {
  const shown = el => el.getClientRects().length > 0;
  const overlaps = (r, b) =>
    r.width > 0 && r.right > b.left && r.left < b.right && r.bottom > b.top && r.top < b.bottom;
  const blocks = [];
  for (const code of document.querySelectorAll('.md-content pre > code')) {
    if (!shown(code)) continue;
    const block = {
      start: code.textContent.slice(0, 50),
      sideways: code.scrollWidth - code.clientWidth,
      covered: [],
      buttons: 0,
    };
    const holder = code.closest('.highlight') || code.parentElement;
    const range = document.createRange();
    for (const button of holder.querySelectorAll('.md-code__nav, .md-clipboard, button')) {
      if (!shown(button)) continue;
      block.buttons += 1;
      const box = button.getBoundingClientRect();
      const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        range.selectNodeContents(node);
        if (!overlaps(range.getBoundingClientRect(), box)) continue;
        const text = node.textContent;
        for (let i = 0; i < text.length; i += 1) {
          if (!text[i].trim()) continue;
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          if ([...range.getClientRects()].some(r => overlaps(r, box)))
            block.covered.push(text.slice(Math.max(0, i - 15), i + 5));
        }
      }
    }
    blocks.push(block);
  }
  return blocks;
}"""

#: Every tab of a tab set laid out as the selected one is (a pair's Bad and Good on a phone).
ALL_TABS = (
    ".md-typeset .tabbed-set > .tabbed-content > .tabbed-block { display: block !important; }"
)


#: Each line of code that takes more than one row: where its first row and its later rows
#: start, its indentation, the width of a character, and its continuation mark.
WRAPPED_LINES = """() => {
  const out = [];
  for (const line of document.querySelectorAll('.md-content code > span[id^="__span-"]')) {
    const text = line.textContent.replace(/\\n$/, '');
    const height = line.getBoundingClientRect().height;
    const lineHeight = parseFloat(getComputedStyle(line).lineHeight);
    if (!text.trim() || height < 1.5 * lineHeight) continue;
    const range = document.createRange();
    range.selectNodeContents(line);
    const rects = [...range.getClientRects()].filter(r => r.width > 0);
    const top = rects[0].top;
    const first = Math.min(...rects.filter(r => r.top < top + 2).map(r => r.left));
    const later = Math.min(...rects.filter(r => r.top > top + 2).map(r => r.left));
    out.push({
      text: text.slice(0, 40), first, later, indent: /^ */.exec(text)[0].length,
      ch: parseFloat(getComputedStyle(line).fontSize) * 0.6,
      mark: getComputedStyle(line, '::after').content,
    });
  }
  return out;
}"""


def _assert_every_line_visible(page: Page, where: str) -> int:
    """No code block on the page scrolls sideways and no text lies under a button; returns how
    many blocks were checked."""
    blocks = page.evaluate(HIDDEN_TEXT)
    cut = [(block["start"], block["sideways"]) for block in blocks if block["sideways"] > 0]
    assert not cut, f"{where}: code blocks scroll sideways (lines cut at the edge): {cut}"
    covered = [(block["start"], block["covered"][:3]) for block in blocks if block["covered"]]
    assert not covered, f"{where}: text under the copy button: {covered}"
    return len(blocks)


def _pages(built_site: BuiltSite) -> list[str]:
    library = built_site.library
    paths = [f"rules/{rule.id}/" for rule in library.rules if rule.examples]
    paths += [f"learn/{category.id}/" for category in library.categories]
    if (built_site.directory / "review-example").is_dir():
        paths.append("review-example/")
    return paths


@pytest.mark.parametrize("width", WIDTHS)
def test_every_code_line_is_visible_on_rule_pages_lessons_and_the_review(
    browser, site_url: str, built_site: BuiltSite, width: int
) -> None:
    checked = 0
    with _page_at(browser, width=width) as page:
        for path in _pages(built_site):
            page.goto(site_url + path)
            expect(page.locator(".md-code__nav").first).to_be_attached()
            page.add_style_tag(content=ALL_TABS)
            checked += _assert_every_line_visible(page, f"/{path} at {width} px")
    assert checked >= len(_pages(built_site))


@contextmanager
def answered_practice(
    browser, site_url: str, built_site: BuiltSite, *, width: int
) -> Iterator[Page]:
    """The practice page of the whole library with every item answered (its lines and its diff
    shown), at ``width`` px."""
    items = practice_items(built_site.library)
    answered = {item.key: {"right": True, "tries": 1} for item in items}
    with _page_at(browser, width=width) as page:
        page.goto(f"{site_url}learn/practice/?seed=9")
        page.evaluate(
            "progress => localStorage.setItem('rlt-rules.practice', JSON.stringify(progress))",
            answered,
        )
        page.reload()
        expect(page.locator("[data-rlt-practice][data-rlt-loaded=true]")).to_have_count(
            1, timeout=PRACTICE_LOADED_MS
        )
        expect(page.locator("[data-rlt-reveal]")).to_have_count(len(items))
        yield page


@pytest.mark.parametrize("width", WIDTHS)
def test_every_code_line_is_visible_in_answered_practice(
    browser, site_url: str, built_site: BuiltSite, width: int
) -> None:
    """Every program of the whole library's practice, answered: its lines and its diff."""
    items = practice_items(built_site.library)
    with answered_practice(browser, site_url, built_site, width=width) as page:
        checked = _assert_every_line_visible(page, f"practice at {width} px")
        # Titles there too show their code spans as code.
        for item in items:
            reveal = page.locator(f'[data-rlt-item="{item.key}"] [data-rlt-reveal]')
            title = item.pair.bad.title if item.pair is not None else ""  # a bank item has none
            spans = [text for kind, text in text_segments(title) if kind == "code"]
            assert reveal.locator(".rlt-reveal__title code").all_inner_texts() == spans
    with_diff = sum(1 for item in items if item.pair is not None and item.pair.diff())
    assert checked == len(items) + with_diff


def test_the_check_finds_a_cut_line_and_text_under_the_copy_button(
    page: Page, site_url: str, built_site: BuiltSite
) -> None:
    """Control: with Material's own scrolling back, no room kept for the button and narrow
    boxes, the same check reports both on the rule page with the longest line."""
    rule = max(
        (rule for rule in built_site.library.rules if rule.examples),
        key=lambda rule: max(len(line) for ex in rule.examples for line in ex.code.split("\n")),
    )
    page.goto(f"{site_url}rules/{rule.id}/")
    expect(page.locator(".md-code__nav").first).to_be_attached()
    page.add_style_tag(
        content=".md-typeset pre > code, .md-typeset pre > code.md-code__content "
        "{ white-space: pre !important; }"
        ".md-typeset pre > code::before { display: none !important; }"
        ".md-typeset .highlight { max-width: 14em; }"
    )
    blocks = page.evaluate(HIDDEN_TEXT)
    assert any(block["sideways"] > 0 for block in blocks)
    assert any(block["covered"] for block in blocks)


@pytest.mark.parametrize("width", WIDTHS)
def test_a_wrapped_line_is_marked_and_keeps_its_indentation(
    browser, site_url: str, built_site: BuiltSite, width: int
) -> None:
    """A line longer than its box takes several rows; the rows after the first start to the
    right of the line's indentation, behind a continuation mark."""
    with _page_at(browser, width=width) as page:
        page.goto(f"{site_url}learn/{built_site.library.categories[0].id}/")
        rows = page.evaluate(WRAPPED_LINES)
    assert rows, f"no line wraps at {width} px: the check checks nothing"
    for row in rows:
        # Continuation rows start right of the line's own indentation (indentation of a diff's
        # lines comes after its "-"/"+" column, so at least the code's).
        assert row["later"] > row["first"] + min(row["indent"], 16) * row["ch"] * 0.9, row
        assert "↪" in row["mark"], row


def test_rule_page_examples_have_line_numbers(
    page: Page, site_url: str, built_site: BuiltSite
) -> None:
    """Each program is numbered from 1, beside its lines; the numbers are not part of the
    text (copying the program copies the program)."""
    for rule in built_site.library.rules:
        if not rule.examples:
            continue
        page.goto(f"{site_url}rules/{rule.id}/")
        page.add_style_tag(content=ALL_TABS)
        for example in rule.examples:
            block = page.locator(f'[data-example="{example.kind}-{example.name}"]')
            code = block.locator(".highlight").first.locator("code")
            program, _ = split_output(example.code)
            count = program.count("\n") + 1
            numbers = code.locator("[data-linenos]").evaluate_all(
                "spans => spans.map(span => getComputedStyle(span, '::before').content)"
            )
            assert [number.strip('"').strip() for number in numbers] == [
                str(n) for n in range(1, count + 1)
            ], (rule.id, example.name)
            assert code.text_content().rstrip("\n") == program
            first_line = code.locator("span[id^='__span-']").first
            number_box = first_line.evaluate(
                "line => { const r = line.getBoundingClientRect(); return r.left; }"
            )
            # Where its first visible character is drawn (a highlighted line's box reaches
            # under the numbers: the text, not the boxes, must start after them).
            text_left = first_line.evaluate(
                """line => {
                   const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
                   for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                     const at = node.data.search(/\\S/);
                     if (at < 0) continue;
                     const range = document.createRange();
                     range.setStart(node, at);
                     range.setEnd(node, at + 1);
                     return range.getBoundingClientRect().left;
                   }
                   return -1; }"""
            )
            assert text_left > number_box + 10, (
                f"{rule.id} {example.kind}-{example.name}: the program's text starts after its "
                f"numbers ({text_left} px, numbers from {number_box} px)"
            )


def test_titles_show_code_spans_as_code_and_pair_names_as_written(
    page: Page, site_url: str, built_site: BuiltSite
) -> None:
    titled = 0
    for rule in built_site.library.rules:
        if not pairs_of(rule):
            continue
        page.goto(f"{site_url}rules/{rule.id}/")
        headings = page.locator(".md-content h3").all_inner_texts()
        for pair in pairs_of(rule):
            assert pair_heading(pair) in [heading.rstrip("¶").strip() for heading in headings]
            for example in (pair.bad, pair.good):
                block = page.locator(f'[data-example="{example.kind}-{example.name}"]')
                title = block.locator("strong").first
                spans = [text for kind, text in text_segments(example.title) if kind == "code"]
                expect(title.locator("code")).to_have_count(len(spans))
                if spans:
                    titled += 1
                    assert title.locator("code").all_inner_texts() == spans
                    assert "`" not in title.inner_text()
                    expect(title.locator("script, img, a")).to_have_count(0)
    if titled == 0:
        pytest.skip("no example title of this library has a code span")


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844)])
def test_home_page_first_screen_points_to_learn(
    browser, site_url: str, width: int, height: int
) -> None:
    with _page_at(browser, width=width, height=height) as page:
        page.goto(site_url)
        start = page.locator("[data-rlt-start]")
        expect(start).to_be_visible()
        box = start.bounding_box()
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= height, box
        start.click()
        expect(page).to_have_url(f"{site_url}learn/")


@pytest.mark.parametrize("width", WIDTHS)
def test_answered_practice_stays_answered_after_a_reload(
    browser, site_url: str, built_site: BuiltSite, width: int
) -> None:
    items = {item.key: item for item in practice_items(built_site.library)}
    with _page_at(browser, width=width) as page:
        page.goto(f"{site_url}learn/practice/?seed=21")
        expect(page.locator("[data-rlt-practice][data-rlt-loaded=true]")).to_have_count(
            1, timeout=PRACTICE_LOADED_MS
        )
        first = page.locator("[data-rlt-item]").nth(0)
        second = page.locator("[data-rlt-item]").nth(1)
        item = items[first.get_attribute("data-rlt-item")]
        other = items[second.get_attribute("data-rlt-item")]
        wrong = next(choice for choice in other.choices if choice != other.rule.id)
        first.locator(f'button[data-rlt-choice="{item.rule.id}"]').click()
        second.locator(f'button[data-rlt-choice="{wrong}"]').click()
        second.locator(f'button[data-rlt-choice="{other.rule.id}"]').click()
        page.reload()
        expect(page.locator("[data-rlt-practice][data-rlt-loaded=true]")).to_have_count(
            1, timeout=PRACTICE_LOADED_MS
        )
        for position, answered, note in ((0, item, "first try"), (1, other, "1 wrong try")):
            section = page.locator("[data-rlt-item]").nth(position)
            expect(section).to_have_attribute("data-rlt-answered", "")
            verdict = section.locator(".rlt-verdict")
            expect(verdict).to_contain_text(
                f"Answered earlier: {answered.rule.id} — {answered.rule.title}"
            )
            expect(verdict).to_contain_text(note)
            expect(verdict).not_to_be_focused()
            for choice in section.locator("button.rlt-choice").all():
                expect(choice).to_be_disabled()
            expect(section.locator(f'button[data-rlt-choice="{answered.rule.id}"]')).to_have_class(
                "rlt-choice rlt-choice--right"
            )
            expect(section.locator("[data-rlt-reveal]")).to_be_visible()
            expect(section.locator(".rlt-program .hll")).to_have_count(len(answered.shown.marked))
        # An item not answered stays a question.
        third = page.locator("[data-rlt-item]").nth(2)
        expect(third.locator("[data-rlt-reveal]")).to_have_count(0)
        expect(third.locator("button.rlt-choice").first).to_be_enabled()
        # Forgetting the answers opens them again.
        page.get_by_role("button", name="Forget my answers").click()
        expect(page.locator("[data-rlt-answered]")).to_have_count(0)
        expect(page.locator("[data-rlt-reveal]")).to_have_count(0)
        page.reload()
        expect(page.locator("[data-rlt-practice][data-rlt-loaded=true]")).to_have_count(
            1, timeout=PRACTICE_LOADED_MS
        )
        expect(page.locator("[data-rlt-answered]")).to_have_count(0)


def test_live_preview_requests_no_versions_file(page: Page, tmp_path) -> None:
    """``rlt-rules site serve`` drops the version selector (nothing is deployed to select):
    no page asks for ``versions.json``, and every request it makes is answered."""
    project = make_project(tmp_path / "project", FIXTURE_RULES)
    address = f"127.0.0.1:{free_port()}"
    process = subprocess.Popen(
        [sys.executable, "-m", "rlt_rules", "site", "serve", "--dev-addr", address],
        cwd=project,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        url = f"http://{address}/"
        _wait_until_served(url, process)
        requests, failed = _requests_of(page, [url, f"{url}rules/R04/", f"{url}learn/"])
        assert requests, "the check saw no request"
        assert not [request for request in requests if "versions.json" in request], requests
        assert not failed, failed
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_the_versions_check_sees_a_built_site_ask_for_versions(page: Page, site_url: str) -> None:
    """Control: a build served as it is (no mike around it) does ask, and the check sees it."""
    requests, failed = _requests_of(page, [site_url])
    assert any(request.endswith("/versions.json") for request in requests), requests
    assert any(request.endswith("/versions.json") for request in failed), failed


def _requests_of(page: Page, urls: list[str]) -> tuple[list[str], list[str]]:
    """Every request the pages make (and the ones answered with an error) until their scripts
    have started: Material asks for versions.json as its bundle starts, before the search
    worker has its index."""
    requests: list[str] = []
    failed: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.on(
        "response",
        lambda response: failed.append(response.url) if response.status >= 400 else None,
    )
    for url in urls:
        with page.expect_response(lambda response: "search_index.json" in response.url):
            page.goto(url)
        expect(page.locator("h1")).to_be_visible()
    return requests, failed


def test_a_deployed_build_keeps_the_version_selector(built_site: BuiltSite) -> None:
    """Only the preview drops it: a build (what mike deploys) still names mike."""
    page = (built_site.directory / "index.html").read_text(encoding="utf-8")
    start = page.index('id="__config"')
    config = json.loads(page[page.index(">", start) + 1 : page.index("</script>", start)])
    assert config["version"]["provider"] == "mike"


def _wait_until_served(url: str, process: subprocess.Popen, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, "rlt-rules site serve exited"
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise AssertionError(f"{url} was not served within {timeout} s")
