"""What every benchmark of ``run.py`` shares: a timed fresh process, medians of commands run in
interleaved rounds, the environment they run in, and :class:`Measurement`, one printed line."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
#: Sizes above which a benchmark only prints why it was skipped (minutes per full site build).
SITE_MAX_SIZE = 1000


@dataclass(frozen=True)
class Measurement:
    """One benchmark line: our median, the peer's median (if any), and the issue's target.

    ``ratio`` is the peer's time over ours ("x faster") or, for an overhead, ours over the
    peer's ("x of"). ``verdict`` is None where no target applies at this size.
    """

    name: str
    size: int
    ours: float
    unit: str = "s"
    peer: float | None = None
    peer_name: str = ""
    overhead: bool = False
    target: str = ""
    verdict: bool | None = None
    note: str = ""

    def line(self) -> str:
        figure = f"{self.ours:9.3f} {self.unit:<6}"
        compared = ""
        if self.peer is not None:
            if self.overhead:
                ratio = f"= {self.ours / self.peer:5.2f}x of it"
            else:
                ratio = f"= {self.peer / self.ours:5.2f}x faster"
            compared = f"{self.peer_name} {self.peer:8.3f} {self.unit} {ratio}"
        verdict = "" if self.verdict is None else ("PASS" if self.verdict else "FAIL")
        parts = [f"{self.name:<28} {self.size:>5}  {figure}", compared, self.target, verdict]
        if self.note:
            parts.append(f"({self.note})")
        return "  ".join(part for part in parts if part)


Result = Measurement | str


def timed_run(command: Sequence[str], cwd: Path = ROOT, env: dict[str, str] | None = None) -> float:
    """Wall time of one fresh process running ``command``; fails on a non-zero exit."""
    started = time.perf_counter()
    completed = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    elapsed = time.perf_counter() - started
    if completed.returncode != 0:
        raise SystemExit(
            f"benchmark command failed ({completed.returncode}): {' '.join(command)}\n"
            f"{completed.stdout[-2000:]}{completed.stderr[-2000:]}"
        )
    return elapsed


@dataclass(frozen=True)
class Command:
    argv: Sequence[str]
    env: dict[str, str] | None = None


def interleaved_medians(commands: dict[str, Command], runs: int) -> dict[str, float]:
    """Median wall time of each command over ``runs`` fresh processes, run in rounds.

    Each round runs every command once, starting one further along each time, so a machine
    that gets slower or faster during the benchmark (other load, CPU clocks) moves ours and
    the peer's figures alike instead of whichever ran last.
    """
    names = list(commands)
    times: dict[str, list[float]] = {name: [] for name in names}
    for round_number in range(runs):
        shift = round_number % len(names)
        for name in names[shift:] + names[:shift]:
            command = commands[name]
            times[name].append(timed_run(command.argv, ROOT, command.env))
    return {name: statistics.median(values) for name, values in times.items()}


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("RLT_RULES_DIR", None)
    env["NO_MKDOCS_2_WARNING"] = "1"
    return env
