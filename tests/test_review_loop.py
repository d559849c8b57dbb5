"""The review loop as a new user meets it on a real change: a finding no rule covers
(``kind: outside-rules``), ``review-context`` on the working tree of a real Git repository
(against ``HEAD`` or ``--base``, limited to paths), what it says when the detectors find
nothing and when the change came through a pipe, ``findings check --diff`` on a hunk's context
lines, and ``show`` listing a rule's detectors."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

from rlt_rules import Library, load_library
from rlt_rules.cli import main
from rlt_rules.findings import FindingKind, Review, check_review, render_markdown, sarif_log
from rlt_rules.findings.check import check_answer
from rlt_rules.findings.diff import parse_diff
from rlt_rules.findings.markdown import OUTSIDE_TITLE
from rlt_rules.render.answer import example
from rlt_rules.render.sarif import OUTSIDE_RULES_ID

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "rules"
SAMPLE_DIFF = "samples/review/change.diff"
SAMPLE_CODE = "samples/review/scheduler.py"
SARIF_SCHEMA = ROOT / "tests" / "data" / "sarif-schema-2.1.0.json"
SITE = "https://rules.example.test/rlt/1.0.0/"
BIN = Path(sys.executable).parent

#: A review with a rule finding and one no rule covers, on lines the sample change adds.
ANSWER = """\
library_version: 1.0.0
findings:
  - rule: R07
    location: {path: samples/review/scheduler.py, start_line: 65, end_line: 66}
    trigger: "`admit()` tests the result of `reserve()` with `if not free:`."
    impact: "A request that fits the pool exactly is refused."
    correction: "Test for the failure value itself: `if free is None:`."
  - kind: outside-rules
    severity: note
    location: {path: samples/review/scheduler.py, start_line: 96, end_line: 97}
    trigger: "The loop <b>drops</b> the last result of a step."
    impact: "A request waits one step longer than it must."
    correction: "Iterate over every result of the step."
"""


@pytest.fixture(scope="module")
def library() -> Library:
    return load_library(RULES)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def checked(tmp_path: Path, library: Library, text: str) -> Review:
    path = tmp_path / "answer.yaml"
    path.write_text(text, encoding="utf-8")
    result = check_review(path, library, ROOT, "answer.yaml", parse_diff(_sample_diff()))
    assert result.review is not None, [str(d) for d in result.diagnostics]
    return result.review


def _sample_diff() -> str:
    return (ROOT / SAMPLE_DIFF).read_text(encoding="utf-8")


# --- a finding outside the rules -------------------------------------------------------------


def test_check_accepts_a_finding_outside_the_rules(tmp_path: Path, library: Library) -> None:
    review = checked(tmp_path, library, ANSWER)
    rule, outside = review.findings
    assert (rule.rule, rule.kind) == ("R07", FindingKind.RULE)
    assert (outside.rule, outside.kind, outside.outside_rules) == (
        None,
        FindingKind.OUTSIDE_RULES,
        True,
    )
    # Written back, the kind stands where the rule would, and no `rule` key is invented.
    data = review.to_dict()["findings"]
    assert "kind" not in data[0] and data[0]["rule"] == "R07"
    assert data[1]["kind"] == "outside-rules" and "rule" not in data[1]
    assert Review.from_dict(review.to_dict()) == review


@pytest.mark.parametrize(
    ("finding", "expected"),
    [
        (
            "  - kind: outside-rules\n    rule: R07\n",
            "answer.yaml:4:11: findings[0].rule is not allowed here: an outside-rules finding "
            "cites no rule: remove `rule`, or remove `kind: outside-rules` to cite the rule",
        ),
        (
            "  - severity: note\n",
            "answer.yaml:3:5: missing required field 'rule' in findings[0]: a rule finding "
            "cites its rule: give `rule` (an id such as R03), or write `kind: outside-rules` "
            "for a real problem no rule covers",
        ),
        (
            "  - kind: rule\n",
            "answer.yaml:3:5: missing required field 'rule' in findings[0]: a rule finding "
            "cites its rule: give `rule` (an id such as R03), or write `kind: outside-rules` "
            "for a real problem no rule covers",
        ),
    ],
)
def test_check_rejects_a_kind_that_does_not_fit_its_rule(
    library: Library, finding: str, expected: str
) -> None:
    text = (
        "library_version: 1.0.0\nfindings:\n"
        + finding
        + "    location: {path: samples/review/scheduler.py, start_line: 65, end_line: 66}\n"
        "    trigger: t\n    impact: i\n    correction: c\n"
    )
    result = check_answer(text.encode(), "answer.yaml", library, ROOT)
    assert [str(d) for d in result.diagnostics] == [expected]
    assert result.review is None


def test_a_rejected_finding_s_missing_fields_are_each_named_once(library: Library) -> None:
    text = b"library_version: 1.0.0\nfindings:\n  - rule: R03\n"
    result = check_answer(text, "answer.yaml", library)
    assert [d.message for d in result.diagnostics] == [
        f"missing required field '{name}' in findings[0]"
        for name in ("location", "trigger", "impact", "correction")
    ]


def test_sarif_gives_an_outside_finding_its_own_descriptor(
    tmp_path: Path, library: Library
) -> None:
    review = checked(tmp_path, library, ANSWER)
    log = sarif_log(review, library, SITE)
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    assert list(jsonschema.validators.validator_for(schema)(schema).iter_errors(log)) == []
    run_ = log["runs"][0]
    rules = run_["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in rules] == [
        *(rule.id for rule in library.rules),
        OUTSIDE_RULES_ID,
    ]
    assert rules[-1]["name"] == "OutsideTheRules" and rules[-1]["helpUri"] == SITE
    first, outside = run_["results"]
    assert (first["ruleId"], rules[first["ruleIndex"]]["id"]) == ("R07", "R07")
    assert (outside["ruleId"], outside["ruleIndex"], outside["level"]) == (
        OUTSIDE_RULES_ID,
        len(rules) - 1,
        "note",
    )
    # Without one, the rules are the library's alone.
    only_rules = Review(review.library_version, review.findings[:1])
    assert OUTSIDE_RULES_ID not in {
        rule["id"]
        for rule in sarif_log(only_rules, library, SITE)["runs"][0]["tool"]["driver"]["rules"]
    }


def test_markdown_heads_an_outside_finding_without_a_rule_link(
    tmp_path: Path, library: Library
) -> None:
    text = render_markdown(checked(tmp_path, library, ANSWER), library, SITE)
    headings = [line for line in text.splitlines() if line.startswith("### ")]
    assert headings == [
        f"### `{SAMPLE_CODE}`, lines 65–66: [R07 — {library.rule('R07').title}]({SITE}rules/R07/)",
        f"### `{SAMPLE_CODE}`, lines 96–97: {OUTSIDE_TITLE}",
    ]
    assert "**Trigger:** The loop &lt;b>drops&lt;/b> the last result of a step." in text


def test_the_cli_checks_and_renders_an_outside_finding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)
    answer = tmp_path / "answer.yaml"
    answer.write_text(ANSWER, encoding="utf-8")
    given = (str(answer), "--rules", str(RULES), "--repo", ".", "--diff", SAMPLE_DIFF)
    assert run(capsys, "findings", "check", *given) == (
        0,
        "ok: 2 finding(s), 0 warning(s)\n",
        "",
    )
    code, out, _ = run(capsys, "findings", "markdown", *given)
    assert code == 0 and OUTSIDE_TITLE in out
    code, out, _ = run(capsys, "findings", "sarif", *given)
    assert code == 0 and '"ruleId": "outside-rules"' in out


def test_the_answer_format_asks_for_what_no_rule_covers(library: Library) -> None:
    code, out = _context(library)
    assert code == 0
    assert "Report what no rule covers as `kind: outside-rules` (without `rule`)" in out
    assert "- `findings[].rule` (required unless `kind: outside-rules`)" in out
    data = yaml.safe_load(example(library))
    assert [finding.get("kind", "rule") for finding in data["findings"]] == [
        "rule",
        "outside-rules",
    ]
    result = check_answer(example(library).encode(), "example.yaml", library)
    assert result.review is not None, [str(d) for d in result.diagnostics]


def _context(library: Library) -> tuple[int, str]:
    result = subprocess.run(
        [str(BIN / "rlt-rules"), "review-context", "--rules", str(RULES), "--diff", SAMPLE_DIFF],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    return result.returncode, result.stdout


# --- review-context on a real Git repository -------------------------------------------------

RUNNER = """\
class Runner:
    def __init__(self, cache):
        self.cache = cache

    def step(self):
        return self.cache.lookup()
"""
GUARD = """
    def finish(self, request_id):
        if hasattr(self, "cache"):
            self.cache.release(request_id)
"""


def _git(repo: Path, *args: str) -> str:
    result = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.test", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
    )
    return result.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """Two commits (the second changes ``notes/plan.py``), then a working tree that adds a
    guard the R10 detector points at to ``engine/runner.py``, plus an untracked file."""
    repo = tmp_path / "repo"
    (repo / "engine").mkdir(parents=True)
    (repo / "notes").mkdir()
    (repo / "engine" / "runner.py").write_text(RUNNER, encoding="utf-8")
    (repo / "notes" / "plan.py").write_text("STEPS = 1\n", encoding="utf-8")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "first")
    (repo / "notes" / "plan.py").write_text("STEPS = 2\n", encoding="utf-8")
    _git(repo, "commit", "-q", "-am", "second")
    (repo / "engine" / "runner.py").write_text(RUNNER + GUARD, encoding="utf-8")
    (repo / "engine" / "draft.py").write_text("x = 1\n", encoding="utf-8")
    return repo


def _changed(text: str) -> list[str]:
    section = text[text.index("## The change") : text.index("## How to answer")]
    return re.findall(r"^- `([^`]+)` \(", section, re.MULTILINE)


def _check_command(text: str) -> str:
    (command,) = re.findall(r"The answer is checked with `([^`]+)`", text)
    return command


def test_without_a_diff_the_working_tree_is_reviewed_against_head(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(repo)
    code, out, err = run(capsys, "review-context", "--rules", str(RULES))
    assert code == 0, err
    assert _changed(out) == ["engine/runner.py"]
    assert "- `engine/runner.py` (modified): lines 4–10 (+4 −0)" in out
    assert "- R10 `engine/runner.py:9`: Guards on an attribute of self" in out
    assert _check_command(out) == (
        f"git diff HEAD | rlt-rules findings check ANSWER.yaml --rules {RULES} --repo . --diff -"
    )
    # git diff leaves an untracked file out: the user is told, and how to add it.
    assert "1 untracked file(s) left out of the change" in err and "engine/draft.py" in err
    assert "`git add -N FILE`" in err
    # --base: the working tree against an older commit, both commits' work.
    code, out, _ = run(capsys, "review-context", "--rules", str(RULES), "--base", "HEAD~1")
    assert code == 0 and _changed(out) == ["engine/runner.py", "notes/plan.py"]
    assert _check_command(out).startswith("git diff 'HEAD~1' | rlt-rules findings check")


def test_paths_limit_the_change_and_silent_detectors_say_they_ran(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(repo)
    args = ("review-context", "--rules", str(RULES), "--base", "HEAD~1")
    code, out, _ = run(capsys, *args, "--", "notes")
    assert code == 0 and _changed(out) == ["notes/plan.py"]
    assert _check_command(out).startswith("git diff 'HEAD~1' -- notes | rlt-rules findings")
    assert (
        "The library's detectors ran on the change's Python file and point at none of the "
        "lines it adds. That is not approval: most findings have no hint, so read every "
        "changed line."
    ) in out
    code, out, _ = run(capsys, *args, "--", "engine", "notes")
    assert code == 0 and _changed(out) == ["engine/runner.py", "notes/plan.py"]
    assert "- R10 `engine/runner.py:9`" in out and "point at none" not in out


def test_the_printed_check_command_runs_from_a_subfolder(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Paths are Git's, relative to where the command runs; the check command names the
    repository's top, and a shell runs it as printed."""
    monkeypatch.chdir(repo / "engine")
    code, out, _ = run(capsys, "review-context", "--rules", str(RULES), "--", ".")
    assert code == 0 and _changed(out) == ["engine/runner.py"]
    command = _check_command(out)
    assert command == (
        f"git diff HEAD -- . | rlt-rules findings check ANSWER.yaml --rules {RULES} --repo .. "
        "--diff -"
    )
    answer = tmp_path / "answer.yaml"
    answer.write_text(
        "library_version: 1.0.0\nfindings:\n  - rule: R10\n"
        "    location: {path: engine/runner.py, start_line: 9, end_line: 10}\n"
        "    trigger: t\n    impact: i\n    correction: c\n",
        encoding="utf-8",
    )
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    shell = command.replace("ANSWER.yaml", str(answer))
    result = subprocess.run(
        ["bash", "-c", shell], cwd=repo / "engine", env=env, capture_output=True, text=True
    )
    assert (result.returncode, result.stdout) == (0, "ok: 1 finding(s), 0 warning(s)\n"), (
        result.stderr
    )


def test_what_git_cannot_give_is_a_usage_error(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(repo)
    code, out, err = run(capsys, "review-context", "--rules", str(RULES), "--", "nothing")
    assert (code, out) == (2, "")
    assert err.strip().endswith(
        "git diff HEAD: no change between HEAD and the working tree under nothing: give "
        "another base (a branch such as main) or --diff FILE"
    )
    code, _, err = run(capsys, "review-context", "--rules", str(RULES), "--base", "no-such")
    assert code == 2 and "git diff no-such failed in" in err and "bad revision" in err
    code, _, err = run(capsys, "review-context", "--rules", str(RULES), "--base=--output=x")
    assert code == 2 and "is not a revision" in err and not (repo / "x").exists()
    code, _, err = run(
        capsys, "review-context", "--rules", str(RULES), "--diff", "x.diff", "--", "engine"
    )
    assert code == 2 and "with --diff, give the diff of those paths" in err
    with pytest.raises(SystemExit):
        main(["review-context", "--diff", "x.diff", "--base", "HEAD"])
    elsewhere = tmp_path / "not-a-repo"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    code, _, err = run(capsys, "review-context", "--rules", str(RULES))
    assert code == 2 and "is not in a Git work tree" in err and "give --diff FILE" in err


def test_a_change_from_a_pipe_is_never_named_by_its_descriptor(repo: Path) -> None:
    """``--diff <(git diff)`` reads ``/dev/fd/63``, which is gone once read: the context tells
    the reviewer to save the change, as it does for standard input; a file keeps its name."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    rules = f"--rules {RULES}"
    outputs = {}
    for name, shell in {
        "pipe": f"rlt-rules review-context {rules} --diff <(git diff HEAD)",
        "stdin": f"git diff HEAD | rlt-rules review-context {rules} --diff -",
        "file": f"git diff HEAD > x.diff && rlt-rules review-context {rules} --diff x.diff",
    }.items():
        result = subprocess.run(
            ["bash", "-c", shell], cwd=repo, env=env, capture_output=True, text=True
        )
        assert result.returncode == 0, (name, result.stderr)
        outputs[name] = result.stdout
    for name in ("pipe", "stdin"):
        text = outputs[name]
        assert "/dev/fd" not in text
        assert _check_command(text).endswith("--repo . --diff CHANGE.diff")
        assert "no file holds it. Save the same diff as `CHANGE.diff` first" in text
    assert _check_command(outputs["file"]).endswith("--repo . --diff x.diff")
    assert "no file holds it" not in outputs["file"]


# --- findings check on a hunk's context lines ------------------------------------------------


@pytest.mark.parametrize(
    ("lines", "note"),
    [((52, 54), True), ((54, 55), False)],
    ids=["context-only", "touches-an-added-line"],
)
def test_check_accepts_context_lines_and_says_so(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    lines: tuple[int, int],
    note: bool,
) -> None:
    """Lines 52–54 of the sample are the context its hunk shows before its first added line
    (55): accepted, and the check says they count as the change's surroundings."""
    monkeypatch.chdir(ROOT)
    change = parse_diff(_sample_diff())
    (changed,) = change.files
    assert changed.covers(52, 54) and not changed.adds_within(52, 54) and 55 in changed.added_lines
    start, end = lines
    answer = tmp_path / "answer.yaml"
    answer.write_text(
        "library_version: 1.0.0\nfindings:\n  - rule: R03\n"
        f"    location: {{path: {SAMPLE_CODE}, start_line: {start}, end_line: {end}}}\n"
        "    trigger: t\n    impact: i\n    correction: c\n",
        encoding="utf-8",
    )
    code, out, err = run(
        capsys, "findings", "check", str(answer), "--rules", str(RULES), "--diff", SAMPLE_DIFF
    )
    assert (code, err) == (0, "")
    expected = ["ok: 1 finding(s), 0 warning(s)"]
    if note:
        expected.append(
            f"note: findings[0] ({SAMPLE_CODE}, lines {start}–{end}): on context lines only "
            "(unchanged lines a hunk shows around the change), no line the change adds: "
            "accepted, as context lines count as part of the change's surroundings"
        )
    assert out.splitlines() == expected


# --- show: a rule's detectors ----------------------------------------------------------------


def test_show_lists_each_detector_with_status_precision_and_misses(
    library: Library, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "show", "R10", "--rules", str(RULES))
    assert code == 0
    section = out[out.index("\nDetectors\n") :]
    flat = " ".join(section.split())
    rule = library.rule("R10")
    assert len(rule.detectors) >= 2 and any(d.preview for d in rule.detectors)
    for detector in rule.detectors:
        assert f"  {rule.id}-{detector.id}: {detector.severity}\n" in section
        measured = detector.measured
        assert measured is not None and measured.precision is not None and detector.note
        assert (
            f"{measured.hints} hints, {measured.tp} tp, {measured.arguable} arguable, "
            f"{measured.fp} fp: tp-precision {measured.precision:.2f} ({measured.level})"
        ) in flat
        assert f"Sees and misses: {' '.join(detector.note.split())}" in flat
        if detector.preview:
            reason = " ".join((detector.preview_reason or "").split())
            assert f"Status: preview (only with --preview): {reason}" in flat
        else:
            assert "Status: active (on by default)" in flat
    without = next(rule for rule in library.rules if not rule.detectors)
    out = run(capsys, "show", without.id, "--rules", str(RULES))[1]
    assert out.rstrip().endswith(
        "Detectors\n  None: `rlt-rules scan` raises no hint for this rule; only a reviewer "
        "finds it."
    )
    assert shutil.which("git")  # the Git tests above ran the real thing
