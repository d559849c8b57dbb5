"""The rule page's "Automated hints" section (:mod:`rlt_rules.site.hints`)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rlt_rules import load_library
from rlt_rules.library.model import Detector, HintSeverity
from rlt_rules.site.hints import hints_markdown

pytest.register_assert_rewrite("site_fixtures")
pytest_plugins = ["site_fixtures"]

from site_fixtures import ROOT, BuiltSite  # noqa: E402


def test_a_rule_without_detectors_says_why_or_has_no_section() -> None:
    rule = load_library(ROOT / "rules").rule("R01")
    assert rule.detectors == () and rule.no_detector
    text = "\n".join(hints_markdown(rule))
    assert text.startswith("## Automated hints\n\n**No detector:** A step that does too much")
    assert "Reviewers are the check for this rule" in text
    assert hints_markdown(replace(rule, no_detector=None)) == []


def test_each_detector_says_what_it_looks_for_misses_and_matches() -> None:
    rule = load_library(ROOT / "rules").rule("R07")
    text = "\n".join(hints_markdown(rule))
    assert text.startswith("## Automated hints\n")
    for detector in rule.detectors:
        assert f"### `R07-{detector.id}`" in text
        assert f"**Looks for:** {detector.message}" in text
    assert "**Sees and misses:** Sees a call with a positional `True`" in text
    assert "```yaml\nrule:\n  kind: argument_list\n" in text
    with_constraints = "\n".join(hints_markdown(load_library(ROOT / "rules").rule("R11")))
    assert "constraints:\n  GETTER:\n    regex: ^get_\n" in with_constraints


def test_detector_text_is_inert_and_fences_outgrow_backticks() -> None:
    rule = load_library(ROOT / "rules").rule("R10")
    hostile = Detector(
        "hostile",
        "<script>alert(1)</script> and {: .evil }",
        HintSeverity.HINT,
        {"regex": "````"},
        note='<img src=x onerror="alert(2)"> misses [x](javascript:alert(3))',
    )
    text = "\n".join(hints_markdown(replace(rule, detectors=(hostile,))))
    assert "<script>" not in text and "<img" not in text
    assert "&lt;script>" in text and "&#123;: .evil }" in text
    assert "](javascript:" not in text
    assert "`````yaml\nrule:\n  regex: '````'\n`````" in text


def test_the_built_rule_page_shows_its_hints(built_site: BuiltSite) -> None:
    page = (built_site.directory / "rules" / "R10" / "index.html").read_text(encoding="utf-8")
    assert 'id="automated-hints"' in page
    assert "R10-hasattr-guard" in page
    assert 'hasattr(self, "$NAME")' in page
    other = (built_site.directory / "rules" / "R01" / "index.html").read_text(encoding="utf-8")
    assert "No detector:" in other and "R01-" not in other
