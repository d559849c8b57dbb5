"""A reviewer's answers: ``ANSWERS/<task id>.yaml`` (or ``.yml``, ``.json``), one findings file
per task, in the project's findings format, locations relative to the task's ``repo/``.

Each answer is checked as ``rlt-rules findings check FILE --repo DIR/<id>/repo`` checks it
(schema, library, the files and lines it points at). A missing file is an answer with no
finding; a file that does not pass is reported with its problems and scores as no finding,
so one broken answer never stops the others from being scored.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..findings.check import check_review
from ..library.model import Library
from .output import REPO
from .scoring import Answered

#: The names an answer file may have, tried in this order.
SUFFIXES = (".yaml", ".yml", ".json")


@dataclass(frozen=True, slots=True)
class ReadAnswers:
    """Each task's findings (only tasks with a valid answer file), and each invalid answer's
    problems as ``path:line:column: message`` lines."""

    findings: dict[str, tuple[Answered, ...]]
    invalid: dict[str, tuple[str, ...]]


def answer_file(answers: Path, task_id: str) -> Path | None:
    for suffix in SUFFIXES:
        path = answers / f"{task_id}{suffix}"
        if path.exists():
            return path
    return None


def read_answers(
    answers: Path, tasks_dir: Path, task_ids: tuple[str, ...], library: Library
) -> ReadAnswers:
    """The answers in ``answers`` to the tasks of ``tasks_dir``."""
    findings: dict[str, tuple[Answered, ...]] = {}
    invalid: dict[str, tuple[str, ...]] = {}
    for task_id in task_ids:
        path = answer_file(answers, task_id)
        if path is None:
            continue
        result = check_review(path, library, repo=tasks_dir / task_id / REPO)
        if result.review is None:
            invalid[task_id] = tuple(str(d) for d in result.errors)
            continue
        findings[task_id] = tuple(
            Answered(
                # A finding outside the rules cites no rule (its kind says so).
                finding.rule or None,
                finding.location.path,
                finding.location.start_line,
                finding.location.end_line,
            )
            for finding in result.review.findings
        )
    return ReadAnswers(findings, invalid)


def stray_answers(answers: Path, task_ids: tuple[str, ...]) -> list[str]:
    """Files of ``answers`` that answer no task of the list (a typo in a name, a task of
    another build)."""
    known = {f"{task_id}{suffix}" for task_id in task_ids for suffix in SUFFIXES}
    return sorted(
        path.name for path in answers.iterdir() if path.is_file() and path.name not in known
    )
