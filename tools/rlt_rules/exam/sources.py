"""The engine's code the real cases are written against: files of fetched corpus folders.

A corpus is a folder under the corpus cache (``.cache/corpus/sglang-0.5.23/``, written by
``python tools/corpus.py fetch``; ``RLT_CORPUS_CACHE`` moves it). Only our lines are
committed; each record names the lines of the engine's file it stands on by number and by the
sha256 of their bytes, so a corpus that is not the one a case was written against fails
loudly, naming the case file and what to do, never a silently shifted task.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from ..library.model import Diagnostic
from .data import ExamDataError, Region, Where

#: How to get the corpus folders this repository's cases read.
FETCH_COMMAND = "python tools/corpus.py fetch"


class CorpusError(ExamDataError):
    """A corpus folder or file is missing, or a record's lines are not what it expects."""


def region_sha256(lines: list[str], start_line: int, end_line: int) -> str:
    """sha256 hex of lines ``start_line..end_line`` (1-based, inclusive), each with its own
    line ending (``lines`` as ``str.splitlines(keepends=True)`` gives them)."""
    data = "".join(lines[start_line - 1 : end_line]).encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def _lines(region: Region) -> str:
    if region.start_line == region.end_line:
        return f"line {region.start_line}"
    return f"lines {region.start_line}–{region.end_line}"


@dataclass(slots=True)
class Corpora:
    """The corpus folders under ``root``, read once per file."""

    root: Path
    _lines: dict[tuple[str, str], list[str]] = field(default_factory=dict)

    def folder(self, corpus: str) -> Path:
        return self.root / corpus

    def missing(self, corpora: frozenset[str]) -> list[str]:
        """The corpus folders of ``corpora`` that are not under the root."""
        return sorted(name for name in corpora if not self.folder(name).is_dir())

    def lines(self, corpus: str, path: str) -> list[str] | None:
        """The file's lines with their endings; None when it is not there."""
        key = (corpus, path)
        if key not in self._lines:
            file = self.folder(corpus) / path
            try:
                text = file.read_bytes().decode("utf-8")
            except (OSError, UnicodeDecodeError):
                return None
            self._lines[key] = text.splitlines(keepends=True)
        return self._lines[key]

    def region_lines(self, region: Region, where: Where) -> list[str]:
        """The whole file of ``region``, once its lines are checked against the record;
        :class:`CorpusError` naming the record's file and what to do otherwise."""
        lines = self.lines(region.corpus, region.path)
        if lines is None:
            raise CorpusError(
                (
                    where.problem(
                        f"{region.path} is not in the corpus {self.folder(region.corpus)}: "
                        f"the corpus is incomplete or another version; run `{FETCH_COMMAND}` "
                        "(or give --corpus), or fix the record's path"
                    ),
                )
            )
        if region.end_line > len(lines):
            raise CorpusError(
                (
                    where.problem(
                        f"{_lines(region)} of {region.path} in "
                        f"{region.corpus}: the file has {len(lines)} lines; the corpus drifted "
                        f"or the record is wrong: run `{FETCH_COMMAND}` or re-anchor the record"
                    ),
                )
            )
        found = region_sha256(lines, region.start_line, region.end_line)
        if found != region.sha256:
            raise CorpusError(
                (
                    where.problem(
                        f"the corpus drifted: the sha256 of {_lines(region)} of {region.path} "
                        f"in {self.folder(region.corpus)} is "
                        f"{found[:12]}…, the record expects {region.sha256[:12]}…: fetch the "
                        f"pinned corpus again (`{FETCH_COMMAND}`), or re-anchor the record on "
                        "the lines it means and write their sha256"
                    ),
                )
            )
        return lines

    def require(self, corpora: frozenset[str]) -> None:
        """:class:`CorpusError` naming every corpus folder missing under the root."""
        missing = self.missing(corpora)
        if missing:
            raise CorpusError(
                tuple(
                    Diagnostic(
                        str(self.folder(name)),
                        1,
                        1,
                        f"no corpus {name} here: run `{FETCH_COMMAND}`, or give --corpus DIR "
                        "(the folder holding the fetched corpora)",
                    )
                    for name in missing
                )
            )
