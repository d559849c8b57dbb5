"""A detector that would hang a scan is rejected by ``validate`` at its position, in bounded
time: its cost is measured in a worker process that is stopped at a deadline."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
import yaml

from rlt_rules import detector_cost
from rlt_rules.cli import main
from rlt_rules.detector_cost import (
    MAX_COST,
    Cost,
    CostRecord,
    Probe,
    cost_diagnostics,
    measure,
    sample,
)
from rlt_rules.project import check_project
from rlt_rules.validate import check_records

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
    text = (rules / "R02.yaml").read_text(encoding="utf-8").splitlines()
    line = next(n for n, row in enumerate(text, 1) if row.strip().startswith("rule:"))
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


def test_costs_within_the_bound_are_remembered_and_a_costly_one_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A detector measured within the bound is not measured again while it, its examples and
    the sample are unchanged; a costly one is measured (and rejected) on every run."""
    measured: list[int] = []
    real_measure = detector_cost.measure

    def counted(probes, package):
        measured.append(len(probes))
        return real_measure(probes, package)

    monkeypatch.setattr(detector_cost, "measure", counted)
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
