"""Every rule's good and bad examples, and its practice programs, run, print what their #>
comments say, and pass ruff.

Examples come from the typed library (never re-read YAML here); each keeps its YAML file and
the line its code starts on, so a failure names ``rules/R03.yaml:<line>``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from pytest_examples import EvalExample

import rlt_rules
from rlt_rules.cli import main
from rlt_rules.library.examples import EXAMPLES_CONFIG, ExampleResult, check_example, code_example
from rlt_rules.library.model import Example, ExampleKind, PracticeProgram, Rule, Status

ROOT = Path(__file__).resolve().parents[1]
FAILING = ROOT / "tests" / "fixtures" / "failing-examples"


def _library_examples() -> list:
    library = rlt_rules.load_library(ROOT / "rules")
    return [
        pytest.param(rule, example, id=f"{rule.id}-{example.kind}-{example.name}")
        for rule in library.rules
        for example in rule.examples
    ] + [
        pytest.param(rule, program, id=f"{rule.id}-practice-{program.name}")
        for rule in library.rules
        for program in rule.practice
    ]


def run_and_lint(eval_example: EvalExample, rule: Rule, example: Example | PracticeProgram) -> None:
    """Print-check with pytest-examples; on failure, say where in the YAML it went wrong."""
    eval_example.config = EXAMPLES_CONFIG
    code = code_example(example)
    eval_example.lint_ruff(code)
    # ruff format rewrites "#>" to "# >"; "#:" it leaves alone, so check the code with that
    # one-character swap: any other formatting difference still fails.
    formatted = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--diff", "--stdin-filename", "example.py", "-"],
        input=example.code.replace("#>", "#:"),
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert formatted.returncode == 0, (
        f"{code.path}:{code.start_line + 1}: ruff format would change:\n{formatted.stdout}"
    )
    try:
        eval_example.run_print_check(code)
    except pytest.fail.Exception as failure:
        outcome = check_example(rule, example)
        pytest.fail(f"{outcome.location}: {outcome.detail}\n{failure}", pytrace=False)


@pytest.mark.parametrize(("rule", "example"), _library_examples())
def test_example(eval_example: EvalExample, rule: Rule, example: Example | PracticeProgram) -> None:
    run_and_lint(eval_example, rule, example)


def test_every_active_rule_has_a_good_and_a_bad_example() -> None:
    library = rlt_rules.load_library(ROOT / "rules")
    for rule in library.rules:
        if rule.status is Status.ACTIVE:
            assert rule.examples_of(ExampleKind.BAD), f"{rule.id} has no bad example"
            assert rule.examples_of(ExampleKind.GOOD), f"{rule.id} has no good example"


# --- the check can fail, and says where ---------------------------------------------------


def test_wrong_output_fails_naming_the_yaml_line(eval_example: EvalExample) -> None:
    rule = rlt_rules.load_library(FAILING).rule("R01")
    bad = rule.examples_of(ExampleKind.BAD)[0]
    with pytest.raises(pytest.fail.Exception) as failed:
        run_and_lint(eval_example, rule, bad)
    message = str(failed.value)
    assert message.startswith(
        "tests/fixtures/failing-examples/R01.yaml:34: "
        "expected '#> free blocks: 3', got '#> free blocks: 0'"
    ) or message.startswith(
        f"{FAILING}/R01.yaml:34: expected '#> free blocks: 3', got '#> free blocks: 0'"
    )


def test_exception_reports_yaml_line() -> None:
    rule = rlt_rules.load_library(FAILING).rule("R01")
    good = rule.examples_of(ExampleKind.GOOD)[0]
    outcome = check_example(rule, good)
    assert outcome.result is ExampleResult.RAISED and not outcome.passed
    assert outcome.line == 44
    assert outcome.detail == "raised KeyError: 'req-2'"


def test_examples_command_table(capsys) -> None:
    assert main(["examples", "--rules", str(FAILING)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["RULE", "EXAMPLE", "KIND", "RESULT", "FIRST", "DIFFERENCE"]
    assert lines[1].split()[:4] == ["R01", "shows", "bad", "FAIL"]
    assert lines[1].endswith("R01.yaml:34: expected '#> free blocks: 3', got '#> free blocks: 0'")
    assert lines[2].endswith("R01.yaml:44: raised KeyError: 'req-2'")
    assert lines[-1] == "0 passed, 2 failed"


def test_examples_command_passes_on_one_rule(capsys) -> None:
    assert main(["examples", "R17"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert {line.split()[0] for line in lines[1:-1]} == {"R17"}
    assert lines[-1].endswith(" passed, 0 failed")


def test_examples_command_unknown_rule(capsys) -> None:
    assert main(["examples", "R99"]) == 2
    assert "unknown rule id(s): R99" in capsys.readouterr().err
