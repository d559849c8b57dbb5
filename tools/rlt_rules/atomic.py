"""Write export files so a reader sees the old file or the new one, never a half-written one.

One file (:func:`write_atomic`): the bytes go to a temporary file in the target's own directory
(same file system), are flushed to disk, and replace the target with one :func:`os.replace`.
Any failure, including an exception raised by the producer of the bytes while writing, removes
the temporary file and leaves the previous target untouched.

A set of files (:func:`write_files_atomic`, e.g. ``llms.txt`` with ``llms-full.txt``): every new
file is written in full to a staging folder first, then the set is committed by renaming each
file into place. Killed while writing, the export leaves every old file as it was; killed
during the commit (a few renames), some files are new and the rest old, each complete, and the
next write into that folder finishes that commit before anything else.

A killed writer cannot remove its temporary files. Their names carry the writer's process id,
and the next writer into the same folder removes those of processes that no longer run
(:func:`remove_stale`).
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

#: A temporary file of :func:`write_atomic`: ``.<target name>.<pid>-<random>.tmp``.
_TEMPORARY = re.compile(r"\.(?P<target>.+)\.(?P<pid>[0-9]+)-[^.]+\.tmp")
#: A staging folder of :func:`write_files_atomic`: ``.rlt-export.<pid>-<random>``.
_STAGING_PREFIX = ".rlt-export."
_STAGING = re.compile(r"\.rlt-export\.(?P<pid>[0-9]+)-[^.]+")
#: Created in a staging folder once every file is in it: from then on the set is committed.
COMMIT_MARKER = ".committing"


def _umask() -> int:
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
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _write_chunks(handle, content: bytes | Iterable[bytes], *, durable: bool = True) -> None:
    chunks = (content,) if isinstance(content, bytes) else content
    for chunk in chunks:
        handle.write(chunk)
    handle.flush()
    if durable:
        os.fsync(handle.fileno())


def write_files_atomic(directory: Path, files: Mapping[str, bytes]) -> list[Path]:
    """Write each ``files[name]`` under ``directory`` (created if missing) as one set.

    Every file's bytes are rendered before this is called, so a rendering error writes nothing.
    Returns the written paths in order.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    remove_stale(directory)
    staging = Path(tempfile.mkdtemp(dir=directory, prefix=f"{_STAGING_PREFIX}{os.getpid()}-"))
    try:
        for name, data in files.items():
            staged = staging / name
            staged.parent.mkdir(parents=True, exist_ok=True)
            with staged.open("wb") as handle:
                _write_chunks(handle, data)
            os.chmod(staged, 0o666 & ~_umask())
        (staging / COMMIT_MARKER).touch()
        _commit(staging, directory)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return [directory / name for name in files]


def _commit(staging: Path, directory: Path) -> None:
    """Move every staged file to its place in ``directory``."""
    for staged in sorted(staging.rglob("*")):
        if staged.is_dir() or staged.name == COMMIT_MARKER:
            continue
        target = directory / staged.relative_to(staging)
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(staged, target)


def remove_stale(directory: Path, target_name: str | None = None) -> None:
    """Clean up after writers into ``directory`` that were killed (their process is gone).

    Their temporary files are removed (only those for ``target_name`` when given); a staging
    folder whose set was being committed is committed first, so no mix of old and new files
    stays behind; other staging folders are removed.
    """
    if not directory.is_dir():
        return
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
                _commit(entry, directory)
            shutil.rmtree(entry, ignore_errors=True)
