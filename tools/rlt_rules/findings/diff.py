"""The change under review: which files a unified diff (``git diff``, ``diff -u``) touches and
where, read with ``unidiff``.

Line ranges are the new file's: what a finding's location points at, and what
``rlt-rules review-context`` lists. A hunk's range runs from its first to its last line in the
new file, context lines included (``@@ -a,b +52,76 @@`` is lines 52–127); a hunk that only
removes lines is the one line it removed them after. A suggested patch, a different job (one
file, applied to check it), is read by :mod:`.patch`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from unidiff import PatchedFile, PatchSet, UnidiffParseError


class FileStatus(StrEnum):
    ADDED = "added"
    MODIFIED = "modified"
    RENAMED = "renamed"
    DELETED = "deleted"


@dataclass(frozen=True, slots=True)
class LineRange:
    """An inclusive, 1-based range of lines."""

    start: int
    end: int

    def overlaps(self, start: int, end: int) -> bool:
        return start <= self.end and self.start <= end

    def label(self) -> str:
        return f"line {self.start}" if self.start == self.end else f"lines {self.start}–{self.end}"


@dataclass(frozen=True, slots=True)
class Hunk:
    """One hunk: its lines in the new file, and how many lines it adds and removes."""

    lines: LineRange
    added: int
    removed: int


@dataclass(frozen=True, slots=True)
class ChangedFile:
    """A file the diff touches: its path in the new tree (the old one when deleted)."""

    path: str
    status: FileStatus
    hunks: tuple[Hunk, ...]
    old_path: str | None = None
    binary: bool = False

    def covers(self, start: int, end: int) -> bool:
        """Whether lines ``start``–``end`` of the new file meet one of the hunks."""
        return self.status is not FileStatus.DELETED and any(
            hunk.lines.overlaps(start, end) for hunk in self.hunks
        )


@dataclass(frozen=True, slots=True)
class Change:
    """Every file the diff touches, in the diff's order."""

    files: tuple[ChangedFile, ...]

    def file(self, path: str) -> ChangedFile | None:
        return next((changed for changed in self.files if changed.path == path), None)


class DiffError(Exception):
    """The text is not a unified diff of at least one file."""


def parse_diff(text: str) -> Change:
    """The files and hunks of a unified diff; :class:`DiffError` when it has none or is broken."""
    try:
        patch = PatchSet(text)
    except UnidiffParseError as error:
        raise DiffError(f"not a unified diff: {error}") from None
    files = tuple(_changed_file(patched) for patched in patch)
    if not files:
        raise DiffError("no changed file found: give the output of `git diff` or `diff -u`")
    return Change(files)


def _changed_file(patched: PatchedFile) -> ChangedFile:
    status = (
        FileStatus.ADDED
        if patched.is_added_file
        else FileStatus.DELETED
        if patched.is_removed_file
        else FileStatus.RENAMED
        if patched.is_rename
        else FileStatus.MODIFIED
    )
    path = _strip(patched.source_file if status is FileStatus.DELETED else patched.target_file)
    hunks = tuple(
        Hunk(
            _new_lines(hunk.target_start, hunk.target_length),
            sum(1 for line in hunk if line.is_added),
            sum(1 for line in hunk if line.is_removed),
        )
        for hunk in patched
    )
    old_path = _strip(patched.source_file) if status is FileStatus.RENAMED else None
    return ChangedFile(path, status, hunks, old_path, bool(patched.is_binary_file))


def _new_lines(start: int, length: int) -> LineRange:
    if length == 0:  # only removals: after line ``start`` (0: at the top)
        return LineRange(max(start, 1), max(start, 1))
    return LineRange(start, start + length - 1)


def _strip(name: str) -> str:
    return name[2:] if name[:2] in ("a/", "b/") else name
