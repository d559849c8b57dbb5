"""The exam's cases as data: injected cases, negative controls, real changes and our verdicts.

An exam folder (``exam/`` in this repository) holds one folder per corpus or pair of corpora::

    exam/sglang-0.5.23/cases/<id>.yaml   one injected case per file (schema/exam-case.schema.json)
    exam/sglang-0.5.23/controls.yaml     negative controls (schema/exam-controls.schema.json)
    exam/sglang-0.5.23/valid.yaml        verdicts: real issues that are not the planted one
    exam/sglang-0.5.22-0.5.23/change.yaml  a real change and its known defects
                                         (schema/exam-change.schema.json), with its valid.yaml

:func:`load_exam_data` reads them all, checks each file against its schema and across files
(ids unique, a case's id its file's name, its corpus its folder's, verdicts naming a known
case) and returns typed, frozen records; :class:`ExamDataError` carries every problem at its
``path:line:column``. Nothing here reads the engine's code: :mod:`.sources` does.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..files.errors import InputError
from ..library.model import Diagnostic
from .yamlfile import DataFile, read_data_file

CASES = "cases"
CONTROLS = "controls.yaml"
VALID = "valid.yaml"
CHANGE = "change.yaml"


class ExamDataError(InputError):
    """The exam's data is invalid; carries every diagnostic."""

    def __init__(self, diagnostics: Iterable[Diagnostic]) -> None:
        self.diagnostics = tuple(diagnostics)
        super().__init__("\n".join(str(d) for d in self.diagnostics))


@dataclass(frozen=True, slots=True)
class Where:
    """Where a record is written: its file as shown, and the line and column of its start."""

    shown: str
    line: int = 1
    column: int = 1

    def problem(self, message: str) -> Diagnostic:
        return Diagnostic(self.shown, self.line, self.column, message)


@dataclass(frozen=True, slots=True)
class Region:
    """Lines ``start_line..end_line`` (1-based, inclusive) of a corpus file, and the sha256
    of their bytes as we read them."""

    corpus: str
    path: str
    start_line: int
    end_line: int
    sha256: str


@dataclass(frozen=True, slots=True)
class InjectedCase:
    """One defect of ours: ``replaced`` lines of a corpus file become ``lines``; a finding of
    ``rule`` (or one of ``also``) must touch ``expect_start..expect_end`` of the edited file."""

    id: str
    rule: str
    replaced: Region
    lines: str
    expect_start: int
    expect_end: int
    also: tuple[str, ...]
    why: str
    where: Where


@dataclass(frozen=True, slots=True)
class Control:
    """A real region with no edit of ours, judged to break none of the rules."""

    id: str
    region: Region
    why: str
    where: Where


@dataclass(frozen=True, slots=True)
class KnownDefect:
    """A real defect of a real change, at lines of its head version. Without ``rule``, a
    finding citing any rule, or none, hits it."""

    id: str
    region: Region
    rule: str | None
    also: tuple[str, ...]
    why: str
    where: Where


@dataclass(frozen=True, slots=True)
class RealChange:
    """The real change of ``folder`` from corpus ``base`` to corpus ``head``."""

    id: str
    base: str
    head: str
    folder: str
    defects: tuple[KnownDefect, ...]
    where: Where


@dataclass(frozen=True, slots=True)
class Verdict:
    """Our judgement that lines of one case's (control's, change's) task hold a real issue
    other than the planted one: a finding there is valid, not noise."""

    case: str
    path: str
    start_line: int
    end_line: int
    why: str
    where: Where


@dataclass(frozen=True, slots=True)
class ExamData:
    """Every record of an exam folder, each kind in id order."""

    cases: tuple[InjectedCase, ...] = ()
    controls: tuple[Control, ...] = ()
    changes: tuple[RealChange, ...] = ()
    verdicts: tuple[Verdict, ...] = ()

    def verdicts_of(self, case_id: str) -> tuple[Verdict, ...]:
        return tuple(verdict for verdict in self.verdicts if verdict.case == case_id)

    @property
    def corpora(self) -> frozenset[str]:
        """Every corpus folder the records read."""
        return frozenset(
            [case.replaced.corpus for case in self.cases]
            + [control.region.corpus for control in self.controls]
            + [name for change in self.changes for name in (change.base, change.head)]
        )


def load_exam_data(folder: Path, shown: str | None = None) -> ExamData:
    """The records of the exam folder ``folder`` (``shown``: how diagnostics name it);
    :class:`ExamDataError` with every problem."""
    base = shown if shown is not None else str(folder)
    problems: list[Diagnostic] = []
    cases: list[InjectedCase] = []
    controls: list[Control] = []
    changes: list[RealChange] = []
    verdicts: list[Verdict] = []
    for sub in sorted(path for path in folder.iterdir() if path.is_dir()):
        prefix = f"{base}/{sub.name}"
        for case_file in sorted((sub / CASES).glob("*.yaml")):
            read = read_data_file(
                case_file,
                f"{prefix}/{CASES}/{case_file.name}",
                "exam-case.schema.json",
                is_list=False,
            )
            problems.extend(read.problems)
            if not read.problems:
                case = _case(read)
                problems.extend(_case_problems(read, case, case_file.stem, sub.name))
                cases.append(case)
        if (sub / CONTROLS).is_file():
            read = read_data_file(
                sub / CONTROLS, f"{prefix}/{CONTROLS}", "exam-controls.schema.json", is_list=True
            )
            problems.extend(read.problems)
            if not read.problems:
                for index, item in enumerate(read.data):
                    control = _control(read, index, item)
                    problems.extend(_region_problems(read, (index,), control.region, sub.name))
                    controls.append(control)
        if (sub / CHANGE).is_file():
            read = read_data_file(
                sub / CHANGE, f"{prefix}/{CHANGE}", "exam-change.schema.json", is_list=False
            )
            problems.extend(read.problems)
            if not read.problems:
                change = _change(read)
                problems.extend(_change_problems(read, change, sub.name))
                changes.append(change)
        if (sub / VALID).is_file():
            read = read_data_file(
                sub / VALID, f"{prefix}/{VALID}", "exam-valid.schema.json", is_list=True
            )
            problems.extend(read.problems)
            if not read.problems:
                verdicts.extend(_verdict(read, index, item) for index, item in enumerate(read.data))
    data = ExamData(
        tuple(sorted(cases, key=lambda c: c.id)),
        tuple(sorted(controls, key=lambda c: c.id)),
        tuple(sorted(changes, key=lambda c: c.id)),
        tuple(verdicts),
    )
    problems.extend(_cross_problems(data))
    if problems:
        raise ExamDataError(sorted(problems, key=lambda d: (d.path, d.line, d.column)))
    return data


def _where(read: DataFile, path: tuple[str | int, ...]) -> Where:
    problem = read.at(path, "")
    return Where(read.shown, problem.line, problem.column)


def _case(read: DataFile) -> InjectedCase:
    data = read.data
    replace = data["replace"]
    return InjectedCase(
        id=data["id"],
        rule=data["rule"],
        replaced=Region(
            data["corpus"],
            data["path"],
            replace["start_line"],
            replace["end_line"],
            replace["sha256"],
        ),
        lines=replace["with"],
        expect_start=data["expect"]["start_line"],
        expect_end=data["expect"]["end_line"],
        also=tuple(data.get("also", ())),
        why=data["why"],
        where=_where(read, ()),
    )


def _case_problems(read: DataFile, case: InjectedCase, stem: str, folder: str) -> list[Diagnostic]:
    found = _region_problems(read, ("replace",), case.replaced, folder)
    if case.id != stem:
        found.append(
            read.at(
                ("id",),
                f"id '{case.id}' is not the file's name: rename the file {case.id}"
                ".yaml or the id to match",
            )
        )
    if case.expect_start > case.expect_end:
        found.append(read.at(("expect", "end_line"), "expect's end_line is before its start_line"))
    added = len(case.lines.splitlines())
    last = case.replaced.start_line + added - 1
    if case.expect_start < case.replaced.start_line - 3 or case.expect_end > last + 3:
        found.append(
            read.at(
                ("expect",),
                f"expect (lines {case.expect_start}–{case.expect_end} of the edited file) is "
                f"away from our lines ({case.replaced.start_line}–{last}): a finding must "
                "touch the lines we wrote",
            )
        )
    if case.rule in case.also:
        found.append(read.at(("also",), f"also repeats the case's own rule {case.rule}"))
    return found


def _region_problems(
    read: DataFile, at: tuple[str | int, ...], region: Region, folder: str
) -> list[Diagnostic]:
    found = []
    if region.start_line > region.end_line:
        found.append(read.at((*at, "end_line"), "end_line is before start_line"))
    corpus_at = ("corpus",) if at == ("replace",) else (*at, "corpus")
    if region.corpus != folder:
        found.append(
            read.at(
                corpus_at,
                f"corpus '{region.corpus}' is not the folder's ('{folder}'): move the record "
                f"to exam/{region.corpus}/ or fix the corpus",
            )
        )
    return found


def _control(read: DataFile, index: int, item: dict[str, Any]) -> Control:
    region = Region(
        item["corpus"], item["path"], item["start_line"], item["end_line"], item["sha256"]
    )
    return Control(item["id"], region, item["why"], _where(read, (index,)))


def _change(read: DataFile) -> RealChange:
    data = read.data
    defects = tuple(
        KnownDefect(
            id=item["id"],
            region=Region(
                data["head"], item["path"], item["start_line"], item["end_line"], item["sha256"]
            ),
            rule=item.get("rule"),
            also=tuple(item.get("also", ())),
            why=item["why"],
            where=_where(read, ("defects", index)),
        )
        for index, item in enumerate(data["defects"])
    )
    return RealChange(
        data["id"], data["base"], data["head"], data["folder"], defects, _where(read, ())
    )


def _change_problems(read: DataFile, change: RealChange, folder: str) -> list[Diagnostic]:
    found = []
    if folder != f"{change.base}-{change.head.rsplit('-', 1)[-1]}":
        found.append(
            read.at(
                ("head",),
                f"the folder '{folder}' does not name this change: call it "
                f"{change.base}-{change.head.rsplit('-', 1)[-1]}",
            )
        )
    for index, defect in enumerate(change.defects):
        at = ("defects", index)
        if not defect.region.path.startswith(change.folder + "/"):
            found.append(
                read.at((*at, "path"), f"the defect is outside the change's folder {change.folder}")
            )
        if defect.region.start_line > defect.region.end_line:
            found.append(read.at((*at, "end_line"), "end_line is before start_line"))
        if defect.also and defect.rule is None:
            found.append(read.at((*at, "also"), "also needs rule: without it any rule hits"))
    return found


def _verdict(read: DataFile, index: int, item: dict[str, Any]) -> Verdict:
    return Verdict(
        item["case"],
        item["path"],
        item["start_line"],
        item["end_line"],
        item["why"],
        _where(read, (index,)),
    )


def _cross_problems(data: ExamData) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    seen: dict[str, Where] = {}
    records = [
        *((c.id, c.where) for c in data.cases),
        *((c.id, c.where) for c in data.controls),
        *((c.id, c.where) for c in data.changes),
    ]
    for record_id, where in records:
        first = seen.setdefault(record_id, where)
        if first is not where:
            found.append(
                where.problem(
                    f"id '{record_id}' is used twice (first at {first.shown}:"
                    f"{first.line}): give each case its own"
                )
            )
    for verdict in data.verdicts:
        if verdict.case not in seen:
            found.append(
                verdict.where.problem(
                    f"case '{verdict.case}' is not a case, control or change of this exam"
                )
            )
        elif verdict.start_line > verdict.end_line:
            found.append(verdict.where.problem("end_line is before start_line"))
    return found
