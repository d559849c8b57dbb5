"""The one reader of unified diffs (``git diff``, ``diff -u``), with ``unidiff``: which files a
change touches and where, for review (``review-context``, ``findings``) and for the scan
(``scan --diff`` keeps hints on the lines a diff adds).

A diff is input anyone can write: a path that leaves the repository (absolute, or with a
``..`` part) or holds a NUL byte, a quoted name Git would not write, and a hunk header that is
not ``@@ -a,b +c,d @@`` are errors at their line, never read as "nothing changed". A name Git
quotes (``"b/caf\303\251.py"``: non-ASCII bytes, a tab, a quote) is unquoted to the name on
disk, bytes that are not UTF-8 kept as Python's file names keep them (surrogate escapes).

Line ranges are the new file's: what a finding's location points at, and what
``rlt-rules review-context`` lists. A hunk's range runs from its first to its last line in the
new file, context lines included (``@@ -a,b +52,76 @@`` is lines 52–127); a hunk that only
removes lines is the one line it removed them after. A suggested patch, a different job (one
file, applied to check it), is read by :mod:`rlt_rules.findings.patch`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import PurePosixPath

from unidiff import PatchedFile, PatchSet, UnidiffParseError

from .errors import InputError


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
    #: The new file's lines the diff adds (a changed line is removed and added).
    added_lines: frozenset[int] = field(default=frozenset(), compare=False)

    def covers(self, start: int, end: int) -> bool:
        """Whether lines ``start``–``end`` of the new file meet one of the hunks (context
        lines included: they count as part of the change's surroundings)."""
        return self.status is not FileStatus.DELETED and any(
            hunk.lines.overlaps(start, end) for hunk in self.hunks
        )

    def adds_within(self, start: int, end: int) -> bool:
        """Whether the diff adds (or changes) one of lines ``start``–``end`` of the new file."""
        return any(start <= line <= end for line in self.added_lines)


@dataclass(frozen=True, slots=True)
class Change:
    """Every file the diff touches, in the diff's order."""

    files: tuple[ChangedFile, ...]

    def file(self, path: str) -> ChangedFile | None:
        return next((changed for changed in self.files if changed.path == path), None)


class DiffError(InputError, ValueError):
    """The text is not a unified diff of at least one file, or names a path outside the
    repository; ``line`` is the diff's line at fault, when one is."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(f"line {line}: {message}" if line is not None else message)
        self.line = line


#: Git's C-style escapes in a quoted file name (``quote_c_style``), besides ``\NNN`` octal.
_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}
_OCTAL = re.compile(r"[0-3][0-7]{2}")


def unquote(name: str) -> str:
    """A file name as ``git diff`` writes it, unquoted: ``"b/caf\303\251.py"`` is
    ``b/café.py``; a name without quotes is itself. :class:`DiffError` for a quoted name Git
    would not write (an unknown escape, a bare quote inside)."""
    if len(name) < 2 or not (name.startswith('"') and name.endswith('"')):
        return name
    body = name[1:-1]
    out = bytearray()
    i = 0
    while i < len(body):
        char = body[i]
        if char == '"':
            raise DiffError(f"file name {name!r}: a bare '\"' inside a quoted name")
        if char != "\\":
            out += char.encode("utf-8", "surrogateescape")
            i += 1
            continue
        escape = body[i + 1 : i + 2]
        if escape in _ESCAPES:
            out.append(_ESCAPES[escape])
            i += 2
        elif _OCTAL.fullmatch(body[i + 1 : i + 4]):
            out.append(int(body[i + 1 : i + 4], 8))
            i += 4
        else:
            raise DiffError(
                f"file name {name!r}: {body[i : i + 2]!r} is not an escape Git writes "
                '(\\a \\b \\t \\n \\v \\f \\r \\" \\\\ or \\ and three octal digits)'
            )
    return out.decode("utf-8", "surrogateescape")


def check_revision(base: str) -> str:
    """``base`` when it can name a revision for ``git diff BASE`` (``main``,
    ``origin/main...HEAD``, a commit); :class:`DiffError` when it is empty, would be read as an
    option (a leading ``-``), or holds a NUL byte or another control character (the system
    refuses a NUL in an argument with an error of its own)."""
    if not base.strip() or base.startswith("-") or any(ord(c) < 32 or c == "\x7f" for c in base):
        raise DiffError(
            f"base {base!r} is not a revision: give a branch, tag or commit (no leading '-', "
            "no control characters)"
        )
    return base


_HUNK_HEADER = re.compile(r"@@ -[0-9]+(?:,(?P<old>[0-9]+))? \+[0-9]+(?:,(?P<new>[0-9]+))? @@")
_FILE_HEADER = re.compile(r"(?:\+\+\+|---) (?P<name>[^\t\n]*)")


def check_lines(text: str) -> None:
    """Reject what ``unidiff`` would accept silently: a file header whose path leaves the
    repository, holds a NUL byte or is quoted as Git never quotes, a hunk header that is not
    ``@@ -a,b +c,d @@``. Inside a hunk (as many lines as its header counts) every line is
    content, whatever it starts with."""
    old_left = new_left = 0
    for number, line in enumerate(text.splitlines(), 1):
        if old_left > 0 or new_left > 0:
            tag = line[:1]
            if tag == "-":
                old_left -= 1
            elif tag == "+":
                new_left -= 1
            elif tag != "\\":  # "\ No newline at end of file" counts for neither side
                old_left, new_left = old_left - 1, new_left - 1
            continue
        if line.startswith("@@") and not line.startswith("@@@"):
            hunk = _HUNK_HEADER.match(line)
            if hunk is None:
                raise DiffError(
                    f"hunk header {line[:60]!r} is not '@@ -start,count +start,count @@'",
                    number,
                )
            old_left = int(hunk["old"]) if hunk["old"] is not None else 1
            new_left = int(hunk["new"]) if hunk["new"] is not None else 1
            continue
        header = _FILE_HEADER.match(line)
        if header is None:
            continue
        written = header["name"].strip()
        try:
            name = unquote(written)
        except DiffError as error:
            raise DiffError(str(error), number) from None
        if name == "/dev/null":
            continue
        if "\0" in name:
            raise DiffError(f"path {written!r} holds a NUL byte: no file has one", number)
        path = PurePosixPath(_strip(name))
        if path.is_absolute() or ".." in path.parts:
            raise DiffError(
                f"path {name!r} leaves the repository (absolute, or with a '..' part): "
                "a diff names files relative to the repository root",
                number,
            )


def parse_diff(text: str) -> Change:
    """The files and hunks of a unified diff; :class:`DiffError` when it has none, is broken,
    or names a path outside the repository (:func:`check_lines`)."""
    check_lines(text)
    try:
        patch = PatchSet(text)
    except UnidiffParseError as error:
        raise DiffError(f"not a unified diff: {error}") from None
    files = tuple(_changed_file(patched) for patched in patch)
    if not files:
        raise DiffError(
            "not a unified diff: no changed file found; give the output of `git diff` or `diff -u`"
        )
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
    path = _path(patched.source_file if status is FileStatus.DELETED else patched.target_file)
    hunks = tuple(
        Hunk(
            _new_lines(hunk.target_start, hunk.target_length),
            sum(1 for line in hunk if line.is_added),
            sum(1 for line in hunk if line.is_removed),
        )
        for hunk in patched
    )
    old_path = _path(patched.source_file) if status is FileStatus.RENAMED else None
    added = frozenset(
        line.target_line_no
        for hunk in patched
        for line in hunk
        if line.is_added and line.target_line_no is not None
    )
    return ChangedFile(path, status, hunks, old_path, bool(patched.is_binary_file), added)


def _new_lines(start: int, length: int) -> LineRange:
    if length == 0:  # only removals: after line ``start`` (0: at the top)
        return LineRange(max(start, 1), max(start, 1))
    return LineRange(start, start + length - 1)


def _strip(name: str) -> str:
    return name[2:] if name[:2] in ("a/", "b/") else name


def _path(name: str) -> str:
    """A path as ``unidiff`` gives it (as ``git diff`` writes it): unquoted, without its
    ``a/`` or ``b/``."""
    return _strip(unquote(name))
