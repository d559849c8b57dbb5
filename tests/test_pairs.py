"""The pair contract: every example paired, every example marked, every pair one scenario."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from rule_edits import edit, problems

import rlt_rules
from rlt_rules.cli import main
from rlt_rules.library.model import ExampleKind, Status
from rlt_rules.library.pairs import (
    MIN_PAIR_RATIO,
    ExamplePair,
    marked_lines,
    markers,
    pairs_of,
    similarity,
)

ROOT = Path(__file__).resolve().parents[1]
VALID = ROOT / "tests" / "fixtures" / "valid"


# --- validate enforces the contract at the example's position -----------------------------


def test_unpaired_example_is_reported_at_its_name(rules_dir: Path) -> None:
    # The good example of R01 (line 38 of the fixture) gets a name no bad example has.
    text = (rules_dir / "R01.yaml").read_text(encoding="utf-8")
    head, tail = text.rsplit("  - name: shows", 1)
    (rules_dir / "R01.yaml").write_text(head + "  - name: shows-fix" + tail, encoding="utf-8")
    assert problems(rules_dir) == [
        "rules/R01.yaml:26:3: an active rule needs at least one pair: "
        "a bad and a good example with one name",
        "rules/R01.yaml:26:11: bad example 'shows' has no good counterpart: add a good example "
        "named 'shows' showing the same scenario with the correction",
        "rules/R01.yaml:38:11: good example 'shows-fix' has no bad counterpart: add a bad "
        "example named 'shows-fix' showing the same scenario with the rule broken",
    ]


def test_second_pair_missing_its_good_is_reported_alone(rules_dir: Path) -> None:
    with (rules_dir / "R01.yaml").open("a", encoding="utf-8") as handle:
        handle.write(
            "  - name: second\n"
            "    kind: bad\n"
            "    title: Bad again\n"
            "    explanation: |-\n"
            "      Again.\n"
            "    code: |\n"
            "      print(1)  # R01: again\n"
            "      #> 1\n"
        )
    assert problems(rules_dir) == [
        "rules/R01.yaml:50:11: bad example 'second' has no good counterpart: add a good example "
        "named 'second' showing the same scenario with the correction"
    ]


def test_example_without_its_marker_is_reported_at_its_code(rules_dir: Path) -> None:
    edit(rules_dir / "R02.yaml", "count = 0  # R02: marked for the pair contract", "count = 0")
    assert problems(rules_dir) == [
        "rules/R02.yaml:32:7: example 'shows' has no '# R02:' marker: mark the lines that "
        "break the rule with a comment such as '# R02: <why>'"
    ]


def test_a_marker_without_its_colon_is_reported_where_it_is_written(rules_dir: Path) -> None:
    """ "# R02 why" is not a marker: nothing would highlight it, and practice would show it."""
    edit(
        rules_dir / "R02.yaml",
        'print("failed" if not count else "ok")',
        'print("failed" if not count else "ok")  # R02 zero read as failure',
    )
    assert problems(rules_dir) == [
        "rules/R02.yaml:33:47: '# R02' without a colon is not a marker (nothing highlights it, "
        "and practice shows it): write '# R02: <why>'"
    ]


def test_marker_of_another_rule_or_inside_a_string_does_not_count(rules_dir: Path) -> None:
    edit(
        rules_dir / "R02.yaml",
        "count = 0  # R02: marked for the pair contract",
        'count = 0  # R01: another rule\n      note = "# R02: text, not a comment"',
    )
    assert [line.split(": ", 1)[0] for line in problems(rules_dir)] == ["rules/R02.yaml:32:7"]


# --- markers and marked lines ---------------------------------------------------------------


def test_inline_marker_marks_its_line_and_block_marker_its_block() -> None:
    code = (
        "def step(self):\n"  # 1
        "    batch = []\n"  # 2
        "    # R03: the selection lives on self.\n"  # 3
        "    self.selected.add(1)\n"  # 4
        "    if ready:\n"  # 5
        "        batch.append(1)\n"  # 6
        "    return batch\n"  # 7
        "\n"  # 8
        "x = 1  # R03: inline\n"  # 9
        "y = 2\n"  # 10
        "    # R01: not this rule\n"  # 11 (indented comment of another rule)
    )
    assert [(m.line, m.rule_id, m.inline) for m in markers(code)] == [
        (3, "R03", False),
        (9, "R03", True),
        (11, "R01", False),
    ]
    assert marked_lines(code, "R03") == frozenset({3, 4, 5, 6, 7, 9})


def test_block_marker_stops_at_a_line_indented_less() -> None:
    code = "class A:\n    def f(self):\n        # R05: here\n        return 1\n    def g(self):\n"
    assert marked_lines(code, "R05") == frozenset({3, 4})


def test_similarity_is_one_for_the_same_program_and_lower_for_a_change() -> None:
    assert similarity("a\nb\nc\n", "a\nb\nc\n") == 1.0
    assert similarity("a\nb\nc\nd\n", "a\nb\nX\nd\n") == pytest.approx(0.75)


# --- the real library keeps the contract ------------------------------------------------------


def test_every_example_of_the_library_is_paired_and_marked() -> None:
    library = rlt_rules.load_library(ROOT / "rules")
    for rule in library.rules:
        pairs = pairs_of(rule)
        if rule.status is Status.ACTIVE:
            assert pairs, f"{rule.id} has no pair"
        paired = {id(p.bad) for p in pairs} | {id(p.good) for p in pairs}
        for example in rule.examples:
            assert id(example) in paired, f"{rule.id} {example.kind} {example.name} is unpaired"
            marked = marked_lines(example.code, rule.id)
            assert marked, f"{rule.id} {example.kind} {example.name} marks no line"
            code_lines = example.code.splitlines()
            assert any(
                code_lines[n - 1].strip() and not code_lines[n - 1].lstrip().startswith("#")
                for n in marked
            ), f"{rule.id} {example.name}: the marker covers no line of code"


def test_every_pair_of_the_library_is_one_scenario() -> None:
    library = rlt_rules.load_library(ROOT / "rules")
    ratios = {
        f"{pair.rule_id} {pair.name}": round(pair.ratio, 2)
        for rule in library.rules
        for pair in pairs_of(rule)
    }
    assert ratios
    below = {name: ratio for name, ratio in ratios.items() if ratio < MIN_PAIR_RATIO}
    assert below == {}, f"pairs below {MIN_PAIR_RATIO}: {below}"


def test_no_example_names_another_rules_marker() -> None:
    library = rlt_rules.load_library(ROOT / "rules")
    for rule in library.rules:
        for example in rule.examples:
            others = {m.rule_id for m in markers(example.code)} - {rule.id}
            assert not others, f"{rule.id} {example.name} marks lines of {others}"


# --- rlt-rules examples --pairs ---------------------------------------------------------------


def test_pairs_command_prints_diff_similarity_and_outputs(capsys) -> None:
    assert main(["examples", "--pairs", "--rules", str(VALID), "R01"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == [
        "R01 shows: similarity 0.67, correction removes 1 line(s) and adds 1",
        '    -print("failed" if not count else "ok")  # R01: zero read as failure',
        '    +print("failed" if count is None else "ok")  # R01: only None is failure',
        "  bad output  | good output",
        "  slots: 1    | slots: 1",
        "  failed     ≠| ok",
        "",
        "1 pair(s), 0 below a similarity of 0.6",
    ]


def test_pairs_command_fails_on_a_pair_that_is_two_scenarios(rules_dir: Path, capsys) -> None:
    text = (rules_dir / "R01.yaml").read_text(encoding="utf-8")
    head, good = text.rsplit('      slots = {"slot-0": 0}', 1)
    good = good.replace('count = slots["slot-0"]', "free = 3\n      queue = []\n      count = 0")
    good = good.replace('print(f"slots: {len(slots)}")', 'print(f"slots: {len(queue)}")')
    (rules_dir / "R01.yaml").write_text(head + "      blocks = {}" + good, encoding="utf-8")
    assert main(["examples", "--pairs", "--rules", str(rules_dir), "--format", "json"]) == 1
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    r01 = next(item for item in data if item["rule"] == "R01")
    assert r01["similarity"] < MIN_PAIR_RATIO
    assert r01["bad_output"] == ["slots: 1", "failed"]
    assert "R01 shows: similarity" in captured.err and "split the pair" in captured.err


def test_pairs_json_covers_every_pair_of_the_library(capsys) -> None:
    assert main(["examples", "--pairs", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    library = rlt_rules.load_library(ROOT / "rules")
    expected = [(rule.id, pair.name) for rule in library.rules for pair in pairs_of(rule)]
    assert [(item["rule"], item["pair"]) for item in data] == expected
    for item in data:
        assert item["diff"], f"{item['rule']} {item['pair']}: bad and good are the same program"
        assert item["bad_output"] != item["good_output"], (
            f"{item['rule']} {item['pair']}: the correction changes nothing that is printed"
        )


def test_scaffolded_rule_asks_for_markers(tmp_path: Path) -> None:
    rules = tmp_path / "rules"
    shutil.copytree(VALID, rules)
    assert main(["new", "--rules", str(rules), "--category", "state", "--title", "X"]) == 0
    text = (rules / "R06.yaml").read_text(encoding="utf-8")
    assert "'# R06: why'" in text
    library_problems = problems(rules)
    assert any("has no '# R06:' marker" in line for line in library_problems)
    assert ExampleKind.GOOD  # the scaffold pairs its two examples: no unpaired diagnostic
    assert not any("counterpart" in line for line in library_problems)


def test_diff_keeps_code_lines_that_look_like_diff_headers() -> None:
    from rlt_rules.library.model import Example

    bad = Example("p", ExampleKind.BAD, "t", "e", "x = 1\n--x\ny = 2\n")
    good = Example("p", ExampleKind.GOOD, "t", "e", "x = 1\n++x\ny = 2\n")
    pair = ExamplePair("R01", "p", bad, good)
    assert pair.diff(context=0) == ("@@ -2 +2 @@", "---x", "+++x")
    assert pair.changed_lines() == (1, 1)
