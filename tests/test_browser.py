"""The reference site in a real browser (Debian's chromium through playwright), served over http.

Search, a rule page's examples, the index filter and the version selector, as a reader uses
them. The site is the real library's, built once per session (see ``site_fixtures.py``).
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import tarfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from rlt_rules import Library, load_library
from rlt_rules.library.model import Example, Rule, cite_anchor
from rlt_rules.library.pairs import pairs_of
from rlt_rules.render.text import expected_output
from rlt_rules.site.examples_section import differing_lines, shown_marked_lines, split_output
from rlt_rules.site.listing import index_filter_text
from rlt_rules.site.titles import text_segments

pytest.register_assert_rewrite("site_fixtures")
pytest_plugins = ["site_fixtures"]

from site_fixtures import (  # noqa: E402
    FIXTURE_RULES,
    WAIT_MS,
    BuiltSite,
    make_project,
    run_cli,
    serve_directory,
)

pytestmark = pytest.mark.browser


@contextmanager
def _page_at(browser, width: int, height: int = 900, scheme: str = "light") -> Iterator[Page]:
    """A fresh page at another window size or colour scheme (``page`` is 1280 px and light);
    JavaScript errors on it fail the test."""
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
    new_page = context.new_page()
    new_page.set_default_timeout(WAIT_MS)
    errors: list[str] = []
    new_page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        yield new_page
    finally:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


#: How long a practice page may take to render its items (milliseconds): every rule's page lays
#: out some 30,000 highlighted spans, which took up to 8 s on a loaded two-core machine.
PRACTICE_LOADED_MS = 60_000


def search(page: Page, site_url: str, query: str) -> list[str]:
    """Type ``query`` into Material's search box; return the result links' targets."""
    page.goto(site_url)
    page.locator("label.md-search__icon, input.md-search__input").first.click()
    box = page.locator("input.md-search__input")
    box.click()
    box.press_sequentially(query)
    results = page.locator("li.md-search-result__item a.md-search-result__link")
    expect(results.first).to_be_visible()
    return [href for href in results.evaluate_all("links => links.map(a => a.href)")]


@pytest.mark.parametrize(
    ("query", "rule_id"),
    [
        ("victim", "R04"),  # a word only in R04's statement
        ("watermark", "R09"),  # a word in R09's seed example and examples
        ("R17", "R17"),  # the id
        ("stale", "R17"),  # a word of the title
    ],
)
def test_search_finds_the_rule(page: Page, site_url: str, query: str, rule_id: str) -> None:
    links = search(page, site_url, query)
    assert any(f"/rules/{rule_id}/" in link for link in links), links


def test_search_runs_locally(page: Page, site_url: str) -> None:
    """Every request the search makes goes to the local server: no external service."""
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    search(page, site_url, "victim")
    outside = [url for url in requests if not url.startswith(site_url)]
    assert not outside, outside


def _paired_rule(library: Library) -> Rule:
    """The first rule with a pair (the library's examples change; the tests follow them)."""
    rule = next((rule for rule in library.rules if pairs_of(rule)), None)
    assert rule is not None, "no rule of the library has a bad/good pair"
    return rule


def shown_title(title: str) -> str:
    """A title as a reader sees it: its code spans as code, without their backticks."""
    return "".join(text for _, text in text_segments(title))


def _example(page: Page, example: Example):
    return page.locator(f'[data-example="{example.kind}-{example.name}"]')


def _tab_label(page: Page, example: Example):
    """The tab label of an example's tab (tabs: the example is in one of a tab set's blocks)."""
    block = _example(page, example)
    tab = block.locator("xpath=ancestor::div[contains(@class, 'tabbed-block')][1]")
    tab_set = tab.locator("xpath=ancestor::div[contains(@class, 'tabbed-set')][1]")
    position = tab.evaluate("node => [...node.parentNode.children].indexOf(node)")
    return tab_set.locator(".tabbed-labels > label").nth(position)


def _assert_shows_example(page: Page, rule: Rule, example: Example) -> None:
    """The example's title, program (its marked lines highlighted) and stated output."""
    block = _example(page, example)
    expect(block).to_be_visible()
    expect(block).to_contain_text(shown_title(example.title))
    program, _ = split_output(example.code)
    code = block.locator(".highlight").first
    assert [line for line in code.inner_text().splitlines() if line.strip()] == [
        line for line in program.splitlines() if line.strip()
    ]
    marked = [program.split("\n")[n - 1] for n in shown_marked_lines(example.code, rule.id)]
    highlighted = code.locator(".hll").all_inner_texts()
    assert [line.rstrip("\n") for line in highlighted] == marked
    if expected_output(example.code):
        shown = block.locator(".rlt-output .highlight")
        expect(shown).to_be_visible()
        expect(shown.locator(".filename")).to_have_text("Output")
        assert shown.locator("code").text_content().rstrip("\n") == "\n".join(
            expected_output(example.code)  # what CI checks the program prints
        )


def test_rule_page_shows_each_pair_side_by_side_with_its_diff(
    page: Page, site_url: str, built_site: BuiltSite
) -> None:
    rule = _paired_rule(built_site.library)
    page.goto(f"{site_url}rules/{rule.id}/")
    expect(page.locator("h1")).to_contain_text(f"{rule.id} — {rule.title}")
    for pair in pairs_of(rule):
        bad, good = _example(page, pair.bad), _example(page, pair.good)
        _assert_shows_example(page, rule, pair.bad)
        _assert_shows_example(page, rule, pair.good)
        # Side by side, no tabs: bad on the left, good on the right, their programs aligned.
        expect(_tab_label(page, pair.bad)).to_be_hidden()
        left, right = bad.bounding_box(), good.bounding_box()
        assert left and right and left["x"] + left["width"] <= right["x"], (left, right)
        assert abs(left["y"] - right["y"]) < 2, (left, right)
        tops = [block.locator(".highlight").first.bounding_box()["y"] for block in (bad, good)]
        assert abs(tops[0] - tops[1]) < 2, tops
        # Each output highlights the lines that differ from the other's.
        bad_changed, good_changed = differing_lines(
            expected_output(pair.bad.code), expected_output(pair.good.code)
        )
        for block, example, changed in (
            (bad, pair.bad, bad_changed),
            (good, pair.good, good_changed),
        ):
            output = expected_output(example.code)
            shown = block.locator(".rlt-output .hll").all_inner_texts()
            assert [line.rstrip("\n") for line in shown] == [output[n - 1] for n in changed]
        # Then the diff from bad to good, removed and added lines marked.
        diff = page.locator(f'.rlt-diff[data-pair="{pair.name}"]')
        expect(diff).to_be_visible()
        expect(diff).to_contain_text("What the correction changes")
        removed, added = pair.changed_lines()
        expect(diff.locator(".highlight .gd")).to_have_count(removed)
        expect(diff.locator(".highlight .gi")).to_have_count(added)
        diff_box = diff.bounding_box()
        assert (
            diff_box
            and diff_box["y"] > max(left["y"] + left["height"], right["y"] + right["height"]) - 1
        )
    assert page.locator(".md-content").get_by_text("#>").count() == 0


def test_rule_page_pairs_are_tabs_on_a_narrow_screen(
    browser, site_url: str, built_site: BuiltSite
) -> None:
    rule = _paired_rule(built_site.library)
    pair = pairs_of(rule)[0]
    with _page_at(browser, width=390) as page:
        page.goto(f"{site_url}rules/{rule.id}/")
        bad_label, good_label = _tab_label(page, pair.bad), _tab_label(page, pair.good)
        expect(bad_label).to_have_text("Bad")
        expect(good_label).to_have_text("Good")
        expect(_example(page, pair.bad)).to_be_visible()
        expect(_example(page, pair.good)).to_be_hidden()
        good_label.click()
        expect(_example(page, pair.good)).to_be_visible()
        expect(_example(page, pair.bad)).to_be_hidden()
        _assert_shows_example(page, rule, pair.good)
        # The keyboard switches too: the tabs are radio buttons.
        page.locator(f"#{good_label.get_attribute('for')}").focus()
        page.keyboard.press("ArrowLeft")
        expect(_example(page, pair.bad)).to_be_visible()
        expect(_example(page, pair.good)).to_be_hidden()
        expect(page.locator(f'.rlt-diff[data-pair="{pair.name}"]')).to_be_visible()
        assert _sideways_scroll(page) == 0


def test_rule_page_shows_every_example_with_its_output(
    page: Page, site_url: str, built_site: BuiltSite
) -> None:
    """Paired or not (a rule whose examples are being paired), every example is on its page."""
    for rule in built_site.library.rules:
        if not rule.examples:
            continue
        page.goto(f"{site_url}rules/{rule.id}/")
        for example in rule.examples:
            label = _tab_label(page, example)
            if label.is_visible():
                label.click()
            _assert_shows_example(page, rule, example)


def _sideways_scroll(page: Page) -> int:
    """How far the page scrolls sideways (0: it fits the window)."""
    return page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )


def test_index_fits_a_phone_without_sideways_scrolling(
    browser, site_url: str, built_site: BuiltSite
) -> None:
    library = built_site.library
    with _page_at(browser, width=390) as page:
        page.goto(f"{site_url}rules/")
        expect(page.locator("[data-rlt-index] tbody tr").first).to_be_visible()
        assert _sideways_scroll(page) == 0
        # Nor does the table scroll inside its frame: every row fits the window.
        overflow = page.evaluate(
            """() => [...document.querySelectorAll('[data-rlt-index], .md-typeset__scrollwrap')]
                .map(el => el.scrollWidth - el.clientWidth)"""
        )
        assert max(overflow) <= 1, overflow
        for row in page.locator("[data-rlt-index] tbody tr").all():
            box = row.bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
        assert _visible_rule_ids(page) == [rule.id for rule in library.rules]
        # Still a working filter: tap a tag.
        tag = library.rules[0].tags[0]
        page.locator("[data-rlt-index] tr[data-rule] button[data-rlt-tag]").first.click()
        expect(page).to_have_url(f"{site_url}rules/?tag={tag}")


def _visible_rule_ids(page: Page) -> list[str]:
    return page.locator("[data-rlt-index] tbody tr[data-rule]:visible").evaluate_all(
        "rows => rows.map(row => row.dataset.rule)"
    )


def test_index_filter_by_category_shows_exactly_its_rules(
    page: Page, site_url: str, built_site: BuiltSite
) -> None:
    library = built_site.library
    page.goto(f"{site_url}rules/")
    assert _visible_rule_ids(page) == [rule.id for rule in library.rules]
    for category in library.categories:
        expected = [rule.id for rule in library.rules_in(category.id)]
        page.select_option("select[name=category]", category.id)
        expect(page).to_have_url(f"{site_url}rules/?category={category.id}")
        assert _visible_rule_ids(page) == expected, category.id
        expect(page.locator("[data-rlt-count]")).to_contain_text(f"{len(expected)} of")
    # The state lives in the address: reloading (or sharing the link) restores it.
    last = library.categories[-1]
    page.reload()
    expect(page.locator("select[name=category]")).to_have_value(last.id)
    assert _visible_rule_ids(page) == [rule.id for rule in library.rules_in(last.id)]


def test_index_filter_by_tag_status_and_text(
    page: Page, site_url: str, built_site: BuiltSite
) -> None:
    library = built_site.library
    tag = library.rule("R17").tags[0]
    page.goto(f"{site_url}rules/?tag={tag}")
    expect(page.locator("select[name=tag]")).to_have_value(tag)
    assert _visible_rule_ids(page) == [rule.id for rule in library.rules if tag in rule.tags]

    page.goto(f"{site_url}rules/")
    page.locator("[data-rlt-index] tr[data-rule=R17] button[data-rlt-tag]").first.click()
    expect(page).to_have_url(f"{site_url}rules/?tag={tag}")

    page.goto(f"{site_url}rules/")
    # "victim" is in R04's statement, not its row: typed words match statements (and
    # triggers) once the filter text (rules/filter-text.json) has loaded.
    expect(page.locator("form[data-rlt-filter][data-rlt-text-ready]")).to_have_count(1)
    assert "victim" not in page.locator("tr[data-rule=R04]").inner_text().lower()
    assert "victim" in library.rule("R04").statement
    page.fill("input[name=filter]", "victim")
    texts = json.loads(index_filter_text(library))
    assert _visible_rule_ids(page) == [rid for rid, text in texts.items() if "victim" in text]
    assert "R04" in _visible_rule_ids(page)
    expect(page).to_have_url(f"{site_url}rules/?filter=victim")

    page.goto(f"{site_url}rules/?status=retired")
    retired = [rule.id for rule in library.rules if str(rule.status) == "retired"]
    assert _visible_rule_ids(page) == retired
    expect(page.locator("[data-rlt-empty]")).to_be_visible(visible=not retired)


# --- accessibility: axe-core in Chromium -----------------------------------------------------

#: What WCAG 2.1 AA failures axe reports as; moderate and minor ones are advice.
BLOCKING_IMPACTS = frozenset({"serious", "critical"})
#: The pages checked: one of each kind (the rule page and category are taken from the library).
A11Y_PAGES = ("home", "index", "rule", "category", "review", "format", "changelog")
#: Material's palettes (mkdocs.yml), chosen by the reader's colour-scheme preference.
PALETTES = {"light": "default", "dark": "slate"}


def _a11y_path(name: str, built_site: BuiltSite) -> str:
    rule = _paired_rule(built_site.library)
    if name == "review" and not (built_site.directory / "review-example").is_dir():
        pytest.skip("the sample review is published with the repository's own rules only")
    return {
        "home": "",
        "index": "rules/",
        "rule": f"rules/{rule.id}/",
        "category": f"categories/{rule.category}/",
        "review": "review-example/",
        "format": "reference/format/",
        "changelog": "changelog/",
    }[name]


def _blocking_violations(page: Page) -> list[dict]:
    from axe_playwright_python.sync_playwright import Axe

    # Let the page's scripts finish what they do after load (rules-a11y.js runs on the next
    # animation frame).
    page.evaluate(
        "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"
    )
    violations = Axe().run(page).response["violations"]
    return [violation for violation in violations if violation["impact"] in BLOCKING_IMPACTS]


def _describe(violations: list[dict]) -> str:
    lines = []
    for violation in violations:
        lines.append(
            f"{violation['id']} ({violation['impact']}, {len(violation['nodes'])} nodes): "
            f"{violation['help']} <{violation['helpUrl']}>"
        )
        for node in violation["nodes"][:8]:
            summary = " ".join((node.get("failureSummary") or "").split())
            lines.append(f"    {node['target']}: {summary[:300]}")
    return "\n".join(lines)


#: The pages axe checks, at each width: every page on a wide screen; at 390 px the home page's
#: way to Learn, the index cards, a rule's pairs as tabs and a table that scrolls.
A11Y_VIEWS = [(name, 1280) for name in A11Y_PAGES] + [
    (name, 390) for name in ("home", "index", "rule", "format")
]


@pytest.mark.parametrize("scheme", sorted(PALETTES))
@pytest.mark.parametrize(("name", "width"), A11Y_VIEWS)
def test_no_serious_accessibility_violation(
    browser, site_url: str, built_site: BuiltSite, name: str, width: int, scheme: str
) -> None:
    """axe-core finds no serious or critical WCAG 2.1 AA violation, in either palette."""
    path = _a11y_path(name, built_site)
    with _page_at(browser, width=width, scheme=scheme) as page:
        page.goto(site_url + path)
        expect(page.locator("body")).to_have_attribute("data-md-color-scheme", PALETTES[scheme])
        violations = _blocking_violations(page)
        assert not violations, f"/{path} ({scheme}, {width} px):\n{_describe(violations)}"


@pytest.mark.parametrize("scheme", sorted(PALETTES))
def test_no_serious_accessibility_violation_in_search_results(
    browser, site_url: str, scheme: str
) -> None:
    """The search dialog open with results (tags, matched words, code snippets)."""
    with _page_at(browser, width=1280, scheme=scheme) as page:
        search(page, site_url, "victim")
        expect(page.locator(".md-search-result__meta")).to_be_visible()
        violations = _blocking_violations(page)
        assert not violations, f"search results ({scheme}):\n{_describe(violations)}"


def test_the_accessibility_check_can_fail(page: Page) -> None:
    """Control: axe here does report a serious violation (text at 2:1 contrast)."""
    page.set_content(
        '<html lang="en"><head><title>t</title></head><body><main>'
        '<p style="color:#999;background:#aaa">faint text</p></main></body></html>'
    )
    assert any(v["id"] == "color-contrast" for v in _blocking_violations(page))


def test_version_selector_lists_every_deployed_version(page: Page, tmp_path: Path) -> None:
    """Two versions deployed with mike in a temporary git repository both appear."""
    project = make_project(tmp_path / "project", FIXTURE_RULES)
    _git(project, "init", "--quiet", "--initial-branch=main")
    _git(project, "config", "user.name", "Site Test")
    _git(project, "config", "user.email", "site-test@example.invalid")
    _git(project, "add", ".")
    _git(project, "commit", "--quiet", "-m", "project")

    library_file = project / "rules" / "library.yaml"
    first = run_cli("site", "deploy", cwd=project)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "deployed 1.2.0 as latest" in first.stdout
    # mkdocs.yml's site_url is the placeholder: said once, not once per build mike runs.
    assert first.stderr.count("warning: site_url is the placeholder") == 1, first.stderr
    assert "Set the team's address as site_url in mkdocs.yml" in first.stderr
    library_file.write_text(
        library_file.read_text(encoding="utf-8").replace("version: 1.2.0", "version: 1.3.0"),
        encoding="utf-8",
    )
    second = run_cli("site", "deploy", cwd=project)
    assert second.returncode == 0, second.stdout + second.stderr

    published = tmp_path / "gh-pages"
    published.mkdir()
    archive = _git(project, "archive", "--format=tar", "gh-pages", text=False)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(published, filter="tar")
    with serve_directory(published) as url:
        page.goto(url)  # the default version's redirect leads to latest/
        expect(page).to_have_url(f"{url}latest/")
        selector = page.locator(".md-version")
        expect(selector.locator(".md-version__current")).to_contain_text("1.3.0")
        selector.hover()
        links = selector.locator(".md-version__list a.md-version__link")
        expect(links.first).to_be_visible()
        texts = [" ".join(text.split()) for text in links.all_inner_texts()]
        assert any(text.startswith("1.3.0") for text in texts), texts
        assert any(text.startswith("1.2.0") for text in texts), texts
        expect(page.locator("[data-md-component=outdated]")).to_be_hidden()
        links.filter(has_text="1.2.0").click()
        expect(page).to_have_url(f"{url}1.2.0/")
        expect(page.locator("[data-md-component=outdated]")).to_be_visible()
        expect(page.locator("[data-md-component=outdated]")).to_contain_text("older version")
        # The banner leads to the same page in the latest version, on a wide screen and a phone,
        # keeping the fragment: the cited item (issue 31, section 3).
        rule = load_library(FIXTURE_RULES).rules[0]
        rule_id, fragment = rule.id, "#" + cite_anchor("impact", rule.impact)
        for width in (1280, 390):
            with _page_at(page.context.browser, width=width) as narrow:
                narrow.goto(f"{url}1.2.0/")  # the version selector notes the version is old
                narrow.goto(f"{url}1.2.0/rules/{rule_id}/{fragment}")
                latest = narrow.locator("[data-md-component=outdated] a[data-rlt-latest]")
                expect(latest).to_be_visible()
                latest.click()
                expect(narrow).to_have_url(f"{url}latest/rules/{rule_id}/{fragment}")
                expect(narrow.locator("h1")).to_contain_text(rule_id)
                expect(narrow.locator("[data-md-component=outdated]")).to_be_hidden()


def _git(cwd: Path, *arguments: str, text: bool = True):
    git = shutil.which("git")
    assert git, "git is needed for the mike deployment test"
    result = subprocess.run([git, *arguments], cwd=cwd, capture_output=True, check=False, text=text)
    assert result.returncode == 0, result.stderr
    return result.stdout
