"""The reviewed repository the MCP server runs in: its root, the change under review (a diff
given as text, or ``git diff BASE`` read from the repository) and the files an agent names,
kept inside the root. Read-only: git is asked for a diff and nothing else."""

from __future__ import annotations

import subprocess
from pathlib import Path

from ..findings.diff import Change, DiffError, parse_diff
from .views import ViewError

#: How long ``git diff`` may take before the call gives up.
GIT_TIMEOUT_SECONDS = 60


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
        if not base.strip() or base.startswith("-"):
            raise ViewError(f"base {base!r} is not a revision: give a branch, tag or commit")
        command = ["git", "-C", str(self.root), "diff", "--no-color", "--no-ext-diff"]
        try:
            result = subprocess.run(
                [*command, "--no-textconv", base, "--"],
                capture_output=True,
                text=True,
                errors="replace",
                timeout=GIT_TIMEOUT_SECONDS,
                check=False,
            )
        except FileNotFoundError:
            raise ViewError("git is not installed here: pass the change as `diff`") from None
        except subprocess.TimeoutExpired:
            raise ViewError(
                f"git diff {base} took over {GIT_TIMEOUT_SECONDS} s: pass the change as `diff`"
            ) from None
        if result.returncode != 0:
            message = result.stderr.strip().splitlines()[0] if result.stderr.strip() else ""
            raise ViewError(f"git diff {base} failed in {self.root}: {message}")
        if not result.stdout.strip():
            raise ViewError(f"git diff {base}: no change between {base} and the working tree")
        return result.stdout

    def paths(self, given: list[str]) -> list[Path]:
        """The files and folders ``given`` names, relative to the root, each inside it."""
        if not given:
            raise ViewError("give at least one file or folder to scan")
        found = []
        for name in given:
            path = (self.root / name).resolve()
            if not path.is_relative_to(self.root):
                raise ViewError(f"{name}: outside the repository {self.root}")
            if not path.exists():
                raise ViewError(f"{name}: no such file or folder in {self.root}")
            found.append(path)
        return found
