"""The detectors sit the exam: ``scan --diff`` on every task, each hint a finding of its rule.

Every task's repository is written under one temporary folder and scanned in one run (the
scanner batches files into a few ``ast-grep`` calls), keeping hints on the lines each task's
diff adds, as ``rlt-rules scan --diff`` does; each hint becomes a finding of its rule on its
lines, and the findings are scored as any reviewer's answers.
"""

from __future__ import annotations

import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from ..files.config import RepoConfig
from ..library.model import Library, Status
from ..scan import REASONLESS, UNUSED, changed_lines, plan_scan, scan
from .output import REPO
from .scoring import Answered, ExamScore, score_exam
from .tasks import Exam


@dataclass(frozen=True, slots=True)
class DetectorRun:
    """Each task's hints as findings, and what kept the scan from reading a file or running a
    detector on it to the end (then hints may be missing)."""

    answers: dict[str, tuple[Answered, ...]]
    problems: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DetectorExam:
    """The detectors' score, the scan's problems (see :class:`DetectorRun`), and the active
    rules no detector of the set covers: their cases are left to reviewers."""

    score: ExamScore
    problems: tuple[str, ...]
    left_to_reviewers: tuple[str, ...] = ()


def undetected_rules(library: Library, *, preview: bool) -> tuple[str, ...]:
    """The active rules without a detector in the set (the default detectors, or with
    ``preview`` every detector): no hint of the set can ever hit their cases."""
    return tuple(
        rule.id
        for rule in library.rules
        if rule.status is Status.ACTIVE
        and not any(preview or not detector.preview for detector in rule.detectors)
    )


def detector_answers(
    exam: Exam, library: Library, *, preview: bool, config: RepoConfig | None = None
) -> DetectorRun:
    """Each task's hints as findings: the default detectors, and the preview ones too with
    ``preview`` (``config``'s ``select`` and ``ignore`` apply, as in ``scan``)."""
    plan = plan_scan(library, config or RepoConfig(), select=None, preview=preview)
    found: dict[str, list[Answered]] = defaultdict(list)
    with tempfile.TemporaryDirectory(prefix="rlt-exam-scan-") as tmp:
        root = Path(tmp)
        changed: dict[str, frozenset[int]] = {}
        paths = []
        for task in exam.tasks:
            for file in task.files:
                target = root / task.id / REPO / file.path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(file.text, encoding="utf-8")
            for path, lines in changed_lines(task.diff).items():
                if path.endswith((".py", ".pyi")) and (root / task.id / REPO / path).is_file():
                    changed[f"{task.id}/{REPO}/{path}"] = lines
                    paths.append(root / task.id / REPO / path)
        result = scan(paths, plan.detectors, changed=changed, root=root, plan=plan)
    for file_hit in result.hits:
        hit = file_hit.hit
        if hit.detector_id in (REASONLESS, UNUSED):
            continue
        task_id, _, path = file_hit.path.partition(f"/{REPO}/")
        found[task_id].append(Answered(hit.rule_id, path, hit.line, hit.end_line))
    return DetectorRun(
        {task_id: tuple(findings) for task_id, findings in found.items()},
        tuple(f"{problem.path}: {problem.message}" for problem in result.problems),
    )


def score_detectors(
    exam: Exam, library: Library, *, preview: bool, config: RepoConfig | None = None
) -> DetectorExam:
    """The detectors' exam score (see :func:`detector_answers`)."""
    run = detector_answers(exam, library, preview=preview, config=config)
    score = score_exam(exam.tasks, run.answers, [rule.id for rule in library.rules])
    return DetectorExam(score, run.problems, undetected_rules(library, preview=preview))
