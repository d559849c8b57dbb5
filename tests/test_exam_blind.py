"""Every real case and control was answered blind as written.

``exam/sglang-0.5.23/blind-reads.yaml`` holds what a reader who did not write the cases named
for each task: the rule and the lines, or none. A case whose blind read names another rule (not
its rule nor an ``also``), other lines, or a control read as breaking a rule, is rewritten or
dropped; a case changed since its read (its task id differs) needs a new read.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from corpus_pins import CORPUS, require_corpora

from rlt_rules import load_library
from rlt_rules.exam import TOLERANCE, TaskKind, open_exam

ROOT = Path(__file__).resolve().parents[1]
READS = ROOT / "exam" / "sglang-0.5.23" / "blind-reads.yaml"
#: The tasks every blind read covers (a real change is scored, not read blind).
BLIND = (TaskKind.CASE, TaskKind.CONTROL)


def disagreements(tasks, reads: list[dict]) -> list[str]:
    """Why each injected case or control of ``tasks`` lacks a current, agreeing blind read."""
    by_case = {read["case"]: read for read in reads}
    problems = []
    for task in tasks:
        if task.kind not in BLIND:
            continue
        read = by_case.get(task.source)
        if read is None:
            problems.append(f"{task.source}: no blind read")
            continue
        if read["task"] != task.id:
            problems.append(f"{task.source}: changed since its blind read ({read['task']})")
            continue
        named = read.get("rule")
        if not task.expected:
            if named is not None:
                problems.append(f"{task.source}: a control read as breaking {named}")
            continue
        (defect,) = task.expected
        if not defect.accepts(named):
            problems.append(f"{task.source}: read as {named}, written as {defect.rule}")
        elif not (
            read["start_line"] <= defect.end_line + TOLERANCE
            and defect.start_line - TOLERANCE <= read["end_line"]
        ):
            problems.append(f"{task.source}: read at other lines {read['start_line']}")
    return problems


def test_every_real_case_and_control_was_read_blind_as_written() -> None:
    require_corpora()
    exam = open_exam(load_library(ROOT / "rules"), ROOT / "exam", CORPUS)
    reads = yaml.safe_load(READS.read_text(encoding="utf-8"))
    assert disagreements(exam.tasks, reads) == []
    real = [task for task in exam.tasks if task.kind in BLIND]
    assert len(real) == len(reads) >= 61


def test_the_check_sees_a_read_that_disagrees() -> None:
    """The check above can fail: another rule, other lines, a control read as a defect, a
    changed case."""
    from rlt_rules.exam.tasks import Expected, Task

    def task(source: str, expected: tuple) -> Task:
        kind = TaskKind.CASE if expected else TaskKind.CONTROL
        return Task("t-00000001", kind, source, (), "", expected, ())

    case = task("R03-x", (Expected("R03-x", "R03", ("R02",), "a.py", 10, 12),))
    control = task("control-y", ())
    read = {"case": "R03-x", "task": "t-00000001", "rule": "R02", "start_line": 11, "end_line": 11}
    assert disagreements([case], [read]) == []
    assert disagreements([case], [{**read, "rule": "R05"}]) == [
        "R03-x: read as R05, written as R03"
    ]
    assert disagreements([case], [{**read, "start_line": 40, "end_line": 41}]) == [
        "R03-x: read at other lines 40"
    ]
    assert disagreements([case], [{**read, "task": "t-99999999"}]) == [
        "R03-x: changed since its blind read (t-99999999)"
    ]
    assert disagreements([control], [{"case": "control-y", "task": "t-00000001", "rule": "R07"}])
    assert disagreements([control], []) == ["control-y: no blind read"]
