"""The reviewer exam: tasks with known answers, and a scorer for any reviewer's answers.

Tasks come from the library (:mod:`.library_tasks`: every example pair gives a bad and a good
program) and from real engine code (:mod:`.real_tasks`: cases injected into a pinned corpus,
negative controls, real changes), read from an exam folder (:mod:`.data`) against the fetched
corpora (:mod:`.sources`). :mod:`.output` writes them for a reviewer (no answer in them);
:mod:`.answers` reads a reviewer's findings files, :mod:`.scoring` judges them (hit, duplicate,
valid, noise) and :mod:`.report` prints the figures. :mod:`.detectors` has the library's
detectors sit the exam; :mod:`.ratchet` holds their figures from falling.

Layer: beside the MCP server; it uses ``scan`` and ``findings``; only the CLI imports it.
"""

from __future__ import annotations

from .build import build_exam, open_exam
from .data import ExamData, ExamDataError, load_exam_data
from .sources import CorpusError
from .tasks import OUTSIDE, TOLERANCE, Exam, Expected, Group, Task, TaskKind

__all__ = [
    "OUTSIDE",
    "TOLERANCE",
    "CorpusError",
    "Exam",
    "ExamData",
    "ExamDataError",
    "Expected",
    "Group",
    "Task",
    "TaskKind",
    "build_exam",
    "load_exam_data",
    "open_exam",
]
