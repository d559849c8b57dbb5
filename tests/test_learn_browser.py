"""The Learn path in Chromium: spot-the-rule practice answered with mouse and keyboard, its
order kept by the address, its progress kept in the browser, and axe on lessons and practice."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from rlt_rules.site.practice import PracticeItem, practice_items

pytest.register_assert_rewrite("site_fixtures")
pytest_plugins = ["site_fixtures"]

from site_fixtures import BuiltSite  # noqa: E402
from test_browser import (  # noqa: E402
    PALETTES,
    PRACTICE_LOADED_MS,
    _blocking_violations,
    _describe,
    _page_at,
    shown_title,
)

pytestmark = pytest.mark.browser


def _category(built_site: BuiltSite) -> str:
    """The first category with at least two items."""
    items = practice_items(built_site.library)
    for category in built_site.library.categories:
        if sum(item.rule.category == category.id for item in items) >= 2:
            return category.id
    raise AssertionError("no category has two practice items")


def _open(page: Page, url: str) -> None:
    page.goto(url)
    expect(page.locator("[data-rlt-practice][data-rlt-loaded=true]")).to_have_count(
        1, timeout=PRACTICE_LOADED_MS
    )


def _order(page: Page) -> list[str]:
    return page.locator("[data-rlt-item]").evaluate_all(
        "items => items.map(item => item.dataset.rltItem)"
    )


def _item(page: Page, built_site: BuiltSite, position: int = 0) -> tuple[object, PracticeItem]:
    items = {item.key: item for item in practice_items(built_site.library)}
    section = page.locator("[data-rlt-item]").nth(position)
    return section, items[section.get_attribute("data-rlt-item")]


def test_item_reveals_nothing_before_the_answer(
    page: Page, site_url: str, built_site: BuiltSite
) -> None:
    category = _category(built_site)
    _open(page, f"{site_url}learn/practice/{category}/?seed=7")
    for position in range(page.locator("[data-rlt-item]").count()):
        section, item = _item(page, built_site, position)
        code = section.locator(".rlt-program code")
        assert code.text_content().rstrip("\n") == item.shown.code
        assert not re.search(r"#\s*R\d", code.text_content())
        expect(section.locator(".hll")).to_have_count(0)
        expect(section.locator("a")).to_have_count(0)
        expect(section.locator("[data-rlt-reveal]")).to_have_count(0)
        text = section.inner_text()
        if item.pair is not None:
            assert shown_title(item.pair.bad.title) not in text
        explanation = item.pair.bad.explanation if item.pair else item.source.explanation
        assert shown_title(explanation)[:40] not in text
        assert item.source.name not in text
        choices = section.locator("fieldset button.rlt-choice")
        expect(choices).to_have_count(len(item.choices))
        expect(section.locator("fieldset legend")).to_have_text("Which rule does this break?")


def test_wrong_answer_says_so_and_keeps_the_item_open(
    page: Page, site_url: str, built_site: BuiltSite
) -> None:
    category = _category(built_site)
    _open(page, f"{site_url}learn/practice/{category}/?seed=11")
    section, item = _item(page, built_site)
    wrong = next(choice for choice in item.choices if choice != item.rule.id)
    section.locator(f'button[data-rlt-choice="{wrong}"]').click()
    verdict = section.locator(".rlt-verdict")
    expect(verdict).to_contain_text(f"Not quite: {wrong} is not the rule")
    expect(verdict).to_be_focused()
    expect(verdict).to_have_attribute("aria-live", "polite")
    expect(section.locator(f'button[data-rlt-choice="{wrong}"]')).to_be_disabled()
    expect(section.locator(f'button[data-rlt-choice="{wrong}"]')).to_contain_text("not this one")
    for choice in item.choices:
        if choice != wrong:
            expect(section.locator(f'button[data-rlt-choice="{choice}"]')).to_be_enabled()
    expect(section.locator(".hll")).to_have_count(0)
    expect(section.locator("[data-rlt-reveal]")).to_have_count(0)


@pytest.mark.parametrize("kind", ["bank", "pair"])
def test_right_answer_shows_the_lines_the_explanation_the_diff_and_the_rule(
    page: Page, site_url: str, built_site: BuiltSite, kind: str
) -> None:
    """A pair's item reveals its bad title, its explanation and the diff to the good program;
    a bank item, which has neither title nor good program, its explanation alone."""
    category = _category(built_site)
    _open(page, f"{site_url}learn/practice/{category}/?seed=11")
    position = next(
        position
        for position in range(page.locator("[data-rlt-item]").count())
        if _item(page, built_site, position)[1].from_bank is (kind == "bank")
    )
    section, item = _item(page, built_site, position)
    # By keyboard: focus the right choice and press Enter.
    section.locator(f'button[data-rlt-choice="{item.rule.id}"]').focus()
    page.keyboard.press("Enter")
    verdict = section.locator(".rlt-verdict")
    expect(verdict).to_contain_text(f"Right: {item.rule.id} — {item.rule.title}")
    expect(verdict).to_be_focused()
    for choice in section.locator("button.rlt-choice").all():
        expect(choice).to_be_disabled()
    shown = item.shown.code.split("\n")
    highlighted = section.locator(".rlt-program .hll").all_text_contents()
    assert [line.rstrip("\n") for line in highlighted] == [shown[n - 1] for n in item.shown.marked]
    reveal = section.locator("[data-rlt-reveal]")
    if item.pair is None:
        expect(reveal.locator(".rlt-reveal__explanation")).to_have_text(
            shown_title(item.source.explanation)
        )
        expect(reveal.locator(".rlt-reveal__title")).to_have_count(0)
        expect(reveal.locator(".rlt-diff")).to_have_count(0)
    else:
        expect(reveal).to_contain_text(shown_title(item.pair.bad.title))
        expect(reveal).to_contain_text(shown_title(item.pair.good.title))
        removed, added = item.pair.changed_lines()
        expect(reveal.locator(".rlt-diff .gd")).to_have_count(removed)
        expect(reveal.locator(".rlt-diff .gi")).to_have_count(added)
    link = reveal.get_by_role("link", name=f"Read {item.rule.id}")
    expect(link).to_have_attribute("href", re.compile(rf"/rules/{item.rule.id}/$"))
    link.click()
    expect(page).to_have_url(f"{site_url}rules/{item.rule.id}/")
    expect(page.locator("h1")).to_contain_text(item.rule.id)


def test_the_bank_comes_first_in_every_order(
    page: Page, site_url: str, built_site: BuiltSite
) -> None:
    """Whatever the seed, every bank program is offered before any lesson's program, on a
    category's page and on the page of every rule; the seed still orders each part."""
    items = {item.key: item for item in practice_items(built_site.library)}
    category = _category(built_site)
    for path in (f"learn/practice/{category}/", "learn/practice/"):
        orders = set()
        for seed in (3, 4, 5):
            _open(page, f"{site_url}{path}?seed={seed}")
            order = _order(page)
            flags = [items[key].from_bank for key in order]
            assert any(flags) and not all(flags), path
            assert flags == sorted(flags, reverse=True), (path, seed)
            orders.add(tuple(order[: flags.count(True)]))
        assert len(orders) > 1, path


def test_same_address_same_order_and_a_seed_is_always_in_the_address(
    page: Page, site_url: str, built_site: BuiltSite
) -> None:
    category = _category(built_site)
    _open(page, f"{site_url}learn/practice/{category}/")
    expect(page).to_have_url(re.compile(r"\?seed=[0-9]+$"))
    seeded = page.url
    first = _order(page)
    page.reload()
    expect(page.locator("[data-rlt-practice][data-rlt-loaded=true]")).to_have_count(
        1, timeout=PRACTICE_LOADED_MS
    )
    assert _order(page) == first
    expect(page).to_have_url(seeded)
    # The whole library: every item once, the same order for the same seed.
    everything = {item.key for item in practice_items(built_site.library)}
    _open(page, f"{site_url}learn/practice/?seed=123")
    order = _order(page)
    assert sorted(order) == sorted(everything)
    _open(page, f"{site_url}learn/practice/?seed=123")
    assert _order(page) == order
    orders = set()
    for seed in (1, 2, 3, 4):
        _open(page, f"{site_url}learn/practice/?seed={seed}")
        orders.add(tuple(_order(page)))
    assert len(orders) > 1
    page.get_by_role("button", name="New order").click()
    expect(page).not_to_have_url(f"{site_url}learn/practice/?seed=4")


def test_progress_stays_in_the_browser(page: Page, site_url: str, built_site: BuiltSite) -> None:
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    category = _category(built_site)
    _open(page, f"{site_url}learn/practice/{category}/?seed=5")
    total = page.locator("[data-rlt-item]").count()
    progress = page.locator("[data-rlt-progress]")
    expect(progress).to_have_text(f"Answered 0 of {total} · right at the first try: 0")
    first, item = _item(page, built_site, 0)
    first.locator(f'button[data-rlt-choice="{item.rule.id}"]').click()
    second, other = _item(page, built_site, 1)
    wrong = next(choice for choice in other.choices if choice != other.rule.id)
    second.locator(f'button[data-rlt-choice="{wrong}"]').click()
    second.locator(f'button[data-rlt-choice="{other.rule.id}"]').click()
    expect(progress).to_have_text(f"Answered 2 of {total} · right at the first try: 1")
    page.reload()
    expect(page.locator("[data-rlt-progress]")).to_have_text(
        f"Answered 2 of {total} · right at the first try: 1"
    )
    page.get_by_role("button", name="Forget my answers").click()
    expect(page.locator("[data-rlt-progress]")).to_have_text(
        f"Answered 0 of {total} · right at the first try: 0"
    )
    assert all(url.startswith(site_url) for url in requests), requests


@pytest.mark.parametrize("scheme", sorted(PALETTES))
@pytest.mark.parametrize("width", [1280, 390])
def test_no_serious_accessibility_violation_on_a_lesson(
    browser, site_url: str, built_site: BuiltSite, scheme: str, width: int
) -> None:
    path = f"learn/{built_site.library.categories[0].id}/"
    with _page_at(browser, width=width, scheme=scheme) as page:
        page.goto(site_url + path)
        expect(page.locator("body")).to_have_attribute("data-md-color-scheme", PALETTES[scheme])
        violations = _blocking_violations(page)
        assert not violations, f"/{path} ({scheme}, {width} px):\n{_describe(violations)}"


@pytest.mark.parametrize("scheme", sorted(PALETTES))
@pytest.mark.parametrize("width", [1280, 390])
def test_no_serious_accessibility_violation_on_a_practice_page(
    browser, site_url: str, built_site: BuiltSite, scheme: str, width: int
) -> None:
    """Before any answer, and with a bank item answered wrong then right (feedback,
    highlighted lines, the explanation, the link) and a lesson's program answered (the diff)."""
    category = _category(built_site)
    path = f"learn/practice/{category}/?seed=3"
    with _page_at(browser, width=width, scheme=scheme) as page:
        _open(page, site_url + path)
        expect(page.locator("body")).to_have_attribute("data-md-color-scheme", PALETTES[scheme])
        violations = _blocking_violations(page)
        assert not violations, f"/{path} ({scheme}, {width} px):\n{_describe(violations)}"
        section, item = _item(page, built_site)
        wrong = next(choice for choice in item.choices if choice != item.rule.id)
        section.locator(f'button[data-rlt-choice="{wrong}"]').click()
        section.locator(f'button[data-rlt-choice="{item.rule.id}"]').click()
        expect(section.locator("[data-rlt-reveal]")).to_be_visible()
        last, paired = _item(page, built_site, page.locator("[data-rlt-item]").count() - 1)
        assert item.from_bank and paired.pair is not None  # the bank first, the lessons last
        last.locator(f'button[data-rlt-choice="{paired.rule.id}"]').click()
        expect(last.locator("[data-rlt-reveal] .rlt-diff")).to_be_visible()
        violations = _blocking_violations(page)
        assert not violations, f"/{path} answered ({scheme}, {width} px):\n{_describe(violations)}"
