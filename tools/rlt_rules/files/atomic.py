"""Write export files so a reader sees the old file or the new one, never a half-written one.

One file (:func:`write_atomic`): the bytes go to a temporary file in the target's own directory
(same file system), are flushed to disk, and replace the target with one :func:`os.replace`.
Any failure, including an exception raised by the producer of the bytes while writing, removes
the temporary file and leaves the previous target untouched.

A set of files (:func:`write_files_atomic`, e.g. ``llms.txt`` with ``llms-full.txt``): every new
file is written in full to a staging folder first, then the set is committed by renaming each
file into place. Every target is checked before the first rename (a folder where a file goes, a
file where a folder goes, a link: :class:`WriteRefused`, nothing renamed). The staging folder
records what each target held when the set was planned (``.expected.json``): a target changed
since is never replaced. Killed while writing, the export leaves every old file as it was;
killed during the commit (a few renames), some files are new and the rest old, each complete,
and the next write into that folder finishes that commit before anything else, except for a
target written in between (a hand-written ``AGENTS.md``), which it keeps and reports
(:attr:`FolderWrite.kept`).

A killed writer cannot remove its temporary files. Their names carry the writer's process id,
and the next writer into the same folder removes those of processes that no longer run
(:func:`remove_stale`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import xxhash

from .errors import InputError

#: A temporary file of :func:`write_atomic`: ``.<target name>.<pid>-<random>.tmp``.
_TEMPORARY = re.compile(r"\.(?P<target>.+)\.(?P<pid>[0-9]+)-[^.]+\.tmp")
#: A staging folder of :func:`write_files_atomic`: ``.rlt-export.<pid>-<random>``.
_STAGING_PREFIX = ".rlt-export."
_STAGING = re.compile(r"\.rlt-export\.(?P<pid>[0-9]+)-[^.]+")
#: Created in a staging folder once every file is in it: from then on the set is committed.
COMMIT_MARKER = ".committing"
#: In a staging folder: each target's content hash when the set was planned (null: absent).
EXPECTED = ".expected.json"
#: Files of a set whose name starts with this (a record of the set, such as the manifest of
#: :mod:`rlt_rules.files.owned`) are committed after every other file of the set.
RECORD_PREFIX = ".rlt-rules-"


class WriteRefused(InputError):
    """A write that would replace what it must not (a link, a read-only file, a folder, a file
    changed since it was planned), refused before anything was written. ``str()`` says which
    path and what to do."""


@dataclass(frozen=True, slots=True)
class FolderWrite:
    """Explicit outcome of :func:`write_files_atomic`: the files written, and the targets an
    earlier, killed write would have replaced but which changed since it planned them (kept)."""

    written: list[Path]
    kept: list[Path] = field(default_factory=list)


def digest(data: bytes) -> str:
    """``sha256:<hex>`` of ``data``: how a written file is recorded and compared."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def content_digest(path: Path) -> str | None:
    """:func:`digest` of a regular file's bytes; None when there is no file."""
    try:
        return digest(path.read_bytes())
    except (FileNotFoundError, NotADirectoryError):
        return None


def check_output_file(path: Path) -> None:
    """Refuse an output file that must not be replaced: a link (the link would be replaced,
    not its target), a read-only file (its mode would be lost), a folder, or a file in a
    folder that does not exist. Call it before doing the work whose result goes there."""
    path = Path(path)
    if path.is_symlink():
        raise WriteRefused(
            f"{path}: is a symbolic link; rlt-rules would replace the link, not its target: "
            "give the target's path"
        )
    if path.is_dir():
        raise WriteRefused(f"{path}: is a folder; give the file to write")
    if not path.parent.is_dir():
        raise WriteRefused(f"{path.parent}: no such directory")
    if not path.exists():
        return
    mode = path.stat().st_mode
    if not stat.S_ISREG(mode):
        raise WriteRefused(f"{path}: is not a regular file")
    if not mode & 0o222:  # by its mode, as a person reads it (root could write it anyway)
        raise WriteRefused(f"{path}: is read-only; make it writable or write elsewhere")


def check_targets(directory: Path, names: Iterable[str]) -> None:
    """Refuse a set of files whose place is taken by something they cannot replace: a folder
    where a file goes, a file (or link) where a folder goes, a link where a file goes."""
    directory = Path(directory)
    for name in names:
        target = directory / name
        for parent in reversed(target.relative_to(directory).parents[:-1]):
            place = directory / parent
            if place.is_symlink() or (place.exists() and not place.is_dir()):
                raise WriteRefused(
                    f"{place}: {name} goes inside it, and it is a file or a link: "
                    "move it away or write the export to another folder"
                )
        if target.is_symlink():
            raise WriteRefused(f"{target}: is a link; rlt-rules replaces files, not links")
        if target.is_dir():
            raise WriteRefused(
                f"{target}: is a folder, and the export writes a file there: "
                "move it away or write the export to another folder"
            )
        if target.exists() and not target.is_file():
            raise WriteRefused(f"{target}: is not a regular file; move it away")


def current_umask() -> int:
    """The process's umask (read by setting it and back: there is no other portable way)."""
    current = os.umask(0)
    os.umask(current)
    return current


def process_running(pid: int) -> bool:
    """Whether a process with this id exists (this user's or another's)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def write_atomic(path: Path, content: bytes | Iterable[bytes], *, durable: bool = True) -> None:
    """Replace ``path`` with ``content`` (bytes, or chunks produced while writing).

    The new file gets the usual permissions (0666 minus the umask), not mkstemp's 0600.
    ``durable=False`` skips flushing it to disk first: a reader still sees the old file or the
    new one, but a crash of the machine may leave neither (for a file rebuilt anyway, such as
    a site's).
    """
    path = Path(path)
    remove_stale(path.parent, path.name)
    descriptor, name = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.{os.getpid()}-", suffix=".tmp"
    )
    temporary = Path(name)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            _write_chunks(handle, content, durable=durable)
        os.chmod(temporary, 0o666 & ~current_umask())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


@dataclass(frozen=True, slots=True)
class _Written:
    """A file as its writer left it: the digest of its bytes, and what ``stat`` said then."""

    digest: bytes
    size: int
    mtime_ns: int
    inode: int


class LastWritten:
    """What one writer last wrote at each path, so that a file it would write again with the
    same bytes is left alone (a live preview rebuilds every export on each edit, most of them
    the same).

    A file is left alone only when it is still as written: same size, modification time and
    inode as recorded right after writing it, and the new bytes have the recorded digest
    (XXH3, 128 bits: a checksum of what this writer wrote, not a defence against anyone).
    Anything else is written, atomically (:func:`write_atomic`). The owner keeps it for as
    long as the files it wrote are its own (the site plugin, across a preview's builds).
    """

    __slots__ = ("_written",)

    def __init__(self) -> None:
        self._written: dict[Path, _Written] = {}

    def write(self, path: Path, data: bytes, *, durable: bool = True) -> bool:
        """Write ``data`` to ``path`` unless it holds them already as this writer left it;
        True when written."""
        path = Path(path)
        digest = xxhash.xxh3_128_digest(data)
        known = self._written.get(path)
        if known is not None and known.digest == digest and known.size == len(data):
            try:
                found = path.lstat()
            except OSError:
                found = None
            if (
                found is not None
                and stat.S_ISREG(found.st_mode)
                and (found.st_size, found.st_mtime_ns, found.st_ino)
                == (known.size, known.mtime_ns, known.inode)
            ):
                return False
        self._written.pop(path, None)  # a failed write leaves nothing known
        write_atomic(path, data, durable=durable)
        found = path.lstat()
        self._written[path] = _Written(digest, found.st_size, found.st_mtime_ns, found.st_ino)
        return True

    def forget_others(self, paths: Iterable[Path]) -> None:
        """Forget every path but ``paths`` (the files of the latest build)."""
        keep = {Path(path) for path in paths}
        self._written = {path: known for path, known in self._written.items() if path in keep}


def _write_chunks(handle, content: bytes | Iterable[bytes], *, durable: bool = True) -> None:
    chunks = (content,) if isinstance(content, bytes) else content
    for chunk in chunks:
        handle.write(chunk)
    handle.flush()
    if durable:
        os.fsync(handle.fileno())


def write_files_atomic(
    directory: Path,
    files: Mapping[str, bytes],
    *,
    expected: Mapping[str, str | None] | None = None,
) -> FolderWrite:
    """Write each ``files[name]`` under ``directory`` (created if missing) as one set.

    Every file's bytes are rendered before this is called, so a rendering error writes nothing.
    ``expected`` is each target's :func:`content_digest` when the caller decided it may be
    replaced (default: now); a target that no longer holds it is not replaced
    (:class:`WriteRefused`, nothing renamed).
    """
    directory = Path(directory)
    check_targets(directory, files)
    directory.mkdir(parents=True, exist_ok=True)
    kept = remove_stale(directory)
    if expected is None:
        expected = {name: content_digest(directory / name) for name in files}
    staging = Path(tempfile.mkdtemp(dir=directory, prefix=f"{_STAGING_PREFIX}{os.getpid()}-"))
    try:
        for name, data in files.items():
            staged = staging / name
            staged.parent.mkdir(parents=True, exist_ok=True)
            with staged.open("wb") as handle:
                _write_chunks(handle, data)
            os.chmod(staged, 0o666 & ~current_umask())
        with (staging / EXPECTED).open("w", encoding="utf-8") as handle:
            json.dump({name: expected.get(name) for name in files}, handle)
        (staging / COMMIT_MARKER).touch()
        changed = _commit(staging, directory)
        if changed:
            raise WriteRefused(
                f"{', '.join(str(path) for path in changed)}: changed while the export was "
                "written; nothing was replaced: run it again"
            )
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return FolderWrite([directory / name for name in files], kept)


def _commit(staging: Path, directory: Path) -> list[Path]:
    """Move every staged file to its place in ``directory``, unless a target no longer holds
    what it held when the set was planned: returns those targets. A commit that has not begun
    (every target as planned) renames nothing when one changed; a commit that a killed writer
    began keeps the changed targets and finishes the rest."""
    try:
        expected = json.loads((staging / EXPECTED).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []  # an older or damaged staging folder: nothing is known to be safe to move
    staged_files = sorted(
        (
            path
            for path in staging.rglob("*")
            if path.is_file() and path.name not in (COMMIT_MARKER, EXPECTED)
        ),
        key=lambda path: (path.name.startswith(RECORD_PREFIX), path),
    )
    names = [path.relative_to(staging).as_posix() for path in staged_files]
    check_targets(directory, names)
    changed = [
        directory / name
        for name, staged in zip(names, staged_files, strict=True)
        if content_digest(directory / name) not in (expected.get(name), content_digest(staged))
    ]
    begun = any(
        content_digest(directory / name) != expected.get(name)
        for name in expected
        if name not in names
    )
    if changed and not begun:
        return changed
    for name, staged in zip(names, staged_files, strict=True):
        target = directory / name
        if target in changed:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(staged, target)
    return changed


def remove_stale(directory: Path, target_name: str | None = None) -> list[Path]:
    """Clean up after writers into ``directory`` that were killed (their process is gone).

    Their temporary files are removed (only those for ``target_name`` when given); a staging
    folder whose set was being committed is committed first, so no mix of old and new files
    stays behind, except targets changed since that set was planned, which are kept and
    returned; other staging folders are removed.
    """
    kept: list[Path] = []
    if not directory.is_dir():
        return kept
    for entry in directory.iterdir():
        temporary = _TEMPORARY.fullmatch(entry.name)
        if temporary is not None and target_name in (None, temporary.group("target")):
            if not process_running(int(temporary.group("pid"))):
                entry.unlink(missing_ok=True)
            continue
        staging = _STAGING.fullmatch(entry.name)
        if staging is None or target_name is not None or not entry.is_dir():
            continue
        if not process_running(int(staging.group("pid"))):
            if (entry / COMMIT_MARKER).exists():
                kept.extend(_commit(entry, directory))
            shutil.rmtree(entry, ignore_errors=True)
    return kept
