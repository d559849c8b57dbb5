"""The change under review read from Git: ``git diff BASE -- PATH...``, the working tree against
a revision (``HEAD`` by default: what is not committed yet), for ``review-context`` and the MCP
server's ``review_context``, ``check_findings`` and ``scan_code``.

Read-only: Git is asked for a diff, its work tree's top and its untracked files, nothing else;
an external diff driver or a text conversion the repository configures is never run. Paths
limit the diff as Git's pathspecs do, relative to the folder Git runs in; the diff's own paths
are relative to the work tree's top, as :mod:`rlt_rules.files.diffs` reads them, or, with
``relative=True``, to the folder Git runs in (``git diff --relative``: only that folder's
change). A diff holds at most :data:`~rlt_rules.files.reading.MAX_DIFF_BYTES`: Git's output past it
is not read.
"""

from __future__ import annotations

import shlex
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .errors import InputError
from .reading import MAX_DIFF_BYTES

#: How long one ``git`` call may take before the read gives up.
GIT_TIMEOUT_SECONDS = 60
#: The revision a change is read against when none is given: the last commit.
DEFAULT_BASE = "HEAD"


class GitDiffError(InputError, ValueError):
    """The change could not be read from Git (no Git, not a work tree, an unknown revision)
    or is empty; ``str()`` says why and what to give instead."""


@dataclass(frozen=True, slots=True)
class GitChange:
    """``git diff BASE -- PATH...`` as read: its text, what it was read with, the work tree's
    top (the diff's paths are relative to it) and the untracked files under the paths, which
    ``git diff`` leaves out."""

    text: str
    base: str
    paths: tuple[str, ...]
    top: Path
    untracked: tuple[str, ...] = ()

    def command(self) -> str:
        """The shell command that prints the same diff, run where it was read:
        ``git diff HEAD -- sglang/srt/model_executor``."""
        return shlex.join(diff_arguments(self.base, self.paths))


def diff_arguments(base: str, paths: Sequence[str] = ()) -> list[str]:
    """``git diff BASE`` and, when given, ``-- PATH...``."""
    return ["git", "diff", base, *(("--", *paths) if paths else ())]


def check_base(base: str) -> None:
    """A revision Git can be given safely: not blank, and not an option (``--output=...``)."""
    if not base.strip() or base.startswith("-") or "\0" in base:
        raise GitDiffError(f"base {base!r} is not a revision: give a branch, tag or commit")


def read_change(
    folder: Path,
    base: str = DEFAULT_BASE,
    paths: Sequence[str] = (),
    *,
    instead: str = "the change as a diff",
    relative: bool = False,
) -> GitChange:
    """``git diff BASE -- PATH...`` in ``folder``: :class:`GitDiffError` when Git cannot give
    it, when it is over :data:`~rlt_rules.files.reading.MAX_DIFF_BYTES`, or when it is empty (the
    message names the untracked files left out, if any). ``instead`` is what the messages tell
    the caller's user to give instead: ``--diff FILE``. ``relative``: only ``folder``'s change,
    its paths relative to ``folder`` (then ``top`` is ``folder``)."""
    check_base(base)
    for name in paths:
        if "\0" in name:
            raise GitDiffError(f"{name!r}: a path holds no NUL byte")
    top = Path(_git(folder, ["rev-parse", "--show-toplevel"], "git rev-parse", instead).strip())
    if relative:
        top = folder
    where = " -- " + shlex.join(paths) if paths else ""
    options = ["--relative"] if relative else []
    text = _git(
        folder,
        ["diff", *options, "--no-color", "--no-ext-diff", "--no-textconv", base, "--", *paths],
        f"git diff {base}{where}",
        instead,
        limit=MAX_DIFF_BYTES,
    )
    listed = _git(
        folder,
        ["ls-files", "--others", "--exclude-standard", "--full-name", "-z", "--", *paths],
        "git ls-files",
        instead,
    )
    untracked = tuple(name for name in listed.split("\0") if name)
    if not text.strip():
        under = f" under {', '.join(paths)}" if paths else ""
        left = (
            f" ({len(untracked)} untracked file(s) there, which git diff leaves out: "
            "`git add -N FILE` includes one)"
            if untracked
            else ""
        )
        raise GitDiffError(
            f"git diff {base}: no change between {base} and the working tree{under}{left}: "
            f"give another base (a branch such as main) or {instead}"
        )
    return GitChange(text, base, tuple(paths), top, untracked)


def _git(
    folder: Path, arguments: list[str], shown: str, instead: str, *, limit: int | None = None
) -> str:
    """Git's standard output for ``arguments`` run in ``folder``, at most ``limit`` bytes of it;
    :class:`GitDiffError` when it fails, takes over :data:`GIT_TIMEOUT_SECONDS`, or says more
    than ``limit``, naming ``shown`` and Git's first line of complaint."""
    command = ["git", "-C", str(folder), *arguments]
    with tempfile.TemporaryFile() as errors:
        try:
            git = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=errors
            )
        except FileNotFoundError:
            raise GitDiffError(f"git is not installed here: give {instead}") from None
        stopped = threading.Event()

        def stop() -> None:
            stopped.set()
            git.kill()

        timer = threading.Timer(GIT_TIMEOUT_SECONDS, stop)
        timer.daemon = True
        timer.start()
        assert git.stdout is not None
        with git.stdout:
            try:
                data = git.stdout.read(-1 if limit is None else limit + 1)
            except BaseException:
                git.kill()
                raise
            finally:
                timer.cancel()
            over = limit is not None and len(data) > limit
            if over:
                git.kill()  # nothing more is read
        git.wait()
        errors.seek(0)
        complaint = errors.read(4096).decode("utf-8", errors="replace").strip()
    if stopped.is_set():
        raise GitDiffError(f"{shown} took over {GIT_TIMEOUT_SECONDS} s: give {instead}")
    if over:
        raise GitDiffError(
            f"{shown}: over the {limit:,}-byte limit on a diff: not read; review a smaller "
            "change (a nearer base, or the diff of a few files)"
        )
    if git.returncode != 0:
        first = complaint.splitlines()[0] if complaint else ""
        if arguments[0] == "rev-parse":
            raise GitDiffError(f"{folder} is not in a Git work tree ({first}): give {instead}")
        raise GitDiffError(f"{shown} failed in {folder}: {first}")
    # As a text-mode pipe reads it: undecodable bytes replaced, every line end a newline.
    return data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
