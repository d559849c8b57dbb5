"""Readable on a phone (issue 31, section 3), in Chromium at 390 and 1280 px: the site title
whole beside mike's version selector (it was cut to "Rlt Ref…"), and the Exports page's file
names breaking only after a "/" (never "rules.sarif.↪json")."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

pytest.register_assert_rewrite("site_fixtures")
pytest_plugins = ["site_fixtures"]

from site_fixtures import BuiltSite, serve_directory  # noqa: E402
from test_browser import _blocking_violations, _describe, _page_at  # noqa: E402

pytestmark = pytest.mark.browser

WIDTHS = (390, 1280)


@pytest.fixture(scope="module")
def versioned_url(built_site: BuiltSite, tmp_path_factory) -> Iterator[str]:
    """The built site as mike publishes it: in a version's folder, beside ``versions.json``."""
    root = tmp_path_factory.mktemp("versions")
    version = built_site.library.version
    os.symlink(built_site.directory, root / version, target_is_directory=True)
    entry = {"version": version, "title": version, "aliases": ["latest"]}
    (root / "versions.json").write_text(json.dumps([entry]), encoding="utf-8")
    with serve_directory(root) as url:
        yield f"{url}{version}/"


#: The site title in the header: its whole width, the width shown, and whether it overlaps the
#: version selector.
HEADER = """() => {
  const title = document.querySelector('.md-header__topic:first-child > .md-ellipsis');
  const version = document.querySelector('.md-header__topic:first-child > .md-version');
  const a = title.getBoundingClientRect();
  const b = version.getBoundingClientRect();
  const overlap = a.right > b.left && a.left < b.right && a.bottom > b.top && a.top < b.bottom;
  const header = document.querySelector('.md-header').getBoundingClientRect();
  return {
    text: title.textContent.trim(), whole: title.scrollWidth, shown: title.clientWidth, overlap,
    inside: b.top >= header.top && b.bottom <= header.bottom,
  };
}"""


@pytest.mark.parametrize("width", WIDTHS)
def test_site_title_is_whole_beside_the_version_selector(
    browser, versioned_url: str, built_site: BuiltSite, width: int
) -> None:
    rule = built_site.library.rules[0]
    with _page_at(browser, width=width) as page:
        page.goto(f"{versioned_url}rules/{rule.id}/")
        current = page.locator(".md-header .md-version__current")
        expect(current).to_contain_text(built_site.library.version)
        header = page.evaluate(HEADER)
        assert header["text"] == "Rlt Refactor rules", header  # mkdocs.yml's site_name
        assert header["whole"] <= header["shown"], f"the title is cut at {width} px: {header}"
        assert not header["overlap"] and header["inside"], header
        # The selector still opens and lists the version.
        page.locator(".md-header .md-version").hover()
        expect(page.locator(".md-header .md-version__list a").first).to_be_visible()


#: Each file name on the page (code.rlt-file): the characters that start a row after the first.
FILE_NAME_BREAKS = """() => {
  const out = [];
  const range = document.createRange();
  for (const code of document.querySelectorAll('.md-content code.rlt-file')) {
    const text = code.textContent;
    let top = null;
    const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    let index = 0;
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let i = 0; i < node.data.length; i += 1, index += 1) {
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const rect = range.getClientRects()[0];
        if (top !== null && rect.top > top + 4) out.push([text, index]);
        top = rect.top;
      }
    }
  }
  return out;
}"""


@pytest.mark.parametrize("width", WIDTHS)
def test_exports_file_names_break_only_after_a_slash(
    browser, site_url: str, built_site: BuiltSite, width: int
) -> None:
    with _page_at(browser, width=width) as page:
        page.goto(f"{site_url}exports/")
        expect(page.locator("code.rlt-file", has_text="rules.sarif.json").first).to_be_visible()
        breaks = page.evaluate(FILE_NAME_BREAKS)
    inside = [f"{text[:at]}↪{text[at:]}" for text, at in breaks if text[at - 1] != "/"]
    assert not inside, f"file names broken inside at {width} px: {inside}"


def test_the_file_name_check_sees_a_break_inside_a_name(browser, site_url: str) -> None:
    """Control: in a column narrower than a name, the check reports where it broke."""
    with _page_at(browser, width=390) as page:
        page.goto(f"{site_url}exports/")
        page.add_style_tag(
            content=".md-typeset code.rlt-file { display: inline-block; width: 3ch; "
            "word-break: break-all; } .rlt-file__part { white-space: normal !important; }"
        )
        breaks = page.evaluate(FILE_NAME_BREAKS)
    assert any(text[at - 1] != "/" for text, at in breaks), breaks


def test_every_file_name_of_the_exports_table_is_marked(built_site: BuiltSite) -> None:
    page = (built_site.directory / "exports" / "index.html").read_text(encoding="utf-8")
    for name in ("rules.json", "rules.sarif.json", "llms-full.txt", "checklist.md"):
        assert f'<span class="rlt-file__part">{name}</span>' in page, name
    assert (
        '<span class="rlt-file__part">schema/</span><wbr>'
        '<span class="rlt-file__part">bundle.schema.json</span>'
    ) in page


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_accessibility_violation_with_the_version_selector(
    browser, versioned_url: str, built_site: BuiltSite, scheme: str, width: int
) -> None:
    """The header with mike's selector and its alias ("latest", drawn by Material at 70%
    opacity, under 4.5:1 on indigo), as a phone and a desktop show it, in either palette."""
    with _page_at(browser, width=width, scheme=scheme) as page:
        page.goto(f"{versioned_url}rules/{built_site.library.rules[0].id}/")
        expect(page.locator(".md-header .md-version__current .md-version__alias")).to_have_text(
            "latest"
        )
        violations = _blocking_violations(page)
        assert not violations, (
            f"{width} px, {scheme}, with a version selector:\n{_describe(violations)}"
        )


#: The version alias's text colour, its opacity (its own times its ancestors') and the header's
#: background, as the browser computes them. axe-core does not count opacity in a contrast.
ALIAS_COLOURS = """() => {
  const alias = document.querySelector('.md-header .md-version__current .md-version__alias');
  let opacity = 1;
  for (let node = alias; node; node = node.parentElement) {
    opacity *= Number(getComputedStyle(node).opacity);
  }
  const header = document.querySelector('.md-header');
  return {
    text: getComputedStyle(alias).color, opacity,
    background: getComputedStyle(header).backgroundColor,
  };
}"""


def _rgb(css: str) -> tuple[float, float, float]:
    red, green, blue = (float(part) for part in css[css.index("(") + 1 : -1].split(",")[:3])
    return red, green, blue


def _luminance(rgb: tuple[float, float, float]) -> float:
    def linear(channel: float) -> float:
        channel /= 255
        return channel / 12.92 if channel <= 0.03928 else ((channel + 0.055) / 1.055) ** 2.4

    red, green, blue = (linear(channel) for channel in rgb)
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast_seen(text: str, opacity: float, background: str) -> float:
    """WCAG contrast of ``text`` drawn at ``opacity`` over ``background`` (CSS ``rgb()``)."""
    under = _rgb(background)
    seen = tuple(opacity * a + (1 - opacity) * b for a, b in zip(_rgb(text), under, strict=True))
    lighter, darker = sorted((_luminance(seen), _luminance(under)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def test_contrast_seen_counts_opacity() -> None:
    """Control: Material's own 70% white on indigo is under 4.5:1; full white is not."""
    indigo = "rgb(64, 81, 181)"
    assert contrast_seen("rgb(255, 255, 255)", 0.7, indigo) < 4.5
    assert contrast_seen("rgb(255, 255, 255)", 1.0, indigo) > 6.8


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_version_alias_contrast_counts_its_opacity(
    browser, versioned_url: str, built_site: BuiltSite, scheme: str, width: int
) -> None:
    with _page_at(browser, width=width, scheme=scheme) as page:
        page.goto(f"{versioned_url}rules/{built_site.library.rules[0].id}/")
        expect(page.locator(".md-header .md-version__current .md-version__alias")).to_be_visible()
        colours = page.evaluate(ALIAS_COLOURS)
    ratio = contrast_seen(colours["text"], colours["opacity"], colours["background"])
    assert ratio >= 4.5, f"{width} px, {scheme}: the alias at {ratio:.2f}:1 ({colours})"
