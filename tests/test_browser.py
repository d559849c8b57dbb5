"""The reference site in a real browser (Debian's chromium through playwright), served over http.

Search, a rule page's examples, the index filter and the version selector, as a reader uses
them. The site is the real library's, built once per session (see ``site_fixtures.py``).
"""

from __future__ import annotations

import io
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from rlt_rules.export.text import expected_output
from rlt_rules.site.pages import split_output

pytest.register_assert_rewrite("site_fixtures")
pytest_plugins = ["site_fixtures"]

from site_fixtures import (  # noqa: E402
    FIXTURE_RULES,
    BuiltSite,
    make_project,
    run_cli,
    serve_directory,
)

pytestmark = pytest.mark.browser


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


def test_rule_page_shows_bad_and_good_examples_with_their_output(
    page: Page, site_url: str, built_site: BuiltSite
) -> None:
    rule = built_site.library.rule("R17")
    kinds = {str(example.kind) for example in rule.examples}
    assert kinds == {"bad", "good"}, "R17 should have both bad and good examples"
    page.goto(f"{site_url}rules/R17/")
    expect(page.locator("h1")).to_contain_text(f"R17 — {rule.title}")
    for example in rule.examples:
        block = page.locator(f'[data-example="{example.kind}-{example.name}"]')
        tab = block.locator("xpath=ancestor::div[contains(@class, 'tabbed-block')]")
        tab_set = tab.locator("xpath=ancestor::div[contains(@class, 'tabbed-set')]")
        position = tab.evaluate("node => [...node.parentNode.children].indexOf(node)")
        tab_set.locator(".tabbed-labels > label").nth(position).click()
        expect(block).to_be_visible()
        expect(block).to_contain_text(example.title)
        program, _ = split_output(example.code)
        code = block.locator(".highlight").first.inner_text()
        assert [line for line in code.splitlines() if line.strip()] == [
            line for line in program.splitlines() if line.strip()
        ]
        shown = block.locator(".rlt-output .highlight")
        expect(shown).to_be_visible()
        expect(shown.locator(".filename")).to_have_text("Output")
        assert shown.locator("code").inner_text().rstrip("\n") == "\n".join(
            expected_output(example.code)  # what CI checks the program prints
        )
    assert page.locator(".md-content").get_by_text("#>").count() == 0


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
    # "victim" is in R04's statement only: typed words match statements once the filter
    # text (rules/filter-text.json) has loaded.
    expect(page.locator("form[data-rlt-filter][data-rlt-text-ready]")).to_have_count(1)
    assert "victim" not in page.locator("tr[data-rule=R04]").inner_text().lower()
    page.fill("input[name=q]", "victim")
    assert _visible_rule_ids(page) == ["R04"]
    expect(page).to_have_url(f"{site_url}rules/?q=victim")

    page.goto(f"{site_url}rules/?status=retired")
    retired = [rule.id for rule in library.rules if str(rule.status) == "retired"]
    assert _visible_rule_ids(page) == retired
    expect(page.locator("[data-rlt-empty]")).to_be_visible(visible=not retired)


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


def _git(cwd: Path, *arguments: str, text: bool = True):
    git = shutil.which("git")
    assert git, "git is needed for the mike deployment test"
    result = subprocess.run([git, *arguments], cwd=cwd, capture_output=True, check=False, text=text)
    assert result.returncode == 0, result.stderr
    return result.stdout
