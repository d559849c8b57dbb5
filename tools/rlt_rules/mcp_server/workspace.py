"""The reviewed repository the MCP server runs in: its root, the change under review (a diff
given as text, or ``git diff BASE`` read from the repository) and the files an agent names,
kept inside the root. Read-only: git is asked for a diff and nothing else.

The root may be a folder inside a Git repository: the diff is then that folder's alone, its
paths relative to it (``git diff --relative``), as every other path here is. A diff, given or
read, holds at most :data:`~rlt_rules.reading.MAX_DIFF_BYTES`.
"""

from __future__ import annotations

import subprocess
import tempfile
import threading
from pathlib import Path

from ..findings.diff import Change, DiffError, parse_diff
from ..reading import MAX_DIFF_BYTES
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
        if diff is not None and len(diff.encode("utf-8", "surrogatepass")) > MAX_DIFF_BYTES:
            raise ViewError(f"diff: {_too_large()}")
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
        ``origin/main...HEAD``, a commit), within the root, paths relative to it; at most
        :data:`~rlt_rules.reading.MAX_DIFF_BYTES` of it, else :class:`ViewError`."""
        if not base.strip() or base.startswith("-") or "\0" in base:
            raise ViewError(f"base {base!r} is not a revision: give a branch, tag or commit")
        command = ["git", "-C", str(self.root), "diff", "--relative", "--no-color"]
        command += ["--no-ext-diff", "--no-textconv", base, "--"]
        with tempfile.TemporaryFile() as errors:
            try:
                git = subprocess.Popen(
                    command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=errors
                )
            except FileNotFoundError:
                raise ViewError("git is not installed here: pass the change as `diff`") from None
            stopped = threading.Event()

            def stop() -> None:
                stopped.set()
                git.kill()

            timer = threading.Timer(GIT_TIMEOUT_SECONDS, stop)
            timer.start()
            assert git.stdout is not None
            with git.stdout:
                try:
                    data = git.stdout.read(MAX_DIFF_BYTES + 1)
                except BaseException:
                    git.kill()
                    raise
                finally:
                    timer.cancel()
                if len(data) > MAX_DIFF_BYTES:
                    git.kill()  # nothing more is read
            git.wait()
            errors.seek(0)
            message = errors.read(4096).decode("utf-8", errors="replace").strip()
        if stopped.is_set():
            raise ViewError(
                f"git diff {base} took over {GIT_TIMEOUT_SECONDS} s: pass the change as `diff`"
            )
        if len(data) > MAX_DIFF_BYTES:
            raise ViewError(f"git diff {base}: {_too_large()}")
        if git.returncode != 0:
            first = message.splitlines()[0] if message else ""
            raise ViewError(f"git diff {base} failed in {self.root}: {first}")
        # As a text-mode pipe reads it: undecodable bytes replaced, every line end a newline.
        text = data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
        if not text.strip():
            raise ViewError(f"git diff {base}: no change between {base} and the working tree")
        return text

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


def _too_large() -> str:
    return (
        f"over the {MAX_DIFF_BYTES:,}-byte limit on a diff: not read; review a smaller change "
        "(a nearer base, or the diff of a few files)"
    )
