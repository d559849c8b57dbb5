"""A detector that would hang a scan is rejected by ``validate`` at its position, in bounded
time: its cost is measured in a worker process that is stopped at a deadline."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from rlt_rules.cli import main
from rlt_rules.detectors.growth import GROWTH_BOUND, Growth, generated_code, growth_sources
from rlt_rules.files.cache import CACHE_DIR_ENV
from rlt_rules.library import detector_cost
from rlt_rules.library.detector_cost import (
    MAX_COST,
    Cost,
    CostRecord,
    Probe,
    cost_diagnostics,
    measure,
    sample,
)
from rlt_rules.library.validate import check_records
from rlt_rules.project.check import check_project

ROOT = Path(__file__).resolve().parents[1]
VALID = ROOT / "tests" / "fixtures" / "valid"


def nested(depth: int) -> dict:
    """``has`` and ``inside`` alternating ``depth`` deep, each with ``stopBy: end``, around a
    node that never matches, from every statement: every level searches the whole file again."""
    rule: dict = {"regex": "^never-matches$"}
    for level in range(depth):
        relation = "has" if level % 2 == 0 else "inside"
        rule = {"regex": ".", relation: {**rule, "stopBy": "end"}}
    return {"kind": "expression_statement", **rule}  # a kind, as ast-grep scan asks


def chain() -> dict:
    """The issue's detector: ``follows``, ``precedes``, ``follows``, each with ``stopBy: end``,
    from every statement. A few times a node-kind match on the sample of small files; on one
    file of 200 statements, 35 s; of 400, minutes."""
    rule: dict = {"kind": "expression_statement", "regex": "^never-matches$"}
    for relation in ("follows", "precedes", "follows")[::-1]:
        rule = {"kind": "expression_statement", relation: {**rule, "stopBy": "end"}}
    return rule


def rule_key_line(rules: Path) -> int:
    text = (rules / "R02.yaml").read_text(encoding="utf-8").splitlines()
    return next(n for n, row in enumerate(text, 1) if row.strip().startswith("rule:"))


def with_detector(tmp_path: Path, rule: dict) -> Path:
    rules = tmp_path / "rules"
    shutil.copytree(VALID, rules)
    text = (rules / "R02.yaml").read_text(encoding="utf-8")
    detector = {
        "detectors": [
            {"id": "costly", "message": "A costly detector", "severity": "hint", "rule": rule}
        ]
    }
    (rules / "R02.yaml").write_text(
        text.rstrip("\n") + "\n" + yaml.safe_dump(detector, sort_keys=False), encoding="utf-8"
    )
    return rules


def test_a_cheap_detector_passes(tmp_path: Path) -> None:
    rules = with_detector(tmp_path, {"kind": "call", "has": {"kind": "true", "stopBy": "end"}})
    assert check_project(rules, measure_cost=True).diagnostics == ()


def test_a_detector_that_would_hang_is_rejected_at_its_position_in_bounded_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = with_detector(tmp_path, nested(4))
    begun = time.monotonic()
    code = main(["validate", str(rules)])
    elapsed = time.monotonic() - begun
    captured = capsys.readouterr()
    err = captured.out + captured.err
    assert code == 1
    line = rule_key_line(rules)
    assert f"R02.yaml:{line}:" in err and "detector 'costly'" in err and "stopBy" in err
    # Stopped at its deadline, not run to the end (minutes on this sample).
    assert elapsed < 60, elapsed
    # The project check used by the other commands does not measure (no worker started).
    assert check_project(rules).diagnostics == ()


def test_costs_are_ratios_to_a_baseline_and_the_library_is_within_the_bound() -> None:
    from rlt_rules import load_library

    library = load_library(ROOT / "rules")
    probes = [
        Probe(detector.config(), tuple(example.code for example in rule.examples))
        for rule in library.rules
        for detector in rule.detectors
    ]
    costs = measure(probes, sample())
    assert [cost.index for cost in costs] == list(range(len(probes)))
    assert all(isinstance(cost, Cost) and not cost.over for cost in costs), costs
    assert max(cost.ratio for cost in costs if cost.ratio is not None) < MAX_COST
    # Each was timed on the generated files too, and grows far below the bound there.
    growths = [cost.growth for cost in costs]
    assert all(growth is not None and not growth.stalled for growth in growths), costs
    assert max(growth.factor for growth in growths if growth) < GROWTH_BOUND / 2, costs


# --- growth with a file's size -------------------------------------------------------------


def test_a_detector_whose_cost_explodes_with_file_size_is_rejected_in_a_child_process(
    tmp_path: Path,
) -> None:
    """The issue's chain passes the sample (small files); the generated files reject it, at
    its ``rule`` key, within a time limit: ``validate`` runs as a user runs it."""
    rules = with_detector(tmp_path, chain())
    env = {**os.environ, "RLT_RULES_CACHE_DIR": str(tmp_path / "cache")}
    begun = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "rlt_rules", "validate", str(rules)],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    elapsed = time.monotonic() - begun
    assert result.returncode == 1, result.stdout + result.stderr
    output = result.stdout + result.stderr
    small, large = (text.count("\n") for text in growth_sources())
    assert f"R02.yaml:{rule_key_line(rules)}:3: detector 'costly' " in output, output
    assert f"generated files of {small:,} and {large:,} lines" in output or (
        f"on a {large:,}-line one" in output
    ), output
    assert "would hang scans of large files" in output and "Traceback" not in output
    assert elapsed < 90, elapsed  # stopped at its deadline, not run for minutes
    # The sample alone accepts it: growth is what the check adds.
    (cost,) = measure([Probe({"rule": chain()}, ())], sample())
    assert cost.ratio is not None and cost.ratio < MAX_COST and cost.over


def test_growth_over_the_bound_is_reported_with_both_figures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The verdict and the message when a detector finishes on both files but its cost grows
    too fast (figures given, so the wording is checked without a borderline detector)."""
    assert not Growth(1.0, 3.0, 0.01).over(MAX_COST)  # the square of a function's size: kept
    assert Growth(1.0, GROWTH_BOUND * 1.5, 0.01).over(MAX_COST)
    assert Growth(2.0, MAX_COST + 1, 0.01).over(MAX_COST)
    assert Growth(None, None, 2.0).over(MAX_COST)

    monkeypatch.setattr(
        detector_cost,
        "measure",
        lambda probes, package: [Cost(0, 0.01, 1.5, Growth(1.5, 30.0, 0.2))],
    )
    rules = with_detector(tmp_path, {"kind": "call"})
    (found,) = cost_diagnostics(check_records(rules).rule_docs, CostRecord(None))
    small, large = (text.count("\n") for text in growth_sources())
    assert (found.line, found.column) == (rule_key_line(rules), 3)
    assert (
        f"detector 'costly' costs 1.5 times a plain node-kind match on a generated "
        f"{small:,}-line file and 30.0 times on a {large:,}-line one (20.0-fold for a file 4 "
        f"times as large; the bounds are {MAX_COST} times and {GROWTH_BOUND:g}-fold)"
    ) in found.message


def test_the_generated_files_are_python_and_grow_by_the_factor() -> None:
    from ast_grep_py import SgRoot

    small, large = growth_sources()
    assert (small, large) == (generated_code(8), generated_code(32))
    for text in (small, large):
        compile(text, "<generated>", "exec")  # valid Python
    count = {"rule": {"kind": "expression_statement"}}
    statements = [
        len(SgRoot(text, "python").root().find_all(config=count)) for text in (small, large)
    ]
    assert statements[1] == 4 * statements[0]


def counted_measures(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of probes of each call to ``detector_cost.measure`` from now on (which still
    measures)."""
    measured: list[int] = []
    real_measure = detector_cost.measure

    def counted(probes, package):
        measured.append(len(probes))
        return real_measure(probes, package)

    monkeypatch.setattr(detector_cost, "measure", counted)
    return measured


def test_costs_within_the_bound_are_remembered_and_a_costly_one_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A detector measured within the bound is not measured again while it, its examples and
    the sample are unchanged; a costly one is measured (and rejected) on every run."""
    measured = counted_measures(monkeypatch)
    cheap = with_detector(tmp_path / "cheap", {"kind": "call", "has": {"kind": "true"}})
    costly = with_detector(tmp_path / "costly", nested(4))
    record_file = tmp_path / "costs.json"
    for _ in range(2):
        assert cost_diagnostics(check_records(cheap).rule_docs, CostRecord(record_file)) == []
    assert measured == [1, 0]
    assert len(json.loads(record_file.read_text(encoding="utf-8"))) == 1

    measured.clear()
    for _ in range(2):
        (found,) = cost_diagnostics(check_records(costly).rule_docs, CostRecord(record_file))
        assert "detector 'costly'" in found.message
    assert measured == [1, 1]
    assert len(json.loads(record_file.read_text(encoding="utf-8"))) == 1

    # An edited example is a different sample: measured again.
    measured.clear()
    text = (cheap / "R02.yaml").read_text(encoding="utf-8")
    (cheap / "R02.yaml").write_text(text.replace("#> ", "#>  ", 1), encoding="utf-8")
    cost_diagnostics(check_records(cheap).rule_docs, CostRecord(record_file))
    assert measured == [1]


def test_without_a_record_costs_are_remembered_in_the_user_cache_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The default record is ``detector-costs.json`` in
    :func:`~rlt_rules.files.cache.cache_folder` (``$RLT_RULES_CACHE_DIR`` moves it)."""
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "moved"))
    measured = counted_measures(monkeypatch)
    cheap = with_detector(tmp_path, {"kind": "call"})
    for _ in range(2):
        assert cost_diagnostics(check_records(cheap).rule_docs) == []
    assert measured[1:] == [0]  # the second run read the first one's record
    record_file = tmp_path / "moved" / "detector-costs.json"
    assert len(json.loads(record_file.read_text(encoding="utf-8"))) == measured[0] > 0


def test_a_repeated_detector_is_measured_once_and_marker_ids_do_not_change_its_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first run with nothing remembered times each key once, however many detectors share
    it; an example's markers are read without their rule id (a copied or renumbered rule keeps
    its costs), while a change to the code is a different key."""
    measured = counted_measures(monkeypatch)
    docs = check_records(with_detector(tmp_path, {"kind": "call"})).rule_docs
    assert cost_diagnostics([*docs, *docs], CostRecord(None)) == []
    assert measured == [sum(len(doc.data.get("detectors") or []) for doc in docs)]

    record = CostRecord(None)
    config = {"rule": {"kind": "call"}}
    key = record.key(Probe(config, ("f(x)  # R03: why\n",)))
    assert record.key(Probe(config, ("f(x)  # R1003: why\n",))) == key
    assert record.key(Probe(config, ("f(y)  # R03: why\n",))) != key
