"""Code wraps like code on a phone (issue 31, section 3): at 390 and 1280 px, on every page
with code and in the whole library's answered practice, no wrapped line leaves its first row
empty (a deep indentation alone on it) and no line breaks inside a name or an operator
("self.w↪aiting", "-↪> list") where it could break between tokens. Continuation marks stay
(test_display_browser.py checks them)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytest.register_assert_rewrite("site_fixtures")
pytest_plugins = ["site_fixtures"]

from site_fixtures import BuiltSite  # noqa: E402
from test_browser import _page_at  # noqa: E402
from test_display_browser import ALL_TABS, answered_practice  # noqa: E402

pytestmark = pytest.mark.browser

WIDTHS = (390, 1280)

#: Every shown line of code that takes several rows: whether its first row holds only its
#: indentation (or a diff's column), and each row break inside a token (a run of letters,
#: digits and "_", or an operator of up to 3 punctuation characters) that fits in a row and
#: had other text before it on its row, so that the break could have gone before it.
WRAP_DEFECTS = """() => {
  const WORD = /[\\p{L}\\p{N}_]/u;
  const kind = (c) => (/\\s/.test(c) ? " " : WORD.test(c) ? "w" : "p");
  const lines = document.querySelectorAll(
    ".highlight code > span[id^='__span-'], .highlight code > .rlt-line"
  );
  const range = document.createRange();
  const found = { lines: 0, wrapped: 0, emptyFirstRow: [], insideToken: [] };
  for (const line of lines) {
    const box = line.getBoundingClientRect();
    if (!box.width) continue; // not shown
    found.lines += 1;
    const rowHeight = parseFloat(getComputedStyle(line).lineHeight);
    if (box.height < rowHeight * 1.5) continue;
    found.wrapped += 1;
    // Continuation rows are as wide as the line (or its marked .hll) less its padding.
    const holder = line.querySelector(":scope > .hll") || line;
    const style = getComputedStyle(holder);
    const rowWidth = holder.getBoundingClientRect().width
      - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    // Each character and the top of its box.
    const chars = [];
    const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let i = 0; i < node.data.length; i += 1) {
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const rects = range.getClientRects();
        const last = rects.length ? rects[rects.length - 1] : null;
        chars.push({ c: node.data[i], top: last && last.top, width: last ? last.width : 0 });
      }
    }
    const text = chars.map((ch) => ch.c).join("").replace(/\\n$/, "");
    const skip = line.closest(".rlt-diff, .language-diff") ? 1 : 0;
    const charWidth = Math.max(...chars.map((ch) => ch.width));
    const label = (line.id || "practice") + ": " + text.trim().slice(0, 60);
    const firstInk = text.slice(skip).search(/\\S/) + skip;
    if (chars[firstInk].top > box.top + rowHeight / 2) found.emptyFirstRow.push(label);
    // Row starts: a character below the character drawn before it (spaces hang at row ends).
    const starts = [0];
    let top = null;
    for (let i = 0; i < text.length; i += 1) {
      if (chars[i].top === null || /\\s/.test(text[i])) continue;
      if (top !== null && chars[i].top > top + rowHeight / 2) starts.push(i);
      top = chars[i].top;
    }
    for (const k of starts.slice(1)) {
      const a = kind(text[k - 1]);
      if (a === " " || a !== kind(text[k])) continue;
      let s = k;
      while (s > 0 && kind(text[s - 1]) === a) s -= 1;
      let e = k;
      while (e < text.length && kind(text[e]) === a) e += 1;
      if (a === "p" && e - s > 3) continue; // a ruler, not an operator
      const rowStart = starts.filter((r) => r <= s).pop();
      const before = text.slice(rowStart === 0 ? skip : rowStart, s);
      if (before.trim() && (e - s) * charWidth <= rowWidth + 0.5) {
        found.insideToken.push(`${label} @ ${text.slice(s, k)}↪${text.slice(k, e)}`);
      }
    }
  }
  return found;
}"""


def _code_pages(built_site: BuiltSite) -> list[str]:
    pages = sorted(
        path.parent.relative_to(built_site.directory).as_posix() + "/"
        for path in built_site.directory.rglob("index.html")
        if 'class="highlight"' in path.read_text(encoding="utf-8")
    )
    return [("" if page == "./" else page) for page in pages]


def _assert_no_defect(found: dict, where: str) -> None:
    assert not found["emptyFirstRow"], (
        f"{where}: {len(found['emptyFirstRow'])} wrapped lines with an empty first row: "
        f"{found['emptyFirstRow'][:5]}"
    )
    assert not found["insideToken"], (
        f"{where}: {len(found['insideToken'])} breaks inside a token: {found['insideToken'][:5]}"
    )


@pytest.mark.parametrize("width", WIDTHS)
def test_code_wraps_between_tokens_on_every_page_with_code(
    browser, site_url: str, built_site: BuiltSite, width: int
) -> None:
    pages = _code_pages(built_site)
    assert len(pages) >= len(built_site.library.rules), pages  # rule pages, lessons, guides
    wrapped = 0
    with _page_at(browser, width=width) as page:
        for path in pages:
            page.goto(site_url + path)
            expect(page.locator("[data-rlt-prepared]").first).to_be_attached()
            page.add_style_tag(content=ALL_TABS)
            found = page.evaluate(WRAP_DEFECTS)
            wrapped += found["wrapped"]
            _assert_no_defect(found, f"/{path} at {width} px")
    assert wrapped > 0, f"no line wraps at {width} px: the check checks nothing"


@pytest.mark.parametrize("width", WIDTHS)
def test_practice_code_wraps_between_tokens(
    browser, site_url: str, built_site: BuiltSite, width: int
) -> None:
    """Every program of the whole library's practice, answered: its lines and its diff."""
    with answered_practice(browser, site_url, built_site, width=width) as page:
        found = page.evaluate(WRAP_DEFECTS)
    assert found["wrapped"] > 0
    _assert_no_defect(found, f"practice at {width} px")


def test_the_check_finds_both_defects_in_a_line_the_script_did_not_prepare(
    browser, site_url: str, built_site: BuiltSite
) -> None:
    """Control: a deeply indented line added to a page after the script ran wraps as the
    browser alone would, and the check reports both defects on it."""
    rule = next(rule for rule in built_site.library.rules if rule.examples)
    with _page_at(browser, width=390) as page:
        page.goto(f"{site_url}rules/{rule.id}/")
        expect(page.locator("[data-rlt-prepared]").first).to_be_attached()
        found = page.evaluate(
            """measure => {
              const code = document.querySelector('.highlight code');
              const line = document.createElement('span');
              line.id = '__span-control-1';
              line.textContent = ' '.repeat(24) + 'admitted_requests_total = '
                + 'self.waiting_queue_entries.pop_admissible(budget_tokens_left)\\n';
              code.prepend(line);
              return eval(measure)();
            }""",
            WRAP_DEFECTS,
        )
    assert any("admitted_requests_total" in line for line in found["emptyFirstRow"]), found
    assert any("admitted_requests_total" in line for line in found["insideToken"]), found
