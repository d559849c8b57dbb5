"""The tasks folder a reviewer is given: one folder per task and an index, never an answer.

::

    DIR/index.json             the task ids (and the files written, by content hash)
    DIR/t-1a2b3c4d/repo/...    the repository after the change (the head file or files)
    DIR/t-1a2b3c4d/change.diff the change to review (a unified diff, paths relative to repo/)
    DIR/t-1a2b3c4d/task.md     what to review and where to write the answer

The folder is written whole in a sibling staging folder, then renamed into place: a reader
sees the old tasks or the new ones. A folder that is not empty is replaced only when the exam
wrote it and nothing in it changed since (the index records every file it wrote); anything
else is refused before a byte is written, so nothing of anyone's is lost.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..files.atomic import WriteRefused, content_digest, digest, process_running
from ..files.errors import InputError
from ..files.jsonout import indented
from ..render.code import code_span
from .tasks import Exam, Task

INDEX = "index.json"
#: What the index says it is.
KIND = "rlt-rules exam tasks"
REPO = "repo"
DIFF = "change.diff"
NOTE = "task.md"
#: A staging or old folder of this writer, beside the target: ``.<name>.exam-<pid>-<random>``.
_SIDE = re.compile(r"\.(?P<name>.+)\.exam-(?P<pid>[0-9]+)-[^.]+")


class TasksError(InputError):
    """A tasks folder that cannot be read as one: the message says what to do."""


@dataclass(frozen=True, slots=True)
class TasksIndex:
    """What ``index.json`` says: the task ids, and each file written, by content hash."""

    task_ids: tuple[str, ...]
    files: dict[str, str]


def task_note(task_id: str) -> str:
    """``task.md``: the same words for every task but its id."""
    answer = f"ANSWERS/{task_id}.yaml"
    return (
        f"# Review task {task_id}\n\n"
        f"Review the change in {code_span(DIFF)}: a unified diff, paths relative to "
        f"{code_span(REPO + '/')}, which holds the files after the change.\n\n"
        f"Write your findings to {code_span(answer)} (the answers folder you were given) in "
        "the findings format, locations relative to "
        f"{code_span(REPO + '/')}. No finding: write {code_span('findings: []')} or no file. "
        f"From {code_span(REPO + '/')}, {code_span('rlt-rules review-context --diff ../' + DIFF)}"
        " prints the rules and the format.\n"
    )


def task_files(exam: Exam) -> dict[str, bytes]:
    """Every file of the tasks folder, by path relative to it, the index last."""
    files: dict[str, bytes] = {}
    for task in exam.tasks:
        files.update(_files_of(task))
    index = {
        "kind": KIND,
        "tasks": [task.id for task in exam.tasks],
        "files": {path: digest(data) for path, data in sorted(files.items())},
    }
    files[INDEX] = indented(index)
    return files


def _files_of(task: Task) -> dict[str, bytes]:
    found = {f"{task.id}/{REPO}/{file.path}": file.text.encode("utf-8") for file in task.files}
    found[f"{task.id}/{DIFF}"] = task.diff.encode("utf-8")
    found[f"{task.id}/{NOTE}"] = task_note(task.id).encode("utf-8")
    return found


def read_index(directory: Path) -> TasksIndex:
    """The index of a tasks folder; :class:`TasksError` when there is none."""
    path = Path(directory) / INDEX
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TasksError(f"{path}: no such file: give the folder `exam build` wrote") from None
    except (OSError, ValueError) as error:
        raise TasksError(f"{path}: cannot be read as the exam's index: {error}") from None
    tasks = data.get("tasks") if isinstance(data, dict) else None
    files = data.get("files") if isinstance(data, dict) else None
    if (
        data.get("kind") != KIND
        or not isinstance(tasks, list)
        or not all(isinstance(task, str) for task in tasks)
        or not isinstance(files, dict)
    ):
        raise TasksError(f"{path}: not an index `rlt-rules exam build` wrote")
    return TasksIndex(tuple(tasks), {str(k): str(v) for k, v in files.items()})


def _foreign(directory: Path) -> list[str]:
    """What in a non-empty ``directory`` the exam did not write, or changed since."""
    try:
        index = read_index(directory)
    except TasksError:
        return sorted(entry.name for entry in directory.iterdir())
    recorded = {**index.files, INDEX: None}
    found = []
    for path in sorted(directory.rglob("*")):
        name = path.relative_to(directory).as_posix()
        if path.is_dir() and not path.is_symlink():
            continue
        if name not in recorded or (
            recorded[name] is not None and content_digest(path) != recorded[name]
        ):
            found.append(name)
    return found


def write_tasks(directory: Path, exam: Exam) -> int:
    """Write the exam's tasks into ``directory`` (new, empty, or written by the exam and not
    changed since); :class:`~rlt_rules.files.atomic.WriteRefused` otherwise. Returns the count."""
    directory = Path(directory).absolute()
    if directory.is_symlink() or (directory.exists() and not directory.is_dir()):
        raise WriteRefused(f"{directory}: is not a folder; give a folder for the tasks")
    if directory.is_dir() and any(directory.iterdir()):
        foreign = _foreign(directory)
        if foreign:
            shown = ", ".join(foreign[:5]) + (
                f" and {len(foreign) - 5} more" if len(foreign) > 5 else ""
            )
            raise WriteRefused(
                f"{directory}: not empty, and not as the exam wrote it ({shown}): give a new "
                "or empty folder, or move those away; nothing was written"
            )
    directory.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale(directory)
    files = task_files(exam)
    staging = Path(
        tempfile.mkdtemp(dir=directory.parent, prefix=f".{directory.name}.exam-{os.getpid()}-")
    )
    try:
        for name, data in files.items():
            target = staging / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        staging.chmod(0o777 & ~_umask())
        if directory.exists():
            old = Path(
                tempfile.mkdtemp(
                    dir=directory.parent, prefix=f".{directory.name}.exam-{os.getpid()}-"
                )
            )
            os.replace(directory, old)
            os.replace(staging, directory)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(staging, directory)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return len(exam.tasks)


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def _remove_stale(directory: Path) -> None:
    """The staging and old folders of writers into ``directory`` that were killed."""
    for entry in directory.parent.iterdir():
        side = _SIDE.fullmatch(entry.name)
        if (
            side is not None
            and side.group("name") == directory.name
            and not process_running(int(side.group("pid")))
        ):
            shutil.rmtree(entry, ignore_errors=True)
