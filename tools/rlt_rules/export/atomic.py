"""Write export files so a reader sees the old file or the new one, never a half-written one.

The bytes go to a temporary file in the target's own directory (same file system), are
flushed to disk, and replace the target with one :func:`os.replace`. Any failure, including
an exception raised by the producer of the bytes while writing, removes the temporary file
and leaves the previous target untouched.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def write_atomic(path: Path, content: bytes | Iterable[bytes]) -> None:
    """Replace ``path`` with ``content`` (bytes, or chunks produced while writing).

    The new file gets the usual permissions (0666 minus the umask), not mkstemp's 0600.
    """
    path = Path(path)
    descriptor, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    temporary = Path(name)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            chunks = (content,) if isinstance(content, bytes) else content
            for chunk in chunks:
                handle.write(chunk)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_files_atomic(directory: Path, files: Mapping[str, bytes]) -> list[Path]:
    """Write each ``files[name]`` under ``directory`` (created if missing), each atomically.

    Every file's bytes are rendered before this is called, so a rendering error writes nothing.
    Returns the written paths in order.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, data in files.items():
        target = directory / name
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, data)
        written.append(target)
    return written
