"""The whole exam: the library's tasks, and the real ones when there is exam data."""

from __future__ import annotations

from pathlib import Path

from ..library.model import Library
from .data import ExamData, load_exam_data
from .library_tasks import library_tasks
from .real_tasks import real_tasks
from .sources import Corpora
from .tasks import Exam, assemble, unknown_rules


def build_exam(library: Library, data: ExamData | None, corpus_root: Path | None) -> Exam:
    """Every task: two per pair of the library's active rules, and one per case, control and
    real change of ``data`` (read against the corpora under ``corpus_root``).
    :class:`~.data.ExamDataError` (or its :class:`~.sources.CorpusError`) with every problem."""
    tasks = library_tasks(library)
    if data is not None and (data.cases or data.controls or data.changes):
        problem = unknown_rules(library, data)
        if problem is not None:
            raise problem
        tasks += real_tasks(data, Corpora(corpus_root or Path(".cache/corpus")))
    return assemble(tasks)


def open_exam(library: Library, cases: Path | None, corpus_root: Path | None) -> Exam:
    """:func:`build_exam` from the exam folder ``cases`` (None: the library's tasks only)."""
    data = load_exam_data(cases) if cases is not None else None
    return build_exam(library, data, corpus_root)
