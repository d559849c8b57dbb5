"""Loader and validator: every bad input is reported at its exact path:line:column."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest
from rule_edits import edit, problems

import rlt_rules
from rlt_rules.cli import main
from rlt_rules.library.model import ExampleKind, LibraryError, Status
from rlt_rules.project.check import check_project

ROOT = Path(__file__).resolve().parents[1]
VALID = ROOT / "tests" / "fixtures" / "valid"


# --- the valid library -------------------------------------------------------------------


def test_valid_fixture_builds_typed_model():
    library = rlt_rules.load_library(VALID)
    assert library.version == "1.2.0"
    assert [rule.id for rule in library.rules] == ["R01", "R02", "R05"]
    assert [rule.id for rule in library.rules_in("state")] == ["R01", "R02"]
    rule = library.rule("R01")
    assert rule.status is Status.ACTIVE
    assert rule.related == ("R02",)
    bad = rule.examples_of(ExampleKind.BAD)[0]
    # The code block's first line is line 32 of R01.yaml.
    assert bad.code_source is not None and bad.code_source.line == 32
    lines = (VALID / "R01.yaml").read_text().splitlines()
    assert lines[bad.code_source.line - 1].strip() == 'slots = {"slot-0": 0}'


def test_model_is_frozen():
    library = rlt_rules.load_library(VALID)
    with pytest.raises(AttributeError):
        library.rules[0].title = "changed"  # type: ignore[misc]


def test_real_library_is_valid():
    result = check_project(ROOT / "rules", "rules")
    assert [str(d) for d in result.diagnostics] == []
    assert result.library is not None
    assert [rule.id for rule in result.library.rules] == [f"R{n:02d}" for n in range(1, 18)]
    assert [c.id for c in result.library.categories] == [
        "responsibilities-and-state",
        "interfaces-types-and-readability",
        "boundaries-and-capabilities",
        "lifecycle-and-runtime-semantics",
    ]


# --- YAML-level problems -----------------------------------------------------------------


def test_yaml_syntax_error(rules_dir):
    edit(rules_dir / "R02.yaml", "title: Fixture rule 02", "title: [unclosed")
    assert problems(rules_dir) == [
        "rules/R02.yaml:3:9: YAML syntax error: while parsing a flow sequence "
        "did not find expected ',' or ']'"
    ]


def test_duplicate_key_names_both_lines(rules_dir):
    edit(rules_dir / "R02.yaml", "status: active", "status: active\ntitle: Second title")
    assert problems(rules_dir) == [
        "rules/R02.yaml:5:1: duplicate key 'title': already set at line 2, column 1; "
        "YAML would silently keep only this one: remove one"
    ]


def test_anchor_and_alias_rejected(rules_dir):
    edit(rules_dir / "R02.yaml", "tags: [state, fixture]", "tags: &t [state, fixture]")
    assert problems(rules_dir) == [
        "rules/R02.yaml:6:7: anchor &t is not allowed in rule files: write values out in full"
    ]


def test_alias_bomb_rejected_quickly_without_memory_blowup(rules_dir):
    levels = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    levels += [f"a{i}: &a{i} [{','.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
    (rules_dir / "R09.yaml").write_text("\n".join(levels) + "\n", encoding="utf-8")
    tracemalloc.start()
    started = time.perf_counter()
    found = problems(rules_dir)
    elapsed = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert found == [
        "rules/R09.yaml:1:5: anchor &a0 is not allowed in rule files: write values out in full"
    ]
    # Expanded, this document holds 9**10 strings; rejected, it costs almost nothing.
    assert peak < 20 * 1024 * 1024
    assert elapsed < 5


def test_not_utf8(rules_dir):
    (rules_dir / "R02.yaml").write_bytes(b"id: R02\ntitle: caf\xe9\n")
    assert problems(rules_dir) == [
        "rules/R02.yaml:2:11: not UTF-8: byte 0xe9 cannot be decoded; save the file as UTF-8"
    ]


def test_empty_file(rules_dir):
    (rules_dir / "R02.yaml").write_text("# nothing here\n\n", encoding="utf-8")
    assert problems(rules_dir) == [
        "rules/R02.yaml:1:1: file is empty: expected a mapping of fields (see schema/)"
    ]


def test_top_level_list(rules_dir):
    (rules_dir / "R02.yaml").write_text("# comment\n- id: R02\n", encoding="utf-8")
    assert problems(rules_dir) == [
        "rules/R02.yaml:2:1: top level is a list: expected a mapping of fields"
    ]


def test_non_standard_tag_rejected(rules_dir):
    edit(rules_dir / "R02.yaml", "title: Fixture rule 02", "title: !!python/name:os.system x")
    assert problems(rules_dir) == [
        "rules/R02.yaml:2:8: unsupported tag tag:yaml.org,2002:python/name:os.system: "
        "rule files hold plain strings, lists and mappings"
    ]


# --- schema problems ---------------------------------------------------------------------


def test_unknown_field_named_with_allowed_fields(rules_dir):
    edit(rules_dir / "R02.yaml", "status: active", "status: active\nseverity: high")
    found = problems(rules_dir)
    assert len(found) == 1
    assert found[0].startswith("rules/R02.yaml:5:1: unknown field 'severity'; allowed fields: ")
    assert "category, correction, detectors, examples, id, impact" in found[0]


def test_unknown_field_inside_example(rules_dir):
    edit(rules_dir / "R02.yaml", "    kind: bad\n", "    kind: bad\n    output: x\n")
    found = problems(rules_dir)
    assert len(found) == 1
    assert found[0].startswith("rules/R02.yaml:28:5: unknown field 'output' in examples[0]; ")


def test_missing_required_field(rules_dir):
    edit(rules_dir / "R02.yaml", "impact: |-\n  Impact 02.\n", "")
    assert problems(rules_dir) == ["rules/R02.yaml:1:1: missing required field 'impact'"]


def test_placeholder_text_rejected(rules_dir):
    edit(rules_dir / "R02.yaml", "Rationale 02.", "TODO")
    assert problems(rules_dir) == [
        "rules/R02.yaml:17:3: rationale is still a placeholder ('TODO'): write it"
    ]


def test_text_field_of_another_type_is_a_type_error(rules_dir):
    """Not also a "placeholder": a pattern ignores a number, so "not pattern" fails for it too."""
    edit(rules_dir / "R02.yaml", "rationale: |-\n  Rationale 02.", "rationale: 3")
    assert problems(rules_dir) == [
        "rules/R02.yaml:16:12: rationale must be a string, got integer '3': YAML 1.1 reads an "
        'unquoted 3 as a integer; quote it: "3"'
    ]


def test_category_what_goes_wrong_is_optional_and_checked_like_rule_text(rules_dir):
    library = rlt_rules.load_library(rules_dir)
    assert [category.what_goes_wrong for category in library.categories] == [None, None]
    edit(
        rules_dir / "library.yaml",
        "    title: State\n",
        "    title: State\n    what_goes_wrong: |-\n      Two owners reset one counter.\n",
    )
    library = rlt_rules.load_library(rules_dir)
    assert library.category("state").what_goes_wrong == "Two owners reset one counter."
    edit(rules_dir / "library.yaml", "Two owners reset one counter.", "TODO")
    assert problems(rules_dir) == [
        "rules/library.yaml:13:7: categories[0].what_goes_wrong is still a placeholder "
        "('TODO'): write it"
    ]


# --- links in rule text --------------------------------------------------------------------

NOWHERE = (
    "stays a link that points nowhere on the site and in the exports (MkDocs' strict build "
    "stops on it): link only to an absolute http, https or mailto address, or put the text in "
    "backticks"
)


def test_links_that_would_abort_the_strict_site_build_are_rejected_where_written(rules_dir):
    """``%0a`` hides a ``javascript:`` scheme from the inert rendering, so the link stays and
    is relative; an image whose destination swallows a quote is relative too: MkDocs' strict
    build would stop on both. Each is reported at the destination's line and column."""
    edit(
        rules_dir / "R02.yaml",
        "  Rationale 02.",
        "  Rationale 02, see [x](java%0ascript:alert(1)).\n"
        '  An image: ![chart](x" onerror="alert(1)") here.',
    )
    edit(rules_dir / "R02.yaml", "- Trigger one of 02.", "- 'Trigger [one](#anchor) of 02.'")
    edit(rules_dir / "library.yaml", "Explain each finding.", "Explain [each](/finding).")
    assert problems(rules_dir) == [
        f"rules/R02.yaml:17:25: a link to 'java%0ascript:alert(1)' {NOWHERE}",
        f"rules/R02.yaml:18:22: a link to 'x\"' {NOWHERE}",
        f"rules/R02.yaml:20:5: a link to '#anchor' {NOWHERE}",  # a flow scalar: its start
        f"rules/library.yaml:6:59: a link to '/finding' {NOWHERE}",
    ]
    lines = (rules_dir / "R02.yaml").read_text(encoding="utf-8").splitlines()
    assert lines[16][24:].startswith("java%0ascript") and lines[17][21:].startswith('x"')
    library = (rules_dir / "library.yaml").read_text(encoding="utf-8").splitlines()
    assert library[5][58:].startswith("/finding)")


def test_links_that_stay_absolute_or_become_text_are_accepted(rules_dir):
    """Absolute http(s) and mailto links, links the inert rendering shows as text (another
    scheme, a code span in the destination) and link syntax inside code are not links that
    point nowhere."""
    edit(
        rules_dir / "R02.yaml",
        "  Rationale 02.",
        "  See [the docs](https://example.com/docs), [mail](mailto:team@example.com),\n"
        '  ![a chart](https://example.com/x.png "onerror=alert(1)"),\n'
        '  [run](javascript:alert(1)), [a](x "`"onmouseover=alert(1)`"), `[code](x)`.\n'
        "\n"
        "  ```python\n"
        "  table[key](argument)\n"
        "  ```",
    )
    assert check_project(rules_dir, "rules").diagnostics == ()


def test_real_library_says_what_goes_wrong_for_every_category():
    """The lessons open with it: two or three sentences, none of them the seed's."""
    library = rlt_rules.load_library(ROOT / "rules")
    seed = (ROOT / "tests" / "data" / "seed.txt").read_text(encoding="utf-8")
    for category in library.categories:
        text = category.what_goes_wrong
        assert text, category.id
        sentences = [s for s in text.replace("\n", " ").split(". ") if s.strip()]
        assert 2 <= len(sentences) <= 3, (category.id, sentences)
        assert text not in seed


def test_bad_id_pattern(rules_dir):
    edit(rules_dir / "R02.yaml", "id: R02", "id: R2")
    found = problems(rules_dir)
    assert found[0] == (
        "rules/R02.yaml:1:5: id 'R2' is not valid: Stable id: R followed by two or more digits. "
        "Never reused, renumbered or dropped once published; must equal the file name"
    )


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "status: active",
            "status: no",
            "rules/R02.yaml:4:9: status must be one of: active, deprecated, retired; "
            "got boolean 'no': YAML 1.1 reads an unquoted no as a boolean; quote it: \"no\"",
        ),
        (
            "tags: [state, fixture]",
            "tags: [state, on]",
            "rules/R02.yaml:6:15: tags[1] must be a string, "
            "got boolean 'on': YAML 1.1 reads an unquoted on as a boolean; quote it: \"on\"",
        ),
        (
            "since: 1.0.0",
            "since: 1.0",
            "rules/R02.yaml:5:8: since must be a string, "
            "got number '1.0': YAML 1.1 reads an unquoted 1.0 as a number; quote it: \"1.0\"",
        ),
        (
            "since: 1.0.0",
            "since: 2024-01-01",
            "rules/R02.yaml:5:8: since must be a string, got date '2024-01-01': "
            'YAML 1.1 reads an unquoted 2024-01-01 as a date; quote it: "2024-01-01"',
        ),
    ],
    ids=["status-no", "tag-on", "since-float", "since-date"],
)
def test_yaml_1_1_surprises_caught(rules_dir, old, new, expected):
    edit(rules_dir / "R02.yaml", old, new)
    assert problems(rules_dir) == [expected]


def test_deprecated_without_replacement(rules_dir):
    edit(rules_dir / "R02.yaml", "status: active", "status: deprecated")
    assert problems(rules_dir) == [
        "rules/R02.yaml:1:1: missing required field 'replaced_by' "
        "(a deprecated rule must name the rule that replaces it)"
    ]


# --- cross-record problems ---------------------------------------------------------------


def test_id_not_matching_file_name(rules_dir):
    edit(rules_dir / "R02.yaml", "id: R02", "id: R03")
    assert problems(rules_dir) == [
        "rules/R02.yaml:1:5: id 'R03' does not match the file name 'R02.yaml': "
        "rename the file to R03.yaml or fix the id"
    ]


def test_same_id_in_two_files(rules_dir):
    shutil.copy(rules_dir / "R02.yaml", rules_dir / "R07.yaml")
    assert problems(rules_dir) == [
        "rules/R07.yaml:1:5: id 'R02' does not match the file name 'R07.yaml': "
        "rename the file to R02.yaml or fix the id",
        "rules/R07.yaml:1:5: id 'R02' is already used by rules/R02.yaml: "
        "ids are unique and never reused",
    ]


def test_related_id_missing(rules_dir):
    edit(rules_dir / "R02.yaml", "related: [R01]", "related: [R01, R44]")
    assert problems(rules_dir) == [
        "rules/R02.yaml:7:16: related rule 'R44' does not exist: known ids are R01, R02, R05"
    ]


def test_related_to_itself(rules_dir):
    edit(rules_dir / "R02.yaml", "related: [R01]", "related: [R02]")
    assert problems(rules_dir) == [
        "rules/R02.yaml:7:11: related lists the rule itself (R02): remove it"
    ]


def test_unknown_category(rules_dir):
    edit(rules_dir / "R05.yaml", "category: interfaces", "category: interface")
    assert problems(rules_dir) == [
        "rules/R05.yaml:3:11: unknown category 'interface': the library defines state, interfaces",
        "rules/library.yaml:12:9: category 'interfaces' has no rules: "
        "give a rule this category or remove it",
    ]


def test_every_problem_reported_at_once(rules_dir):
    edit(rules_dir / "R01.yaml", "status: active", "status: live")
    edit(rules_dir / "R02.yaml", "related: [R01]", "related: [R99]")
    (rules_dir / "R05.yaml").write_text("[]\n", encoding="utf-8")
    found = problems(rules_dir)
    assert [line.split(": ")[0] for line in found] == [
        "rules/R01.yaml:4:9",
        "rules/R02.yaml:7:11",
        "rules/R05.yaml:1:1",
    ]


def test_missing_library_yaml(rules_dir):
    (rules_dir / "library.yaml").unlink()
    assert problems(rules_dir)[0] == (
        "rules/library.yaml:1:1: missing library.yaml: the library's title, version, preamble "
        "and categories belong there (see schema/)"
    )


def test_load_library_raises_with_every_diagnostic(rules_dir):
    edit(rules_dir / "R02.yaml", "id: R02", "id: R03")
    with pytest.raises(LibraryError) as raised:
        rlt_rules.load_library(rules_dir)
    assert len(raised.value.diagnostics) == 1
    assert "does not match the file name" in str(raised.value)


# --- CLI ---------------------------------------------------------------------------------


def test_cli_clean_exit_zero_with_summary(capsys):
    assert main(["validate", str(VALID)]) == 0
    assert capsys.readouterr().out == "ok: 4 files, 3 rules valid\n"


def test_cli_problems_exit_one(rules_dir, capsys):
    edit(rules_dir / "R02.yaml", "related: [R01]", "related: [R44]")
    assert main(["validate", str(rules_dir)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (
        f"{rules_dir}/R02.yaml:7:11: related rule 'R44' does not exist: known ids are R01, R02, R05"
    )
    assert out[-1] == "1 problem(s) in 1 file(s)"


def test_cli_single_file_reports_only_that_file(rules_dir, capsys):
    edit(rules_dir / "R01.yaml", "Rationale 01.", "TODO")
    edit(rules_dir / "R02.yaml", "Rationale 02.", "TODO")
    assert main(["validate", str(rules_dir / "R02.yaml")]) == 1
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and "R02.yaml:17:3" in out[0]


def test_cli_files_of_one_directory_are_checked_and_counted_once(rules_dir, capsys):
    assert main(["validate", str(rules_dir / "R01.yaml"), str(rules_dir / "R02.yaml")]) == 0
    assert capsys.readouterr().out == "ok: 2 files, 2 rules valid\n"
    edit(rules_dir / "R02.yaml", "Rationale 02.", "TODO")
    assert main(["validate", str(rules_dir / "R01.yaml"), str(rules_dir / "R02.yaml")]) == 1
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and "R02.yaml:17:3" in out[0]


def test_cli_json_format(rules_dir, capsys):
    edit(rules_dir / "R02.yaml", "id: R02", "id: R03")
    assert main(["validate", "--format", "json", str(rules_dir)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False
    assert report["diagnostics"] == [
        {
            "path": f"{rules_dir}/R02.yaml",
            "line": 1,
            "column": 5,
            "rule_id": "R03",
            "severity": "error",
            "message": "id 'R03' does not match the file name 'R02.yaml': "
            "rename the file to R03.yaml or fix the id",
        }
    ]


def test_cli_usage_errors_exit_two(tmp_path, capsys):
    assert main(["validate", str(tmp_path / "nowhere")]) == 2
    assert "no such file or directory" in capsys.readouterr().err
    with pytest.raises(SystemExit) as raised:
        main(["validate", "--format", "xml"])
    assert raised.value.code == 2


def test_module_entry_point_runs():
    completed = subprocess.run(
        [sys.executable, "-m", "rlt_rules", "validate", str(VALID)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout == "ok: 4 files, 3 rules valid\n"


def test_active_rule_needs_a_bad_and_a_good_example(rules_dir):
    text = (rules_dir / "R02.yaml").read_text(encoding="utf-8")
    (rules_dir / "R02.yaml").write_text(
        text.split("    kind: good")[0].rsplit("  - name: shows", 1)[0], encoding="utf-8"
    )
    assert problems(rules_dir) == [
        "rules/R02.yaml:26:3: examples: an active rule needs at least one good example "
        "(kind: good) that shows the correction"
    ]


# --- the two schema validators agree -------------------------------------------------------

FIXTURES = ROOT / "tests" / "fixtures"
#: Values put in place of each part of a fixture: every type, the placeholders, empty, and
#: the strings where Python's ``re`` and ECMA 262 patterns differ (a final newline, Unicode).
SUBSTITUTES = (
    3,
    1.5,
    True,
    None,
    [],
    {},
    "",
    "TODO",
    "x\n",
    " x",
    "R1\n",
    "ok\u00a0",
    "é",
    ["a", "a"],
)


def _schema_of(path: Path) -> str:
    if "findings" in path.parts or "review-context" in path.parts:
        return "findings.schema.json"
    if "exam" in path.parts:
        return "exam-case.schema.json"
    return "library.schema.json" if path.name == "library.yaml" else "rule.schema.json"


def _fixture_documents() -> list[tuple[str, str, object]]:
    """Every YAML and JSON record under tests/fixtures and rules/ that loads, with its schema."""
    from rlt_rules.library.load import load_yaml

    paths = sorted(FIXTURES.rglob("*.yaml")) + sorted((ROOT / "rules").glob("*.yaml"))
    found = []
    for path in paths:
        loaded = load_yaml(path, str(path))
        if loaded.document is not None:
            found.append((str(path.relative_to(ROOT)), _schema_of(path), loaded.document.data))
    for path in sorted(FIXTURES.rglob("*.json")):
        if "findings" in path.parts:
            found.append(
                (str(path.relative_to(ROOT)), _schema_of(path), json.loads(path.read_text()))
            )
    return found


def _parts(data: object, path: tuple = ()) -> list[tuple]:
    found = [path]
    if isinstance(data, dict):
        for key, value in data.items():
            found.extend(_parts(value, (*path, key)))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found.extend(_parts(value, (*path, index)))
    return found


def _mutants(data: object) -> list[object]:
    """``data`` itself, then with each part replaced (by one substitute in turn), each mapping
    key removed, and an unknown key added to each mapping."""
    import copy

    found = [data]
    for number, path in enumerate(_parts(data)):
        if not path:
            continue
        substitute = SUBSTITUTES[number % len(SUBSTITUTES)]
        for change in ("replace", "remove", "add"):
            mutant = copy.deepcopy(data)
            parent = mutant
            for part in path[:-1]:
                parent = parent[part]
            if change == "replace":
                parent[path[-1]] = copy.deepcopy(substitute)
            elif change == "remove" and isinstance(parent, dict):
                del parent[path[-1]]
            elif change == "add" and isinstance(parent[path[-1]], dict):
                parent[path[-1]]["surplus"] = "x"
            else:
                continue
            found.append(mutant)
    return found


def test_compiled_and_explaining_validators_agree_on_every_fixture():
    """jsonschema-rs decides validity, jsonschema explains a rejection: on every fixture and on
    thousands of broken copies of them, both give the same verdict, so a rejected record always
    has its explained errors and an accepted one has none."""
    from rlt_rules.library.schemas import checker

    checked = rejected = 0
    disagreements = []
    for shown, schema, data in _fixture_documents():
        check = checker(schema)
        for mutant in _mutants(data):
            decided = check.decider.is_valid(mutant)
            explained = next(iter(check.explainer.iter_errors(mutant)), None) is None
            checked += 1
            rejected += not decided
            if decided != explained:
                disagreements.append((shown, decided, mutant))
    assert disagreements == []
    assert checked > 5000 and rejected > checked // 2, (checked, rejected)


def test_values_json_has_no_type_for_are_explained(rules_dir):
    """A YAML date cannot reach jsonschema-rs: the explaining validator alone reports it."""
    edit(rules_dir / "R02.yaml", "since: 1.0.0", "since: 2024-01-01")
    assert problems(rules_dir)[0].startswith("rules/R02.yaml:5:8: since must be a string, got date")


def test_patterns_match_as_ecma_262_does(rules_dir):
    """A title with a final newline (a ``|`` block) passes Python's ``re`` (``$`` matches before
    it) but not Ajv or check-jsonschema: validate rejects it as they do."""
    edit(rules_dir / "R02.yaml", "title: Fixture rule 02", "title: |\n  Fixture rule 02")
    (problem,) = problems(rules_dir)
    assert problem.startswith("rules/R02.yaml:3:3: title 'Fixture rule 02\\n' is not valid: ")
