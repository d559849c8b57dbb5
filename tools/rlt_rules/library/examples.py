"""Run a rule's examples (and its practice programs) and compare what they print with their
``#>`` comments.

Uses pytest-examples' own runner and print capture (the same semantics as the test suite)
without starting pytest, so authors get a quick table while editing a rule.
"""

from __future__ import annotations

import difflib
import tempfile
import traceback
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from pytest_examples import CodeExample
from pytest_examples.config import ExamplesConfig
from pytest_examples.run_code import run_code

from .model import Example, PracticeProgram, Rule

#: What is run: an example, or a program of the practice bank (run the same way).
Program = Example | PracticeProgram

#: How the examples are linted and printed: Python 3.12, the project's line length.
EXAMPLES_CONFIG = ExamplesConfig(
    line_length=100, quotes="double", target_version="py312", ruff_line_length=100
)


class ExampleResult(StrEnum):
    """How running one example ended."""

    PASSED = "passed"
    #: It ran, and what it printed differs from its ``#>`` lines.
    WRONG_OUTPUT = "wrong-output"
    #: It raised an exception.
    RAISED = "raised"


@dataclass(frozen=True, slots=True)
class ExampleOutcome:
    """Explicit result of running one example.

    ``line`` is the YAML line of the first difference (or of the exception), when known;
    ``detail`` says what differed (``expected '…', got '…'``) or which exception was raised.
    """

    rule_id: str
    example: Program
    result: ExampleResult
    line: int | None = None
    detail: str = ""

    @property
    def passed(self) -> bool:
        return self.result is ExampleResult.PASSED

    @property
    def kind(self) -> str:
        """``bad`` or ``good`` for an example, ``practice`` for a practice program."""
        return kind_of(self.example)

    @property
    def location(self) -> str:
        source = self.example.code_source
        path = source.path if source is not None else "<bundle>"
        return f"{path}:{self.line}" if self.line is not None else path


def kind_of(program: Program) -> str:
    """``bad`` or ``good`` for an example, ``practice`` for a practice program."""
    return str(program.kind) if isinstance(program, Example) else "practice"


def code_example(example: Program) -> CodeExample:
    """The pytest-examples view of an example: its YAML file, and lines counted from there."""
    source = example.code_source
    if source is None:
        return CodeExample.create(example.code, path=Path(f"{example.name}.py"))
    # ``start_line`` is the line before the code: pytest-examples reports start_line + n.
    return CodeExample.create(example.code, path=Path(source.path), start_line=source.line - 1)


def yaml_line(example: Program, code_line: int) -> int | None:
    """YAML line of the 1-based line ``code_line`` inside the example's code."""
    if example.code_source is None:
        return None
    return example.code_source.line + code_line - 1


def first_difference(example: Program, printed_code: str) -> tuple[int, str]:
    """Where the code with the actual output inserted first differs from the code as written."""
    written = example.code.splitlines()
    actual = printed_code.splitlines()
    matcher = difflib.SequenceMatcher(a=written, b=actual, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        expected_line = written[i1].strip() if i1 < i2 else "(nothing)"
        actual_line = actual[j1].strip() if j1 < j2 else "(nothing)"
        return i1 + 1, f"expected {expected_line!r}, got {actual_line!r}"
    return 1, "output differs"


def check_example(rule: Rule, example: Program) -> ExampleOutcome:
    """Run ``example`` with print capture; pass when every ``#>`` block matches its print."""
    code = code_example(example)
    with tempfile.TemporaryDirectory(prefix="rlt-example-") as tmp:
        python_file = Path(tmp) / f"{code.module_name}.py"
        python_file.write_text(code.source, encoding="utf-8")
        try:
            printed, _ = run_code(
                example=code,
                python_file=python_file,
                loader=None,
                config=EXAMPLES_CONFIG,
                enable_print_mock=True,
                print_callback=None,
                include_print=None,
                module_globals=None,
                call=None,
            )
        except Exception as error:  # the example's own failure is the outcome, not a crash
            # pytest-examples rewrites the traceback to point into the YAML file itself.
            frames = [
                frame
                for frame in traceback.extract_tb(error.__traceback__)
                if frame.filename in (str(code.path), str(python_file))
            ]
            line = None
            if frames and frames[-1].lineno:
                last = frames[-1]
                from_yaml = last.filename == str(code.path)
                line = last.lineno if from_yaml else yaml_line(example, last.lineno)
            return ExampleOutcome(
                rule.id,
                example,
                ExampleResult.RAISED,
                line,
                f"raised {type(error).__name__}: {error}",
            )
        updated = printed.updated_print_statements(code)
    if updated is None:
        return ExampleOutcome(rule.id, example, ExampleResult.PASSED)
    code_line, detail = first_difference(example, updated)
    return ExampleOutcome(
        rule.id, example, ExampleResult.WRONG_OUTPUT, yaml_line(example, code_line), detail
    )


def check_rules(rules: tuple[Rule, ...]) -> tuple[ExampleOutcome, ...]:
    """Every example of each rule, then its practice programs."""
    return tuple(
        check_example(rule, program)
        for rule in rules
        for program in (*rule.examples, *rule.practice)
    )
