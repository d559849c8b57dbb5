"""An exam score as people read it (a table per group of tasks) and as tools read it (JSON)."""

from __future__ import annotations

from typing import Any

from ..files.jsonout import indented
from .scoring import ExamScore, Table, Tally
from .tasks import OUTSIDE, TOLERANCE, Group

#: The columns of a table: heading, width.
_COLUMNS = (
    ("rule", 14),
    ("cases", 6),
    ("hits", 5),
    ("found", 6),
    ("recall", 7),
    ("noise", 6),
    ("valid", 6),
    ("dup", 4),
    ("precision", 10),
    ("F1", 6),
    ("S/N", 7),
)


def _ratio(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _row(name: str, tally: Tally) -> str:
    cells = (
        name,
        str(tally.cases),
        str(tally.hits),
        str(tally.found),
        _ratio(tally.recall),
        str(tally.noise),
        str(tally.valid),
        str(tally.duplicates),
        _ratio(tally.precision),
        _ratio(tally.f1),
        _ratio(tally.signal_to_noise),
    )
    first, *rest = zip(cells, _COLUMNS, strict=True)
    return first[0].ljust(first[1][1]) + "".join(cell.rjust(width) for cell, (_, width) in rest)


def table_text(table: Table) -> list[str]:
    """A table's lines: a heading, one row per rule, the total."""
    heading = _COLUMNS[0][0].ljust(_COLUMNS[0][1]) + "".join(
        name.rjust(width) for name, width in _COLUMNS[1:]
    )
    lines = [heading]
    lines.extend(_row(rule, tally) for rule, tally in table.rows.items())
    lines.append(_row("all", table.total))
    return lines


def _groups(score: ExamScore) -> list[tuple[str, Group | None]]:
    present = {s.task.group for s in score.tasks}
    groups: list[tuple[str, Group | None]] = [
        (str(group), group) for group in Group if group in present
    ]
    return [*groups, ("all", None)] if len(groups) > 1 else groups or [("all", None)]


def covered_tally(score: ExamScore, left_to_reviewers: tuple[str, ...]) -> Tally | None:
    """The real tasks' figures over the rules a detector of the set covers (every rule row but
    ``left_to_reviewers`` and findings outside the rules); None without real tasks."""
    if not any(s.task.group is Group.REAL for s in score.tasks):
        return None
    covered = Tally()
    for rule, tally in score.table(Group.REAL).rows.items():
        if rule not in left_to_reviewers and rule != OUTSIDE:
            covered.add(tally)
    return covered


def _left_lines(score: ExamScore, left_to_reviewers: tuple[str, ...]) -> list[str]:
    if not left_to_reviewers:
        return []
    lines = [
        "",
        f"left to reviewers (no detector in this set): {', '.join(left_to_reviewers)}; each "
        "rule's page says why",
    ]
    covered = covered_tally(score, left_to_reviewers)
    if covered is not None:
        lines.append(
            f"real tasks of the rules with a detector in this set: {covered.cases} case(s), "
            f"{covered.hits} hit(s), recall {_ratio(covered.recall)}, noise {covered.noise}, "
            f"precision {_ratio(covered.precision)}"
        )
    return lines


def text_report(
    score: ExamScore, title: str = "Exam", *, left_to_reviewers: tuple[str, ...] = ()
) -> str:
    """Per group of tasks (library, real) and overall: cases, hits, recall, noise, valid,
    duplicates, precision, F1 and signal-to-noise per rule; then, for the detectors, the rules
    no detector of the set covers (``left_to_reviewers``), and the invalid answers."""
    tasks = score.tasks
    lines = [
        f"{title}: {len(tasks)} task(s). A finding hits a defect when it cites its rule (or "
        f"an allowed alternative), names its file and touches its lines within {TOLERANCE} "
        "lines; found: defects any finding touched, whatever rule it cites; "
        "S/N = (hits + valid) / max(noise, 1).",
    ]
    for name, group in _groups(score):
        chosen = [s for s in tasks if group is None or s.task.group is group]
        defects = sum(len(s.task.expected) for s in chosen)
        lines += ["", f"{name} tasks: {len(chosen)}, {defects} defect(s)"]
        lines += table_text(score.table(group))
    lines += _left_lines(score, left_to_reviewers)
    if score.invalid:
        lines += ["", f"invalid answers, scored as no finding: {len(score.invalid)}"]
        for task_score in score.invalid:
            lines += [f"  {task_score.task.id}: {problem}" for problem in task_score.invalid]
    return "\n".join(lines) + "\n"


def _figures(tally: Tally) -> dict[str, Any]:
    def rounded(value: float | None) -> float | None:
        return None if value is None else round(value, 4)

    return {
        "cases": tally.cases,
        "hits": tally.hits,
        "found": tally.found,
        "recall": rounded(tally.recall),
        "noise": tally.noise,
        "valid": tally.valid,
        "duplicates": tally.duplicates,
        "precision": rounded(tally.precision),
        "f1": rounded(tally.f1),
        "signal_to_noise": rounded(tally.signal_to_noise),
    }


def table_data(table: Table) -> dict[str, Any]:
    return {
        "rules": {rule: _figures(tally) for rule, tally in table.rows.items()},
        "total": _figures(table.total),
    }


def json_report(score: ExamScore, *, left_to_reviewers: tuple[str, ...] | None = None) -> bytes:
    """The tables of :func:`text_report`, and every task's judged findings and missed defects;
    for the detectors, ``left_to_reviewers`` too."""
    data: dict[str, Any] = {
        "tolerance": TOLERANCE,
        "tasks": len(score.tasks),
        "groups": {name: table_data(score.table(group)) for name, group in _groups(score)},
        "invalid": {s.task.id: list(s.invalid) for s in score.invalid},
        "results": [
            {
                "task": s.task.id,
                "group": str(s.task.group),
                "source": s.task.source,
                "findings": [
                    {
                        "rule": judged.finding.rule,
                        "path": judged.finding.path,
                        "start_line": judged.finding.start_line,
                        "end_line": judged.finding.end_line,
                        "outcome": str(judged.outcome),
                        "on": judged.on,
                    }
                    for judged in s.judged
                ],
                "missed": [expected.label for expected in s.missed],
                "found": [expected.label for expected in s.found],
            }
            for s in score.tasks
        ],
    }
    if left_to_reviewers is not None:
        data["left_to_reviewers"] = list(left_to_reviewers)
        covered = covered_tally(score, left_to_reviewers)
        if covered is not None:
            data["covered_real"] = _figures(covered)
    return indented(data)
