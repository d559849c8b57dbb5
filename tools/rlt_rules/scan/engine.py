"""Scan files with the library's detectors: read, match, apply suppressions and the diff.

A file that cannot be read or is not UTF-8 is a :class:`Problem`, reported and skipped. Files
are read here (their suppressions too) and matched by :class:`~.matcher.Matcher` (the
``ast-grep`` command, each file under a time bound); results come back in the order of the
files given. :func:`scan_source` matches one text in this process.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ..detectors.detect import DetectorSet, Hit
from ..files.reading import MAX_FILE_BYTES, ReadRefused, read_regular
from ..library.model import HintSeverity
from .matcher import FILE_TIMEOUT, Matcher, Source
from .suppress import Notice, read_suppressions

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
    suppressions silenced, or the problem that kept it from being scanned; the notices
    about suppressions it could not read; and the detectors (qualified ids) that did not
    finish on it within the time bound, whose hits are missing."""

    hits: tuple[Hit, ...] = ()
    suppressed: int = 0
    problem: str | None = None
    notices: tuple[Notice, ...] = ()
    stalled: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SourceText:
    """A file's text as Python reads it, or why it cannot be scanned; ``verbatim`` when the
    text is the file's bytes unchanged (no ``\r`` line ending, no byte-order mark), so a
    matcher reading the file itself sees the same lines and columns."""

    text: str | None
    problem: str | None = None
    verbatim: bool = False


def read_source(path: Path, *, limit: int = MAX_FILE_BYTES) -> SourceText:
    """The file's text, or why it cannot be scanned (not a regular file, over ``limit`` bytes,
    unreadable, not UTF-8). Line endings are read as Python reads them: ``\r\n`` and a lone
    ``\r`` end a line, as ``\n`` does."""
    try:
        raw = read_regular(path, limit=limit, option="--max-file-bytes")
    except ReadRefused as error:
        return SourceText(None, f"{error}: skipped" if "skipped" not in str(error) else str(error))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        column = error.start - (raw.rfind(b"\n", 0, error.start) + 1) + 1
        return SourceText(None, f"not UTF-8 at line {line}, column {column}: skipped")
    verbatim = not text.startswith("\ufeff") and "\r" not in text
    text = text.removeprefix("\ufeff")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return SourceText(text, verbatim=verbatim)


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
    """The hits of ``source``, matched in this process, after :func:`settle`."""
    selected = frozenset(rule_id for rule_id, _ in detectors.detectors())
    return settle(detectors.run(source), source, selected, changed, unchecked)


def scan_text(detectors: DetectorSet, source: str, *, timeout: float = FILE_TIMEOUT) -> FileScan:
    """The hits of ``source``, code held in memory (not a file), matched by the ``ast-grep``
    command under the time bound as a scanned file is, after :func:`settle`; line endings are
    read as Python reads them."""
    source = source.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    with Matcher(detectors.detectors(), timeout=timeout) as matcher:
        (found,) = matcher.match([Source("<code>", source)])
    selected = frozenset(rule_id for rule_id, _ in detectors.detectors())
    result = settle(found.hits, source, selected)
    return replace(result, stalled=found.stalled) if found.stalled else result


def settle(
    hits: Sequence[Hit],
    source: str,
    selected: frozenset[str],
    changed: frozenset[int] | None = None,
    unchecked: frozenset[str] | None = None,
) -> FileScan:
    """The hits of ``source`` (by detectors of the rules ``selected``) after its
    suppressions (and, given ``changed``, only those on a changed line); a suppression without
    a reason is a hit of its own and silences nothing. Given ``unchecked`` (the rule ids whose
    detectors did not all run), a suppression of any other rule on a line where no hit of that
    rule starts is reported as unused."""
    hits = sorted(set(hits), key=lambda h: (h.line, h.column, h.rule_id, h.detector_id))
    if changed is not None:
        hits = [h for h in hits if any(n in changed for n in range(h.line, h.end_line + 1))]
    read = read_suppressions(source)
    by_line = read.by_line
    notices = tuple(notice for notice in read.notices if changed is None or notice.line in changed)
    if not by_line:
        return FileScan(tuple(hits), notices=notices)
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


def scan_files(
    detectors: DetectorSet,
    files: Sequence[Path],
    changed: Mapping[Path, frozenset[int]] | None = None,
    jobs: int | None = None,
    unchecked: frozenset[str] | None = None,
    *,
    limit: int = MAX_FILE_BYTES,
    timeout: float = FILE_TIMEOUT,
) -> list[FileScan]:
    """One :class:`FileScan` per file, in order. ``changed`` (absolute path -> lines) keeps only
    hits on those lines; ``jobs`` caps the ``ast-grep`` runs at once (default, and at most: one
    per CPU this process may use); ``limit`` is the largest file read, in bytes; ``timeout``
    bounds the matching of one file, in seconds: a detector that does not finish on a file
    within it is a problem of that file, named, and the other detectors' hits stay."""
    cpus = os.process_cpu_count() or 1
    texts = [read_source(path, limit=limit) for path in files]
    readable = [i for i, text in enumerate(texts) if text.text is not None]
    sources = [_source(files[i], texts[i]) for i in readable]
    with Matcher(detectors.detectors(), timeout=timeout, jobs=min(jobs or cpus, cpus)) as matcher:
        matched = matcher.match(sources)
    selected = frozenset(rule_id for rule_id, _ in detectors.detectors())
    results = [FileScan(problem=text.problem) for text in texts]
    for index, found in zip(readable, matched, strict=True):
        source = texts[index].text
        assert source is not None
        lines = changed.get(files[index].absolute()) if changed is not None else None
        result = settle(found.hits, source, selected, lines, unchecked)
        if found.stalled:
            result = replace(result, stalled=found.stalled)
        results[index] = result
    return results


def _source(path: Path, text: SourceText) -> Source:
    """What the matcher reads: the file itself when ast-grep reads it as Python does (a
    ``.py`` file, its bytes unchanged, a name ast-grep prints back as given), else the text."""
    shown = os.path.abspath(path)
    if text.verbatim and path.suffix == ".py" and shown.isprintable():
        try:
            shown.encode("utf-8")
        except UnicodeEncodeError:  # a name that is not UTF-8 (surrogate escapes)
            return Source(shown, text.text)
        return Source(shown)
    return Source(shown, text.text)
