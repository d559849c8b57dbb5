"""``rlt-rules export --format ast-grep``: a folder that ast-grep itself tests and scans, with
the same hits as ``rlt-rules scan``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from rlt_rules import load_library
from rlt_rules.export import astgrep
from rlt_rules.library.model import Library

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "rules"
BIN = Path(sys.executable).parent
SITE = "https://rlt-rules.example/1.0.0/"


@pytest.fixture(scope="module")
def library() -> Library:
    return load_library(RULES)


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("export") / "ast-grep"
    result = subprocess.run(
        [str(BIN / "rlt-rules"), "export", "--format", "ast-grep", "-o", str(target)]
        + ["--rules", str(RULES), "--site-url", SITE],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return target


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory, library: Library) -> Path:
    """Every example of the library as a Python file: ``R07-bad-positional-switch.py``."""
    folder = tmp_path_factory.mktemp("examples")
    for rule in library.rules:
        for example in rule.examples:
            path = folder / f"{rule.id}-{example.kind}-{example.name}.py"
            path.write_text(example.code, encoding="utf-8")
    return folder


def test_one_rule_file_per_detector_linking_its_page(exported: Path, library: Library) -> None:
    # Preview detectors stay out of the export unless asked for (--preview).
    detectors = [(rule, d) for rule in library.rules for d in rule.detectors if not d.preview]
    assert sorted(p.name for p in (exported / "rules").iterdir()) == sorted(
        f"{rule.id}-{d.id}.yml" for rule, d in detectors
    )
    for rule, detector in detectors:
        data = yaml.safe_load((exported / "rules" / f"{rule.id}-{detector.id}.yml").read_text())
        assert data["url"] == f"{SITE}rules/{rule.id}/"
        assert data["metadata"]["rule"] == rule.id
        assert data["rule"] == detector.rule
        assert data.get("constraints") == detector.constraints
        assert data["message"] == detector.message
    config = yaml.safe_load((exported / "sgconfig.yml").read_text())
    assert config == {"ruleDirs": ["rules"], "testConfigs": [{"testDir": "rule-tests"}]}


def test_ast_grep_test_accepts_the_cases_made_from_the_examples(
    exported: Path, library: Library
) -> None:
    result = subprocess.run(
        [str(BIN / "ast-grep"), "test", "--skip-snapshot-tests"],
        cwd=exported,
        capture_output=True,
        text=True,
        check=False,
    )
    count = sum(not d.preview for rule in library.rules for d in rule.detectors)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{count} passed; 0 failed" in result.stdout
    cases = yaml.safe_load((exported / "rule-tests" / "R07-positional-switch-test.yml").read_text())
    rule = library.rule("R07")
    assert cases["invalid"] == [e.code for e in rule.examples if e.name == "positional-switch"][:1]
    assert cases["valid"] == [e.code for e in rule.examples if str(e.kind) == "good"]


def test_ast_grep_scan_finds_what_rlt_rules_scan_finds(exported: Path, examples: Path) -> None:
    found = subprocess.run(
        [str(BIN / "ast-grep"), "scan", "-c", str(exported / "sgconfig.yml"), "--json=compact"]
        + [str(examples)],
        capture_output=True,
        text=True,
        check=True,
    )
    theirs = sorted(
        (Path(hit["file"]).name, hit["range"]["start"]["line"] + 1, hit["ruleId"], hit["text"])
        for hit in json.loads(found.stdout)
    )
    ours_run = subprocess.run(
        [str(BIN / "rlt-rules"), "scan", str(examples), "--format", "json"]
        + ["--rules", str(RULES)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert ours_run.returncode == 1, ours_run.stderr
    ours = sorted(
        (Path(hit["path"]).name, hit["line"], hit["detector"], hit["code"])
        for hit in json.loads(ours_run.stdout)["hits"]
    )
    assert theirs == ours
    # Every default-on detector flags its bad example (the proof), and both tools see it.
    library = load_library(RULES)
    default_on = {
        f"{rule.id}-{detector.id}"
        for rule in library.rules
        for detector in rule.detectors
        if not detector.preview
    }
    assert {hit[2] for hit in ours} == default_on


def test_coderabbit_rule_dirs_name_the_rules_folder() -> None:
    assert astgrep.coderabbit_rule_dirs() == ["rlt-ast-grep/rules"]
    assert astgrep.coderabbit_rule_dirs(".rlt/ast-grep/") == [".rlt/ast-grep/rules"]
