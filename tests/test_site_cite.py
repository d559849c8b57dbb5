"""Citable rule pages (issue 31, section 2): every trigger, the impact, the correction and every
example has an anchor made from its own text, unique on the page and unmoved by edits of the
other items, and "Copy link" / "Copy citation" buttons that copy the published, versioned
address without the search's ``?h=``."""

from __future__ import annotations

import dataclasses
import json
import re
from collections import Counter

import pytest
from playwright.sync_api import expect

from rlt_rules import load_library
from rlt_rules.library.model import cite_anchor
from rlt_rules.site.plugin import versioned_site_url
from rlt_rules.site.publish import placeholder_warning
from rlt_rules.site.rule_page import rule_page

pytest.register_assert_rewrite("site_fixtures")
pytest_plugins = ["site_fixtures"]

from site_fixtures import ROOT, BuiltSite  # noqa: E402
from test_browser import _blocking_violations, _describe, _page_at  # noqa: E402

_MARKER = re.compile(r'<span class="rlt-cite"(?: id="([^"]+)")? data-rlt-anchor="([^"]+)"')
_ID = re.compile(r'\bid="([^"]+)"')
#: mkdocs.yml's site_url (a placeholder until the site is published).
SITE_URL = "https://rlt-rules.example/"


def _anchors(page: str) -> list[str]:
    return [anchor for _, anchor in _MARKER.findall(page)]


def _rule(library, rule_id: str):
    return next(rule for rule in library.rules if rule.id == rule_id)


def test_anchors_survive_edits_of_the_other_triggers() -> None:
    library = load_library(ROOT / "rules")
    rule = next(rule for rule in library.rules if len(rule.triggers) >= 3 and rule.examples)
    before = _anchors(rule_page(library, rule))
    first, second, *rest = rule.triggers
    edited = dataclasses.replace(
        rule, triggers=("A new first trigger.", first, second + " Reworded.", *rest)
    )
    after = _anchors(rule_page(library, edited))
    # Every item but the edited trigger keeps its anchor, though the triggers moved down.
    assert set(before) - set(after) == {cite_anchor("trigger", second)}
    assert set(after) - set(before) == {
        cite_anchor("trigger", "A new first trigger."),
        cite_anchor("trigger", second + " Reworded."),
    }
    assert after.index(cite_anchor("trigger", first)) == 1


def test_an_anchor_changes_with_its_own_text_and_repeats_are_unique() -> None:
    library = load_library(ROOT / "rules")
    rule = library.rules[0]
    twice = dataclasses.replace(rule, triggers=(rule.triggers[0], rule.triggers[0]))
    anchors = _anchors(rule_page(library, twice))
    assert anchors[0] != anchors[1] and anchors[1] == anchors[0] + "-2"
    assert cite_anchor("impact", "x") != cite_anchor("impact", "y")


def test_every_item_of_every_rule_page_has_a_unique_anchor(built_site: BuiltSite) -> None:
    published = versioned_site_url(SITE_URL, built_site.library.version)
    bundle = json.loads((built_site.directory / "rules.json").read_text("utf-8"))
    in_bundle = {entry["rule"]: entry for entry in bundle["anchors"]}
    for rule in built_site.library.rules:
        page = (built_site.directory / "rules" / rule.id / "index.html").read_text("utf-8")
        markers = _MARKER.findall(page)
        # The page's anchors are the model's, which the bundle, SARIF and findings cite.
        anchors = rule.anchors()
        assert in_bundle[rule.id] == {"rule": rule.id, **anchors.to_dict()}
        cited = [*anchors.triggers, anchors.impact, anchors.correction, *anchors.examples]
        assert sorted(anchor for _, anchor in markers) == sorted(cited), rule.id
        kinds = Counter(anchor.split("-")[0] for _, anchor in markers)
        assert kinds == Counter(
            {"trigger": len(rule.triggers), "impact": 1, "correction": 1}
            | ({"example": len(rule.examples)} if rule.examples else {})
        ), rule.id
        ids = Counter(_ID.findall(page))
        for own_id, anchor in markers:
            # A marker is its own target, or sits inside the example that is.
            assert own_id == anchor or (not own_id and anchor.startswith("example-")), anchor
            assert ids[anchor] == 1, f"{rule.id}: #{anchor} is not unique"
        assert f'<meta name="rlt-published" content="{published}">' in page


@pytest.mark.browser
def test_copy_link_and_citation_copy_the_published_address(
    browser, site_url: str, built_site: BuiltSite
) -> None:
    library = built_site.library
    rule = next(rule for rule in library.rules if rule.examples)
    trigger = rule.triggers[0]
    anchor = cite_anchor("trigger", trigger)
    published = versioned_site_url(SITE_URL, library.version)
    expected = f"{published}rules/{rule.id}/#{anchor}"
    with _page_at(browser, width=1280) as page:
        page.context.grant_permissions(["clipboard-read", "clipboard-write"])
        page.goto(f"{site_url}rules/{rule.id}/?h=set+calls#{anchor}")
        marker = page.locator(f"#{anchor}")
        link = marker.get_by_role("button", name=re.compile(r"^Copy link to "))
        cite = marker.get_by_role("button", name=re.compile(r"^Copy citation of "))
        expect(link).to_have_attribute("data-copy", expected)
        # Keyboard: focus and Enter.
        link.focus()
        page.keyboard.press("Enter")
        expect(link).to_have_attribute("data-copied", "true")
        assert page.evaluate("navigator.clipboard.readText()") == expected
        cite.click()
        expect(cite).to_have_attribute("data-copied", "true")
        citation = page.evaluate("navigator.clipboard.readText()")
        assert citation.startswith(f"[{rule.id}, trigger: ")
        assert citation.endswith(f"]({expected})")
        # Rule text is set as text: the label is the marker's attribute, unparsed.
        label = marker.get_attribute("data-rlt-cite")
        assert link.get_attribute("aria-label") == f"Copy link to {rule.id} {label}"
        # One pair of buttons per item, examples included.
        count = len(rule.triggers) + 2 + len(rule.examples)
        expect(page.locator(".rlt-cite .rlt-cite__button")).to_have_count(2 * count)


@pytest.mark.browser
@pytest.mark.parametrize("width", [1280, 390])
def test_rule_page_with_copy_buttons_is_axe_clean(
    browser, site_url: str, built_site: BuiltSite, width: int
) -> None:
    rule = next(rule for rule in built_site.library.rules if rule.examples)
    with _page_at(browser, width=width) as page:
        page.goto(f"{site_url}rules/{rule.id}/")
        expect(page.locator(".rlt-cite__button").first).to_be_attached()
        violations = _blocking_violations(page)
        assert not violations, f"/rules/{rule.id}/ ({width} px):\n{_describe(violations)}"


# --- the placeholder site_url ------------------------------------------------------------------

PLACEHOLDER_WARNING = "warning: site_url is the placeholder https://rlt-rules.example/"


def test_a_build_with_the_placeholder_site_url_warns_once(built_site: BuiltSite) -> None:
    """``rlt-rules site build`` (as the fixture ran it, with the repository's mkdocs.yml) says
    once, at the setting's line, that the published links lead nowhere and where to set the
    team's address; the build still succeeds (strict mode is MkDocs', not this warning's)."""
    lines = (ROOT / "mkdocs.yml").read_text(encoding="utf-8").splitlines()
    line = next(n for n, text in enumerate(lines, 1) if text.startswith("site_url:"))
    assert built_site.output.count(PLACEHOLDER_WARNING) == 1, built_site.output
    (warning,) = [w for w in built_site.output.splitlines() if PLACEHOLDER_WARNING in w]
    assert warning.startswith(f"mkdocs.yml:{line}: {PLACEHOLDER_WARNING} ")
    assert "Set the team's address as site_url in mkdocs.yml" in warning
    assert "Copy link" in warning and "helpUri" in warning


@pytest.mark.parametrize(
    ("setting", "environment", "warns"),
    [
        ("site_url: https://rlt-rules.example/", {}, True),
        ("site_url: https://docs.team.example.com/rules/", {}, True),
        ("site_url: https://rules.acme.dev/", {}, False),
        ("", {}, False),
        ("site_url: !ENV [RLT_SITE_URL, 'https://rlt-rules.example/']", {}, True),
        (
            "site_url: !ENV [RLT_SITE_URL, 'https://rlt-rules.example/']",
            {"RLT_SITE_URL": "https://rules.acme.dev/"},
            False,
        ),
    ],
)
def test_placeholder_warning_reads_site_url_as_mkdocs_does(
    tmp_path, monkeypatch, setting: str, environment: dict[str, str], warns: bool
) -> None:
    monkeypatch.delenv("RLT_SITE_URL", raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    config = tmp_path / "mkdocs.yml"
    config.write_text(f"site_name: x\n# a comment\n{setting}\n", encoding="utf-8")
    warning = placeholder_warning(config)
    assert (warning is not None) == warns, warning
    if warning is not None:
        assert warning.startswith(f"{config}:3: warning: site_url is the placeholder https://")
