"""What each detector costs, measured before it can slow a scan: ``validate`` rejects a detector
that costs more than :data:`MAX_COST` times a plain node-kind match over the same sample.

A detector's sample is the Python files of this package (our own code, shipped with it; the
first :data:`SAMPLE_LINES` lines) and the examples of its own rule: the same size for every
detector, however large the library (every rule's examples made it grow with the square of the
library: minutes at 1,000 rules). Each detector runs in a worker process with a deadline, so
one that would take minutes (relational rules nested with ``stopBy: end``: ``has`` inside
``inside`` inside ``has`` grows with the cube of the file) is stopped and reported, not waited
for. The cost is a ratio to a baseline measured in the same worker over the same code, so a
loaded machine slows both alike. A detector within the bound there is also timed on two
generated files, one :data:`~rlt_rules.detectors.growth.GROWTH_FACTOR` times the other
(:mod:`rlt_rules.detectors.growth`): one whose cost explodes with a file's size is cheap on small
files and rejected there.

A cost within the bound is remembered (:class:`CostRecord`, a JSON file in the user's cache
folder) by what it was measured from: the detector, its sample, ast-grep-py's build and the
bound. ``validate`` measures again only a detector that is new or changed, or whose sample
changed; a costly detector is never remembered, so it is rejected on every run.

Detectors with the same key are measured once per run, also on a first run with nothing
remembered: the key reads an example's ``# Rnn:`` markers without their rule id (a comment's
words change no cost: ast-grep's regular expressions run in linear time, and a comment is one
leaf whatever it says), so a rule copied or renumbered keeps its detectors' costs, and a
library that repeats a detector times it once.
"""

from __future__ import annotations

import hashlib
import json
import re
import selectors
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ast_grep_py
from ast_grep_py import SgRoot

from ..detectors.growth import (
    GROWTH_BOUND,
    GROWTH_FACTOR,
    Growth,
    growth_from,
    growth_sources,
    line_count,
)
from ..files.atomic import write_atomic
from ..files.cache import cache_folder
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
#: The file of remembered costs, in the user's cache folder.
COST_FILE = "detector-costs.json"
#: At most this many remembered costs (the oldest are dropped first).
MAX_REMEMBERED = 20_000
#: A marker's rule id in an example (``# R03:``), which the cost key reads as ``# R:``.
_MARKER_ID = re.compile(r"(#\s*)R\d{2,}:")


@dataclass(frozen=True, slots=True)
class Cost:
    """One detector's measured cost: ``ratio`` to the baseline, or None when it was stopped
    at its deadline (``seconds`` then being the deadline); ``growth`` on the generated files,
    None when the sample already put it over the bound."""

    index: int
    seconds: float
    ratio: float | None
    growth: Growth | None = None

    @property
    def over(self) -> bool:
        if self.ratio is None or self.ratio > MAX_COST:
            return True
        return self.growth is not None and self.growth.over(MAX_COST)


@dataclass(frozen=True, slots=True)
class Probe:
    """One detector to measure: its ast-grep ``config`` and its rule's examples' code."""

    config: dict[str, Any]
    examples: tuple[str, ...]


def sample() -> list[str]:
    """This package's own files, by name, up to :data:`SAMPLE_LINES` lines."""
    sources = []
    lines = 0
    for path in sorted(Path(__file__).resolve().parents[1].rglob("*.py")):
        if lines >= SAMPLE_LINES:
            break
        text = path.read_text(encoding="utf-8")
        sources.append(text)
        lines += text.count("\n")
    return sources


def default_cost_file() -> Path:
    """``detector-costs.json`` in the user's cache folder
    (:func:`~rlt_rules.files.cache.cache_folder`)."""
    return cache_folder() / COST_FILE


class CostRecord:
    """The costs within the bound measured before, by what they were measured from, kept in
    ``path`` (read when made, written by :meth:`save`). An unreadable or unwritable file only
    means measuring again."""

    def __init__(self, path: Path | None) -> None:
        self._path = path
        self._package = sample()
        #: What every key is made of besides the detector and its examples.
        self._salt = {
            "package": hashlib.sha256("\0".join(self._package).encode()).hexdigest(),
            "ast_grep_py": matcher_build(),
            "max_cost": MAX_COST,
            "baseline": BASELINE,
            "growth": {
                "bound": GROWTH_BOUND,
                "code": hashlib.sha256("\0".join(growth_sources()).encode()).hexdigest(),
            },
        }
        self._costs: dict[str, float] = {}
        self._new: dict[str, float] = {}
        if path is not None:
            try:
                loaded = json.loads(path.read_text(encoding="utf-8"))
                self._costs = {k: v for k, v in loaded.items() if isinstance(v, int | float)}
            except (OSError, ValueError, AttributeError):
                self._costs = {}

    @property
    def package(self) -> list[str]:
        """This package's code in every detector's sample (:func:`sample`)."""
        return self._package

    def key(self, probe: Probe) -> str:
        """What ``probe`` is measured from, as a digest: its config, its examples with their
        markers' rule ids left out, the sample, ast-grep-py's build and the bounds."""
        examples = [_MARKER_ID.sub(r"\1R:", code) for code in probe.examples]
        text = json.dumps(
            {"config": probe.config, "examples": examples, **self._salt}, sort_keys=True
        )
        return hashlib.sha256(text.encode()).hexdigest()

    def known(self, key: str) -> float | None:
        """The remembered cost under ``key`` (:meth:`key`), if any."""
        return self._costs.get(key)

    def remember(self, key: str, cost: Cost) -> None:
        if not cost.over and cost.ratio is not None:
            self._new[key] = cost.ratio

    def save(self) -> None:
        if self._path is None or not self._new:
            return
        merged = {k: v for k, v in self._costs.items() if k not in self._new} | self._new
        kept = dict(list(merged.items())[-MAX_REMEMBERED:])
        try:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(self._path, json.dumps(kept).encode(), durable=False)
        except OSError:
            return  # measured again next time
        self._costs, self._new = kept, {}


def matcher_build() -> str:
    """ast-grep-py's compiled module, by name, size and modification time: another build of
    the matcher (a new version, a reinstall) measures every detector again."""
    folder = Path(ast_grep_py.__file__).resolve().parent
    return ";".join(
        f"{path.name}:{path.stat().st_size}:{path.stat().st_mtime_ns}"
        for path in sorted(folder.iterdir())
        if path.suffix in (".so", ".pyd")
    )


def cost_diagnostics(
    documents: Sequence[Document], record: CostRecord | None = None
) -> list[Diagnostic]:
    """Each detector of the rule ``documents`` (schema-valid, compiled) that costs more than
    the bound, at its ``rule`` key. ``record`` remembers the costs within the bound (default:
    :func:`default_cost_file`); only the detectors it does not know are measured."""
    record = record if record is not None else CostRecord(default_cost_file())
    placed = []
    for doc in documents:
        examples = tuple(
            example["code"]
            for example in doc.data.get("examples") or []
            if isinstance(example, dict) and isinstance(example.get("code"), str)
        )
        for index, detector in enumerate(doc.data.get("detectors") or []):
            if isinstance(detector, dict):
                config = {
                    "rule": detector["rule"],
                    **(
                        {"constraints": detector["constraints"]}
                        if detector.get("constraints")
                        else {}
                    ),
                }
                probe = Probe(config, examples)
                placed.append((doc, index, detector, record.key(probe), probe))
    # Each key not remembered is measured once, however many detectors share it.
    unknown: dict[str, Probe] = {}
    for *_, key, probe in placed:
        if record.known(key) is None:
            unknown.setdefault(key, probe)
    keys = list(unknown)
    costs = {keys[cost.index]: cost for cost in measure(list(unknown.values()), record.package)}
    found = []
    for doc, index, detector, key, _ in placed:
        cost = costs.get(key)
        if cost is None:
            continue
        record.remember(key, cost)
        if not cost.over:
            continue
        path = ("detectors", index, "rule")
        position = doc.keys.get(path) or doc.value_position(path)
        found.append(
            Diagnostic(
                doc.path,
                position.line,
                position.column,
                f"detector '{detector.get('id')}' {_spent(cost)}; nest fewer relational rules "
                "with stopBy: end (a follows/precedes chain searches every sibling again at "
                "each level), or narrow the outer rule by kind first",
                doc.data.get("id"),
            )
        )
    record.save()
    return found


def _spent(cost: Cost) -> str:
    """What made ``cost`` over the bound, in words."""
    if cost.ratio is None or cost.ratio > MAX_COST or cost.growth is None:
        spent = (
            f"still running after {cost.seconds:.1f} s"
            if cost.ratio is None
            else f"costs {cost.ratio:.0f} times"
        )
        return (
            f"{spent} a plain node-kind match over its rule's examples and a "
            f"{SAMPLE_LINES:,}-line sample (the bound is {MAX_COST} times): it would slow "
            "every scan"
        )
    small, large = (line_count(text) for text in growth_sources())
    growth = cost.growth
    if growth.small is None or growth.large is None:
        return (
            f"was still running after {growth.seconds:.1f} s on generated files of {small:,} "
            f"and {large:,} lines: its cost explodes with a file's size and would hang scans "
            "of large files"
        )
    return (
        f"costs {growth.small:.1f} times a plain node-kind match on a generated "
        f"{small:,}-line file and {growth.large:.1f} times on a {large:,}-line one "
        f"({growth.factor:.1f}-fold for a file {GROWTH_FACTOR} times as large; the bounds are "
        f"{MAX_COST} times and {GROWTH_BOUND:g}-fold): its cost grows faster than the square "
        "of a file's size and would hang scans of large files"
    )


def measure(probes: Sequence[Probe], package: Sequence[str]) -> list[Cost]:
    """The cost of each probe over ``package`` and its examples, in order; a config still
    running at its deadline (:data:`MAX_COST` times the baseline over ``package``, at least
    :data:`MIN_DEADLINE_SECONDS`) is stopped and reported with ``ratio=None``."""
    costs: list[Cost] = []
    while len(costs) < len(probes):
        costs.extend(_run_worker(probes, package, start=len(costs)))
    return costs


def _run_worker(probes: Sequence[Probe], package: Sequence[str], *, start: int) -> list[Cost]:
    """Measure ``probes[start:]`` in one worker until one overruns (then it is killed)."""
    examples: dict[str, int] = {}
    request = {
        "package": list(package),
        "probes": [
            {
                "config": probe.config,
                "examples": [examples.setdefault(code, len(examples)) for code in probe.examples],
            }
            for probe in probes[start:]
        ],
    }
    request["examples"] = list(examples)
    worker = subprocess.Popen(
        [sys.executable, "-m", "rlt_rules.library.detector_cost"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert worker.stdin is not None and worker.stdout is not None
    found: list[Cost] = []
    try:
        worker.stdin.write(json.dumps(request).encode())
        worker.stdin.close()
        reader = _LineReader(worker.stdout)
        first = reader.line(deadline=time.monotonic() + 120)
        if first is None:
            raise RuntimeError(
                "the detector cost worker gave no baseline (python -m "
                "rlt_rules.library.detector_cost failed to start)"
            )
        package_baseline, small_baseline, large_baseline = (float(x) for x in first.split())
        limit = max(MAX_COST * package_baseline, MIN_DEADLINE_SECONDS)
        # Timed once, and twice more when over: three times the bound on both files.
        growth_limit = max(3 * MAX_COST * (small_baseline + large_baseline), MIN_DEADLINE_SECONDS)
        for index in range(start, len(probes)):
            line = reader.line(deadline=time.monotonic() + limit)
            if line is None:
                found.append(Cost(index, limit, None))
                break
            seconds, baseline = (float(part) for part in line.split())
            ratio = seconds / baseline if baseline > 0 else 0.0
            line = reader.line(deadline=time.monotonic() + growth_limit)
            if line is None:
                found.append(Cost(index, seconds, ratio, Growth(None, None, growth_limit)))
                break
            growth = None if line == "-" else growth_from(line, small_baseline, large_baseline)
            found.append(Cost(index, seconds, ratio, growth))
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
    """Read ``{"package", "examples", "probes"}`` from stdin; print the baseline's seconds over
    the package's code and its CPU seconds over the two generated files, then, for each probe
    as it finishes, a line with its seconds and the baseline's over the same code (the
    package's and its examples'), and a line with its CPU seconds over the generated files
    (``-`` when the first line is already over the bound). A probe over a bound is timed twice
    more and its fastest run reported: on a loaded machine one run can stall."""
    request = json.loads(sys.stdin.buffer.read())
    package = [SgRoot(source, "python").root() for source in request["package"]]
    examples = [SgRoot(source, "python").root() for source in request["examples"]]
    small, large = (SgRoot(source, "python").root() for source in growth_sources())

    def seconds(config: dict[str, Any], roots: Sequence[Any], clock=time.perf_counter) -> float:
        begun = clock()
        for root in roots:
            root.find_all(config=config)
        return clock() - begun

    def cpu(config: dict[str, Any], root: Any) -> float:
        return seconds(config, [root], time.thread_time)

    package_baseline = min(seconds(BASELINE, package) for _ in range(3))
    example_baselines = [min(seconds(BASELINE, [root]) for _ in range(3)) for root in examples]
    small_baseline = min(cpu(BASELINE, small) for _ in range(3))
    large_baseline = min(cpu(BASELINE, large) for _ in range(3))
    print(package_baseline, small_baseline, large_baseline, flush=True)
    for probe in request["probes"]:
        config = probe["config"]
        own = [examples[index] for index in probe["examples"]]
        baseline = package_baseline + sum(example_baselines[index] for index in probe["examples"])
        roots = [*package, *own]
        spent = seconds(config, roots)
        if spent > MAX_COST * baseline:  # over: measured twice more, lest a stall reject it
            spent = min(spent, *(seconds(config, roots) for _ in range(2)))
        print(spent, baseline, flush=True)
        if spent > MAX_COST * baseline:
            print("-", flush=True)
            continue
        on_small, on_large = cpu(config, small), cpu(config, large)
        line = f"{on_small} {on_large}"
        if growth_from(line, small_baseline, large_baseline).over(MAX_COST):
            on_small = min(on_small, *(cpu(config, small) for _ in range(2)))
            on_large = min(on_large, *(cpu(config, large) for _ in range(2)))
        print(on_small, on_large, flush=True)


if __name__ == "__main__":
    _worker()
