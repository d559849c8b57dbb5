"""Read input that anyone can write (scanned code, a diff, a ``.gitignore``) in bounded time and
memory: only regular files (a FIFO or a device is refused before it can block or stream), and
never more than a stated number of bytes, each refusal a :class:`ReadRefused` naming the file,
the limit and the option that raises it. A limit outside :data:`~rlt_rules.files.bounds.BYTES` (a
negative one would read without end) is an :class:`~rlt_rules.files.bounds.OutOfBounds`, and a path
holding a NUL byte, which no file has, a :class:`BadPath`.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from pathlib import Path
from typing import Any

from .bounds import BYTES, OutOfBounds
from .errors import InputError

#: A scanned Python file may hold this many bytes (SGLang's largest is under 1 MiB); a larger
#: one is skipped and reported. ``scan --max-file-bytes`` raises it.
MAX_FILE_BYTES = 4 * 1024 * 1024
#: A diff may hold this many bytes (a 30-file, +1,907-line change is about 100 KB).
#: ``--max-diff-bytes`` raises it.
MAX_DIFF_BYTES = 32 * 1024 * 1024
#: A ``.gitignore`` larger than this is not a real one and is not read.
MAX_IGNORE_BYTES = 1024 * 1024
#: JSON nested deeper than this is refused before it is parsed (the parser recurses: deeper
#: text is a RecursionError, at a depth that differs between Python versions).
MAX_JSON_DEPTH = 100


class ReadRefused(InputError, OSError):
    """A file not read: not a regular file, too large, or unreadable; ``str()`` says why and
    what to do."""


class JsonRefused(InputError, ValueError):
    """JSON text that is not JSON, or nested deeper than :data:`MAX_JSON_DEPTH`: ``str()`` is
    ``line L, column C: what is wrong``."""

    def __init__(self, line: int, column: int, message: str) -> None:
        super().__init__(f"line {line}, column {column}: {message}")
        self.line = line
        self.column = column
        self.message = message


class BadPath(InputError, ValueError):
    """A path no file can have (a NUL byte in it); ``str()`` names it and where it came from."""


def check_path(path: str | os.PathLike[str], what: str) -> None:
    """:class:`BadPath` when ``path`` (``what`` says where it came from: ``--root``, a path to
    scan) holds a NUL byte: the system would refuse it with a ``ValueError`` of its own."""
    if "\0" in os.fspath(path):
        raise BadPath(f"{what} {os.fspath(path)!r} holds a NUL byte: no file has one")


def check_limit(limit: int, option: str | None) -> int:
    """``limit`` when it is within :data:`~rlt_rules.files.bounds.BYTES`; else
    :class:`~rlt_rules.files.bounds.OutOfBounds` naming ``option``."""
    try:
        return int(BYTES.check(limit))
    except OutOfBounds as error:
        raise OutOfBounds(f"{option or 'the byte limit'} {error}") from None


def read_regular(path: Path, *, limit: int, option: str | None = None) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them.

    The file is opened without blocking (a FIFO never holds the scan) and checked on the open
    descriptor (a link swapped for a device in between is still caught); more than ``limit``
    bytes is a :class:`ReadRefused` naming ``option``, the option that raises the limit.
    """
    check_limit(limit, option)
    check_path(path, "file")
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        raise ReadRefused(f"cannot read: {error.strerror or error}") from None
    with os.fdopen(descriptor, "rb") as handle:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            kind = "a FIFO" if stat.S_ISFIFO(mode) else "a device or socket"
            raise ReadRefused(f"not a regular file ({kind}): not read")
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise ReadRefused(_too_large(limit, option))
    return data


def read_stream(stream, *, limit: int, option: str | None = None) -> bytes:
    """At most ``limit`` bytes of a binary stream (standard input)."""
    check_limit(limit, option)
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise ReadRefused(_too_large(limit, option))
    return data


def read_diff(argument: str, *, limit: int = MAX_DIFF_BYTES) -> str:
    """The diff ``--diff ARGUMENT`` names (``-``: standard input), as text; undecodable bytes
    replaced. A FIFO named by path (``<(git diff)``) is read like standard input, bounded."""
    option = "--max-diff-bytes"
    check_limit(limit, option)
    if argument == "-":
        stdin = getattr(sys.stdin, "buffer", None)
        if stdin is None:  # replaced by a text stream (an embedding program, a test)
            text = sys.stdin.read(limit + 1)
            if len(text.encode("utf-8")) > limit:
                raise ReadRefused(f"standard input: {_too_large(limit, option)}")
            return text
        try:
            data = read_stream(stdin, limit=limit, option=option)
        except ReadRefused as error:
            raise ReadRefused(f"standard input: {error}") from None
        return data.decode("utf-8", errors="replace")
    check_path(argument, "--diff")
    path = Path(argument)
    try:
        mode = path.stat().st_mode
    except OSError:
        raise ReadRefused(f"{argument}: no such file (--diff)") from None
    if stat.S_ISFIFO(mode):
        with path.open("rb") as stream:
            try:
                data = read_stream(stream, limit=limit, option=option)
            except ReadRefused as error:
                raise ReadRefused(f"{argument}: {error}") from None
    else:
        try:
            data = read_regular(path, limit=limit, option=option)
        except ReadRefused as error:
            raise ReadRefused(f"{argument}: {error}") from None
    return data.decode("utf-8", errors="replace")


#: A JSON string (closed or not), or a bracket: what nesting depth is counted over.
_JSON_NESTING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]')


def parse_json(text: str, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``text`` parsed as JSON; :class:`JsonRefused` at the line and column of a syntax error,
    or of the first bracket deeper than ``max_depth``. Bound the text's size before calling:
    the depth is counted in one pass over it."""
    depth = 0
    for match in _JSON_NESTING.finditer(text):
        token = match.group()
        if token == "[" or token == "{":
            depth += 1
            if depth > max_depth:
                line = text.count("\n", 0, match.start()) + 1
                column = match.start() - text.rfind("\n", 0, match.start())
                raise JsonRefused(line, column, f"nested deeper than {max_depth} levels")
        elif token == "]" or token == "}":
            depth -= 1
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise JsonRefused(error.lineno, error.colno, error.msg) from None


def _too_large(limit: int, option: str | None) -> str:
    raises = f" ({option} raises it)" if option else ""
    return f"over the {limit:,}-byte limit: not read{raises}"
