"""``rlt-rules scan``: preview detectors, the root paths are relative to, unused suppressions.

Preview detectors (``status: preview`` in the record, with its ``preview_reason``) run only with
``--preview`` and stay out of the ast-grep export, the CodeRabbit fragment and scan's SARIF unless
asked for; the rule page says why they are preview.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path

import pytest
from test_scan import GUARD, ROOT, RULES, run_cli, write

from rlt_rules import load_library
from rlt_rules.cli import main
from rlt_rules.export import astgrep, reviewers
from rlt_rules.library.model import Measured
from rlt_rules.scan.corpus import rewrite_measured
from rlt_rules.site.hints import hints_markdown

REASON = "On SGLang it mostly flags getattr reflection loops over dir(self)."


def preview_rules(tmp_path: Path, detector: str = "hasattr-guard", rule: str = "R10") -> Path:
    """A copy of the rules (and mkdocs.yml) where ``rule``'s ``detector`` is preview."""
    copy = tmp_path / "lib" / "rules"
    shutil.copytree(RULES, copy)
    shutil.copy(ROOT / "mkdocs.yml", copy.parent / "mkdocs.yml")
    record = copy / f"{rule}.yaml"
    text = record.read_text(encoding="utf-8")
    head = f"  - id: {detector}\n"
    at = text.index(head)
    severity = text.index("    severity:", at)
    end = text.index("\n", severity) + 1
    text = text[:end] + f"    status: preview\n    preview_reason: {REASON}\n" + text[end:]
    record.write_text(text, encoding="utf-8")
    return copy


def scan_with(rules: Path, *argv: str) -> tuple[int, str]:
    """Exit code and stdout of ``rlt-rules ARGV --rules RULES``."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*argv, "--rules", str(rules)])
    return code, out.getvalue()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    monkeypatch.chdir(root)
    return root


# --- preview detectors ---------------------------------------------------------------------


def test_a_preview_detector_runs_only_with_preview(project: Path, tmp_path: Path) -> None:
    rules = preview_rules(tmp_path)
    library = load_library(rules)
    detector = library.rule("R10").detectors[0]
    assert detector.preview and detector.preview_reason == REASON
    write(project / "a.py", GUARD)
    assert scan_with(rules, "scan", "a.py") == (0, "")
    code, out = scan_with(rules, "scan", "a.py", "--preview", "--format", "json")
    assert code == 1
    assert [h["detector"] for h in json.loads(out)["hits"]] == ["R10-hasattr-guard"]
    # SARIF describes the preview detector only when the scan ran it.
    _, out = scan_with(rules, "scan", "a.py", "--format", "sarif")
    ids = [r["id"] for r in json.loads(out)["runs"][0]["tool"]["driver"]["rules"]]
    assert "R10-hasattr-guard" not in ids and "R07-positional-switch" in ids
    _, out = scan_with(rules, "scan", "a.py", "--format", "sarif", "--preview")
    ids = [r["id"] for r in json.loads(out)["runs"][0]["tool"]["driver"]["rules"]]
    assert "R10-hasattr-guard" in ids


def test_a_preview_detector_is_left_out_of_the_exports_unless_asked_for(tmp_path: Path) -> None:
    library = load_library(preview_rules(tmp_path))
    default = astgrep.files(library, None)
    assert "rules/R10-hasattr-guard.yml" not in default
    assert "rules/R07-positional-switch.yml" in default
    assert "rules/R10-hasattr-guard.yml" in astgrep.files(library, None, preview=True)
    # The CodeRabbit fragment names the ast-grep export only while it holds a detector.
    assert "rule_dirs" in reviewers.coderabbit(library, library, None, ["**/*.py"])
    only_preview = load_library(RULES)
    for rule in only_preview.rules:
        for detector in rule.detectors:
            object.__setattr__(detector, "status", type(detector.status)("preview"))
    fragment = reviewers.coderabbit(only_preview, only_preview, None, ["**/*.py"])
    assert "rule_dirs" not in fragment and "ast-grep" not in fragment


def test_export_preview_is_only_for_ast_grep(tmp_path: Path) -> None:
    rules = preview_rules(tmp_path)
    code, _ = scan_with(rules, "export", "--format", "ast-grep", "--preview", "-o", str(tmp_path))
    assert code == 0 and (tmp_path / "rules" / "R10-hasattr-guard.yml").is_file()
    assert scan_with(rules, "export", "--format", "json", "--preview")[0] == 2


def test_the_rule_page_says_why_a_detector_is_preview(tmp_path: Path) -> None:
    text = "\n".join(hints_markdown(load_library(preview_rules(tmp_path)).rule("R10")))
    assert f"**Preview** (runs only with `rlt-rules scan --preview`): {REASON}" in text


def test_a_preview_detector_without_its_reason_is_rejected(tmp_path: Path) -> None:
    rules = preview_rules(tmp_path)
    record = rules / "R10.yaml"
    text = record.read_text(encoding="utf-8")
    record.write_text(text.replace(f"    preview_reason: {REASON}\n", ""), encoding="utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(["validate", str(rules)])
    assert code == 1
    # At the detector's first key: the mapping that lacks the field.
    lines = record.read_text(encoding="utf-8").splitlines()
    first = next(n for n, line in enumerate(lines, 1) if line.startswith("  - id: hasattr-guard"))
    assert f"R10.yaml:{first}:5: missing required field 'preview_reason'" in out.getvalue()


# --- the root ------------------------------------------------------------------------------


def test_paths_are_relative_to_the_git_work_tree_of_the_first_path(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(project / "pkg" / "engine.py", GUARD)
    monkeypatch.chdir(project / "pkg")
    code, out, _ = run_cli("scan", "engine.py")
    assert code == 1 and out.startswith("pkg/engine.py:3:12: R10 ")
    # --root names another root; outside it, paths are absolute.
    _, out, _ = run_cli("scan", "engine.py", "--root", ".")
    assert out.startswith("engine.py:3:12: R10 ")
    elsewhere = project.parent / "elsewhere"
    elsewhere.mkdir()
    _, out, _ = run_cli("scan", "engine.py", "--root", str(elsewhere))
    assert out.startswith(f"{project.as_posix()}/pkg/engine.py:3:12: R10 ")
    assert run_cli("scan", "engine.py", "--root", "missing")[0] == 2


def test_without_a_git_work_tree_paths_are_relative_to_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = tmp_path / "plain"
    write(plain / "sub" / "engine.py", GUARD)
    monkeypatch.chdir(plain)
    assert run_cli("scan", "sub")[1].startswith("sub/engine.py:3:12: R10 ")


def test_sarif_names_the_root_and_findings_drafts_check_against_it(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(project / "pkg" / "engine.py", GUARD)
    monkeypatch.chdir(tmp_path)  # outside the work tree: paths still relative to its root
    sarif = json.loads(run_cli("scan", str(project / "pkg"), "--format", "sarif")[1])
    run = sarif["runs"][0]
    assert run["originalUriBaseIds"] == {"SRCROOT": {"uri": project.as_uri() + "/"}}
    location = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": "pkg/engine.py", "uriBaseId": "SRCROOT"}
    draft = tmp_path / "draft.yaml"
    run_cli("scan", str(project / "pkg"), "--format", "findings", "-o", str(draft))
    text = draft.read_text(encoding="utf-8")
    assert f"--repo {project}" in text and 'path: "pkg/engine.py"' in text
    done = "\n".join(
        "      Written by the reviewer." if line.startswith("      TODO: ") else line
        for line in text.splitlines()
    )
    draft.write_text(done + "\n", encoding="utf-8")
    code, out, err = run_cli("findings", "check", str(draft), "--repo", str(project))
    assert (code, err) == (0, ""), err


# --- unused suppressions -------------------------------------------------------------------

SUPPRESSED = (
    "class Engine:\n"
    "    def a(self):\n"
    '        if hasattr(self, "x"):  # rlt: ignore[R10] optional plugin, absent on CPU\n'
    "            pass\n"
    "    def b(self):\n"
    "        return 1  # rlt: ignore[R10] nothing here any more\n"
    "    def __init__(self, x):\n"
    "        self.x = x\n"
)


def test_a_suppression_with_no_hint_on_its_line_is_reported_and_fails_the_scan(
    project: Path,
) -> None:
    write(project / "engine.py", SUPPRESSED)
    # R10 has a preview detector: only with --preview do all of R10's detectors run, so only
    # then is an R10 suppression judged (the next test covers the default).
    code, out, err = run_cli("scan", "engine.py", "--preview", "--format", "json")
    assert code == 1
    data = json.loads(out)
    assert [(h["line"], h["detector"], h["column"]) for h in data["hits"]] == [
        (6, "R10-unused-suppression", 19)
    ]
    assert "silences nothing: no R10 hint starts on this line" in data["hits"][0]["message"]
    assert data["suppressed"] == 1
    # A suppression for a rule this scan did not fully run is not judged.
    assert run_cli("scan", "engine.py", "--select", "R07")[:2] == (0, "")


def test_a_suppression_of_a_rule_whose_preview_detector_did_not_run_is_not_judged(
    project: Path, tmp_path: Path
) -> None:
    write(project / "engine.py", SUPPRESSED.replace('hasattr(self, "x")', "True"))
    rules = preview_rules(tmp_path)
    assert scan_with(rules, "scan", "engine.py") == (0, "")
    code, out = scan_with(rules, "scan", "engine.py", "--preview", "--format", "json")
    assert code == 1
    assert [h["line"] for h in json.loads(out)["hits"]] == [3, 6]


def test_a_named_folder_that_git_ignores_is_walked_as_ripgrep_does(project: Path) -> None:
    """``.cache/corpus/`` is ignored by the work tree's .gitignore, yet named on the command
    line it is scanned (as ``ast-grep scan`` scans it); ignore files inside it still apply."""
    write(project / ".gitignore", ".cache/\n")
    write(project / ".cache" / "corpus" / "engine.py", GUARD)
    write(project / ".cache" / "corpus" / ".gitignore", "skipped.py\n")
    write(project / ".cache" / "corpus" / "skipped.py", GUARD)
    assert run_cli("scan", ".")[:2] == (0, "")
    code, out, _ = run_cli("scan", ".cache/corpus")
    assert code == 1 and out.splitlines()[0].startswith(".cache/corpus/engine.py:3:12: R10")
    assert len(out.splitlines()) == 1


# --- measured figures ----------------------------------------------------------------------


def measured_rules(tmp_path: Path) -> Path:
    """A copy of the rules whose R10 and R07 detectors carry measured figures."""
    copy = tmp_path / "measured" / "rules"
    shutil.copytree(RULES, copy)
    shutil.copy(ROOT / "mkdocs.yml", copy.parent / "mkdocs.yml")
    figures = {
        ("R10", "hasattr-guard"): Measured("sglang-0.5.23", 20, 19, 1, 0, 0.95),
        ("R07", "positional-switch"): Measured("sglang-0.5.23", 40, 33, 4, 3, 0.82),
        ("R07", "count-as-failure"): Measured("sglang-0.5.23", 10, 7, 2, 1, 0.7),
    }
    for (rule, detector), measured in figures.items():
        record = copy / f"{rule}.yaml"
        text = record.read_text(encoding="utf-8")
        record.write_text(rewrite_measured(text, detector, measured), encoding="utf-8")
    return copy


def test_sarif_gives_each_detector_its_measured_precision(project: Path, tmp_path: Path) -> None:
    """As CodeQL's query metadata: very-high at 0.95, high at 0.8, medium below."""
    rules = measured_rules(tmp_path)
    write(project / "a.py", GUARD)
    _, out = scan_with(rules, "scan", "a.py", "--format", "sarif")
    descriptors = {r["id"]: r for r in json.loads(out)["runs"][0]["tool"]["driver"]["rules"]}
    precision = {n: d.get("properties", {}).get("precision") for n, d in descriptors.items()}
    assert precision["R10-hasattr-guard"] == "very-high"
    assert precision["R07-positional-switch"] == "high"
    assert precision["R07-count-as-failure"] == "medium"
    assert precision["R13-version-as-capability"] is None  # no hint on the corpus to judge
    assert descriptors["R10-hasattr-guard"]["properties"]["measured"] == {
        "corpus": "sglang-0.5.23",
        "hints": 20,
        "tp": 19,
        "arguable": 1,
        "fp": 0,
        "precision": 0.95,
    }


def test_the_rule_page_shows_each_detectors_figures(tmp_path: Path) -> None:
    text = "\n".join(hints_markdown(load_library(measured_rules(tmp_path)).rule("R07")))
    assert (
        "**Measured on `sglang-0.5.23`:** 40 hints, 33 tp, 4 arguable, 3 fp: "
        "tp-precision 0.82 (high)." in text
    )
    assert "tp-precision 0.70 (medium)." in text
