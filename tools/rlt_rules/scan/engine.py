"""Scan files with the library's detectors: read, match, apply suppressions and the diff.

A file that cannot be read or is not UTF-8 is a :class:`Problem`, reported and skipped. Many
files are spread over worker processes (each building the detectors once); results
come back in the order of the files given.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ..detect import DetectorSet, Hit
from ..model import Detector, HintSeverity
from ..reading import MAX_FILE_BYTES, ReadRefused, read_regular
from .suppress import Notice, read_suppressions

#: Files per task handed to a worker process; fewer than two chunks stay in this process.
CHUNK = 16
#: The detector id of a hit that reports a suppression without a reason.
REASONLESS = "suppression-without-reason"
#: The detector id of a hit that reports a suppression no hint on its line needs (Ruff's
#: RUF100): the detectors got narrower or the code changed, so the comment can go.
UNUSED = "unused-suppression"


@dataclass(frozen=True, slots=True)
class FileHit:
    """A hit in a scanned file, by the file's shown path."""

    path: str
    hit: Hit


@dataclass(frozen=True, slots=True)
class Problem:
    """A file the scan could not read."""

    path: str
    message: str


@dataclass(frozen=True, slots=True)
class FileScan:
    """What one file gave: its hits (reasonless suppressions included), how many hits its
    suppressions silenced, or the problem that kept it from being scanned; and the notices
    about suppressions it could not read."""

    hits: tuple[Hit, ...] = ()
    suppressed: int = 0
    problem: str | None = None
    notices: tuple[Notice, ...] = ()


def read_source(path: Path, *, limit: int = MAX_FILE_BYTES) -> tuple[str | None, str | None]:
    """The file's text, or why it cannot be scanned (not a regular file, over ``limit`` bytes,
    unreadable, not UTF-8). Line endings are read as Python reads them: ``\r\n`` and a lone
    ``\r`` end a line, as ``\n`` does."""
    try:
        raw = read_regular(path, limit=limit, option="--max-file-bytes")
    except ReadRefused as error:
        return None, f"{error}: skipped" if "skipped" not in str(error) else str(error)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        column = error.start - (raw.rfind(b"\n", 0, error.start) + 1) + 1
        return None, f"not UTF-8 at line {line}, column {column}: skipped"
    text = text.removeprefix("\ufeff")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text, None


def _report(
    rule_id: str, detector_id: str, message: str, line: int, column: int, lines: list[str]
) -> Hit:
    """A hit about a suppression comment: from its column to the end of its line."""
    text = lines[line - 1] if line <= len(lines) else ""
    return Hit(
        rule_id,
        detector_id,
        message,
        HintSeverity.WARNING,
        line,
        column,
        line,
        len(text) + 1,
        text[column - 1 :],
    )


def scan_source(
    detectors: DetectorSet,
    source: str,
    changed: frozenset[int] | None = None,
    unchecked: frozenset[str] | None = None,
) -> FileScan:
    """The hits of ``source`` after its suppressions (and, given ``changed``, only those on a
    changed line); a suppression without a reason is a hit of its own and silences nothing.
    Given ``unchecked`` (the rule ids whose detectors did not all run), a suppression of any
    other rule on a line where no hit of that rule starts is reported as unused."""
    hits = detectors.run(source)
    if changed is not None:
        hits = [h for h in hits if any(n in changed for n in range(h.line, h.end_line + 1))]
    read = read_suppressions(source)
    by_line = read.by_line
    notices = tuple(notice for notice in read.notices if changed is None or notice.line in changed)
    if not by_line:
        return FileScan(tuple(hits), notices=notices)
    selected = {rule_id for rule_id, _ in detectors.detectors()}
    fired = {(hit.line, hit.rule_id) for hit in hits}
    lines = source.splitlines()
    kept: list[Hit] = []
    silenced = 0
    for hit in hits:
        if any(hit.rule_id in s.rule_ids and s.reason for s in by_line.get(hit.line, ())):
            silenced += 1
        else:
            kept.append(hit)
    for line, found in by_line.items():
        if changed is not None and line not in changed:
            continue
        for suppression in found:
            for rule_id in suppression.rule_ids:
                if not suppression.reason and rule_id in selected:
                    message = (
                        f"`rlt: ignore[{rule_id}]` gives no reason, so it silences nothing: "
                        "say why the hint does not apply after the brackets"
                    )
                    column = suppression.column
                    kept.append(_report(rule_id, REASONLESS, message, line, column, lines))
                elif (
                    suppression.reason
                    and unchecked is not None
                    and rule_id not in unchecked
                    and (line, rule_id) not in fired
                ):
                    message = (
                        f"`rlt: ignore[{rule_id}]` silences nothing: no {rule_id} hint starts on "
                        "this line; remove the suppression (or this rule id from it)"
                    )
                    kept.append(_report(rule_id, UNUSED, message, line, suppression.column, lines))
    kept.sort(key=lambda h: (h.line, h.column, h.rule_id, h.detector_id))
    return FileScan(tuple(kept), silenced, notices=notices)


def scan_file(
    detectors: DetectorSet,
    path: Path,
    changed: frozenset[int] | None = None,
    unchecked: frozenset[str] | None = None,
    *,
    limit: int = MAX_FILE_BYTES,
) -> FileScan:
    source, problem = read_source(path, limit=limit)
    if source is None:
        return FileScan(problem=problem)
    return scan_source(detectors, source, changed, unchecked)


# --- many files --------------------------------------------------------------------------

_WORKER_DETECTORS: DetectorSet | None = None
_WORKER_UNCHECKED: frozenset[str] | None = None


_WORKER_LIMIT = MAX_FILE_BYTES


def _start_worker(
    entries: tuple[tuple[str, Detector], ...], unchecked: frozenset[str] | None, limit: int
) -> None:
    global _WORKER_DETECTORS, _WORKER_UNCHECKED, _WORKER_LIMIT
    _WORKER_DETECTORS = DetectorSet(entries)
    _WORKER_UNCHECKED = unchecked
    _WORKER_LIMIT = limit


def _scan_chunk(chunk: list[tuple[str, frozenset[int] | None]]) -> list[FileScan]:
    assert _WORKER_DETECTORS is not None, "worker started without its detectors"
    return [
        scan_file(_WORKER_DETECTORS, Path(path), lines, _WORKER_UNCHECKED, limit=_WORKER_LIMIT)
        for path, lines in chunk
    ]


def scan_files(
    detectors: DetectorSet,
    files: Sequence[Path],
    changed: Mapping[Path, frozenset[int]] | None = None,
    jobs: int | None = None,
    unchecked: frozenset[str] | None = None,
    *,
    limit: int = MAX_FILE_BYTES,
) -> list[FileScan]:
    """One :class:`FileScan` per file, in order. ``changed`` (absolute path -> lines) keeps only
    hits on those lines; ``jobs`` caps the worker processes (default, and at most: one per CPU
    this process may use); ``limit`` is the largest file read, in bytes. ast-grep-py
    matches a configured rule while holding the GIL, so threads would not share the work."""
    wanted = [changed.get(path.absolute()) if changed is not None else None for path in files]
    cpus = os.process_cpu_count() or 1
    workers = min(jobs if jobs is not None else cpus, cpus, len(files) // CHUNK)
    if workers <= 1 or not len(detectors):
        return [
            scan_file(detectors, path, lines, unchecked, limit=limit)
            for path, lines in zip(files, wanted, strict=True)
        ]
    tasks = [(str(path), lines) for path, lines in zip(files, wanted, strict=True)]
    chunks = [tasks[start : start + CHUNK] for start in range(0, len(tasks), CHUNK)]
    with ProcessPoolExecutor(
        max_workers=workers,
        # fork is the cheap start, and safe only while this process runs one thread (the
        # command line does; a test runner or a server may not).
        mp_context=multiprocessing.get_context(
            "fork" if threading.active_count() == 1 else "forkserver"
        ),
        initializer=_start_worker,
        initargs=(detectors.detectors(), unchecked, limit),
    ) as pool:
        return [scan for chunk in pool.map(_scan_chunk, chunks) for scan in chunk]
