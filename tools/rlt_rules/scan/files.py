"""The Python files a scan reads: named files as given, folders walked without what Git ignores.

A folder is walked in sorted order. Hidden files and folders (a name starting with ``.``) are
skipped, as ``ast-grep scan`` and ripgrep skip them, and so is everything a ``.gitignore``
excludes: the ``.gitignore`` files inside the walked folder and those of its parent folders up
to the repository root (the nearest folder holding ``.git``), matched with Git's rules by
``pathspec`` (deeper files and later lines win; an ignored folder is not entered). A file named
on the command line is always scanned, and so is a folder (as ripgrep and ``ast-grep scan`` do):
when Git ignores the named folder itself, only the ``.gitignore`` files inside it apply.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pathspec

#: File name endings ast-grep reads as Python.
PYTHON_SUFFIXES = (".py", ".pyi")
GITIGNORE = ".gitignore"


@dataclass(frozen=True, slots=True)
class _Ignore:
    """One ``.gitignore``: the folder it applies to and its compiled patterns."""

    base: Path
    spec: pathspec.GitIgnoreSpec

    def check(self, path: Path, is_dir: bool) -> bool | None:
        """True: ignored; False: re-included (``!pattern``); None: no pattern matched."""
        relative = path.relative_to(self.base).as_posix() + ("/" if is_dir else "")
        return self.spec.check_file(relative).include


def _load(folder: Path) -> _Ignore | None:
    path = folder / GITIGNORE
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return _Ignore(folder, pathspec.GitIgnoreSpec.from_lines(lines))


def _ancestor_ignores(folder: Path) -> list[_Ignore]:
    """The ``.gitignore`` files of ``folder``'s parents up to the repository root, outermost
    first; none when ``folder`` is not inside a Git repository."""
    chain: list[Path] = []
    for parent in folder.parents:
        chain.append(parent)
        if (parent / ".git").exists():
            break
    else:
        return []
    loaded = (_load(parent) for parent in reversed(chain))
    return [ignore for ignore in loaded if ignore is not None]


def _ignored(path: Path, ignores: list[_Ignore], *, is_dir: bool) -> bool:
    verdict = False
    for ignore in ignores:
        found = ignore.check(path, is_dir)
        if found is not None:
            verdict = found
    return verdict


def walk(folder: Path) -> Iterator[Path]:
    """The Python files under ``folder`` that Git would not ignore, in sorted order."""
    folder = folder.absolute()
    ignores = _ancestor_ignores(folder)
    if _ignored(folder, ignores, is_dir=True):
        ignores = []
    yield from _walk(folder, ignores)


def _walk(folder: Path, ignores: list[_Ignore]) -> Iterator[Path]:
    own = _load(folder) if (folder / GITIGNORE).is_file() else None
    if own is not None:
        ignores = [*ignores, own]
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue
        path = Path(entry.path)
        try:
            is_dir = entry.is_dir()
        except OSError:
            continue
        if _ignored(path, ignores, is_dir=is_dir):
            continue
        if is_dir:
            yield from _walk(path, ignores)
        elif entry.name.endswith(PYTHON_SUFFIXES):
            yield path


def python_files(paths: Iterable[Path]) -> Iterator[Path]:
    """Each named file, and the Python files of each named folder, once each."""
    seen: set[Path] = set()
    for path in paths:
        found = walk(path) if path.is_dir() else iter((path,))
        for file in found:
            key = file.absolute()
            if key not in seen:
                seen.add(key)
                yield file


def shown_path(path: Path, cwd: Path) -> str:
    """How a scanned file is named in the output: relative to ``cwd`` with forward slashes
    when it is inside it (as a findings file and code-scanning tools expect), else absolute."""
    absolute = path.absolute()
    try:
        return absolute.relative_to(cwd).as_posix()
    except ValueError:
        return absolute.as_posix()
