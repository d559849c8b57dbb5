"""Tasks on real engine code: injected cases, negative controls and real changes.

Every injected case and control is a pure addition (EXAM-SPEC): the task's base is the engine
file with the region removed, its head the file with the region in place (our lines for a
case, the engine's for a control), so every such task looks alike: one hunk of added lines in
one engine file, at its real path. A real change is the real diff of one folder between two
pinned versions; its repository is that folder at the head version.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from .data import Control, ExamData, ExamDataError, InjectedCase, RealChange, Verdict
from .patches import addition_diff, file_diff
from .sources import Corpora
from .tasks import Expected, Task, TaskFile, TaskKind, ValidRegion, make_task


def _valid(verdicts: tuple[Verdict, ...]) -> tuple[ValidRegion, ...]:
    return tuple(
        ValidRegion(
            f"{verdict.case} {verdict.path}:{verdict.start_line}",
            verdict.path,
            verdict.start_line,
            verdict.end_line,
            verdict.why,
        )
        for verdict in verdicts
    )


def _syntax_error(lines: list[str], start_line: int, end_line: int) -> SyntaxError | None:
    """Why the file of ``lines`` does not parse, or None. The definition around lines
    ``start_line..end_line`` is parsed first (a method, not the whole engine file); only when
    it cannot be cut out cleanly, or fails, is the whole file parsed, for the true error."""
    chunk = _enclosing_definition(lines, start_line, end_line)
    if chunk is not None:
        try:
            ast.parse(chunk)
        except SyntaxError:
            pass
        else:
            return None
    try:
        ast.parse("".join(lines))
    except SyntaxError as error:
        return error
    return None


_HEADER = re.compile(r"(\s*)(?:async\s+def|def|class)\b")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _enclosing_definition(lines: list[str], start_line: int, end_line: int) -> str | None:
    """The lines of the innermost ``def``/``class`` holding lines ``start_line..end_line``
    (or starting there), dedented; None when there is none to cut out cleanly."""
    region = [line for line in lines[start_line - 1 : end_line] if line.strip()]
    if not region:
        return None
    depth = min(_indent(line) for line in region)
    first = start_line - 1
    while first >= 0:
        header = _HEADER.match(lines[first])
        if header is not None and len(header.group(1)) <= depth:
            break
        first -= 1
    if first < 0:
        return None
    margin = lines[first][: _indent(lines[first])]
    last = end_line
    while last < len(lines) and (not lines[last].strip() or _indent(lines[last]) > len(margin)):
        last += 1
    body = lines[first:last]
    if any(line.strip() and not line.startswith(margin) for line in body):
        return None
    return "".join(line[len(margin) :] if line.strip() else line for line in body)


def case_task(case: InjectedCase, corpora: Corpora, verdicts: tuple[Verdict, ...]) -> Task:
    """The engine file with our lines in place of the lines the case replaces."""
    region = case.replaced
    lines = corpora.region_lines(region, case.where)
    ours = (case.lines if case.lines.endswith("\n") else case.lines + "\n").splitlines(True)
    head = lines[: region.start_line - 1] + ours + lines[region.end_line :]
    last = region.start_line + len(ours) - 1
    error = _syntax_error(head, region.start_line, last)
    if error is not None:
        raise ExamDataError(
            [
                case.where.problem(
                    f"the edited {region.path} does not parse (line {error.lineno}: "
                    f"{error.msg}): fix the case's lines or their indentation"
                )
            ]
        )
    if case.expect_end > len(head):
        raise ExamDataError(
            [case.where.problem(f"expect ends at line {case.expect_end}; the file has {len(head)}")]
        )
    expected = Expected(
        case.id, case.rule, case.also, region.path, case.expect_start, case.expect_end
    )
    return make_task(
        TaskKind.CASE,
        case.id,
        (TaskFile(region.path, "".join(head)),),
        addition_diff(region.path, head, region.start_line, last),
        (expected,),
        _valid(verdicts),
    )


def control_task(control: Control, corpora: Corpora, verdicts: tuple[Verdict, ...]) -> Task:
    """The engine file as it is, its region added by the diff."""
    region = control.region
    lines = corpora.region_lines(region, control.where)
    return make_task(
        TaskKind.CONTROL,
        control.id,
        (TaskFile(region.path, "".join(lines)),),
        addition_diff(region.path, lines, region.start_line, region.end_line),
        (),
        _valid(verdicts),
    )


def _python_files(corpus: Path, folder: str) -> dict[str, str]:
    """The Python files under ``corpus/folder``, by path relative to ``corpus``."""
    found = {}
    for path in sorted((corpus / folder).rglob("*.py")):
        try:
            found[path.relative_to(corpus).as_posix()] = path.read_text("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
    return found


def change_task(change: RealChange, corpora: Corpora, verdicts: tuple[Verdict, ...]) -> Task:
    """The change's folder at the head version, and the real diff from the base."""
    old = _python_files(corpora.folder(change.base), change.folder)
    new = _python_files(corpora.folder(change.head), change.folder)
    if not new:
        raise ExamDataError(
            [change.where.problem(f"{change.folder} holds no Python file in {change.head}")]
        )
    expected = []
    for defect in change.defects:
        corpora.region_lines(defect.region, defect.where)
        expected.append(
            Expected(
                defect.id,
                defect.rule,
                defect.also,
                defect.region.path,
                defect.region.start_line,
                defect.region.end_line,
            )
        )
    diff = "".join(file_diff(path, old.get(path), new.get(path)) for path in sorted(old | new))
    return make_task(
        TaskKind.CHANGE,
        change.id,
        tuple(TaskFile(path, text) for path, text in sorted(new.items())),
        diff,
        tuple(expected),
        _valid(verdicts),
    )


def real_tasks(data: ExamData, corpora: Corpora) -> list[Task]:
    """Every case's, control's and change's task; their corpora must be there.
    :class:`ExamDataError` with the problems of every record that cannot be built."""
    corpora.require(data.corpora)
    builds = (
        [(case_task, case) for case in data.cases]
        + [(control_task, control) for control in data.controls]
        + [(change_task, change) for change in data.changes]
    )
    tasks: list[Task] = []
    problems = []
    for build, record in builds:
        try:
            tasks.append(build(record, corpora, data.verdicts_of(record.id)))  # type: ignore[arg-type]
        except ExamDataError as error:
            problems.extend(error.diagnostics)
    if problems:
        raise ExamDataError(problems)
    return tasks
