"""``rlt-rules scan``: point reviewers at code shaped like a rule's triggers.

:func:`scan` runs the library's detectors (:mod:`rlt_rules.detectors.detect`) over Python files and
folders (what Git ignores is skipped, :mod:`.files`), optionally only on the lines a unified
diff adds or changes (:mod:`.diff`), honouring ``# rlt: ignore[Rnn] reason`` comments
(:mod:`.suppress`; one that silences nothing is reported). Paths are shown relative to a
root (:func:`default_root`: the Git work tree holding the first path). :mod:`.render` prints
the result as text, JSON, SARIF or a draft findings file. A hit is a hint that sends a reviewer
to a rule page, never a verdict.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..detectors.detect import DetectorSet
from ..files.bounds import FILE_SECONDS, JOBS, OutOfBounds
from ..files.config import RepoConfig
from ..files.reading import MAX_FILE_BYTES, BadPath, check_limit, check_path
from ..findings.context import Place, Places
from ..library.model import Library, Status
from .diff import DiffError, changed_lines
from .engine import REASONLESS, UNUSED, FileHit, Problem, scan_files
from .files import PYTHON_SUFFIXES, Walk, shown_path
from .matcher import FILE_TIMEOUT, MatchError
from .plan import ScanPlan, SelectionError, plan_scan

__all__ = [
    "FILE_TIMEOUT",
    "REASONLESS",
    "UNUSED",
    "BadPath",
    "DiffError",
    "FileHit",
    "MatchError",
    "OutOfBounds",
    "Problem",
    "ScanPlan",
    "ScanResult",
    "SelectionError",
    "changed_lines",
    "default_root",
    "detector_set",
    "places_to_look",
    "plan_scan",
    "scan",
    "unchecked_rules",
    "unplaced",
]


@dataclass(frozen=True, slots=True)
class ScanResult:
    """Explicit outcome of a scan: hits in path and line order, the files that could not be
    read, how many files were scanned and how many hits inline suppressions silenced."""

    hits: tuple[FileHit, ...]
    problems: tuple[Problem, ...]
    files_scanned: int
    suppressed: int
    #: The folder the hits' paths are relative to.
    root: Path

    @property
    def clean(self) -> bool:
        return not self.hits and not self.problems


def detector_set(
    library: Library, select: Collection[str] | None = None, *, preview: bool = False
) -> DetectorSet:
    """The detectors of the library's active rules (only those of ``select``, if given);
    preview detectors only with ``preview``."""
    return DetectorSet(
        (rule.id, detector)
        for rule in library.rules
        if rule.status is Status.ACTIVE and (select is None or rule.id in select)
        for detector in rule.detectors
        if preview or not detector.preview
    )


def unchecked_rules(
    library: Library, select: Collection[str] | None = None, *, preview: bool = False
) -> frozenset[str]:
    """The rules whose detectors do not all run in this selection: a suppression of one of
    them may silence a hint this scan cannot see, so it is never reported as unused."""
    return frozenset(
        rule.id
        for rule in library.rules
        if rule.detectors
        and (
            rule.status is not Status.ACTIVE
            or (select is not None and rule.id not in select)
            or (not preview and any(detector.preview for detector in rule.detectors))
        )
    )


def default_root(paths: Sequence[Path], cwd: Path | None = None) -> Path:
    """The top of the Git work tree holding the first path (the folder with ``.git``), else
    the current folder: what a scan's paths are relative to."""
    here = (cwd or Path.cwd()).absolute()
    start = (here / paths[0]) if paths else here
    start = start if start.is_dir() else start.parent
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return here


def scan(
    paths: Sequence[Path],
    detectors: DetectorSet,
    *,
    changed: Mapping[str, frozenset[int]] | None = None,
    root: Path | None = None,
    jobs: int | None = None,
    plan: ScanPlan | None = None,
    max_file_bytes: int = MAX_FILE_BYTES,
    file_timeout: float | None = None,
    unchecked: frozenset[str] | None = None,
) -> ScanResult:
    """Scan the Python files of ``paths``; hits' paths are relative to ``root`` (default: the
    current folder), absolute outside it. ``changed`` maps paths relative to ``root`` (a
    diff's paths) to the lines to keep hits on; files it does not name are not scanned.
    ``plan`` (:func:`plan_scan`) leaves out the files the configuration excludes and the
    hits its ``per-file-ignores`` ignore, and says which rules are unchecked (``unchecked``
    overrides it; see :func:`unchecked_rules`; ``None``: unused suppressions not reported).
    A file over ``max_file_bytes``, what the walk could not read, a Python file ``changed``
    names that is not under the root (:func:`unplaced`), and a detector that does not finish
    on a file within ``file_timeout`` seconds (default: the plan's, else 30) are problems of
    the result. A number outside its :mod:`~rlt_rules.files.bounds` is an
    :class:`~rlt_rules.files.bounds.OutOfBounds`, a path or root with a NUL byte a
    :class:`BadPath`."""
    if file_timeout is None:
        file_timeout = plan.file_timeout if plan is not None else FILE_TIMEOUT
    _check_numbers(max_file_bytes, file_timeout, jobs)
    for path in paths:
        check_path(path, "path to scan")
    if root is not None:
        check_path(root, "root")
    base = (root or Path.cwd()).absolute()
    walk = Walk()
    files = list(walk.files(paths))
    if plan is not None:
        files = [file for file in files if not plan.excluded(file)]
        if unchecked is None:
            unchecked = plan.unchecked
    by_file: dict[Path, frozenset[int]] | None = None
    if changed is not None:
        by_file = {(base / path).absolute(): lines for path, lines in changed.items()}
        files = [file for file in files if file.absolute() in by_file]
    results = scan_files(
        detectors, files, by_file, jobs, unchecked, limit=max_file_bytes, timeout=file_timeout
    )
    hits: list[FileHit] = []
    problems: list[Problem] = [
        Problem(
            shown_path(problem.path, base) + (f":{problem.line}" if problem.line > 1 else ""),
            problem.message,
        )
        for problem in walk.problems
    ]
    if changed is not None:
        problems += unplaced(changed, base)
    suppressed = 0
    for file, result in zip(files, results, strict=True):
        shown = shown_path(file, base)
        if result.problem is not None:
            problems.append(Problem(shown, result.problem))
        problems.extend(
            Problem(f"{shown}:{notice.line}:{notice.column}", notice.message)
            for notice in result.notices
        )
        problems.extend(
            Problem(
                shown,
                f"detector {stalled} did not finish on this file within {file_timeout:g} s "
                "(--file-timeout): its hints here are missing; the other detectors ran",
            )
            for stalled in result.stalled
        )
        hits.extend(
            FileHit(shown, hit) for hit in result.hits if plan is None or plan.keeps(file, hit)
        )
        suppressed += result.suppressed
    hits.sort(key=lambda h: (h.path, h.hit.line, h.hit.column, h.hit.rule_id, h.hit.detector_id))
    return ScanResult(tuple(hits), tuple(problems), len(files), suppressed, base)


def _check_numbers(max_file_bytes: int, file_timeout: float, jobs: int | None) -> None:
    check_limit(max_file_bytes, "max_file_bytes")
    for name, bound, value in (("file_timeout", FILE_SECONDS, file_timeout), ("jobs", JOBS, jobs)):
        if value is None:
            continue
        try:
            bound.check(value)
        except OutOfBounds as error:
            raise OutOfBounds(f"{name} {error}") from None


def unplaced(changed: Mapping[str, frozenset[int]], root: Path) -> list[Problem]:
    """A problem for each Python file a diff changes (``changed``, paths relative to ``root``)
    that is not a file under ``root``: its hints cannot be looked for, and saying nothing
    would read as "no hints"."""
    return [
        Problem(
            path,
            f"the diff changes this file, but there is no such file under {root}: its hints "
            "are not looked for (run from the root the diff's paths are relative to, or give "
            "--root)",
        )
        for path in sorted(changed)
        if path.endswith(PYTHON_SUFFIXES) and not (root / path).is_file()
    ]


def places_to_look(diff: str, library: Library, config: RepoConfig, cwd: Path) -> Places:
    """The places to look first in a change, for ``review-context``: one per hint on a line
    ``diff`` adds, in path and line order, with the detectors ``config`` chooses, and how many
    of the change's Python files they ran on. The diff's files are read from ``cwd`` (the
    repository root); those not there are passed over. :class:`DiffError` when ``diff`` is
    not a unified diff."""
    changed = changed_lines(diff)
    files = [
        cwd / path
        for path in sorted(changed)
        if path.endswith(PYTHON_SUFFIXES) and (cwd / path).is_file()
    ]
    if not files:
        return Places()
    plan = plan_scan(library, config, select=None, preview=None)
    result = scan(files, plan.detectors, changed=changed, root=cwd, plan=plan)
    hints = tuple(
        Place(found.hit.rule_id, found.path, found.hit.line, found.hit.message)
        for found in result.hits
        if found.hit.detector_id not in (REASONLESS, UNUSED)
    )
    return Places(hints, result.files_scanned)
