"""The lines a unified diff adds or changes, per file of the new side, read by the one diff
reader (:mod:`rlt_rules.files.diffs`).

A pull request's review wants hints on the code it adds: a line the diff adds (``+``), which
is also how a changed line appears, counts; context lines and removed lines do not. Paths are
the new side's, without Git's ``b/`` prefix, relative to the repository root; a path leaving
it, or a broken hunk header, is a :class:`DiffError` at its line.
"""

from __future__ import annotations

from ..files.diffs import DiffError, FileStatus, parse_diff

__all__ = ["DiffError", "changed_lines"]


def changed_lines(text: str) -> dict[str, frozenset[int]]:
    """``{path: 1-based lines added or changed}`` for each file the diff leaves in place."""
    if not text.strip():
        return {}
    changed: dict[str, frozenset[int]] = {}
    for file in parse_diff(text).files:
        if file.status is FileStatus.DELETED:
            continue
        changed[file.path] = file.added_lines | changed.get(file.path, frozenset())
    return changed
