"""Every rule's good and bad examples run, print what their #> comments say, and pass ruff."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest
import yaml
from pytest_examples import CodeExample, EvalExample

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _examples():
    for path in sorted((ROOT / "rules").glob("R*.yaml")):
        node = yaml.compose(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
        top = {key.value: value for key, value in node.value}
        rule_id = top["id"].value
        for item in top.get("examples", yaml.SequenceNode("", [])).value:
            fields = {key.value: value for key, value in item.value}
            code_node = fields["code"]
            test_id = f"{rule_id}-{fields['kind'].value}-{fields['name'].value}"
            yield pytest.param(path, code_node.value, code_node.start_mark.line + 1, id=test_id)


@pytest.mark.parametrize(("path", "code", "start_line"), list(_examples()))
def test_example(eval_example: EvalExample, path, code, start_line):
    example = CodeExample.create(code, path=path.relative_to(ROOT), start_line=start_line)
    eval_example.lint_ruff(example)
    # ruff format rewrites "#>" to "# >"; "#:" it leaves alone, so check the code with that
    # one-character swap: any other formatting difference still fails.
    formatted = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--diff", "--stdin-filename", "example.py", "-"],
        input=code.replace("#>", "#:"),
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert formatted.returncode == 0, (
        f"{path.name}:{start_line}: ruff format would change:\n{formatted.stdout}"
    )
    eval_example.run_print_check(example)
