"""Parse a finding's ``suggested_patch``: a unified diff of one file, as ``git diff`` prints it.

The parser is strict about what matters for applying the patch (one file, hunk headers whose
line counts match their bodies, hunks in order) and lenient about what editors change: an
empty line inside a hunk is read as an empty context line (trailing spaces get stripped).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from ..files.errors import InputError

_HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_NO_NEWLINE = "\\ No newline at end of file"


class PatchOp(StrEnum):
    """What a hunk's body line does; the value is its first character in the patch."""

    CONTEXT = " "
    REMOVED = "-"
    ADDED = "+"


@dataclass(frozen=True, slots=True)
class PatchLine:
    """One body line of a hunk: context kept, a line removed or a line added.

    ``index`` is its 0-based line number within the patch text, for diagnostics.
    """

    op: PatchOp
    text: str
    index: int


@dataclass(frozen=True, slots=True)
class Hunk:
    """``@@ -old_start,old_count +new_start,new_count @@`` and its body.

    When ``old_count`` is 0, ``old_start`` is the line after which the new lines go (0: the top).
    """

    old_start: int
    old_count: int
    new_start: int
    new_count: int
    lines: tuple[PatchLine, ...]
    index: int


@dataclass(frozen=True, slots=True)
class Replacement:
    """One contiguous change: replace ``deleted_count`` whole lines from ``start_line`` on
    (none: insert before ``start_line``) with ``inserted`` lines."""

    start_line: int
    deleted_count: int
    inserted: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Patch:
    """A parsed one-file unified diff. ``path`` is the new file's path without ``b/``."""

    old_path: str
    path: str
    hunks: tuple[Hunk, ...]
    newline_markers: bool

    def replacements(self) -> tuple[Replacement, ...]:
        """Each run of removed/added lines as one replacement, in file order."""
        found: list[Replacement] = []
        for hunk in self.hunks:
            old_line = hunk.old_start if hunk.old_count else hunk.old_start + 1
            run_start: int | None = None
            deleted = 0
            inserted: list[str] = []
            for line in (*hunk.lines, None):
                if line is not None and line.op is not PatchOp.CONTEXT:
                    if run_start is None:
                        run_start, deleted, inserted = old_line, 0, []
                    if line.op is PatchOp.REMOVED:
                        deleted += 1
                        old_line += 1
                    else:
                        inserted.append(line.text)
                    continue
                if run_start is not None:
                    found.append(Replacement(run_start, deleted, tuple(inserted)))
                    run_start = None
                old_line += 1
        return tuple(found)


class PatchError(InputError):
    """The patch is not a usable unified diff; ``index`` is the 0-based patch line at fault."""

    def __init__(self, index: int, message: str) -> None:
        super().__init__(message)
        self.index = index
        self.message = message


def _header_path(line: str, prefix: str) -> str:
    name = line[len(prefix) :].split("\t", 1)[0].strip()
    if name.startswith('"') and name.endswith('"') and len(name) > 1:
        name = name[1:-1]
    if name != "/dev/null" and name[:2] in ("a/", "b/"):
        name = name[2:]
    return name


def parse_patch(text: str) -> Patch:
    """Parse ``text``; raise :class:`PatchError` naming the first line that is wrong."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    index = 0
    while index < len(lines) and not lines[index].startswith("--- "):
        if lines[index].startswith(("@@", "+++ ")):
            raise PatchError(index, "the patch needs '--- a/PATH' and '+++ b/PATH' header lines")
        index += 1
    if index + 1 >= len(lines) or not lines[index + 1].startswith("+++ "):
        where = min(index, max(len(lines) - 1, 0))
        raise PatchError(where, "not a unified diff: expected '--- a/PATH' then '+++ b/PATH'")
    old_path = _header_path(lines[index], "--- ")
    new_path = _header_path(lines[index + 1], "+++ ")
    if new_path == "/dev/null" or old_path == "/dev/null":
        raise PatchError(index, "the patch must change the location's file, not create or delete")
    index += 2

    hunks: list[Hunk] = []
    markers = False
    previous_end = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("--- ") or line.startswith("diff "):
            raise PatchError(index, "the patch changes a second file: suggest one file per finding")
        if line[:1] in (" ", "-", "+"):
            raise PatchError(index, "the hunk above has more lines than its header counts")
        match = _HUNK_HEADER.match(line)
        if match is None:
            raise PatchError(
                index, f"expected a hunk header '@@ -LINE,COUNT +LINE,COUNT @@', got {line[:40]!r}"
            )
        old_start, new_start = int(match[1]), int(match[3])
        old_count = int(match[2]) if match[2] is not None else 1
        new_count = int(match[4]) if match[4] is not None else 1
        if old_start < previous_end or (old_count and old_start == 0):
            raise PatchError(
                index, f"hunk starts at line {old_start}, before the previous hunk ends"
            )
        header_index = index
        index += 1
        body: list[PatchLine] = []
        old_seen = new_seen = 0
        while index < len(lines) and (old_seen < old_count or new_seen < new_count):
            raw = lines[index]
            if raw == _NO_NEWLINE:
                markers = True
                index += 1
                continue
            first, content = (raw[0], raw[1:]) if raw else (" ", "")
            if first not in " -+":
                break
            op = PatchOp(first)
            body.append(PatchLine(op, content, index))
            old_seen += op is not PatchOp.ADDED
            new_seen += op is not PatchOp.REMOVED
            index += 1
        if index < len(lines) and lines[index] == _NO_NEWLINE:
            markers = True
            index += 1
        if old_seen != old_count or new_seen != new_count:
            raise PatchError(
                header_index,
                f"hunk header promises {old_count} old and {new_count} new line(s), "
                f"its body has {old_seen} and {new_seen}",
            )
        hunks.append(Hunk(old_start, old_count, new_start, new_count, tuple(body), header_index))
        previous_end = old_start + old_count
    if not hunks:
        raise PatchError(len(lines) - 1, "the patch has no hunks ('@@ -LINE,COUNT +LINE,COUNT @@')")
    return Patch(old_path, new_path, tuple(hunks), markers)
