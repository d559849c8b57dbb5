"""The Python files a scan reads: named files as given, folders walked without what Git ignores.

A folder is walked in sorted order. Hidden files and folders (a name starting with ``.``) are
skipped, as ``ast-grep scan`` and ripgrep skip them, and so is everything a ``.gitignore``
excludes: the ``.gitignore`` files inside the walked folder and those of its parent folders up
to the repository root (the nearest folder holding ``.git``), matched with Git's rules in
linear time by :mod:`rlt_rules.files.globs` (deeper files and later lines win; an ignored folder is
not entered). A file named
on the command line is always scanned, and so is a folder (as ripgrep and ``ast-grep scan`` do):
when Git ignores the named folder itself, only the ``.gitignore`` files inside it apply.

Whatever a repository holds, the walk ends: links are not followed (two links to ``.`` would
make it grow without end; a link may lead out of the tree or to a device), only regular files
are yielded, each real file once, and a ``.gitignore`` that is not a regular file, or is too
large, is not read. What the walk could not read (a folder, a ``.gitignore`` line that can
match nothing, such as ``!`` or ``[z-a]``) is reported in :attr:`Walk.problems`, by path and
line, never silently lost: the line is left out and the walk goes on, as Git goes on past it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..files.globs import Glob, GlobError, GlobSet, PathMatch
from ..files.reading import MAX_IGNORE_BYTES, ReadRefused, read_regular

#: File name endings ast-grep reads as Python.
PYTHON_SUFFIXES = (".py", ".pyi")
GITIGNORE = ".gitignore"


@dataclass(frozen=True, slots=True)
class _Ignore:
    """One ``.gitignore``: the folder it applies to and its compiled patterns."""

    base: Path
    globs: GlobSet

    def check(self, path: Path, *, is_dir: bool) -> PathMatch:
        relative = path.relative_to(self.base).as_posix() + ("/" if is_dir else "")
        return self.globs.check(relative)


def _ignored(path: Path, *, is_dir: bool, ignores: list[_Ignore]) -> bool:
    verdict = False
    for ignore in ignores:
        found = ignore.check(path, is_dir=is_dir)
        if found is not PathMatch.UNMATCHED:
            verdict = found is PathMatch.EXCLUDED
    return verdict


@dataclass(frozen=True, slots=True)
class WalkProblem:
    """Something the walk could not read: a path, the line at fault (1 when none) and why."""

    path: Path
    line: int
    message: str


@dataclass
class Walk:
    """The Python files of some named paths, walked once each; the problems met on the way.

    The walk owns ``problems``: iterate :meth:`files` to the end, then read them.
    """

    problems: list[WalkProblem] = field(default_factory=list)
    _seen: set[tuple[int, int]] = field(default_factory=set)

    def files(self, paths: Iterable[Path]) -> Iterator[Path]:
        """Each named file, and the Python files of each named folder, each real file once."""
        for path in paths:
            if path.is_dir() and not path.is_symlink():
                found = self._walk_root(path)
            else:
                found = iter((path,))  # named: read as given (the reader refuses non-files)
            for file in found:
                if self._first_visit(file):
                    yield file

    def _first_visit(self, file: Path) -> bool:
        try:
            status = file.stat()
        except OSError:
            return True  # the reader reports it
        key = (status.st_dev, status.st_ino)
        if key in self._seen:
            return False
        self._seen.add(key)
        return True

    def _walk_root(self, folder: Path) -> Iterator[Path]:
        folder = folder.absolute()
        ignores = self._ancestor_ignores(folder)
        if _ignored(folder, is_dir=True, ignores=ignores):
            ignores = []  # named, so walked: only the .gitignore files inside it apply
        yield from self._walk(folder, ignores)

    def _load(self, folder: Path) -> _Ignore | None:
        path = folder / GITIGNORE
        try:
            raw = read_regular(path, limit=MAX_IGNORE_BYTES)
        except ReadRefused as error:
            if _present(path):
                self.problems.append(WalkProblem(path, 1, f"{error}; its patterns are not applied"))
            return None
        lines = raw.decode("utf-8", errors="replace").splitlines()
        globs = []  # each line compiled once: one that can match nothing is reported
        for number, line in enumerate(lines, 1):
            try:
                glob = Glob.compile(line)
            except GlobError as error:
                self.problems.append(WalkProblem(path, number, f"{error}; line ignored"))
                continue
            if glob is not None:
                globs.append(glob)
        return _Ignore(folder, GlobSet(globs))

    def _ancestor_ignores(self, folder: Path) -> list[_Ignore]:
        """The ``.gitignore`` files of ``folder``'s parents up to the repository root,
        outermost first; none when ``folder`` is not inside a Git repository."""
        chain: list[Path] = []
        for parent in folder.parents:
            chain.append(parent)
            if _present(parent / ".git"):
                break
        else:
            return []
        loaded = (self._load(parent) for parent in reversed(chain) if _present(parent / GITIGNORE))
        return [ignore for ignore in loaded if ignore is not None]

    def _walk(self, folder: Path, ignores: list[_Ignore]) -> Iterator[Path]:
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError as error:
            self.problems.append(
                WalkProblem(folder, 1, f"cannot read folder: {error.strerror or error}: skipped")
            )
            return
        if any(entry.name == GITIGNORE for entry in entries):
            own = self._load(folder)
            if own is not None:
                ignores = [*ignores, own]
        for entry in entries:
            if entry.name.startswith("."):
                continue
            path = Path(entry.path)
            try:
                if entry.is_symlink():
                    continue  # not followed: out of the tree, to a device, or round in a loop
                is_dir = entry.is_dir(follow_symlinks=False)
                is_file = entry.is_file(follow_symlinks=False)
            except OSError:
                continue
            if _ignored(path, is_dir=is_dir, ignores=ignores):
                continue
            if is_dir:
                yield from self._walk(path, ignores)
            elif is_file and entry.name.endswith(PYTHON_SUFFIXES):
                yield path


def _present(path: Path) -> bool:
    """Whether ``path`` names anything, a dangling link too; a name in a folder this process
    may not search counts as present, so reading it reports why it cannot be read."""
    try:
        os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return True
    return True


def shown_path(path: Path, cwd: Path) -> str:
    """How a scanned file is named in the output: relative to ``cwd`` with forward slashes
    when it is inside it (as a findings file and code-scanning tools expect), else absolute."""
    absolute = path.absolute()
    try:
        return absolute.relative_to(cwd).as_posix()
    except ValueError:
        return absolute.as_posix()
