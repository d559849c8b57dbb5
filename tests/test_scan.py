"""``rlt-rules scan``: folders, diffs, suppressions, the four formats and their real readers."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from rlt_rules import load_library
from rlt_rules.cli import main
from rlt_rules.scan import changed_lines, detector_set, scan
from rlt_rules.scan.engine import scan_files

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "rules"
SAMPLE = ROOT / "samples" / "review" / "scheduler.py"
SARIF_SCHEMA = ROOT / "tests" / "data" / "sarif-schema-2.1.0.json"
SITE = "https://rlt-rules.example/1.0.0/"
BIN = Path(sys.executable).parent

GUARD = (
    'class Engine:\n    def abort(self, rid):\n        if hasattr(self, "preemption"):\n'
    "            pass\n"
    "\n"
    "    def __init__(self, preemption):  # sets the name the guard tests: R10's case\n"
    "        self.preemption = preemption\n"
)
CLEAN = "def add(a, b):\n    return a + b\n"


def run_cli(*argv: str, stdin: str | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.ExitStack() as stack:
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(err))
        if stdin is not None:
            stack.enter_context(_stdin(stdin))
        code = main([*argv, "--rules", str(RULES)])
    return code, out.getvalue(), err.getvalue()


@contextlib.contextmanager
def _stdin(text: str):
    saved = sys.stdin
    sys.stdin = io.StringIO(text)
    try:
        yield
    finally:
        sys.stdin = saved


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A small Git work tree (``.git`` only marks the root) as the working directory."""
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


# --- text output, exit codes -------------------------------------------------------------


def test_text_output_names_place_rule_message_and_page(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    # The sample breaks six rules; some of their detectors are preview (not precise enough on
    # real code to be on by default), so the sample is scanned with them.
    code, out, err = run_cli("scan", "samples/review", "--preview", "--site-url", SITE)
    assert code == 1
    lines = out.splitlines()
    assert [line.split(" ", 2)[:2] for line in lines] == [
        ["samples/review/scheduler.py:58:9:", "R03"],
        ["samples/review/scheduler.py:66:12:", "R07"],
        ["samples/review/scheduler.py:96:12:", "R10"],
        ["samples/review/scheduler.py:97:13:", "R11"],
        ["samples/review/scheduler.py:101:12:", "R17"],
    ]
    assert lines[2].endswith(
        f"call the component directly and make tests supply it ({SITE}rules/R10/)"
    )
    assert err == "rlt-rules scan: 5 hint(s) in 1 file(s) scanned\n"


def test_the_librarys_own_code_has_no_hits(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rules hold for the code that publishes them: ``tools/`` scans clean."""
    monkeypatch.chdir(ROOT)
    code, out, err = run_cli("scan", "tools")
    assert (code, out) == (0, ""), out
    assert " 0 hint(s) " in err


def test_no_hits_exits_0_and_usage_errors_exit_2(project: Path) -> None:
    write(project / "ok.py", CLEAN)
    assert run_cli("scan", "ok.py")[0] == 0
    code, _, err = run_cli("scan", "missing.py")
    assert code == 2 and "no such file or folder: missing.py" in err
    code, _, err = run_cli("scan")
    assert code == 2 and "give the files or folders to scan, or --diff" in err
    code, _, err = run_cli("scan", "ok.py", "--select", "R99")
    assert code == 2 and "unknown rule id(s) R99" in err
    code, _, err = run_cli("scan", "ok.py", "--select", "R01")
    assert code == 2 and "none of these rules has a detector" in err


def test_after_a_double_dash_every_word_is_a_path(project: Path) -> None:
    """What the pre-commit hook relies on (``entry: rlt-rules scan --``; through real pre-commit
    in ``test_install.py``): names that look like options are files."""
    names = ["-oimportant.py", "-rf.py", "--help.py", "--rules=X.py"]
    for name in names:
        write(project / name, GUARD)
    write(project / "important.py", CLEAN)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["scan", "--rules", str(RULES), "--format", "json", "--", *names])
    assert code == 1, err.getvalue()
    assert sorted(hit["path"] for hit in json.loads(out.getvalue())["hits"]) == sorted(names)
    assert (project / "important.py").read_text(encoding="utf-8") == CLEAN


def test_unreadable_and_non_utf8_files_are_reported_and_skipped(project: Path) -> None:
    write(project / "a_latin1.py", "x = 'caf\xe9'\n".encode("latin-1"))
    (project / "b_broken.py").symlink_to(project / "nowhere.py")
    write(project / "c_guard.py", GUARD)
    code, out, err = run_cli("scan", ".", "--format", "json")
    assert code == 1
    data = json.loads(out)
    assert [(p["path"], p["message"]) for p in data["problems"]] == [
        ("a_latin1.py", "not UTF-8 at line 1, column 9: skipped"),
    ]
    assert [(h["path"], h["rule"]) for h in data["hits"]] == [("c_guard.py", "R10")]
    assert data["files_scanned"] == 2  # a link in a walked folder is not followed
    assert "a_latin1.py: not UTF-8 at line 1, column 9: skipped" in err
    code, _, err = run_cli("scan", "b_broken.py")  # named: read as given, and missing
    assert code == 2 and "no such file or folder: b_broken.py" in err


def test_folders_skip_hidden_and_gitignored_paths(project: Path) -> None:
    write(project / ".gitignore", "build/\ngenerated_*.py\n!generated_keep.py\n")
    write(project / "src" / ".gitignore", "local.py\n")
    for name in (
        "src/app.py",
        "src/local.py",
        "src/generated_x.py",
        "src/generated_keep.py",
        "build/out.py",
        ".hidden/h.py",
        "src/.tmp.py",
        "src/stub.pyi",
        "src/notes.txt",
    ):
        write(project / name, GUARD)
    code, out, _ = run_cli("scan", "src", "--format", "json")
    assert code == 1
    assert sorted({h["path"] for h in json.loads(out)["hits"]}) == [
        "src/app.py",
        "src/generated_keep.py",
        "src/stub.pyi",
    ]
    # A file named on the command line is scanned even when ignored.
    code, out, _ = run_cli("scan", "build/out.py", "--format", "json")
    assert [h["path"] for h in json.loads(out)["hits"]] == ["build/out.py"]


# --- diffs -------------------------------------------------------------------------------


def _git(project: Path, *args: str) -> str:
    command = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args]
    return subprocess.run(command, cwd=project, capture_output=True, text=True, check=True).stdout


def test_diff_keeps_hits_on_added_and_changed_lines_only(project: Path) -> None:
    shutil.rmtree(project / ".git")
    _git(project, "init", "-q")
    before = GUARD + "\n    def other(self):\n        return 1\n"
    write(project / "pkg" / "engine.py", before)
    _git(project, "add", ".")
    _git(project, "commit", "-q", "-m", "before")
    write(
        project / "pkg" / "engine.py",
        before.replace("return 1", "return getattr(self, 'preemption', None)"),
    )
    diff = _git(project, "diff")
    assert diff.startswith("diff --git a/pkg/engine.py b/pkg/engine.py")
    assert changed_lines(diff) == {"pkg/engine.py": frozenset({10})}
    write(project / "patch.diff", diff)
    code, out, _ = run_cli("scan", "pkg", "--diff", "patch.diff")
    assert code == 1
    assert [line.split(" ")[0] for line in out.splitlines()] == ["pkg/engine.py:10:16:"]
    # Without PATH the diff's files are scanned; - reads the diff from stdin.
    code, out, _ = run_cli("scan", "--diff", "-", stdin=diff)
    assert [line.split(" ")[0] for line in out.splitlines()] == ["pkg/engine.py:10:16:"]
    # The hasattr guard on a line the diff leaves alone is not reported.
    write(project / "pkg" / "engine.py", before + "\nX = 1\n")
    assert run_cli("scan", "pkg", "--diff", "-", stdin=_git(project, "diff"))[:2] == (0, "")


def test_a_diff_that_is_not_one_is_a_usage_error(project: Path) -> None:
    write(project / "ok.py", CLEAN)
    code, _, err = run_cli("scan", "ok.py", "--diff", "-", stdin="just some text\n")
    assert code == 2 and "not a unified diff" in err


# --- suppressions ------------------------------------------------------------------------


def test_suppressions_need_a_reason(project: Path) -> None:
    write(
        project / "engine.py",
        "class Engine:\n"
        "    def a(self):\n"
        '        if hasattr(self, "x"):  # rlt: ignore[R10] optional plugin, absent on CPU\n'
        "            pass\n"
        "    def b(self):\n"
        '        if hasattr(self, "y"):  # rlt: ignore[R10]\n'
        "            pass\n"
        "    def c(self):\n"
        '        if hasattr(self, "z"):  # rlt: ignore[R11] wrong rule named\n'
        "            pass\n"
        "    def d(self):\n"
        '        text = "# rlt: ignore[R10] in a string"; hasattr(self, "w")\n'
        "    def __init__(self, x, y, z, w):\n"
        "        self.x = x\n"
        "        self.y = y\n"
        "        self.z = z\n"
        "        self.w = w\n",
    )
    code, out, err = run_cli("scan", "engine.py", "--format", "json")
    assert code == 1
    hits = [(h["line"], h["rule"], h["detector"]) for h in json.loads(out)["hits"]]
    assert hits == [
        (6, "R10", "R10-hasattr-guard"),
        (6, "R10", "R10-suppression-without-reason"),
        (9, "R10", "R10-hasattr-guard"),
        # No R11 unused-suppression: one of R11's detectors is preview and did not run, so
        # the suppression may silence what this scan cannot see.
        (12, "R10", "R10-hasattr-guard"),
    ]
    assert json.loads(out)["suppressed"] == 1
    assert "1 suppressed" in err


# --- formats and their readers -----------------------------------------------------------


def test_json_lists_each_hit_with_its_span(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    code, out, _ = run_cli("scan", str(SAMPLE.relative_to(ROOT)), "--format", "json")
    data = json.loads(out)
    hit = next(h for h in data["hits"] if h["rule"] == "R10")
    assert hit == {
        "path": "samples/review/scheduler.py",
        "line": 96,
        "column": 12,
        "end_line": 96,
        "end_column": 39,
        "rule": "R10",
        "detector": "R10-hasattr-guard",
        "severity": "hint",
        "message": hit["message"],
        "url": f"{SITE}rules/R10/",
        "code": 'hasattr(self, "preemption")',
    }
    assert data["library_version"] == load_library(RULES).version
    assert data["root"] == ROOT.as_posix()


def test_links_follow_mkdocs_site_url_and_an_empty_site_url_makes_them_relative(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The published address comes from mkdocs.yml's ``site_url`` plus the library version,
    as ``export`` and ``findings`` take it; ``--site-url ''`` gives links relative to the site."""
    monkeypatch.chdir(ROOT)
    _, out, _ = run_cli("scan", "samples/review", "--preview")
    assert out.splitlines()[0].endswith(f"({SITE}rules/R03/)")
    _, out, _ = run_cli("scan", "samples/review", "--preview", "--site-url", "")
    assert out.splitlines()[0].endswith(" (rules/R03/)")
    _, out, _ = run_cli("scan", "samples/review", "--preview", "--format", "sarif")
    rules = json.loads(out)["runs"][0]["tool"]["driver"]["rules"]
    assert rules[0]["helpUri"].startswith(f"{SITE}rules/R")


def test_sarif_is_valid_links_each_rule_and_sarif_tools_reads_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(ROOT)
    target = tmp_path / "scan.sarif"
    code, out, _ = run_cli(
        "scan",
        "samples/review",
        "--preview",
        "--format",
        "sarif",
        "--site-url",
        SITE,
        "-o",
        str(target),
    )
    assert (code, out) == (1, "")
    log = json.loads(target.read_text(encoding="utf-8"))
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    validator = jsonschema.validators.validator_for(schema)(schema)
    assert [e.message for e in validator.iter_errors(log)] == []
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    library = load_library(RULES)
    # One reporting descriptor per detector that ran (as CodeQL has one per query; --preview ran
    # them all), then the two kinds of suppression report.
    assert [r["id"] for r in rules] == [
        f"{rule.id}-{detector.id}" for rule in library.rules for detector in rule.detectors
    ] + ["suppression-without-reason", "unused-suppression"]
    for result in run["results"]:
        rule = rules[result["ruleIndex"]]
        assert rule["id"] == result["ruleId"] == result["properties"]["detector"]
        assert rule["properties"]["rule"] == result["properties"]["rule"]
        assert rule["helpUri"] == f"{SITE}rules/{result['properties']['rule']}/"
    assert [r["properties"]["rule"] for r in run["results"]] == ["R03", "R07", "R10", "R11", "R17"]
    region = run["results"][2]["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (96, 12)
    # Paths are relative to the root, which originalUriBaseIds names.
    location = run["results"][2]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": "samples/review/scheduler.py", "uriBaseId": "SRCROOT"}
    assert run["originalUriBaseIds"] == {"SRCROOT": {"uri": ROOT.as_uri() + "/"}}
    # The real reader: sarif-tools' command line.
    summary = subprocess.run(
        [str(BIN / "sarif"), "summary", str(target)], capture_output=True, text=True, check=True
    )
    assert "note: 5" in summary.stdout
    listed = subprocess.run(
        [str(BIN / "sarif"), "info", str(target)], capture_output=True, text=True, check=True
    )
    assert "5 results" in listed.stdout


def test_findings_draft_is_rejected_until_completed_then_accepted(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(ROOT)
    draft = tmp_path / "draft.yaml"
    code, _, _ = run_cli(
        "scan", "samples/review", "--preview", "--format", "findings", "-o", str(draft)
    )
    assert code == 1
    code, _, err = run_cli("findings", "check", str(draft), "--repo", ".")
    assert code == 1
    assert err.count("is still a placeholder") == 15, err
    completed = tmp_path / "completed.yaml"
    text = draft.read_text(encoding="utf-8")
    completed.write_text(
        "\n".join(
            "      Written by the reviewer." if line.startswith("      TODO: ") else line
            for line in text.splitlines()
        )
        + "\n",
        encoding="utf-8",
    )
    code, out, err = run_cli("findings", "check", str(completed), "--repo", ".")
    assert (code, err) == (0, ""), err
    assert out.startswith("ok: 5 finding(s)")


# --- many files --------------------------------------------------------------------------


def test_worker_processes_give_what_one_process_gives(tmp_path: Path) -> None:
    library = load_library(RULES)
    detectors = detector_set(library)
    sources = [example.code for rule in library.rules for example in rule.examples]
    files = [
        write(tmp_path / f"m{index:03}.py", sources[index % len(sources)]) for index in range(80)
    ]
    alone = scan_files(detectors, files, jobs=1)
    together = scan_files(detectors, files, jobs=2)
    assert together == alone
    assert sum(len(result.hits) for result in alone) > 0
    result = scan([tmp_path], detectors, root=tmp_path, jobs=2)
    assert result.files_scanned == 80
    assert [h.path for h in result.hits] == sorted(h.path for h in result.hits)


def test_select_keeps_only_those_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    # R17's detector is in preview (its package-wide precision): --preview runs it.
    argv = ["samples/review", "--select", "r10,R17", "--preview", "--format", "json"]
    code, out, _ = run_cli("scan", *argv)
    assert code == 1
    assert [h["rule"] for h in json.loads(out)["hits"]] == ["R10", "R17"]


def test_scan_runs_as_a_command(tmp_path: Path) -> None:
    """The installed entry point, with its exit code, outside pytest's process."""
    write(tmp_path / "a.py", GUARD)
    result = subprocess.run(
        [str(BIN / "rlt-rules"), "scan", "a.py", "--rules", str(RULES)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "NO_COLOR": "1"},
    )
    assert result.returncode == 1
    assert result.stdout.startswith("a.py:3:12: R10 Guards on an attribute of self")
    assert shutil.which("git") is not None
