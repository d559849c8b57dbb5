"""The detectors sit the exam: their figures per rule (``exam/detectors.json``) may rise and
may not fall.

The default set and the preview set each run as ``scan --diff`` on every task of the exam
(the library's pairs and the repository's ``exam/`` folder, against the fetched SGLang
corpora); each hint is a finding of its rule. A rule whose hits fell or whose noise rose
fails the ratchet, with the table. After a real gain, or new cases, write the figures:
``rlt-rules exam ratchet --write``.
"""

from __future__ import annotations

import json
from pathlib import Path

from corpus_pins import CORPUS, require_corpora

from rlt_rules import load_library
from rlt_rules.cli import main
from rlt_rules.exam import open_exam
from rlt_rules.exam.detectors import score_detectors, undetected_rules
from rlt_rules.exam.ratchet import FIGURES, SETS, compare, figures_of, read_figures

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "rules"
FIXTURES = ROOT / "tests" / "fixtures" / "exam"


def test_no_rule_of_the_detectors_falls_below_its_committed_figures() -> None:
    require_corpora()
    library = load_library(RULES)
    exam = open_exam(library, ROOT / "exam", CORPUS)
    runs = {name: score_detectors(exam, library, preview=p) for name, p in SETS.items()}
    problems = [problem for run in runs.values() for problem in run.problems]
    assert problems == [], "the scan could not finish on every task"
    current = figures_of({name: run.score for name, run in runs.items()})
    comparison = compare(read_figures(ROOT / "exam" / FIGURES), current)
    assert not comparison.regressions, (
        "a rule's hits fell or its noise rose (a real change? `rlt-rules exam ratchet "
        "--write`, and say why in the commit):\n" + comparison.text()
    )


def test_the_ratchet_sees_a_fall_a_new_noise_and_a_gain() -> None:
    committed = {
        "default": {
            "real": {
                "R03": {"cases": 3, "hits": 2, "noise": 0},
                "R07": {"cases": 3, "hits": 1, "noise": 1},
            }
        }
    }
    current = {
        "default": {
            "real": {
                "R03": {"cases": 3, "hits": 1, "noise": 0},
                "R07": {"cases": 3, "hits": 2, "noise": 0},
                "R10": {"cases": 0, "hits": 0, "noise": 1},
            }
        }
    }
    comparison = compare(committed, current)
    assert [line.rule for line in comparison.regressions] == ["R03", "R10"]
    assert [line.rule for line in comparison.progress] == ["R07"]
    text = comparison.text()
    assert "R03" in text and "FELL" in text and "rose: write it" in text


def test_exam_detectors_hits_the_injected_cases_and_is_silent_on_the_controls(capsys) -> None:
    require_corpora()
    argv = ["exam", "detectors", "--cases", str(FIXTURES), "--corpus", str(CORPUS)]
    assert main([*argv, "--rules", str(RULES), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    real = report["groups"]["real"]
    rows = {
        rule: (tally["cases"], tally["hits"], tally["found"], tally["recall"], tally["noise"])
        for rule, tally in [*real["rules"].items(), ("all", real["total"])]
        if tally["cases"] or tally["noise"]
    }
    assert rows == {"R07": (1, 1, 1, 1.0, 0), "R10": (1, 1, 1, 1.0, 0), "all": (2, 2, 2, 1.0, 0)}
    left = report["left_to_reviewers"]
    assert left == list(undetected_rules(load_library(RULES), preview=False))
    covered = report["covered_real"]
    assert (covered["cases"], covered["hits"], covered["noise"]) == (2, 2, 0)

    # The text report says the same.
    assert main([*argv, "--rules", str(RULES)]) == 0
    text = capsys.readouterr().out
    assert f"left to reviewers (no detector in this set): {', '.join(left)};" in text
    assert (
        "real tasks of the rules with a detector in this set: 2 case(s), 2 hit(s), recall 1.00, "
        "noise 0, precision 1.00\n" in text
    )


def test_the_rules_no_detector_covers_are_left_to_reviewers() -> None:
    library = load_library(RULES)
    preview = undetected_rules(library, preview=True)
    default = undetected_rules(library, preview=False)
    # Each rule without any detector says why on its page.
    assert preview and all(library.rule(rule_id).no_detector for rule_id in preview)
    # The default set leaves out the rules whose detectors are all in preview too.
    only_preview = [
        rule.id
        for rule in library.rules
        if rule.detectors and all(d.preview for d in rule.detectors)
    ]
    assert set(default) == set(preview) | set(only_preview)
