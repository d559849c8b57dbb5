"""How a tool call runs: in a worker process, under a deadline, its errors as the agent reads
them.

A tool's work (a scan of a large tree, ``git diff`` in a repository whose filters hang, a
matcher that stalls) must not hold the server: every call runs in a worker process started
from a fork server (``multiprocessing``'s ``forkserver``: the server's own threads are never
forked), at most :data:`MAX_WORKERS` at once. A call still running at the deadline
(``rlt-rules mcp --call-timeout``) is stopped with everything it started (the worker leads its
own process group: ``git`` and ``ast-grep`` go with it) and answers an error naming the limit;
the next call gets a fresh worker.

Errors: :func:`tool_errors` is the one place that turns the library's errors into the
:class:`ToolError` whose message the agent reads (the SDK hides any other exception's message
behind "Error executing tool NAME").
"""

from __future__ import annotations

import functools
import multiprocessing
import os
import signal
import threading
import traceback
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from multiprocessing.connection import Connection
from typing import Any

import anyio.to_thread
from mcp.server.mcpserver.exceptions import ToolError

from ..files.errors import InputError

#: Calls that run at once; a further call waits for one of them to end.
MAX_WORKERS = 4
#: How long a new worker may take to start (import the package, build its server).
START_SECONDS = 120.0
#: The library's errors for a bad argument or input: their message is what the agent reads.
#: What a tool call answers as the tool's error: every input error (the library's, a path's,
#: a pattern's, a diff's), whatever package raised it.
USER_ERRORS: tuple[type[Exception], ...] = (InputError,)

Functions = Mapping[str, Callable[..., Any]]


@contextmanager
def tool_errors() -> Iterator[None]:
    """A library error (:data:`USER_ERRORS`) becomes the :class:`ToolError` with its message;
    running out of memory, one that says so."""
    try:
        yield
    except USER_ERRORS as error:
        raise ToolError(str(error)) from None
    except MemoryError:
        message = "the call ran out of memory: ask for less (fewer paths, less code)"
        raise ToolError(message) from None


class Calls:
    """The tools' functions by name, and how a call to one runs.

    ``start`` (picklable: a worker calls it) gives a worker its functions by name; without
    it, calls run in this process (inside a worker). Use it as a context manager: entering
    starts the first worker, leaving stops them all."""

    def __init__(self, start: Callable[[], Functions] | None, *, timeout: float) -> None:
        self.start = start
        self.timeout = timeout
        self.functions: dict[str, Callable[..., Any]] = {}
        self._idle: list[_Worker] = []
        self._busy: set[_Worker] = set()
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(MAX_WORKERS)
        self._context = multiprocessing.get_context("forkserver")
        self._context.set_forkserver_preload([__name__, "rlt_rules.mcp_server.server"])

    def bounded(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        """What the server registers for the tool ``name``: ``function`` run by :meth:`run`,
        with its signature (the tool's arguments)."""
        self.functions[name] = function
        if self.start is None:
            return function

        @functools.wraps(function)
        async def call(**arguments: Any) -> Any:
            return await anyio.to_thread.run_sync(self.run, name, arguments)

        return call

    def run(self, name: str, arguments: dict[str, Any]) -> Any:
        """Call ``name`` in a worker; :class:`ToolError` for a library error, and when the call
        is not done within :attr:`timeout` (the worker is stopped)."""
        with self._slots:
            worker = self._take()
            try:
                outcome = worker.call(name, arguments, self.timeout)
            except _Overrun:
                worker.stop()
                raise ToolError(
                    f"{name} did not finish within {self.timeout:g} s, the server's limit on a "
                    "call (`rlt-rules mcp --call-timeout` raises it): it was stopped; ask for "
                    "less (fewer paths, a smaller diff)"
                ) from None
            except _WorkerGone as gone:
                worker.stop()
                raise ToolError(f"{name} failed: {gone}") from None
            finally:
                with self._lock:
                    self._busy.discard(worker)
            with self._lock:
                self._idle.append(worker)
        status, value = outcome
        if status == "error":
            raise ToolError(value)
        if status == "crash":  # the worker printed the traceback on the server's stderr
            raise RuntimeError(value)
        return value

    def _take(self) -> _Worker:
        with self._lock:
            worker = self._idle.pop() if self._idle else None
        if worker is None:
            assert self.start is not None
            worker = _Worker(self._context, self.start)
        with self._lock:
            self._busy.add(worker)
        return worker

    def __enter__(self) -> Calls:
        if self.start is not None:
            self._idle.append(_Worker(self._context, self.start))
        return self

    def __exit__(self, *exc_info: object) -> None:
        with self._lock:
            workers = [*self._idle, *self._busy]
            self._idle.clear()
        for worker in workers:
            worker.stop()


class _Overrun(Exception):
    """A call not answered within its deadline."""


class _WorkerGone(Exception):
    """A worker that ended (killed, out of memory) or never started."""


class _Worker:
    """One worker process and the pipe its calls go through."""

    def __init__(self, context: Any, start: Callable[[], Functions]) -> None:
        self.connection, theirs = context.Pipe()
        self.process = context.Process(target=_serve, args=(theirs, start), daemon=True)
        self.process.start()
        theirs.close()
        self.ready = False

    def call(self, name: str, arguments: dict[str, Any], timeout: float) -> tuple[str, Any]:
        try:
            if not self.ready:
                if not self.connection.poll(START_SECONDS):
                    raise _WorkerGone(f"its worker did not start within {START_SECONDS:g} s")
                self.connection.recv()
                self.ready = True
            self.connection.send((name, arguments))
            if not self.connection.poll(timeout):
                raise _Overrun
            return self.connection.recv()
        except (EOFError, OSError):
            self.process.join(timeout=5)
            raise _WorkerGone(
                f"its worker process ended (exit code {self.process.exitcode})"
            ) from None

    def stop(self) -> None:
        """End the worker and every process it started."""
        self.connection.close()
        pid = self.process.pid
        if pid is not None and self.process.exitcode is None:
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.process.kill()
        self.process.join(timeout=60)


def _serve(connection: Connection, start: Callable[[], Functions]) -> None:
    """A worker: in a process group of its own, standard output sent to standard error (the
    protocol's stdout is never a worker's), answering calls until the server closes the pipe."""
    os.setpgid(0, 0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    functions = start()
    connection.send("ready")
    while True:
        try:
            name, arguments = connection.recv()
        except (EOFError, OSError):
            return
        connection.send(_outcome(functions[name], arguments))


def _outcome(function: Callable[..., Any], arguments: dict[str, Any]) -> tuple[str, Any]:
    try:
        with tool_errors():
            return "ok", function(**arguments)
    except ToolError as error:
        return "error", str(error)
    except Exception as error:  # a defect: its traceback goes to the server's stderr
        traceback.print_exc()
        return "crash", f"{type(error).__name__} in the worker"
