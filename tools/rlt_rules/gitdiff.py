"""The change under review read from Git: ``git diff BASE -- PATH...``, the working tree against
a revision (``HEAD`` by default: what is not committed yet), for ``review-context`` and the MCP
server's ``review_context``, ``check_findings`` and ``scan_code``.

Read-only: Git is asked for a diff, its work tree's top and its untracked files, nothing else;
an external diff driver or a text conversion the repository configures is never run. Paths
limit the diff as Git's pathspecs do, relative to the folder Git runs in; the diff's own paths
are relative to the work tree's top, as :mod:`rlt_rules.diffs` reads them.
"""

from __future__ import annotations

import shlex
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

#: How long one ``git`` call may take before the read gives up.
GIT_TIMEOUT_SECONDS = 60
#: The revision a change is read against when none is given: the last commit.
DEFAULT_BASE = "HEAD"


class GitDiffError(ValueError):
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
    if not base.strip() or base.startswith("-"):
        raise GitDiffError(f"base {base!r} is not a revision: give a branch, tag or commit")


def read_change(
    folder: Path,
    base: str = DEFAULT_BASE,
    paths: Sequence[str] = (),
    *,
    instead: str = "the change as a diff",
) -> GitChange:
    """``git diff BASE -- PATH...`` in ``folder``: :class:`GitDiffError` when Git cannot give
    it, or when it is empty (the message names the untracked files left out, if any).
    ``instead`` is what the messages tell the caller's user to give instead: ``--diff FILE``."""
    check_base(base)
    top = Path(_git(folder, ["rev-parse", "--show-toplevel"], "git rev-parse", instead).strip())
    where = " -- " + shlex.join(paths) if paths else ""
    text = _git(
        folder,
        ["diff", "--no-color", "--no-ext-diff", "--no-textconv", base, "--", *paths],
        f"git diff {base}{where}",
        instead,
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


def _git(folder: Path, arguments: list[str], shown: str, instead: str) -> str:
    """Git's standard output for ``arguments`` run in ``folder``; :class:`GitDiffError` when
    it fails, naming ``shown`` and Git's first line of complaint."""
    try:
        result = subprocess.run(
            ["git", "-C", str(folder), *arguments],
            capture_output=True,
            text=True,
            errors="replace",
            timeout=GIT_TIMEOUT_SECONDS,
            check=False,
        )
    except FileNotFoundError:
        raise GitDiffError(f"git is not installed here: give {instead}") from None
    except subprocess.TimeoutExpired:
        raise GitDiffError(f"{shown} took over {GIT_TIMEOUT_SECONDS} s: give {instead}") from None
    if result.returncode != 0:
        complaint = result.stderr.strip().splitlines()[0] if result.stderr.strip() else ""
        if arguments[0] == "rev-parse":
            raise GitDiffError(f"{folder} is not in a Git work tree ({complaint}): give {instead}")
        raise GitDiffError(f"{shown} failed in {folder}: {complaint}")
    return result.stdout
