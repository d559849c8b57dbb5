"""The reviewed repository the MCP server runs in: its root, the change under review (a diff
given as text, or ``git diff BASE -- PATH...`` read from the repository by
:mod:`rlt_rules.files.gitdiff`) and the files an agent names, kept inside the root. Read-only: git
is asked for a diff and nothing else.

The root may be a folder inside a Git repository: the diff is then that folder's alone, its
paths relative to it (``git diff --relative``), as every other path here is. A diff, given or
read, holds at most :data:`~rlt_rules.files.reading.MAX_DIFF_BYTES`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..files.gitdiff import GIT_TIMEOUT_SECONDS, GitChange, GitDiffError, read_change
from ..files.reading import MAX_DIFF_BYTES
from ..findings.diff import Change, DiffError, parse_diff
from .views import ViewError

__all__ = ["GIT_TIMEOUT_SECONDS", "Workspace"]


class Workspace:
    """The repository root (resolved) that paths, diffs and findings are relative to."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    def diff_text(self, diff: str | None, base: str | None) -> str | None:
        """The diff given, or ``git diff BASE`` in the repository; None for neither."""
        if diff is not None and base is not None:
            raise ViewError("give the change as `diff` or as `base`, not both")
        if base is not None:
            return self.git_diff(base)
        if diff is not None and len(diff.encode("utf-8", "surrogatepass")) > MAX_DIFF_BYTES:
            raise ViewError(
                f"diff: over the {MAX_DIFF_BYTES:,}-byte limit on a diff: not read; review a "
                "smaller change (a nearer base, or the diff of a few files)"
            )
        return diff

    def change(self, diff: str | None, base: str | None) -> Change | None:
        """The change ``diff`` holds, or ``git diff BASE`` in the repository; None for neither."""
        text = self.diff_text(diff, base)
        if text is None:
            return None
        diff = text
        try:
            return parse_diff(diff)
        except DiffError as error:
            where = f"git diff {base}" if base is not None else "diff"
            raise ViewError(f"{where}: {error}") from None

    def git_diff(self, base: str) -> str:
        """``git diff BASE``: the working tree against the revision ``base`` (``main``,
        ``origin/main...HEAD``, a commit)."""
        return self.git_change(base).text

    def git_change(self, base: str, paths: Sequence[str] = ()) -> GitChange:
        """``git diff BASE -- PATH...`` in the repository, with what it was read with; the
        paths are relative to the root and stay inside it."""
        for name in paths:
            if "\0" in name:
                raise ViewError(f"{name!r}: a path holds no NUL byte")
            if not (self.root / name).resolve().is_relative_to(self.root):
                raise ViewError(f"{name}: outside the repository {self.root}")
        try:
            return read_change(
                self.root, base, paths, instead="the change as `diff`", relative=True
            )
        except GitDiffError as error:
            raise ViewError(str(error)) from None

    def paths(self, given: list[str]) -> list[Path]:
        """The files and folders ``given`` names, relative to the root, each inside it."""
        if not given:
            raise ViewError("give at least one file or folder to scan")
        found = []
        for name in given:
            if "\0" in name:
                raise ViewError(f"{name!r}: a path holds no NUL byte")
            path = (self.root / name).resolve()
            if not path.is_relative_to(self.root):
                raise ViewError(f"{name}: outside the repository {self.root}")
            if not path.exists():
                raise ViewError(f"{name}: no such file or folder in {self.root}")
            found.append(path)
        return found
