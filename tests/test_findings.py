"""Review findings: the format, the checker (exact positions), SARIF and Markdown, the sample."""

from __future__ import annotations

import contextlib
import html
import io
import json
import re
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonschema
import markdown as python_markdown
import pytest
import yaml
from markdown_it import MarkdownIt

import rlt_rules
from rlt_rules.cli import main
from rlt_rules.findings import (
    FindingsError,
    Review,
    check_review,
    load_review,
    render_markdown,
    sarif_log,
    site_page,
)
from rlt_rules.findings.markdown import plain_text
from rlt_rules.findings.patch import PatchError, Replacement, parse_patch
from rlt_rules.render.code import code_span
from rlt_rules.render.inert import md_prose

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "findings"
FIXTURE_LIBRARY = FIXTURES / "library"
FIXTURE_REPO = FIXTURES / "repo"
SAMPLE_DIR = ROOT / "samples" / "review"
SAMPLE_FINDINGS = SAMPLE_DIR / "findings.yaml"
SAMPLE_CODE = SAMPLE_DIR / "scheduler.py"
SARIF_SCHEMA = ROOT / "tests" / "data" / "sarif-schema-2.1.0.json"
SITE = "https://rules.example.test/rlt/"


@pytest.fixture(scope="module")
def library() -> rlt_rules.Library:
    return rlt_rules.load_library(ROOT / "rules")


@pytest.fixture(scope="module")
def fixture_library() -> rlt_rules.Library:
    return rlt_rules.load_library(FIXTURE_LIBRARY)


@pytest.fixture(scope="module")
def sample(library) -> Review:
    review, warnings = load_review(SAMPLE_FINDINGS, library, ROOT)
    assert warnings == ()
    return review


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


# --- the sample review ------------------------------------------------------------------

#: Per finding: text that the trigger quotes and the cited lines must contain, and the text
#: found at the finding's column (None when it gives none).
SAMPLE_EXPECTATIONS = [
    ("R03", "self.selected", None),
    ("R07", "if not free", "if not free:"),
    ("R10", 'hasattr(self, "preemption")', 'hasattr(self, "preemption")'),
    ("R11", "self.preemption.snapshots.pop(rid, None)", "self.preemption.snapshots.pop("),
    ("R09", "rid", "rid: str"),
    ("R17", "result.request_id", None),
]


def test_sample_passes_check_with_no_diagnostics(library):
    result = check_review(SAMPLE_FINDINGS, library, ROOT, "samples/review/findings.yaml")
    assert [str(d) for d in result.diagnostics] == []
    assert result.review is not None
    code, out, err = run_cli(
        "findings",
        "check",
        str(SAMPLE_FINDINGS),
        "--rules",
        str(ROOT / "rules"),
        "--repo",
        str(ROOT),
    )
    assert (code, out, err) == (0, "ok: 6 finding(s), 0 warning(s)\n", "")


def test_sample_locations_cite_what_each_trigger_says(sample):
    lines = SAMPLE_CODE.read_text(encoding="utf-8").splitlines()
    assert [f.rule for f in sample.findings] == [rule for rule, _, _ in SAMPLE_EXPECTATIONS]
    for finding, (rule, quoted, at_column) in zip(
        sample.findings, SAMPLE_EXPECTATIONS, strict=True
    ):
        location = finding.location
        assert location.path == "samples/review/scheduler.py"
        assert 1 <= location.start_line <= location.end_line <= len(lines), rule
        cited = "\n".join(lines[location.start_line - 1 : location.end_line])
        assert quoted in finding.trigger, f"{rule}: the trigger does not quote {quoted!r}"
        assert quoted in cited, f"{rule}: lines {location.lines_label()} lack {quoted!r}"
        if at_column is None:
            assert location.column is None
        else:
            line = lines[location.start_line - 1]
            assert line[location.column - 1 :].startswith(at_column), rule


def test_sample_defects_really_happen():
    """The demo at the end of the sample shows R07, R03 and R17 going wrong."""
    run = subprocess.run(
        [sys.executable, str(SAMPLE_CODE)], capture_output=True, text=True, check=True
    )
    assert run.stdout.splitlines() == ["[] 0", "False", "[11, 12]"]


def _git(cwd: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=cwd, input=stdin, capture_output=True, text=True, check=False
    )


def _sample_checkout(tmp_path: Path) -> Path:
    checkout = tmp_path / "checkout"
    (checkout / "samples" / "review").mkdir(parents=True)
    shutil.copy(SAMPLE_CODE, checkout / "samples" / "review" / "scheduler.py")
    assert _git(checkout, "init", "-q").returncode == 0
    return checkout


def test_sample_patches_apply_with_git_and_fix_the_defect(tmp_path, sample):
    checkout = _sample_checkout(tmp_path)
    patched = [f for f in sample.findings if f.suggested_patch is not None]
    assert [f.rule for f in patched] == ["R07", "R11"]
    for finding in patched:
        applied = _git(checkout, "apply", "--check", "-", stdin=finding.suggested_patch)
        assert applied.returncode == 0, f"{finding.rule}: {applied.stderr}"
    r07 = patched[0].suggested_patch
    assert _git(checkout, "apply", "-", stdin=r07).returncode == 0
    run = subprocess.run(
        [sys.executable, "samples/review/scheduler.py"],
        cwd=checkout,
        capture_output=True,
        text=True,
        check=True,
    )
    # With R07 fixed, the exactly-fitting request is admitted and no block leaks.
    assert run.stdout.splitlines()[0] == "['req-1'] 0"


# --- the schema --------------------------------------------------------------------------


def _walk_properties(schema: Any, where: str = "") -> list[tuple[str, dict[str, Any]]]:
    found = []
    if isinstance(schema, dict):
        for name, sub in schema.get("properties", {}).items():
            found.append((f"{where}.{name}", sub))
        for key, sub in schema.items():
            if key in ("properties", "$defs"):
                for name, inner in sub.items():
                    found += _walk_properties(inner, f"{where}.{name}")
            elif isinstance(sub, dict):
                found += _walk_properties(sub, f"{where}.{key}")
    return found


def test_schema_is_draft_2020_12_with_titles_and_descriptions_everywhere():
    schema = json.loads((ROOT / "schema" / "findings.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == "https://rlt-rules.example/schema/findings.schema.json"
    properties = _walk_properties(schema)
    assert len(properties) >= 13
    for where, sub in properties:
        if "$ref" in sub:
            target = schema["$defs"][sub["$ref"].rsplit("/", 1)[1]]
            sub = target
        assert sub.get("title") and sub.get("description"), f"{where} lacks title/description"
    for name in ("", "finding", "location"):
        node = schema["$defs"][name] if name else schema
        assert node["additionalProperties"] is False, name


def test_schema_accepts_the_sample_as_plain_data():
    schema = json.loads((ROOT / "schema" / "findings.schema.json").read_text(encoding="utf-8"))
    data = yaml.safe_load(SAMPLE_FINDINGS.read_text(encoding="utf-8"))
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(data)) == []


# --- bad findings: each at its exact position --------------------------------------------

BAD = "tests/fixtures/findings/bad"
BAD_CASES = [
    ("unknown-rule.yaml", ["3:11: unknown rule 'R99': library 1.2.0 has rules R01, R02, R05"]),
    (
        "retired-rule.yaml",
        [
            "3:11: rule R01 is retired (Covered by R05 since 1.2.0): cite a current rule or drop "
            "the finding"
        ],
    ),
    ("empty-trigger.yaml", ["8:14: findings[0].trigger is empty: write it"]),
    ("blank-trigger.yaml", ["8:14: findings[0].trigger is blank: write it"]),
    ("missing-trigger.yaml", ["3:5: missing required field 'trigger' in findings[0]"]),
    (
        "beyond-end-of-file.yaml",
        ["7:17: findings[0].location.end_line 40 is beyond the end of src/app.py (11 lines)"],
    ),
    (
        "missing-path.yaml",
        ["5:13: findings[0].location.path 'src/missing.py' does not exist in the repository"],
    ),
    (
        "start-after-end.yaml",
        [
            "6:19: findings[0].location.start_line 8 is after end_line 3: a location is an "
            "inclusive range, start_line <= end_line"
        ],
    ),
    (
        "column-beyond-line.yaml",
        [
            "8:15: findings[0].location.column 30 is beyond the end of line 2 of src/app.py "
            "(14 characters)"
        ],
    ),
    (
        "path-outside-repo.yaml",
        [
            "5:13: findings[0].location.path '../outside.py' is not valid: the file's path "
            "relative to the repository root, with forward slashes, no leading '/' or '..' part, "
            "and no control characters (a newline or a tab in a path is an error)"
        ],
    ),
    (
        "rule-id-pattern.yaml",
        [
            "3:11: findings[0].rule 'r5' is not valid: the id of the rule the code breaks, an R "
            "and its number (e.g. R03)"
        ],
    ),
    (
        "unknown-location-field.yaml",
        [
            "8:7: unknown field 'line' in findings[0].location; allowed fields: column, end_line, "
            "path, start_line"
        ],
    ),
    ("line-as-string.yaml", ["6:19: findings[0].location.start_line must be an integer, got '1'"]),
    (
        "line-as-float.yaml",
        [
            "7:17: findings[0].location.end_line must be an integer, got 2.0: write it without "
            "a decimal point"
        ],
    ),
    (
        "version-as-number.yaml",
        [
            "1:18: library_version must be a string, got number '1.2': YAML 1.1 reads an unquoted "
            '1.2 as a number; quote it: "1.2"'
        ],
    ),
    (
        "duplicate-key.yaml",
        [
            "7:5: duplicate key 'impact': already set at line 6, column 5; YAML would silently "
            "keep only this one: remove one"
        ],
    ),
    (
        "patch-does-not-apply.yaml",
        [
            "16:7: findings[0].suggested_patch: does not apply: line 10 of src/app.py is "
            "'        return None', the patch expects '        return []'"
        ],
    ),
    (
        "patch-other-file.yaml",
        [
            "12:7: findings[0].suggested_patch: the patch changes 'src/other.py', not the "
            "location's file 'src/app.py'"
        ],
    ),
    (
        "patch-hunk-count.yaml",
        [
            "14:7: findings[0].suggested_patch: hunk header promises 3 old and 2 new line(s), its "
            "body has 2 and 2"
        ],
    ),
    (
        "patch-no-header.yaml",
        [
            "12:7: findings[0].suggested_patch: the patch needs '--- a/PATH' and '+++ b/PATH' "
            "header lines"
        ],
    ),
    (
        "patch-beyond-end.yaml",
        [
            "14:7: findings[0].suggested_patch: the hunk reaches line 12, beyond the end of "
            "src/app.py (11 lines)"
        ],
    ),
    # JSON: libyaml parses JSON (YAML 1.2 flow syntax), so positions come for free.
    ("unknown-rule.json", ["9:14: unknown rule 'R42': library 1.2.0 has rules R01, R02, R05"]),
    # A trigger anchor names one of its rule's triggers (rlt-rules show prints them).
    (
        "unknown-trigger-anchor.yaml",
        [
            "4:21: findings[0].trigger_anchor 'trigger-trigger-three-of-05-abcdef' is not a "
            "trigger of R05 in library 1.2.0: its triggers are trigger-trigger-one-of-05-1c44ca, "
            "trigger-trigger-two-of-05-7eb057 (`rlt-rules show R05` prints each trigger with its "
            "anchor)"
        ],
    ),
    (
        "reworded-trigger-anchor.yaml",
        [
            "4:21: findings[0].trigger_anchor 'trigger-trigger-one-of-05-000000' is not a trigger "
            "of R05 in library 1.2.0: that trigger's text changed since; its anchor is now "
            "trigger-trigger-one-of-05-1c44ca (`rlt-rules show R05` prints each trigger with its "
            "anchor)"
        ],
    ),
    (
        "other-rules-trigger-anchor.yaml",
        [
            "4:21: findings[0].trigger_anchor 'trigger-trigger-one-of-02-3d66fb' is not a trigger "
            "of R05 in library 1.2.0: it is a trigger of R02: cite that rule, or one of R05's "
            "triggers (`rlt-rules show R05` prints each trigger with its anchor)"
        ],
    ),
    (
        "trigger-anchor-as-link.yaml",
        [
            "4:21: findings[0].trigger_anchor 'https://x.example/1.2.0/rules/R05/#trigger-trigger"
            "-one-of-… is not valid: the anchor of the rule's trigger the code matches: trigger-… "
            "as `rlt-rules show` prints it"
        ],
    ),
    (
        "outside-rules-trigger-anchor.yaml",
        [
            "4:21: findings[0].trigger_anchor is not allowed here: an outside-rules finding cites "
            "no rule's trigger: remove `trigger_anchor`, or cite the rule with `rule`"
        ],
    ),
    (
        "bad-severity.json",
        ["5:68: findings[0].severity must be one of: error, warning, note; got 'critical'"],
    ),
    (
        "duplicate-key.json",
        [
            "1:46: duplicate key 'library_version': already set at line 1, column 2; YAML would "
            "silently keep only this one: remove one"
        ],
    ),
]


@pytest.mark.parametrize(("name", "expected"), BAD_CASES, ids=[name for name, _ in BAD_CASES])
def test_bad_findings_fail_at_their_exact_position(monkeypatch, name, expected):
    monkeypatch.chdir(ROOT)
    shown = f"{BAD}/{name}"
    code, out, err = run_cli(
        "findings", "check", shown, "--rules", str(FIXTURE_LIBRARY), "--repo", str(FIXTURE_REPO)
    )
    assert code == 1
    assert out == ""
    assert err.splitlines()[:-1] == [f"{shown}:{line}" for line in expected]
    assert err.splitlines()[-1] == f"{len(expected)} error(s), 0 warning(s)"


WARNING_CASES = [
    (
        "deprecated-rule.yaml",
        "3:11: warning: rule R02 is deprecated: cite R05 (Fixture rule 05), which replaces it",
    ),
    (
        "other-library-version.yaml",
        "1:18: warning: the review cites library version 1.0.0, but the library is 1.2.0: "
        "check each finding against the current rules and update library_version",
    ),
]


@pytest.mark.parametrize(("name", "expected"), WARNING_CASES, ids=[n for n, _ in WARNING_CASES])
def test_warnings_are_reported_but_do_not_fail(monkeypatch, fixture_library, name, expected):
    monkeypatch.chdir(ROOT)
    shown = f"{BAD}/{name}"
    code, out, err = run_cli("findings", "check", shown, "--rules", str(FIXTURE_LIBRARY))
    assert (code, out, err) == (0, "ok: 1 finding(s), 1 warning(s)\n", f"{shown}:{expected}\n")
    result = check_review(ROOT / shown, fixture_library, None, shown)
    assert result.review is not None
    assert [d.severity for d in result.diagnostics] == [rlt_rules.Severity.WARNING]


def test_repo_checks_need_repo(monkeypatch):
    """Without --repo, paths and line ranges are not checked against files (start > end is)."""
    monkeypatch.chdir(ROOT)
    for name in ("beyond-end-of-file.yaml", "missing-path.yaml", "patch-does-not-apply.yaml"):
        code, _, err = run_cli(
            "findings", "check", f"{BAD}/{name}", "--rules", str(FIXTURE_LIBRARY)
        )
        assert (code, err) == (0, ""), name
    code, _, _ = run_cli(
        "findings", "check", f"{BAD}/start-after-end.yaml", "--rules", str(FIXTURE_LIBRARY)
    )
    assert code == 1


def test_every_bad_fixture_is_covered():
    covered = {name for name, _ in BAD_CASES} | {name for name, _ in WARNING_CASES}
    assert covered == {path.name for path in (FIXTURES / "bad").iterdir()}


def test_good_fixtures_pass_in_yaml_and_json(fixture_library):
    for name in ("good.yaml", "good.json"):
        result = check_review(FIXTURES / name, fixture_library, FIXTURE_REPO)
        assert [str(d) for d in result.diagnostics] == [], name
        assert result.review is not None


def test_json_and_yaml_give_the_same_review(tmp_path, library, sample):
    data = yaml.safe_load(SAMPLE_FINDINGS.read_text(encoding="utf-8"))
    as_json = tmp_path / "findings.json"
    as_json.write_text(json.dumps(data, indent=2), encoding="utf-8")
    assert load_review(as_json, library, ROOT) == (sample, ())
    minified = tmp_path / "min.json"
    minified.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")
    assert load_review(minified, library, ROOT) == (sample, ())


def test_load_review_raises_with_every_error(fixture_library):
    with pytest.raises(FindingsError) as raised:
        load_review(FIXTURES / "bad" / "unknown-rule.yaml", fixture_library)
    assert [str(d) for d in raised.value.diagnostics] == [
        f"{FIXTURES}/bad/unknown-rule.yaml:3:11: unknown rule 'R99': library 1.2.0 has rules "
        "R01, R02, R05"
    ]


def test_review_round_trips_through_plain_data(sample):
    assert Review.from_dict(sample.to_dict()) == sample
    assert sample.to_dict()["findings"][0]["severity"] == "error"


def test_cli_usage_errors_exit_2(tmp_path):
    assert run_cli("findings", "check", str(tmp_path / "none.yaml"))[0] == 2
    code, _, err = run_cli(
        "findings", "check", str(SAMPLE_FINDINGS), "--rules", str(tmp_path / "none")
    )
    assert code == 2 and "no such rules folder" in err
    code, _, err = run_cli(
        "findings", "check", str(SAMPLE_FINDINGS), "--repo", str(tmp_path / "none")
    )
    assert code == 2 and "--repo" in err


# --- one run reports every problem; YAML errors say what to do ------------------------------

#: Schema problems (a missing trigger, a bad severity) beside every other kind: a line past the
#: end of the file, an unknown rule, a path the change does not touch, a patch that does not
#: apply. Each is at its own position in the answer.
EVERY_PROBLEM = """\
library_version: 1.2.0
findings:
  - rule: R05
    severity: critical
    location:
      path: src/app.py
      start_line: 9
      end_line: 40
    impact: Callers guess.
    correction: Return a named outcome.
  - rule: R42
    location:
      path: src/other.py
      start_line: 1
      end_line: 1
    trigger: A thing.
    impact: Another.
    correction: A third.
    suggested_patch: |
      --- a/src/other.py
      +++ b/src/other.py
      @@ -1 +1 @@
      -x
      +y
"""

CHANGE = """\
diff --git a/src/app.py b/src/app.py
--- a/src/app.py
+++ b/src/app.py
@@ -8,3 +8,3 @@
 def mean(values):
     if not values:
-        return 0
+        return None
"""


def test_check_reports_schema_and_every_other_problem_in_one_run(tmp_path, fixture_library):
    answer = tmp_path / "answer.yaml"
    answer.write_text(EVERY_PROBLEM, encoding="utf-8")
    diff = tmp_path / "change.diff"
    diff.write_text(CHANGE, encoding="utf-8")
    code, out, err = run_cli(
        "findings", "check", str(answer), "--rules", str(FIXTURE_LIBRARY),
        "--repo", str(FIXTURE_REPO), "--diff", str(diff),
    )  # fmt: skip
    assert (code, out) == (1, "")
    shown = str(answer)
    assert err.splitlines() == [
        f"{shown}:3:5: missing required field 'trigger' in findings[0]",
        f"{shown}:4:15: findings[0].severity must be one of: error, warning, note; got 'critical'",
        f"{shown}:8:17: findings[0].location.end_line 40 is beyond the end of src/app.py "
        "(11 lines)",
        f"{shown}:11:11: unknown rule 'R42': library 1.2.0 has rules R01, R02, R05",
        f"{shown}:13:13: findings[1].location.path 'src/other.py' does not exist in the repository",
        f"{shown}:13:13: findings[1].location.path 'src/other.py' is not in the change under "
        "review, which changes 'src/app.py'",
        "6 error(s), 0 warning(s)",
    ]


def test_a_part_the_schema_rejects_is_not_checked_again(tmp_path, fixture_library):
    """A rule id that breaks the pattern is one problem, not also an unknown rule; a location
    whose line is a string gets its type error, not a range error."""
    answer = tmp_path / "answer.yaml"
    answer.write_text(
        "library_version: 1.2.0\nfindings:\n  - rule: r5\n    location:\n"
        "      path: src/app.py\n      start_line: '1'\n      end_line: 99\n"
        "    trigger: t\n    impact: i\n    correction: c\n",
        encoding="utf-8",
    )
    result = check_review(answer, fixture_library, FIXTURE_REPO, "answer.yaml")
    assert [str(d) for d in result.diagnostics] == [
        "answer.yaml:3:11: findings[0].rule 'r5' is not valid: the id of the rule the code "
        "breaks, an R and its number (e.g. R03)",
        "answer.yaml:6:19: findings[0].location.start_line must be an integer, got '1'",
    ]


YAML_HINTS = [
    (
        "```yaml\nlibrary_version: 1.2.0\nfindings: []\n```\n",
        "remove",
        "the answer is wrapped in a Markdown code fence (```): give the YAML alone, without "
        "the fence lines",
    ),
    (
        "library_version: 1.2.0\nfindings:\n  - rule: R05\n    location: {path: src/app.py, "
        "start_line: 1, end_line: 1}\n    trigger: `total()` loops\n    impact: i\n"
        "    correction: c\n",
        "quote",
        'a plain YAML value cannot start with a backtick: quote the value ("`x` is ...") or '
        "write it as a block (`trigger: |-` and the text on the next lines, indented)",
    ),
    (
        "library_version: 1.2.0\nfindings:\n  - rule: R05\n    location: {path: src/app.py, "
        "start_line: 1, end_line: 1}\n    trigger: t\n    impact: callers see: None\n"
        "    correction: c\n",
        "colon",
        "a plain YAML value cannot hold ': ': quote the value or write it as a block "
        "(`trigger: |-` and the text on the next lines, indented)",
    ),
]


@pytest.mark.parametrize(("text", "name", "hint"), YAML_HINTS, ids=[n for _, n, _ in YAML_HINTS])
def test_yaml_errors_say_what_to_do(tmp_path, fixture_library, text, name, hint):
    answer = tmp_path / f"{name}.yaml"
    answer.write_text(text, encoding="utf-8")
    result = check_review(answer, fixture_library, None, "answer.yaml")
    (diagnostic,) = result.diagnostics
    assert diagnostic.message.startswith("YAML syntax error: ")
    assert diagnostic.message.endswith(f"; {hint}")
    # The fix the hint names makes the answer load.
    fixed = {
        "remove": "library_version: 1.2.0\nfindings: []\n",
        "quote": text.replace("trigger: `total()` loops", 'trigger: "`total()` loops"'),
        "colon": text.replace("impact: callers see: None", "impact: |-\n      callers see: None"),
    }[name]
    answer.write_text(fixed, encoding="utf-8")
    assert check_review(answer, fixture_library, None, "answer.yaml").review is not None


def test_other_yaml_errors_get_no_hint(tmp_path, fixture_library):
    answer = tmp_path / "answer.yaml"
    answer.write_text("library_version: [1.2.0\n", encoding="utf-8")
    (diagnostic,) = check_review(answer, fixture_library, None, "a.yaml").diagnostics
    assert diagnostic.message.startswith("YAML syntax error: ") and ";" not in diagnostic.message


# --- SARIF -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sarif_validator() -> jsonschema.protocols.Validator:
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def test_sarif_validates_against_the_official_schema(sarif_validator, library, sample):
    log = sarif_log(sample, library, SITE)
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in sarif_validator.iter_errors(log)]
    assert errors == []
    # The validator is live: a wrong level is rejected.
    broken = json.loads(json.dumps(log))
    broken["runs"][0]["results"][0]["level"] = "fatal"
    assert list(sarif_validator.iter_errors(broken)) != []


def test_sarif_results_point_at_rules_locations_and_pages(library, sample):
    run = sarif_log(sample, library, SITE)["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in rules] == [f"R{n:02d}" for n in range(1, 18)]
    assert run["tool"]["driver"]["version"] == library.version
    results = run["results"]
    assert len(results) == len(sample.findings)
    for result, finding in zip(results, sample.findings, strict=True):
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"] == finding.rule
        assert rules[result["ruleIndex"]]["helpUri"] == f"{SITE}rules/{finding.rule}/"
        assert result["level"] == str(finding.severity)
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"] == finding.location.path
        assert location["region"]["startLine"] == finding.location.start_line
        assert location["region"]["endLine"] == finding.location.end_line
        assert location["region"].get("startColumn") == finding.location.column
        text = result["message"]["text"]
        assert text.startswith(finding.trigger)
        assert f"Impact: {finding.impact}" in text and f"Correction: {finding.correction}" in text
    assert [r["level"] for r in results] == [
        "error",
        "error",
        "warning",
        "warning",
        "note",
        "error",
    ]


def _apply_sarif_fix(text: str, fix: dict[str, Any]) -> str:
    """Apply a SARIF fix's line/column replacements to ``text`` (last first, as viewers do)."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(line: int, column: int) -> int:
        return starts[line - 1] + column - 1

    (change,) = fix["artifactChanges"]
    replacements = sorted(
        change["replacements"], key=lambda r: r["deletedRegion"]["startLine"], reverse=True
    )
    for replacement in replacements:
        region = replacement["deletedRegion"]
        begin = offset(region["startLine"], region["startColumn"])
        end = offset(region["endLine"], region["endColumn"])
        inserted = replacement.get("insertedContent", {}).get("text", "")
        text = text[:begin] + inserted + text[end:]
    return text


def test_sarif_fixes_change_the_file_as_git_apply_does(tmp_path, library, sample):
    results = sarif_log(sample, library, None)["runs"][0]["results"]
    original = SAMPLE_CODE.read_text(encoding="utf-8")
    fixed = 0
    for result, finding in zip(results, sample.findings, strict=True):
        if finding.suggested_patch is None:
            assert "fixes" not in result
            continue
        assert result["properties"]["suggestedPatch"] == finding.suggested_patch
        checkout = _sample_checkout(tmp_path / finding.rule)
        applied = _git(checkout, "apply", "-", stdin=finding.suggested_patch)
        assert applied.returncode == 0, applied.stderr
        expected = (checkout / "samples" / "review" / "scheduler.py").read_text(encoding="utf-8")
        (fix,) = result["fixes"]
        assert fix["artifactChanges"][0]["artifactLocation"]["uri"] == finding.location.path
        assert _apply_sarif_fix(original, fix) == expected
        fixed += 1
    assert fixed == 2


def test_sarif_without_site_url_has_no_help_uri(library, sample):
    rules = sarif_log(sample, library, None)["runs"][0]["tool"]["driver"]["rules"]
    assert all("helpUri" not in rule for rule in rules)


def test_sarif_cli_writes_atomically_and_not_on_error(tmp_path, monkeypatch):
    target = tmp_path / "review.sarif"
    code, out, err = run_cli(
        "findings",
        "sarif",
        str(SAMPLE_FINDINGS),
        "--rules",
        str(ROOT / "rules"),
        "--site-url",
        SITE,
        "-o",
        str(target),
    )
    assert (code, out, err) == (0, "", "")
    assert json.loads(target.read_text(encoding="utf-8"))["version"] == "2.1.0"
    assert [p.name for p in tmp_path.iterdir()] == ["review.sarif"]

    monkeypatch.chdir(ROOT)
    other = tmp_path / "bad.sarif"
    code, out, err = run_cli(
        "findings",
        "sarif",
        f"{BAD}/unknown-rule.yaml",
        "--rules",
        str(FIXTURE_LIBRARY),
        "-o",
        str(other),
    )
    assert code == 1 and out == ""
    assert err.startswith(f"{BAD}/unknown-rule.yaml:3:11: unknown rule 'R99'")
    assert not other.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["review.sarif"]


# --- a cited trigger ----------------------------------------------------------------------


def test_a_cited_trigger_is_linked_in_sarif_and_markdown(library, sample):
    """``trigger_anchor``: the renderings link the rule's trigger on its versioned page, the
    anchor the page, ``show``, the bundle and the SARIF descriptor give it."""
    (cited,) = [finding for finding in sample.findings if finding.trigger_anchor]
    rule = library.rule(cited.rule)
    position = rule.anchors().triggers.index(cited.trigger_anchor)
    address = f"{SITE}rules/{rule.id}/#{cited.trigger_anchor}"
    args = ("--rules", str(ROOT / "rules"), "--site-url", SITE)
    code, out, err = run_cli("findings", "sarif", str(SAMPLE_FINDINGS), *args)
    assert (code, err) == (0, "")
    run = json.loads(out)["runs"][0]
    results = run["results"]
    (result,) = [r for r in results if "triggerAnchor" in r["properties"]]
    assert result["properties"]["triggerAnchor"] == cited.trigger_anchor
    assert result["properties"]["triggerUri"] == address
    descriptor = run["tool"]["driver"]["rules"][result["ruleIndex"]]
    assert descriptor["properties"]["anchors"]["triggers"][position] == cited.trigger_anchor
    assert result["properties"]["triggerUri"] == f"{descriptor['helpUri']}#{cited.trigger_anchor}"
    code, out, err = run_cli("findings", "markdown", str(SAMPLE_FINDINGS), *args)
    assert (code, err) == (0, "")
    first = " ".join(rule.triggers[position].replace("`", "").split()[:6])
    assert f"\n\n**Rule trigger:** [{rule.id}, trigger: {first}…]({address})\n\n" in out
    assert out.count("**Rule trigger:**") == 1


# --- Markdown ----------------------------------------------------------------------------


def test_markdown_keeps_the_authors_order_and_links_each_rule(library, sample):
    text = render_markdown(sample, library, SITE)
    assert text.startswith("## Review: 6 findings in 1 file\n")
    assert "\n\nRules cited from Rlt Refactor 1.0.0.\n\n" in text
    for finding in sample.findings:
        title = library.rule(finding.rule).title
        assert f"[{finding.rule} — {title}]({SITE}rules/{finding.rule}/)" in text
    # One heading per finding, with its file, lines and column, in the review's order.
    reordered = Review(sample.library_version, sample.findings[::-1])
    reversed_text = render_markdown(reordered, library, SITE)
    for rendered, findings in ((text, sample.findings), (reversed_text, reordered.findings)):
        headings = [line for line in rendered.splitlines() if line.startswith("### ")]
        assert [h.split(": [")[1].split(" ")[0] for h in headings] == [f.rule for f in findings]
    headings = [line.split(": [")[0] for line in text.splitlines() if line.startswith("### ")]
    assert headings == [
        "### `samples/review/scheduler.py`, lines 57–62",
        "### `samples/review/scheduler.py`, line 66, column 9",
        "### `samples/review/scheduler.py`, lines 96–97, column 12",
        "### `samples/review/scheduler.py`, line 97, column 13",
        "### `samples/review/scheduler.py`, line 93, column 22",  # the author's order, not lines
        "### `samples/review/scheduler.py`, lines 99–103",
    ]
    assert text.count("```diff\n--- a/samples/review/scheduler.py\n") == 2


def test_markdown_reads_as_written(library, sample):
    """Plain sentences keep their quotes, apostrophes, dots, dashes and parentheses: no
    ``&quot;``, ``&#x27;``, ``\\-``, ``\\.`` or ``\\(`` in the raw comment."""
    text = render_markdown(sample, library, SITE)
    for noise in ("&quot;", "&#x27;", "\\-", "\\.", "\\(", "\\)"):
        assert noise not in text, noise
    finding = sample.findings[0]
    assert f"**Impact:** {' '.join(finding.impact.split())}" in text


def test_markdown_cli_prints_the_comment(library, sample):
    code, out, err = run_cli(
        "findings",
        "markdown",
        str(SAMPLE_FINDINGS),
        "--rules",
        str(ROOT / "rules"),
        "--site-url",
        SITE,
    )
    assert (code, err) == (0, "")
    assert out == render_markdown(sample, library, SITE)


def test_markdown_escapes_plain_text_and_keeps_code_spans(fixture_library):
    review, _ = load_review(FIXTURES / "good.yaml", fixture_library, FIXTURE_REPO)
    text = render_markdown(review, fixture_library, None)
    html = python_markdown.markdown(text, extensions=["fenced_code"])
    assert "&lt;b&gt;and&lt;/b&gt;" in html and "<b>" not in html
    assert "<em>" not in html and "*real*" in html.replace("&#42;", "*")
    assert "<code>mean()</code>" in html and "<code>None</code>" in html
    assert "&amp; may divide" in html
    # A line of the correction that starts with "- " stays text, not a list.
    assert "<li>" not in html
    assert '<pre><code class="language-diff">--- a/src/app.py' in html
    assert '<a href="rules/R05/">R05 — Fixture rule 05</a>' in html


def test_plain_text_and_code_span_helpers():
    assert plain_text("use ``a`b`` not `x` <y>") == "use ``a`b`` not `x` &lt;y>"
    assert plain_text("an unmatched ` tick") == "an unmatched \\` tick"
    assert plain_text("one\ntwo\n\n1. three") == "one two\n\n1\\. three"
    assert plain_text("- a & <b>") == "\\- a & &lt;b>"
    assert plain_text('It\'s "low" (2 blocks) - 3.5 ms.') == 'It\'s "low" (2 blocks) - 3.5 ms.'
    assert plain_text("`x` 1. y") == "`x` 1. y"  # not at a line start: no list to open
    assert code_span("a`b") == "``a`b``"
    assert code_span("`x") == "`` `x ``"


#: Plain text that would render as something else if written as is: HTML, entities, emphasis,
#: links and images, block starts (a heading, a quote, lists, a fence, the site's admonitions,
#: details and tabs), strikethrough, attr_list braces, backslash escapes.
HOSTILE_PROSE = [
    "<script>alert(1)</script> <img src=x onerror=alert(1)> <!-- c --> <http://x.test>",
    "&lt; &amp; &#60; &#x3c; &copy; & plain & and AT&T;",
    "*em* **strong** _em_ __strong__ snake_case_name _leading trailing_ a * b",
    "[link](javascript:alert(1)) ![img](http://x.test/a.png) [ref][r] [r]: http://x.test",
    "# heading",
    "> quote",
    "- item",
    "+ item",
    "* item",
    "1. one",
    "2) two",
    "```python",
    "~~~",
    "!!! note",
    "??? note",
    '=== "Tab"',
    "---",
    "~~strike~~ ~single~",
    "{: onclick=alert(1) } {#id .class}",
    "\\*not em\\* back\\slash C:\\path\\",
    "a | table | row",
    'It\'s "quoted" (with parens) - dashes. Dots... 3.5 ms, 1.2.0!',
]


def _markdown_it_text(html_text: str) -> str:
    return html.unescape(re.sub(r"</?p>\n?", "", html_text)).strip("\n")


@pytest.mark.parametrize("text", HOSTILE_PROSE)
def test_prose_renders_as_written_and_inert_in_every_renderer(text):
    """markdown-it-py (CommonMark; GFM's strikethrough, tables and autolinks) and
    Python-Markdown with the site's extensions render :func:`md_prose` as exactly ``text``,
    one paragraph with no element in it."""
    prose = md_prose(text, at_line_start=True)
    renderers = {
        "commonmark": MarkdownIt("commonmark"),
        "gfm-like": MarkdownIt("gfm-like") if _linkify_available() else None,
        "commonmark+gfm": MarkdownIt("commonmark").enable(["strikethrough", "table"]),
    }
    for name, renderer in renderers.items():
        if renderer is None:
            continue
        rendered = renderer.render(prose)
        inner = re.sub(r"^<p>|</p>\n$", "", rendered)
        assert "<" not in inner.replace("&lt;", ""), (name, rendered)
        assert _markdown_it_text(rendered) == text, (name, rendered)
    site = python_markdown.markdown(
        prose,
        extensions=[
            "admonition",
            "attr_list",
            "md_in_html",
            "tables",
            "pymdownx.details",
            "pymdownx.superfences",
            "pymdownx.tabbed",
        ],
    )
    inner = re.sub(r"^<p>|</p>$", "", site)
    assert "<" not in inner.replace("&lt;", ""), site
    assert html.unescape(inner) == text, site


def test_a_hostile_review_comment_has_no_live_html_in_markdown_it(library, sample):
    """Every hostile text as a finding's trigger, impact and correction: the whole comment,
    parsed by markdown-it-py with raw HTML enabled, holds no HTML token and no script link,
    and each text comes back as written."""
    findings = tuple(
        replace(sample.findings[0], trigger=text, impact=text, correction=text)
        for text in HOSTILE_PROSE
    )
    comment = render_markdown(Review("1.0.0", findings), library, SITE)
    parser = MarkdownIt("commonmark", {"html": True}).enable(["strikethrough", "table"])
    tokens = parser.parse(comment)

    def live(tokens) -> list[str]:
        found = []
        for token in tokens:
            if token.type in ("html_block", "html_inline", "s_open", "table_open"):
                found.append(token.content or token.type)
            if token.type in ("link_open", "image"):
                href = token.attrGet("href") or token.attrGet("src") or ""
                if not href.startswith(SITE):
                    found.append(href)
            found.extend(live(token.children or ()))
        return found

    assert live(tokens) == []
    paragraphs = [
        _markdown_it_text(re.sub(r"</?strong>", "", parser.renderInline(token.content)))
        for token in tokens
        if token.type == "inline" and token.content.startswith("**Trigger:** ")
    ]
    assert paragraphs == [f"Trigger: {text}" for text in HOSTILE_PROSE]


def _linkify_available() -> bool:
    try:
        import linkify_it  # noqa: F401  (gfm-like needs the optional linkify-it-py)
    except ImportError:
        return False
    return True


# --- patches -----------------------------------------------------------------------------


def test_patch_replacements_per_run_of_changed_lines():
    patch = parse_patch(
        "--- a/f.py\n+++ b/f.py\n@@ -2,3 +2,4 @@\n a\n-b\n+B\n+B2\n c\n@@ -9,0 +11,1 @@\n+z\n"
    )
    assert patch.path == "f.py"
    assert patch.replacements() == (
        Replacement(start_line=3, deleted_count=1, inserted=("B", "B2")),
        Replacement(start_line=10, deleted_count=0, inserted=("z",)),
    )


@pytest.mark.parametrize(
    ("text", "index", "message"),
    [
        ("just text\n", 0, "not a unified diff: expected '--- a/PATH' then '+++ b/PATH'"),
        ("--- a/f\n+++ b/f\n", 1, "the patch has no hunks ('@@ -LINE,COUNT +LINE,COUNT @@')"),
        (
            "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n c\n",
            5,
            "the hunk above has more lines than its header counts",
        ),
        (
            "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n--- a/g\n",
            5,
            "the patch changes a second file: suggest one file per finding",
        ),
        (
            "--- /dev/null\n+++ b/f\n@@ -0,0 +1 @@\n+a\n",
            0,
            "the patch must change the location's file, not create or delete",
        ),
    ],
)
def test_patch_errors_name_the_line(text, index, message):
    with pytest.raises(PatchError) as raised:
        parse_patch(text)
    assert (raised.value.index, raised.value.message) == (index, message)


# --- the site page -----------------------------------------------------------------------


def test_site_page_shows_code_and_review_with_rule_links(library, sample):
    page = site_page(library, SITE)
    assert page.startswith("# What a review with these rules looks like\n")
    code = SAMPLE_CODE.read_text(encoding="utf-8")
    assert code.rstrip("\n") in page
    assert '```python title="samples/review/scheduler.py" linenums="1"' in page
    assert 'hl_lines="57-62 66 93 96-97 99-103"' in page
    for finding in sample.findings:
        assert f"]({SITE}rules/{finding.rule}/)" in page
    assert "## Review: 6 findings in 1 file" in page
    assert "### `samples/review/scheduler.py`" in page
    relative = site_page(library, None)
    for finding in sample.findings:
        assert f"](rules/{finding.rule}.md)" in relative


def test_site_page_rejects_a_sample_that_does_not_check(tmp_path, library):
    sample_dir = tmp_path / "samples" / "review"
    shutil.copytree(SAMPLE_DIR, sample_dir)
    findings = sample_dir / "findings.yaml"
    findings.write_text(
        findings.read_text(encoding="utf-8").replace("start_line: 99", "start_line: 200"),
        encoding="utf-8",
    )
    with pytest.raises(FindingsError) as raised:
        site_page(library, None, sample_dir)
    assert [str(d) for d in raised.value.diagnostics] == [
        "samples/review/findings.yaml:115:19: findings[5].location.start_line 200 is after "
        "end_line 103: a location is an inclusive range, start_line <= end_line"
    ]


def test_site_page_builds_with_mkdocs_material_strict(tmp_path, library):
    """The page renders in a real strict MkDocs-Material build: line numbers, links checked."""
    docs = tmp_path / "docs"
    (docs / "rules").mkdir(parents=True)
    (docs / "index.md").write_text("# Home\n", encoding="utf-8")
    for rule in library.rules:
        (docs / "rules" / f"{rule.id}.md").write_text(f"# {rule.id}\n", encoding="utf-8")
    (docs / "review-example.md").write_text(site_page(library, None), encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: Test\ndocs_dir: docs\nsite_dir: build\nstrict: true\n"
        "theme:\n  name: material\n"
        "markdown_extensions:\n  - pymdownx.highlight\n  - pymdownx.superfences\n",
        encoding="utf-8",
    )
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert build.returncode == 0, build.stderr
    html = (tmp_path / "build" / "review-example" / "index.html").read_text(encoding="utf-8")
    assert 'href="../rules/R03/"' in html
    assert "linenos" in html or "linenodiv" in html
    assert '<span class="hll">' in html
    assert '<span class="kn">from</span>' in html  # Highlighted as Python.
    assert "What a review with these rules looks like" in html
