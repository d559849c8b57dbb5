"""``rlt-rules exam build|score|detectors|ratchet``: a reviewer's exam with known answers.

``build`` writes the tasks for a reviewer (no answer in them), ``score`` scores a reviewer's
answers (one findings file per task), ``detectors`` scores the library's detectors on every
task, ``ratchet`` holds their figures from falling (:mod:`rlt_rules.exam`).

Exit codes: 0 done; 1 when answers were invalid (``score``) or a figure fell (``ratchet``);
2 on usage errors and on exam data or corpora that cannot be read (each problem as
``path:line:column: message`` on stderr).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..exam import ExamDataError, open_exam
from ..exam.answers import read_answers, stray_answers
from ..exam.detectors import score_detectors
from ..exam.output import TasksError, read_index, write_tasks
from ..exam.ratchet import (
    FIGURES,
    SETS,
    FiguresError,
    compare,
    figures_bytes,
    figures_of,
    read_figures,
)
from ..exam.report import json_report, text_report
from ..exam.scoring import score_exam
from ..files.atomic import write_atomic
from .common import EXIT_INVALID, EXIT_OK, EXIT_USAGE, UsageError, add_library_option, workspace

#: The exam folder read by default, when it is there.
DEFAULT_CASES = Path("exam")


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "exam",
        help="exam a reviewer (a person, an agent, the detectors) on tasks with known answers",
        description="Tasks with known answers: two per example pair of the library (the bad "
        "program, the good one) and, from an exam folder, one per case injected into real "
        "engine code, per negative control and per real change. `build` writes them for a "
        "reviewer, `score` scores the answers, `detectors` scores the detectors, `ratchet` "
        "compares their figures with the committed ones.",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

    build = actions.add_parser(
        "build",
        help="write the tasks: DIR/<task>/repo/, change.diff, task.md; DIR/index.json",
        description="Write one folder per task (the repository after the change, the change "
        "as a diff, what to do) and DIR/index.json. No answer is written. DIR must be new, "
        "empty, or written by an earlier build and unchanged since.",
    )
    build.add_argument("--out", metavar="DIR", required=True, help="the tasks folder")
    _data_options(build)
    build.set_defaults(handler=run_build)

    score = actions.add_parser(
        "score",
        help="score a reviewer's answers: ANSWERS/<task>.yaml findings files",
        description="Score the answers to the tasks of --tasks: a findings file per task "
        "(ANSWERS/<task id>.yaml; missing: no finding; invalid: reported, scored as no "
        "finding). Exit 1 when an answer is invalid.",
    )
    score.add_argument("--tasks", metavar="DIR", required=True, help="the folder build wrote")
    score.add_argument("--answers", metavar="DIR", required=True, help="the answers folder")
    _format_option(score)
    _data_options(score)
    score.set_defaults(handler=run_score)

    detectors = actions.add_parser(
        "detectors",
        help="score the detectors: scan --diff on every task, each hint a finding",
        description="Run the detectors on every task's changed lines, as `scan --diff` does, "
        "and score each hint as a finding of its rule.",
    )
    detectors.add_argument(
        "--preview", action="store_true", help="the preview detectors too, as scan --preview"
    )
    _format_option(detectors)
    _data_options(detectors)
    detectors.set_defaults(handler=run_detectors)

    ratchet = actions.add_parser(
        "ratchet",
        help="compare the detectors' figures with the committed ones (exam/detectors.json)",
        description="Score the default and the preview detector sets and compare, per rule, "
        "with the committed figures: exit 1 when a rule's hits fell or its noise rose. "
        "--write writes today's figures.",
    )
    ratchet.add_argument(
        "--figures", metavar="FILE", help=f"the figures (default: {DEFAULT_CASES / FIGURES})"
    )
    ratchet.add_argument("--write", action="store_true", help="write today's figures there")
    _data_options(ratchet)
    ratchet.set_defaults(handler=run_ratchet)


def _data_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--cases",
        metavar="DIR",
        help=f"the exam folder: cases, controls, real changes, verdicts (default: "
        f"{DEFAULT_CASES}/ when there is one; without it only the library's tasks)",
    )
    parser.add_argument(
        "--corpus",
        metavar="DIR",
        help="the folder holding the fetched engine corpora (default: $RLT_CORPUS_CACHE, "
        "else .cache/corpus)",
    )
    add_library_option(parser)


def _format_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=("text", "json"), default="text")


def _exam(args: argparse.Namespace):
    if args.cases is not None:
        cases: Path | None = Path(args.cases)
        if not cases.is_dir():
            raise UsageError(f"--cases {args.cases}: no such folder")
    else:
        cases = DEFAULT_CASES if DEFAULT_CASES.is_dir() else None
    corpus = Path(args.corpus or os.environ.get("RLT_CORPUS_CACHE") or ".cache/corpus")
    found = workspace(args)
    return found, cases, open_exam(found.library, cases, corpus)


def _failed(error: ExamDataError) -> int:
    for diagnostic in error.diagnostics:
        print(diagnostic, file=sys.stderr)
    print("rlt-rules exam: the exam data cannot be read (above)", file=sys.stderr)
    return EXIT_USAGE


def run_build(args: argparse.Namespace) -> int:
    try:
        _, _, exam = _exam(args)
    except ExamDataError as error:
        return _failed(error)
    count = write_tasks(Path(args.out), exam)
    print(f"rlt-rules exam: {count} task(s) in {args.out}", file=sys.stderr)
    return EXIT_OK


def run_score(args: argparse.Namespace) -> int:
    tasks_dir, answers_dir = Path(args.tasks), Path(args.answers)
    if not answers_dir.is_dir():
        raise UsageError(f"--answers {args.answers}: no such folder")
    try:
        index = read_index(tasks_dir)
    except TasksError as error:
        raise UsageError(str(error)) from None
    try:
        found, _, exam = _exam(args)
    except ExamDataError as error:
        return _failed(error)
    library = found.library
    tasks = [exam.task(task_id) for task_id in index.task_ids]
    unknown = [task_id for task_id, task in zip(index.task_ids, tasks, strict=True) if not task]
    if unknown:
        raise UsageError(
            f"{len(unknown)} task(s) of {tasks_dir} ({', '.join(unknown[:3])}…) are not in "
            "this exam: the library or the cases changed since it was built; build the tasks "
            "again and have them answered"
        )
    read = read_answers(answers_dir, tasks_dir, index.task_ids, library)
    for name in stray_answers(answers_dir, index.task_ids):
        print(f"{answers_dir / name}: answers no task of {tasks_dir}: not scored", file=sys.stderr)
    score = score_exam(
        [task for task in tasks if task], read.findings, [r.id for r in library.rules], read.invalid
    )
    _print(json_report(score) if args.format == "json" else text_report(score, "Exam"))
    return EXIT_INVALID if read.invalid else EXIT_OK


def run_detectors(args: argparse.Namespace) -> int:
    try:
        found, _, exam = _exam(args)
    except ExamDataError as error:
        return _failed(error)
    result = score_detectors(exam, found.library, preview=args.preview, config=found.config)
    for problem in result.problems:
        print(problem, file=sys.stderr)
    title = "Detectors, preview set" if args.preview else "Detectors, default set"
    score, left = result.score, result.left_to_reviewers
    _print(
        json_report(score, left_to_reviewers=left)
        if args.format == "json"
        else text_report(score, title, left_to_reviewers=left)
    )
    return EXIT_OK


def run_ratchet(args: argparse.Namespace) -> int:
    try:
        found, cases, exam = _exam(args)
    except ExamDataError as error:
        return _failed(error)
    library = found.library
    path = Path(args.figures) if args.figures else (cases or DEFAULT_CASES) / FIGURES
    current = figures_of(
        {name: score_detectors(exam, library, preview=p).score for name, p in SETS.items()}
    )
    try:
        committed = read_figures(path) if path.exists() or not args.write else {}
    except FiguresError as error:
        raise UsageError(str(error)) from None
    comparison = compare(committed, current)
    _print(comparison.text())
    if args.write:
        write_atomic(path, figures_bytes(current))
        print(f"rlt-rules exam: wrote {path}", file=sys.stderr)
        return EXIT_OK
    return EXIT_INVALID if comparison.regressions else EXIT_OK


def _print(data: str | bytes) -> None:
    sys.stdout.write(data.decode("utf-8") if isinstance(data, bytes) else data)
    sys.stdout.flush()
