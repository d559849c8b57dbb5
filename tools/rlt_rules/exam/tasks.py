"""What a reviewer is given, and what the scorer knows of it: tasks with their answer key.

A :class:`Task` is a repository state (its files) and the change to review (a unified diff);
its answer key is the defects it holds (:class:`Expected`) and the lines where we judged a
finding valid though not the planted defect (:class:`ValidRegion`). A task's id is ``t-`` and
8 hex digits of a hash of its content: it names nothing of its answer, and a task whose content
changes (an edited example, a moved case) gets another id, so answers written for the old one
are never scored against the new.

:func:`build_exam` gathers the library's tasks (:mod:`.library_tasks`) and the real ones
(:mod:`.real_tasks`), in id order.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from enum import StrEnum

from ..library.model import Diagnostic, Library
from .data import ExamData, ExamDataError

#: The row of a report for findings that cite no rule, and defects no rule covers.
OUTSIDE = "outside-rules"
#: Lines a finding may be off by, each side of a defect's lines, and still touch it.
TOLERANCE = 3


class Group(StrEnum):
    """Where a task comes from: the library's example pairs, or real engine code."""

    LIBRARY = "library"
    REAL = "real"


class TaskKind(StrEnum):
    """What a task is: an injected case, a control (engine code as it is), a real change, or a
    library pair's bad or good program."""

    CASE = "case"
    CONTROL = "control"
    CHANGE = "change"
    LIBRARY_BAD = "library-bad"
    LIBRARY_GOOD = "library-good"

    @property
    def group(self) -> Group:
        library = self in (TaskKind.LIBRARY_BAD, TaskKind.LIBRARY_GOOD)
        return Group.LIBRARY if library else Group.REAL


@dataclass(frozen=True, slots=True)
class Expected:
    """A defect a task holds. A finding hits it when it names ``path``, its lines overlap
    ``start_line..end_line`` widened by :data:`TOLERANCE` each side, and it cites ``rule`` or
    one of ``also`` (any rule, or none, when ``rule`` is None)."""

    label: str
    rule: str | None
    also: tuple[str, ...]
    path: str
    start_line: int
    end_line: int

    @property
    def row(self) -> str:
        """The report row the defect counts in."""
        return self.rule or OUTSIDE

    def accepts(self, rule: str | None) -> bool:
        return self.rule is None or rule in (self.rule, *self.also)


@dataclass(frozen=True, slots=True)
class ValidRegion:
    """Lines of a task where we judged a real issue other than the planted one: a finding
    touching them (same tolerance) that hits no defect is valid, not noise."""

    label: str
    path: str
    start_line: int
    end_line: int
    why: str


def touches(path: str, start: int, end: int, target: Expected | ValidRegion) -> bool:
    """Whether lines ``start..end`` of ``path`` overlap ``target``'s, widened by
    :data:`TOLERANCE` each side."""
    return (
        path == target.path
        and start <= target.end_line + TOLERANCE
        and target.start_line - TOLERANCE <= end
    )


@dataclass(frozen=True, slots=True)
class TaskFile:
    """A file of the task's repository: its path relative to the repository, and its text."""

    path: str
    text: str


@dataclass(frozen=True, slots=True)
class Task:
    """One review task and its answer key. ``source`` says what it was built from (a case's
    id, a pair): for the scorer's report only, never written into the task."""

    id: str
    kind: TaskKind
    source: str
    files: tuple[TaskFile, ...]
    diff: str
    expected: tuple[Expected, ...] = ()
    valid: tuple[ValidRegion, ...] = ()

    @property
    def group(self) -> Group:
        return self.kind.group


def make_task(
    kind: TaskKind,
    source: str,
    files: tuple[TaskFile, ...],
    diff: str,
    expected: tuple[Expected, ...] = (),
    valid: tuple[ValidRegion, ...] = (),
) -> Task:
    """A task whose id is a hash of its content."""
    digest = hashlib.sha256(diff.encode("utf-8"))
    for file in files:
        digest.update(b"\0" + file.path.encode("utf-8") + b"\0" + file.text.encode("utf-8"))
    return Task(f"t-{digest.hexdigest()[:8]}", kind, source, files, diff, expected, valid)


@dataclass(frozen=True, slots=True)
class Exam:
    """Every task, in id order."""

    tasks: tuple[Task, ...]

    def task(self, task_id: str) -> Task | None:
        for task in self.tasks:
            if task.id == task_id:
                return task
        return None


def assemble(tasks: list[Task]) -> Exam:
    """The tasks in id order; :class:`ExamDataError` when two share an id (the same content
    twice)."""
    by_id: dict[str, Task] = {}
    for task in tasks:
        other = by_id.setdefault(task.id, task)
        if other is not task:
            raise ExamDataError(
                [
                    Diagnostic(
                        "exam",
                        1,
                        1,
                        f"{task.source} and {other.source} give the same task {task.id}: "
                        "make one of them differ",
                    )
                ]
            )
    return Exam(tuple(sorted(tasks, key=lambda t: t.id)))


def unknown_rules(library: Library, data: ExamData) -> ExamDataError | None:
    """The cases and defects citing a rule the library does not have, as one error."""
    known = {rule.id for rule in library.rules}
    problems = []
    for case in data.cases:
        for rule in (case.rule, *case.also):
            if rule not in known:
                problems.append(case.where.problem(f"rule {rule} is not in the library"))
    for change in data.changes:
        for defect in change.defects:
            for rule in (*((defect.rule,) if defect.rule else ()), *defect.also):
                if rule not in known:
                    problems.append(defect.where.problem(f"rule {rule} is not in the library"))
    return ExamDataError(problems) if problems else None
