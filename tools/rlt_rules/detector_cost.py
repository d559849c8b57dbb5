"""What each detector costs, measured before it can slow a scan: ``validate`` rejects a detector
that costs more than :data:`MAX_COST` times a plain node-kind match over the same sample.

The sample is the library's own examples and the Python files of this package (our own code,
shipped with it). Each detector runs in a worker process with a deadline, so one that would
take minutes (relational rules nested with ``stopBy: end``: ``has`` inside ``inside`` inside
``has`` grows with the cube of the file) is stopped and reported, not waited for. The cost is a
ratio to a baseline measured in the same worker, so a loaded machine slows both alike.
"""

from __future__ import annotations

import json
import selectors
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .load import Document
from .model import Diagnostic

#: A detector may cost at most this many times a plain ``kind`` match over the sample (the
#: library's detectors cost 0.5–3 times; a hanging one thousands of times).
MAX_COST = 50
#: The baseline every detector is compared with.
BASELINE: dict[str, Any] = {"rule": {"kind": "identifier"}}
#: How many lines of this package's own code join the sample (the first files, by name).
SAMPLE_LINES = 6000
#: However fast the baseline, a detector gets at least this long before it is stopped.
MIN_DEADLINE_SECONDS = 2.0


@dataclass(frozen=True, slots=True)
class Cost:
    """One detector's measured cost: ``ratio`` to the baseline, or None when it was stopped
    at its deadline (``seconds`` then being the deadline)."""

    index: int
    seconds: float
    ratio: float | None

    @property
    def over(self) -> bool:
        return self.ratio is None or self.ratio > MAX_COST


def sample(example_code: Sequence[str]) -> list[str]:
    """The examples' code, then this package's own files up to :data:`SAMPLE_LINES` lines."""
    sources = list(example_code)
    lines = 0
    for path in sorted(Path(__file__).resolve().parent.rglob("*.py")):
        if lines >= SAMPLE_LINES:
            break
        text = path.read_text(encoding="utf-8")
        sources.append(text)
        lines += text.count("\n")
    return sources


def cost_diagnostics(documents: Sequence[Document]) -> list[Diagnostic]:
    """Each detector of the rule ``documents`` (schema-valid, compiled) that costs more than
    the bound, at its ``rule`` key."""
    placed = [
        (doc, index, detector)
        for doc in documents
        for index, detector in enumerate(doc.data.get("detectors") or [])
        if isinstance(detector, dict)
    ]
    if not placed:
        return []
    configs = [
        {"rule": d["rule"], **({"constraints": d["constraints"]} if d.get("constraints") else {})}
        for _, _, d in placed
    ]
    code = [
        example["code"]
        for doc in documents
        for example in doc.data.get("examples") or []
        if isinstance(example, dict) and isinstance(example.get("code"), str)
    ]
    found = []
    for cost in measure(configs, sample(code)):
        if not cost.over:
            continue
        doc, index, detector = placed[cost.index]
        path = ("detectors", index, "rule")
        position = doc.keys.get(path) or doc.value_position(path)
        spent = (
            f"still running after {cost.seconds:.1f} s"
            if cost.ratio is None
            else f"costs {cost.ratio:.0f} times"
        )
        found.append(
            Diagnostic(
                doc.path,
                position.line,
                position.column,
                f"detector '{detector.get('id')}' {spent} a plain node-kind match over the "
                f"examples and a {SAMPLE_LINES:,}-line sample (the bound is {MAX_COST} times): "
                "it would slow every scan; nest fewer relational rules with stopBy: end, or "
                "narrow the outer rule by kind first",
                doc.data.get("id"),
            )
        )
    return found


def measure(configs: Sequence[dict[str, Any]], sources: Sequence[str]) -> list[Cost]:
    """The cost of each ast-grep config over ``sources``, in order; a config still running at
    its deadline (:data:`MAX_COST` times the baseline, at least
    :data:`MIN_DEADLINE_SECONDS`) is stopped and reported with ``ratio=None``."""
    costs: list[Cost] = []
    while len(costs) < len(configs):
        costs.extend(_run_worker(configs, sources, start=len(costs)))
    return costs


def _run_worker(
    configs: Sequence[dict[str, Any]], sources: Sequence[str], *, start: int
) -> list[Cost]:
    """Measure ``configs[start:]`` in one worker until one overruns (then it is killed)."""
    worker = subprocess.Popen(
        [sys.executable, "-m", "rlt_rules.detector_cost"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert worker.stdin is not None and worker.stdout is not None
    found: list[Cost] = []
    try:
        worker.stdin.write(json.dumps({"configs": configs[start:], "sources": sources}).encode())
        worker.stdin.close()
        reader = _LineReader(worker.stdout)
        first = reader.line(deadline=time.monotonic() + 120)
        if first is None:
            raise RuntimeError(
                "the detector cost worker gave no baseline (python -m "
                "rlt_rules.detector_cost failed to start)"
            )
        baseline = float(first)
        limit = max(MAX_COST * baseline, MIN_DEADLINE_SECONDS)
        for index in range(start, len(configs)):
            line = reader.line(deadline=time.monotonic() + limit)
            if line is None:
                found.append(Cost(index, limit, None))
                break
            seconds = float(line)
            found.append(Cost(index, seconds, seconds / baseline if baseline > 0 else 0.0))
    finally:
        worker.kill()
        worker.wait()
        worker.stdout.close()
    return found


class _LineReader:
    """Lines from a pipe, each awaited until a deadline."""

    def __init__(self, stream) -> None:
        self._stream = stream
        self._buffer = b""
        self._selector = selectors.DefaultSelector()
        self._selector.register(stream, selectors.EVENT_READ)

    def line(self, *, deadline: float) -> str | None:
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self._selector.select(remaining):
                return None
            chunk = self._stream.read1(65536)
            if not chunk:
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode()


def _worker() -> None:
    """Read ``{"configs", "sources"}`` from stdin; print the baseline's seconds, then each
    config's, one per line, as each finishes."""
    # The worker alone parses code: importing ast-grep is not the parent's business.
    from ast_grep_py import SgRoot

    request = json.loads(sys.stdin.buffer.read())
    roots = [SgRoot(source, "python").root() for source in request["sources"]]

    def seconds(config: dict[str, Any]) -> float:
        begun = time.perf_counter()
        for root in roots:
            root.find_all(config=config)
        return time.perf_counter() - begun

    print(min(seconds(BASELINE) for _ in range(3)), flush=True)
    for config in request["configs"]:
        print(seconds(config), flush=True)


if __name__ == "__main__":
    _worker()
