"""``rlt-rules mcp`` under hostile input: whatever a client sends, every request is answered,
within a deadline and bounded memory, and the server goes on answering.

Two ways in. Raw lines written to the server's standard input (the transport faults the SDK's
stdio layer does not answer: a line of hundreds of megabytes, ``params: "x"``, a 100,000-deep
argument, a lone surrogate, text that is not JSON) and read back from its standard output.
And the SDK's own client, for the tools' bounds, the per-call deadline and a server started in
a subfolder of a repository. Every server runs in a child process with an address-space limit
(``RLIMIT_AS``), every answer is awaited with a time bound.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import importlib
import json
import os
import pkgutil
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from bounded import MEMORY, address_space
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.server.mcpserver.exceptions import ToolError

from rlt_rules.cli import main
from rlt_rules.files.errors import InputError
from rlt_rules.mcp_server.calls import USER_ERRORS, tool_errors

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "rules"
SAMPLE = ROOT / "samples" / "review"
RLT_RULES = Path(sys.executable).parent / "rlt-rules"
#: Every answer comes within this (a loaded machine starts a server in 10–30 s), and every
#: server within MEMORY bytes of address space.
SECONDS = 180
#: Sets the limit, then becomes the server (the SDK's client takes a command, not a hook).
LAUNCH = (
    "import os, resource, sys; "
    f"resource.setrlimit(resource.RLIMIT_AS, ({MEMORY}, {MEMORY})); "
    "os.execv(sys.argv[1], sys.argv[1:])"
)


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.test", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


# --- raw lines -------------------------------------------------------------------------------


class RawServer:
    """``rlt-rules mcp`` on pipes: lines in, lines out, each awaited at most SECONDS."""

    def __init__(self, repo: Path) -> None:
        self.process = subprocess.Popen(
            [str(RLT_RULES), "mcp", "--rules", str(RULES)],
            cwd=repo,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=address_space(),
        )
        self.pending = b""
        self.write(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1"},
                },
            }
        )
        assert self.reply()["id"] == 0
        self.write({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def write(self, message: dict[str, Any] | bytes) -> None:
        line = message if isinstance(message, bytes) else json.dumps(message).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(line + b"\n")
        self.process.stdin.flush()

    def reply(self) -> dict[str, Any]:
        """The next line the server writes, parsed."""
        assert self.process.stdout is not None
        descriptor = self.process.stdout.fileno()
        deadline = time.monotonic() + SECONDS
        while b"\n" not in self.pending:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([descriptor], [], [], max(left, 0))
            assert ready, f"no answer within {SECONDS} s"
            chunk = os.read(descriptor, 1 << 20)
            assert chunk, "the server ended: " + self.stderr()
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return json.loads(line)

    def call(self, request_id: int, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        self.write(
            {
                "jsonrpc": "2.0",
                "id": request_id,
                "method": "tools/call",
                "params": {"name": tool, "arguments": arguments},
            }
        )
        return self.reply()

    def peak_memory(self) -> int:
        """The server's peak resident memory, in bytes."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
        raise AssertionError("no VmHWM")

    def stderr(self) -> str:
        self.process.kill()
        assert self.process.stderr is not None
        return self.process.stderr.read().decode(errors="replace")

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=60)
        finally:
            self.process.kill()


@pytest.fixture(scope="module")
def raw(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RawServer]:
    repo = tmp_path_factory.mktemp("raw")
    _git(repo, "init", "-q")
    server = RawServer(repo)
    yield server
    server.close()


def _listed(reply: dict[str, Any], request_id: int) -> None:
    """``reply`` is ``list_rules``' answer to ``request_id``: the server still serves."""
    assert reply["id"] == request_id and not reply["result"].get("isError"), reply
    assert reply["result"]["structuredContent"]["count"] > 0


def test_a_line_over_the_limit_is_discarded_as_it_streams_and_answered(raw: RawServer) -> None:
    """512 MiB on one line (the SDK would hold all of it; 3 GB ended the server): answered with
    its id, read in bounded memory, and the next request is served."""
    assert raw.process.stdin is not None
    head = b'{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"search_rules",'
    raw.process.stdin.write(head + b'"arguments":{"query":"')
    chunk = b"preempt " * (2 * 1024 * 1024)
    for _ in range(32):
        raw.process.stdin.write(chunk)
    raw.write(b'"}}}')
    reply = raw.reply()
    assert reply["id"] == 42 and reply["error"]["code"] == -32600
    assert "over the 67,108,864-byte limit on a line" in reply["error"]["message"]
    _listed(raw.call(43, "list_rules", {}), 43)
    assert raw.peak_memory() < 400 * 1024**2


@pytest.mark.parametrize(
    ("line", "request_id", "code", "message"),
    [
        (
            b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":"x"}',
            5,
            -32602,
            "params: Input should be an object",
        ),
        (
            b'{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"search_rules",'
            b'"arguments":{"query":' + b"[" * 100_000 + b"]" * 100_000 + b"}}}",
            6,
            -32600,
            "nested too deep",
        ),
        (
            b'{"jsonrpc":"2.0","id":"seven","method":"tools/call","params":{"name":"search_rules",'
            b'"arguments":{"query":' + b"[" * 300 + b"]" * 300 + b"}}}",
            "seven",
            -32602,
            "recursion limit exceeded",
        ),
        (
            b'{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"search_rules",'
            b'"arguments":{"query":"\\ud800 preempt"}}}',
            8,
            -32602,
            "lone surrogate (\\ud800 without its pair)",
        ),
        (b'{"jsonrpc":"2.0","id":9,"method":', None, -32700, "not JSON"),
        (b'[{"jsonrpc":"2.0","id":10,"method":"ping"}]', None, -32600, "a batch"),
        (b'{"jsonrpc":"1.0","id":11,"method":"ping"}', 11, -32600, "jsonrpc: Input should be"),
        (b'{"id":12}', 12, -32600, "Field required"),
    ],
    ids=[
        "params-string",
        "deep-100000",
        "deep-300",
        "surrogate",
        "not-json",
        "batch",
        "v1",
        "bare",
    ],
)
def test_a_malformed_request_is_answered_with_its_id(
    raw: RawServer, line: bytes, request_id: Any, code: int, message: str
) -> None:
    raw.write(line)
    reply = raw.reply()
    assert reply["id"] == request_id and reply["error"]["code"] == code, reply
    assert message in reply["error"]["message"], reply
    _listed(raw.call(100, "list_rules", {}), 100)


def test_a_bad_notification_gets_no_answer_and_crlf_lines_are_read(raw: RawServer) -> None:
    """JSON-RPC answers no notification: the next line out is the next request's answer."""
    raw.write(b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":3}')
    raw.write(b'{"jsonrpc":"2.0","id":101,"method":"tools/call","params":'
              b'{"name":"list_rules","arguments":{}}}\r')  # fmt: skip
    _listed(raw.reply(), 101)


# --- through the SDK's client ----------------------------------------------------------------


async def _calls(
    repo: Path, calls: list[tuple[str, dict[str, Any]]], *options: str
) -> list[tuple[Any, float]]:
    """Each call's result and how long it took, in one session."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", LAUNCH, str(RLT_RULES), "mcp", "--rules", str(RULES), *options],
        cwd=str(repo),
        env=dict(os.environ),  # the SDK's default keeps only HOME, PATH and a few: not PYTHONPATH
    )
    found = []
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await asyncio.wait_for(session.initialize(), SECONDS)
        for tool, arguments in calls:
            start = time.monotonic()
            result = await asyncio.wait_for(session.call_tool(tool, arguments), SECONDS)
            found.append((result, time.monotonic() - start))
    return found


def session(repo: Path, calls: list[tuple[str, dict[str, Any]]], *options: str) -> list[Any]:
    # In a thread of its own: a browser test may have left an event loop running in this one.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, _calls(repo, calls, *options)).result()


def _error(result: Any) -> str:
    assert result.is_error, result.structured_content
    (content,) = result.content
    return content.text


def _sleeping(marker: str) -> list[int]:
    """The processes whose command line is ``sleep MARKER``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if (entry / "cmdline").read_bytes() == f"sleep\0{marker}\0".encode():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def test_a_call_over_its_deadline_is_stopped_and_the_next_one_answers(tmp_path: Path) -> None:
    """``git diff`` in a repository whose clean filter never ends: the call answers an error
    naming the limit once it passes, everything it started is stopped, and the server serves
    the next call."""
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "engine.py").write_text("x = 1\n", encoding="utf-8")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "one")
    marker = f"{os.getpid()}987"
    _git(repo, "config", "filter.slow.clean", f"sleep {marker}; cat")
    (repo / ".gitattributes").write_text("*.py filter=slow\n", encoding="utf-8")
    (repo / "engine.py").write_text("x = 2\n", encoding="utf-8")
    calls = [("review_context", {"base": "HEAD"}), ("list_rules", {})]
    (hung, took), (listed, _) = session(repo, calls, "--call-timeout", "5")
    message = _error(hung)
    assert "review_context did not finish within 5 s" in message
    assert "`rlt-rules mcp --call-timeout` raises it" in message
    assert took < 60
    assert not listed.is_error and listed.structured_content["count"] > 0
    deadline = time.monotonic() + 60
    while _sleeping(marker) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not _sleeping(marker), "the stopped call's git filter is still running"


@pytest.fixture(scope="module")
def nested(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repository whose reviewed folder is ``service/``: the sample change is made there,
    and a change outside it."""
    top = tmp_path_factory.mktemp("top")
    root = top / "service"
    code = root / "samples" / "review" / "scheduler.py"
    code.parent.mkdir(parents=True)
    code.write_text((SAMPLE / "scheduler.py").read_text(encoding="utf-8"), encoding="utf-8")
    _git(top, "init", "-q")
    _git(top, "apply", "--directory=service", "-R", str(SAMPLE / "change.diff"))
    (top / "outside.py").write_text("x = 1\n", encoding="utf-8")
    _git(top, "add", ".")
    _git(top, "commit", "-q", "-m", "before")
    code.write_text((SAMPLE / "scheduler.py").read_text(encoding="utf-8"), encoding="utf-8")
    (top / "outside.py").write_text("x = 2\n", encoding="utf-8")
    # A source file as large as a sparse file can claim: findings name it.
    with (root / "generated.py").open("wb") as handle:
        handle.truncate(5 * 1024**3)
    return root


@pytest.fixture(scope="module")
def bounded(nested: Path) -> list[Any]:
    answer = (SAMPLE / "findings.yaml").read_text(encoding="utf-8")
    huge = yaml.safe_load(answer)
    huge["findings"][0]["location"]["path"] = "generated.py"
    calls = [
        ("scan_code", {"code": "x = 1\n" * 800_000, "file_name": "big.py"}),
        ("search_rules", {"query": "preempt " * 20_000}),
        ("review_context", {"diff": "+" * (33 * 1024 * 1024)}),
        ("scan_code", {"paths": ["bad\0name.py"]}),
        ("review_context", {"base": "HEAD"}),
        ("check_findings", {"answer": answer, "base": "HEAD"}),
        ("check_findings", {"answer": yaml.safe_dump(huge, sort_keys=False), "base": "HEAD"}),
        ("list_rules", {}),
    ]
    return [result for result, _ in session(nested, calls, "--repo", str(nested))]


def test_scan_code_and_search_rules_are_bounded_naming_the_limit(bounded: list[Any]) -> None:
    scanned, searched, diffed, nul = bounded[:4]
    assert "code: over the 4,194,304-byte limit on a scanned file" in _error(scanned)
    assert "over the 1,000-character limit" in _error(searched)
    assert "diff: over the 33,554,432-byte limit on a diff" in _error(diffed)
    assert "a path holds no NUL byte" in _error(nul)


def test_in_a_subfolder_the_change_is_the_subfolder_s_relative_to_it(bounded: list[Any]) -> None:
    """``--repo service``: ``git diff`` is service's alone, its paths relative to service, so
    the sample answer (paths relative to service) is accepted."""
    context = bounded[4].structured_content["result"]
    assert "samples/review/scheduler.py" in context
    assert "outside.py" not in context and "service/" not in context
    assert bounded[5].structured_content == {
        "ok": True,
        "findings": 6,
        "errors": 0,
        "warnings": 0,
        "problems": [],
    }


def test_check_findings_reads_a_named_file_bounded(bounded: list[Any]) -> None:
    """A 5 GB source file (read whole, it was 5 GB resident or MemoryError) is refused by
    size, at the finding's path, and the server answers the next call."""
    problems = bounded[6].structured_content["problems"]
    assert any(
        "'generated.py': over the 4,194,304-byte limit: not read" in problem["message"]
        for problem in problems
    ), problems
    assert bounded[7].structured_content["count"] > 0


# --- the one place errors are mapped ---------------------------------------------------------


def _exception_types() -> list[type[BaseException]]:
    """Every exception type the package defines, private ones included (each module imported)."""
    import rlt_rules

    found = []
    for module in pkgutil.walk_packages(rlt_rules.__path__, "rlt_rules."):
        if module.name.endswith(".__main__"):
            continue  # importing it runs the command line
        for value in vars(importlib.import_module(module.name)).values():
            if (
                isinstance(value, type)
                and issubclass(value, BaseException)
                and value.__module__ == module.name
            ):
                found.append(value)
    return found


def test_every_library_error_reaches_the_agent_as_its_message() -> None:
    """Each public error type of the package is an InputError (private ones, a worker's own
    signals, stay inside their module), and an InputError becomes a ToolError with the same
    text (the SDK shows any other exception as "Error executing tool NAME", the message
    hidden)."""
    kinds = _exception_types()
    assert len(kinds) >= 20
    public = [kind for kind in kinds if not kind.__name__.startswith("_")]
    assert [kind.__name__ for kind in public if not issubclass(kind, InputError)] == []
    assert (InputError,) == USER_ERRORS
    for kind in public:
        error = kind.__new__(kind)
        Exception.__init__(error, f"{kind.__name__}: what is wrong, and what to do")
        with pytest.raises(ToolError) as raised, tool_errors():
            raise error
        assert str(raised.value) == f"{kind.__name__}: what is wrong, and what to do"
    with pytest.raises(ToolError, match="ran out of memory"), tool_errors():
        raise MemoryError
    with pytest.raises(KeyError), tool_errors():
        raise KeyError("a defect stays a defect")


@pytest.mark.parametrize("given", ["0", "-1", "inf", "nan", "1e12", "soon"])
def test_a_call_timeout_that_is_not_one_is_a_usage_error(
    given: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["mcp", "--rules", str(RULES), "--call-timeout", given]) == 2
    assert f"--call-timeout {given}: give a number of seconds above 0" in capsys.readouterr().err
