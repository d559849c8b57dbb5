"""The serve benchmark of ``run.py`` (``--only serve-rebuild``): one rule edited while
``rlt-rules site serve`` runs, timed from saving to the page served with the edit and the
rebuild done. :data:`EDITS` are the edits it times (``profile_rebuild.py`` and
``rebuild_stages.py`` make the same ones)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

from measure import BIN, ROOT, SITE_MAX_SIZE, Measurement, Result, environment

#: How long to wait for ``site serve``'s first build and for a rebuild to show an edit.
SERVE_FIRST_BUILD_TIMEOUT = 900.0
SERVE_REBUILD_TIMEOUT = 300.0
#: The issue's targets: a preview rebuild at 1,000 rules after each edit (seconds).
REBUILD_TARGETS = {"statement": 1.0, "title": 1.5}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _fetch(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.read().decode("utf-8", errors="replace")
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return None


#: What ``mkdocs serve`` logs when a rebuild has finished and browsers are told to reload.
#: (Not "Documentation built in": MkDocs drops a log line equal to the one before it, so two
#: rebuilds that take the same time log it once.)
_BUILD_DONE = "Reloading browsers"


def _wait_for(url: str, text: str, timeout: float, server: subprocess.Popen, log: Path) -> float:
    """Seconds until the page at ``url`` contains ``text``; fails if the server exits."""
    started = time.perf_counter()
    while time.perf_counter() - started < timeout:
        body = _fetch(url)
        if body is not None and text in body:
            return time.perf_counter() - started
        _check_running(server, log)
        time.sleep(0.05)
    raise SystemExit(f"{url} did not show {text!r} within {timeout:.0f} s:\n{_tail(log)}")


def _wait_for_build(
    builds_before: int, timeout: float, server: subprocess.Popen, log: Path
) -> None:
    """Return once the server's log says one more build has finished than ``builds_before``."""
    started = time.perf_counter()
    while time.perf_counter() - started < timeout:
        if _builds_done(log) > builds_before:
            return
        _check_running(server, log)
        time.sleep(0.05)
    raise SystemExit(f"site serve did not finish a rebuild within {timeout:.0f} s:\n{_tail(log)}")


def _builds_done(log: Path) -> int:
    return log.read_text(encoding="utf-8", errors="replace").count(_BUILD_DONE)


def _check_running(server: subprocess.Popen, log: Path) -> None:
    if server.poll() is not None:
        raise SystemExit(f"site serve exited ({server.returncode}):\n{_tail(log)}")


def _tail(log: Path) -> str:
    return log.read_text(encoding="utf-8", errors="replace")[-3000:]


def _edit_statement(rule_file: Path, token: str) -> None:
    """Start the rule's statement with ``token``: its page and its category page change."""
    text = rule_file.read_text(encoding="utf-8")
    text = re.sub(r"(?m)^(statement: \|-\n  )(?:Edit \d+\. )?", rf"\g<1>{token} ", text, count=1)
    rule_file.write_text(text, encoding="utf-8")


def _edit_title(rule_file: Path, token: str) -> None:
    """Start the rule's title with ``token``: its page, the index, the tags page, its
    category page, its neighbours' and the pages of the rules that name it as related change."""
    text = rule_file.read_text(encoding="utf-8")
    text = re.sub(r"(?m)^title: (?:Edit \d+\. )?", f"title: {token} ", text, count=1)
    rule_file.write_text(text, encoding="utf-8")


#: The edits timed while serving: the one a reviewer makes most, and the one that changes most.
EDITS: dict[str, Callable[[Path, str], None]] = {
    "statement": _edit_statement,
    "title": _edit_title,
}


def bench_serve_rebuild(rules: Path, size: int, runs: int) -> list[Result]:
    """Edit one rule while ``rlt-rules site serve`` runs; time until the served page shows the
    edit and the rebuild has finished (every changed page and the exports written)."""
    if size > SITE_MAX_SIZE:
        return [f"{'serve rebuild':<28} {size:>5}  skipped: sizes up to {SITE_MAX_SIZE} only"]
    with tempfile.TemporaryDirectory(prefix="rlt-bench-serve-") as tmp:
        work = Path(tmp) / "rules"
        shutil.copytree(rules, work)
        rule_id = f"R{max(1, size // 2):02d}"
        port = _free_port()
        url = f"http://127.0.0.1:{port}/rules/{rule_id}/"
        log = Path(tmp) / "serve.log"
        with log.open("w") as output:
            started = time.perf_counter()
            server = subprocess.Popen(
                [
                    str(BIN / "rlt-rules"),
                    "site",
                    "serve",
                    "--rules",
                    str(work),
                    "--dev-addr",
                    f"127.0.0.1:{port}",
                ],
                cwd=ROOT,
                env=environment(),
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        rebuilds: dict[str, list[float]] = {kind: [] for kind in EDITS}
        try:
            _wait_for(url, rule_id, SERVE_FIRST_BUILD_TIMEOUT, server, log)
            first = time.perf_counter() - started
            for kind, edit in EDITS.items():
                for number in range(1, runs + 1):
                    token = f"Edit {number}."
                    builds = _builds_done(log)
                    edited = time.perf_counter()
                    edit(work / f"{rule_id}.yaml", token)
                    # The log first: fetching pages while the server rebuilds would take
                    # its time from the build (one process, one interpreter lock).
                    _wait_for_build(builds, SERVE_REBUILD_TIMEOUT, server, log)
                    _wait_for(url, token, SERVE_REBUILD_TIMEOUT, server, log)
                    rebuilds[kind].append(time.perf_counter() - edited)
                    time.sleep(1.0)  # let the server settle before the next edit
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()
    results: list[Result] = [Measurement("serve: first build", size, first)]
    for kind, times in rebuilds.items():
        rebuild = statistics.median(times)
        target = REBUILD_TARGETS[kind]
        results.append(
            Measurement(
                f"serve: rebuild, {kind} edit",
                size,
                rebuild,
                target=f"target <= {target:g} s" if size == 1000 else "",
                verdict=rebuild <= target if size == 1000 else None,
                note=f"edit to page shown and build done, {len(times)} edits",
            )
        )
    return results
