"""The stdio wire between the client and the MCP SDK: every line checked before the SDK reads it.

The SDK's stdio transport reads a line whole, however long (a 3 GB line ends the server), and
a line it cannot read as a JSON-RPC message (``"params": "x"``, nesting deeper than its parser
goes, a lone surrogate escape) gets no answer at all: the client waits forever. So the server's
standard input and output are not the SDK's: :class:`Wire` keeps them, and hands the SDK a pipe
for each. A thread reads the client's lines, each at most :data:`MAX_LINE_BYTES` (a longer one
is discarded as it streams in, and answered); a line the SDK would not read as a message is
answered with a JSON-RPC error (its ``id`` when one can be read) and never reaches the SDK;
the rest go on unchanged. Another thread copies the SDK's output to the client, a line at a
time, so an answer written here never splits one of the SDK's.
"""

from __future__ import annotations

import json
import os
import re
import select
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import KW_ONLY, dataclass
from typing import Any

from mcp_types import jsonrpc_message_adapter
from pydantic import ValidationError

#: The longest line read, in bytes: twice the largest diff a tool takes
#: (:data:`rlt_rules.files.reading.MAX_DIFF_BYTES`), since JSON escapes it.
MAX_LINE_BYTES = 64 * 1024 * 1024
#: JSON-RPC error codes.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
#: How much of a discarded line is kept to find its ``id`` in.
_PREFIX_BYTES = 64 * 1024
_CHUNK_BYTES = 1024 * 1024
#: A JSON token: a string (closed or not), punctuation, or a bare word (number, literal).
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[{}\[\]:,]|[^\s{}\[\]:,"]+')
#: Most tokens looked through for a top-level ``id``.
_ID_TOKENS = 100_000
_SURROGATE = re.compile("[\ud800-\udfff]")


class Wire:
    """The client's standard input and output, kept from the SDK (a context manager).

    Entering saves them and points file descriptors 0 and 1 at ``/dev/null`` and standard
    error, so a process started before :meth:`serve` (the worker fork server) holds nothing of
    the wire; :meth:`serve` runs the SDK on pipes in their place; leaving restores them."""

    def __init__(self, *, max_line_bytes: int = MAX_LINE_BYTES) -> None:
        self.max_line_bytes = max_line_bytes
        self._in = -1
        self._out = -1
        self._lock = threading.Lock()
        self._reader: threading.Thread | None = None

    def __enter__(self) -> Wire:
        sys.stdout.flush()
        self._in, self._out = os.dup(0), os.dup(1)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(2, 1)
        return self

    def __exit__(self, *exc_info: object) -> None:
        os.dup2(self._in, 0)
        os.dup2(self._out, 1)
        if self._reader is None or not self._reader.is_alive():
            os.close(self._in)  # else the reading thread still holds it: the process is ending
        os.close(self._out)

    def serve(self, run: Callable[[], None]) -> None:
        """``run()`` (the SDK's stdio server) with descriptors 0 and 1 on the checked pipes;
        everything it wrote has reached the client when this returns."""
        to_sdk, sdk_in = os.pipe()
        sdk_out, from_sdk = os.pipe()
        stop_out, stop_in = os.pipe()
        os.dup2(to_sdk, 0)
        os.close(to_sdk)
        os.dup2(from_sdk, 1)
        os.close(from_sdk)
        inbound = threading.Thread(target=self._inbound, args=(sdk_in,), daemon=True)
        outbound = threading.Thread(target=self._outbound, args=(sdk_out, stop_out), daemon=True)
        inbound.start()
        outbound.start()
        self._reader = inbound
        try:
            run()
        finally:
            os.write(stop_in, b"x")
            outbound.join()
            for descriptor in (sdk_out, stop_out, stop_in):
                os.close(descriptor)
            os.dup2(2, 1)

    # --- client to SDK -------------------------------------------------------------------------

    def _inbound(self, sdk_in: int) -> None:
        try:
            for line, complete in _lines(self._in, self.max_line_bytes):
                if not complete:
                    request_id = _top_level_id(line.decode("utf-8", errors="replace"))
                    self.answer(
                        request_id,
                        INVALID_REQUEST,
                        f"the message is over the {self.max_line_bytes:,}-byte limit on a line: "
                        "discarded unread; send less (a smaller diff or answer, fewer paths)",
                    )
                    continue
                # The SDK reads with universal newlines: a lone CR ends a line too.
                for piece in line.split(b"\r"):
                    self._pass(piece, sdk_in)
        except OSError:
            pass  # the SDK stopped reading: it is ending
        finally:
            os.close(sdk_in)

    def _pass(self, line: bytes, sdk_in: int) -> None:
        if not line.strip():
            return
        refusal = check_line(line)
        if refusal is None:
            _write_all(sdk_in, line + b"\n")
        elif refusal.answered:
            self.answer(refusal.request_id, refusal.code, refusal.message)
        else:
            print(f"rlt-rules mcp: ignored a message: {refusal.message}", file=sys.stderr)

    def answer(self, request_id: str | int | None, code: int, message: str) -> None:
        """Write a JSON-RPC error answering ``request_id`` to the client, between two lines of
        the SDK's."""
        reply = {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
        line = json.dumps(reply).encode("ascii") + b"\n"
        with self._lock:
            _write_all(self._out, line)

    # --- SDK to client -------------------------------------------------------------------------

    def _outbound(self, sdk_out: int, stop: int) -> None:
        """Copy the SDK's output to the client; the lock is held from a line's first byte to
        its end. Once ``stop`` is readable, what the pipe holds is copied and the copy ends."""
        holding = False
        try:
            while True:
                ready, _, _ = select.select([sdk_out, stop], [], [])
                if sdk_out not in ready:
                    os.set_blocking(sdk_out, False)  # rlt: ignore[R07] positional-only API
                chunk = _read_some(sdk_out)
                if not chunk:
                    return
                if not holding:
                    self._lock.acquire()
                    holding = True
                _write_all(self._out, chunk)
                if chunk.endswith(b"\n"):
                    self._lock.release()
                    holding = False
        except OSError:
            return  # the client is gone
        finally:
            if holding:
                self._lock.release()


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a line does not go to the SDK, and the answer owed (``answered``: a request, or a
    line nobody can tell is not one; JSON-RPC answers no notification and no response)."""

    request_id: str | int | None
    code: int
    message: str
    _: KW_ONLY
    answered: bool


def check_line(line: bytes) -> Refusal | None:
    """None when the SDK reads ``line`` as a JSON-RPC message (as its stdio transport reads
    it: UTF-8, bad bytes replaced); else the refusal, with the request's ``id`` if it has one."""
    text = line.decode("utf-8", errors="replace")
    try:
        jsonrpc_message_adapter.validate_json(text, by_name=False)
    except ValidationError as error:
        return _diagnose(text, error)
    return None


def _diagnose(text: str, error: ValidationError) -> Refusal:
    try:
        message = json.loads(text)
    except RecursionError:
        return Refusal(
            _top_level_id(text),
            INVALID_REQUEST,
            "the message is nested too deep to read: send arguments nested a few levels",
            answered=True,
        )
    except ValueError as parse:
        return Refusal(None, PARSE_ERROR, f"not JSON: {parse}", answered=True)
    if not isinstance(message, dict):
        what = "a batch (a JSON array)" if isinstance(message, list) else "not a JSON object"
        return Refusal(
            None, INVALID_REQUEST, f"{what}: send one JSON-RPC message per line", answered=True
        )
    request_id = _valid_id(message.get("id"))
    problem = _problem(message, error)
    if "method" in message and "id" in message:
        code = INVALID_PARAMS if _envelope_valid(message) else INVALID_REQUEST
        return Refusal(request_id, code, problem, answered=True)
    # A notification, or a response to the server, is never answered (JSON-RPC 2.0 §4.1, §5);
    # an object that is neither is an invalid request.
    neither = not {"method", "result", "error"} & message.keys()
    return Refusal(request_id, INVALID_REQUEST, problem, answered=neither)


def _problem(message: dict[str, Any], error: ValidationError) -> str:
    """The first thing wrong with ``message``, for the client to correct."""
    lone = _lone_surrogate(message)
    if lone is not None:
        return (
            f"a string holds a lone surrogate (\\u{ord(lone):04x} without its pair): not "
            "Unicode text; escape a character outside the BMP as a surrogate pair, or send UTF-8"
        )
    details = error.errors(include_url=False, include_input=False)
    for detail in details:
        if detail["type"] == "json_invalid":  # read by Python's parser, not by pydantic's
            return f"the SDK cannot read the message: {detail['msg']}"
    kind = _kind(message)
    for detail in details:
        where = detail["loc"]
        if kind is None or (where and where[0] == kind):
            field = ".".join(str(part) for part in where[1:]) or "the message"
            return f"{field}: {detail['msg']}"
    return "not a JSON-RPC 2.0 message"


def _kind(message: dict[str, Any]) -> str | None:
    """The JSON-RPC message type ``message`` means to be (the SDK's model name)."""
    if "method" in message:
        return "JSONRPCRequest" if "id" in message else "JSONRPCNotification"
    if "result" in message:
        return "JSONRPCResponse"
    return "JSONRPCError" if "error" in message else None


def _envelope_valid(message: dict[str, Any]) -> bool:
    """Whether the request is one with other ``params``: then the params are at fault."""
    try:
        jsonrpc_message_adapter.validate_python({**message, "params": {}}, by_name=False)
    except ValidationError:
        return False
    return True


def _lone_surrogate(value: Any) -> str | None:
    """The first lone surrogate in any string of ``value`` (keys included), else None."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            found = _SURROGATE.search(item)
            if found:
                return found.group()
        elif isinstance(item, dict):
            pending.extend(item)
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return None


def _valid_id(value: Any) -> str | int | None:
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    return None


def _top_level_id(text: str) -> str | int | None:
    """The ``id`` member of the object ``text`` starts, found without parsing the rest (text
    too long or too deep to parse): None when it is not among the first tokens."""
    depth = 0
    key: Any = None
    expecting_key = after_colon = False
    for count, match in enumerate(_TOKEN.finditer(text)):
        if count > _ID_TOKENS:
            return None
        token = match.group()
        if token == "{" or token == "[":
            after_colon = False
            depth += 1
            expecting_key = depth == 1 and token == "{"
        elif token == "}" or token == "]":
            depth -= 1
        elif depth != 1:
            continue
        elif token == ":":
            after_colon = True
        elif token == ",":
            expecting_key = True
        elif after_colon:
            after_colon = False
            if key == "id":
                return _valid_id(_scalar(token))
        elif expecting_key:
            key = _scalar(token)
            expecting_key = False
    return None


def _scalar(token: str) -> Any:
    try:
        return json.loads(token)
    except ValueError:
        return None


# --- bytes ---------------------------------------------------------------------------------------


def _lines(descriptor: int, limit: int) -> Iterator[tuple[bytes, bool]]:
    """The lines read from ``descriptor``, each with whether it is whole: a line over
    ``limit`` bytes is given as its first bytes, the rest read and dropped."""
    pending = bytearray()
    overlong = False
    while True:
        chunk = os.read(descriptor, _CHUNK_BYTES)
        if not chunk:
            if pending and not overlong:
                yield bytes(pending), True
            elif overlong:
                yield bytes(pending), False
            return
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            piece = chunk[start:] if end < 0 else chunk[start:end]
            if overlong:
                if len(pending) < _PREFIX_BYTES:
                    pending += piece[: _PREFIX_BYTES - len(pending)]
            else:
                pending += piece
                if len(pending) > limit:
                    overlong = True
                    del pending[_PREFIX_BYTES:]
            if end < 0:
                break
            yield bytes(pending), not overlong
            pending.clear()
            overlong = False
            start = end + 1


def _read_some(descriptor: int) -> bytes:
    try:
        return os.read(descriptor, _CHUNK_BYTES)
    except BlockingIOError:
        return b""


def _write_all(descriptor: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(descriptor, view)
        view = view[written:]
