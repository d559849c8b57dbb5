"""The lines a unified diff adds or changes, per file of the new side (``unidiff`` parses it).

A pull request's review wants hints on the code it adds: a line the diff adds (``+``), which
is also how a changed line appears, counts; context lines and removed lines do not. Paths are
the new side's, without Git's ``b/`` prefix, relative to the repository root.
"""

from __future__ import annotations

from unidiff import PatchSet
from unidiff.errors import UnidiffParseError


class DiffError(ValueError):
    """The text is not a unified diff."""


def changed_lines(text: str) -> dict[str, frozenset[int]]:
    """``{path: 1-based lines added or changed}`` for each file the diff leaves in place."""
    try:
        patch = PatchSet.from_string(text)
    except UnidiffParseError as error:
        raise DiffError(f"not a unified diff: {error}") from None
    if not patch and text.strip():
        raise DiffError("not a unified diff: no file header (--- a/… +++ b/…) found")
    changed: dict[str, frozenset[int]] = {}
    for file in patch:
        if file.is_removed_file:
            continue
        path = file.target_file
        if path.startswith("b/"):
            path = path[2:]
        lines = {
            line.target_line_no
            for hunk in file
            for line in hunk
            if line.is_added and line.target_line_no is not None
        }
        changed[path] = frozenset(lines) | changed.get(path, frozenset())
    return changed
