"""Score a reviewer's answers against the tasks' keys.

A finding HITS a defect of its task when it cites the defect's rule or one of its ``also``
(any rule, or none, for a defect no rule covers), names the defect's file, and its lines
overlap the defect's widened by :data:`~.tasks.TOLERANCE` each side. Each defect counts once:
a later finding on a defect already hit is a DUPLICATE, neither hit nor noise. A finding that
hits nothing is VALID when it touches lines we judged a real issue (each verdict once; more
are duplicates), else NOISE. Findings are judged in the answer's order.

Hits and cases count in the defect's rule's row, noise and valid findings in the row of the
rule they cite (:data:`~.tasks.OUTSIDE` for a finding outside the rules). A defect is FOUND when
any finding touches its lines, whatever rule it cites: a reviewer given no rules can find a
defect but never hit it, so ``found`` is what compares a review with rules to one without.
Per row and overall:
recall = hits / cases, precision = hits / (hits + noise), F1, and signal-to-noise =
(hits + valid) / max(noise, 1).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from .tasks import OUTSIDE, Expected, Group, Task, ValidRegion, touches


class Outcome(StrEnum):
    HIT = "hit"
    DUPLICATE = "duplicate"
    VALID = "valid"
    NOISE = "noise"


@dataclass(frozen=True, slots=True)
class Answered:
    """One finding of an answer, as the scorer reads it: the rule it cites (None: outside the
    rules) and where."""

    rule: str | None
    path: str
    start_line: int
    end_line: int


@dataclass(frozen=True, slots=True)
class Judged:
    """A finding, what it scored, and the defect or verdict it scored on (if any).
    ``miscited``: a noise finding on a defect's lines, citing a rule the defect does not take."""

    finding: Answered
    outcome: Outcome
    on: str | None = None
    miscited: bool = False

    @property
    def row(self) -> str:
        return self.finding.rule or OUTSIDE


@dataclass(frozen=True, slots=True)
class TaskScore:
    """One task's judged findings, the defects no finding hit, and why its answer could not
    be read (then it scored as no finding)."""

    task: Task
    judged: tuple[Judged, ...]
    missed: tuple[Expected, ...]
    invalid: tuple[str, ...] = ()
    found: tuple[Expected, ...] = ()


def judge(task: Task, findings: Sequence[Answered], invalid: Sequence[str] = ()) -> TaskScore:
    """Judge one task's findings, in their order."""
    hit: set[Expected] = set()
    found: set[Expected] = set()
    used: set[ValidRegion] = set()
    judged = []
    for finding in findings:
        where = (finding.path, finding.start_line, finding.end_line)
        touched = [e for e in task.expected if touches(*where, e)]
        found.update(touched)
        on_defects = [e for e in touched if e.accepts(finding.rule)]
        fresh = [e for e in on_defects if e not in hit]
        if fresh:
            hit.add(fresh[0])
            judged.append(Judged(finding, Outcome.HIT, fresh[0].label))
            continue
        if on_defects:
            judged.append(Judged(finding, Outcome.DUPLICATE, on_defects[0].label))
            continue
        on_valid = [v for v in task.valid if touches(*where, v)]
        fresh_valid = [v for v in on_valid if v not in used]
        if fresh_valid:
            used.add(fresh_valid[0])
            judged.append(Judged(finding, Outcome.VALID, fresh_valid[0].label))
        elif on_valid:
            judged.append(Judged(finding, Outcome.DUPLICATE, on_valid[0].label))
        else:
            judged.append(Judged(finding, Outcome.NOISE, miscited=bool(touched)))
    missed = tuple(e for e in task.expected if e not in hit)
    in_order = tuple(e for e in task.expected if e in found)
    return TaskScore(task, tuple(judged), missed, tuple(invalid), in_order)


@dataclass(slots=True)
class Tally:
    """One row's counts and the figures from them (None where a figure has no denominator)."""

    cases: int = 0
    hits: int = 0
    found: int = 0
    noise: int = 0
    valid: int = 0
    duplicates: int = 0

    def add(self, other: Tally) -> None:
        self.cases += other.cases
        self.hits += other.hits
        self.found += other.found
        self.noise += other.noise
        self.valid += other.valid
        self.duplicates += other.duplicates

    @property
    def recall(self) -> float | None:
        return self.hits / self.cases if self.cases else None

    @property
    def precision(self) -> float | None:
        flagged = self.hits + self.noise
        return self.hits / flagged if flagged else None

    @property
    def f1(self) -> float | None:
        recall, precision = self.recall, self.precision
        if recall is None or precision is None:
            return None
        return 2 * recall * precision / (recall + precision) if recall + precision else 0.0

    @property
    def signal_to_noise(self) -> float:
        return (self.hits + self.valid) / max(self.noise, 1)


@dataclass(frozen=True, slots=True)
class Table:
    """Rows by rule (the library's order, then :data:`~.tasks.OUTSIDE`) and their total."""

    rows: dict[str, Tally]
    total: Tally = field(default_factory=Tally)


@dataclass(frozen=True, slots=True)
class ExamScore:
    """Every task's score, and the tables they give."""

    tasks: tuple[TaskScore, ...]
    rule_order: tuple[str, ...]

    @property
    def invalid(self) -> tuple[TaskScore, ...]:
        return tuple(score for score in self.tasks if score.invalid)

    def table(self, group: Group | None = None) -> Table:
        """The rows of ``group``'s tasks (None: every task)."""
        rows: dict[str, Tally] = {}
        for score in self.tasks:
            if group is not None and score.task.group is not group:
                continue
            for expected in score.task.expected:
                tally = rows.setdefault(expected.row, Tally())
                tally.cases += 1
                tally.found += expected in score.found
            for judged in score.judged:
                row = judged.row
                if judged.outcome is Outcome.HIT:
                    row = next(e.row for e in score.task.expected if e.label == judged.on)
                tally = rows.setdefault(row, Tally())
                if judged.outcome is Outcome.HIT:
                    tally.hits += 1
                elif judged.outcome is Outcome.NOISE:
                    tally.noise += 1
                elif judged.outcome is Outcome.VALID:
                    tally.valid += 1
                else:
                    tally.duplicates += 1
        order = {rule: n for n, rule in enumerate((*self.rule_order, OUTSIDE))}
        ordered = dict(
            sorted(rows.items(), key=lambda item: (order.get(item[0], len(order)), item[0]))
        )
        total = Tally()
        for tally in ordered.values():
            total.add(tally)
        return Table(ordered, total)


def score_exam(
    tasks: Iterable[Task],
    answers: Mapping[str, Sequence[Answered]],
    rule_order: Sequence[str],
    invalid: Mapping[str, Sequence[str]] | None = None,
) -> ExamScore:
    """Judge every task's answer (``answers[task.id]``; missing: no finding); ``invalid``
    holds why a task's answer could not be read."""
    problems = invalid or {}
    return ExamScore(
        tuple(judge(task, answers.get(task.id, ()), problems.get(task.id, ())) for task in tasks),
        tuple(rule_order),
    )
