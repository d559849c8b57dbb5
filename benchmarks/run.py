"""Benchmarks: rlt-rules against its peers on synthetic libraries of 17, 1,000 and 5,000 rules.

Run with ``./dev bench`` (or ``.venv/bin/python benchmarks/run.py``). Each figure is the median
of several runs of a fresh process, printed with its ratio against the peer measured in the
same run. ``--sizes`` and ``--runs`` shorten a run while you work.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from synth import write_library

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


@dataclass(frozen=True)
class Measurement:
    """One benchmark line: our median, the peer's median, and what the issue targets."""

    name: str
    size: int
    ours: float
    peer: float | None
    peer_name: str
    target: str

    def line(self) -> str:
        if self.peer is None:
            return f"{self.name:<28} {self.size:>6}  {self.ours:8.3f} s  {'':>22}  {self.target}"
        ratio = self.peer / self.ours
        return (
            f"{self.name:<28} {self.size:>6}  {self.ours:8.3f} s  {self.peer_name} "
            f"{self.peer:8.3f} s = {ratio:5.2f}x faster  {self.target}"
        )


def median_seconds(command: Sequence[str], runs: int, cwd: Path = ROOT) -> float:
    """Median wall time of ``command`` over ``runs`` fresh processes; fails on a non-zero exit."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        completed = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
        times.append(time.perf_counter() - started)
        if completed.returncode != 0:
            raise SystemExit(
                f"benchmark command failed ({completed.returncode}): {' '.join(command)}\n"
                f"{completed.stdout[-2000:]}{completed.stderr[-2000:]}"
            )
    return statistics.median(times)


def bench_validate(rules: Path, size: int, runs: int) -> Measurement:
    ours = median_seconds([str(BIN / "rlt-rules"), "validate", str(rules)], runs)
    peer = median_seconds(
        [
            str(BIN / "check-jsonschema"),
            "--schemafile",
            str(ROOT / "schema" / "rule.schema.json"),
            *sorted(str(path) for path in rules.glob("R*.yaml")),
        ],
        runs,
    )
    target = "target >= 3x at 1,000" if size == 1000 else ""
    return Measurement("validate", size, ours, peer, "check-jsonschema", target)


BENCHMARKS: dict[str, Callable[[Path, int, int], Measurement]] = {
    "validate": bench_validate,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[17, 1000, 5000])
    parser.add_argument("--runs", type=int, default=5, help="runs per figure (median)")
    parser.add_argument("--only", choices=sorted(BENCHMARKS), nargs="+")
    args = parser.parse_args()
    print(
        f"rlt-rules benchmarks — {platform.platform()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, {time.strftime('%Y-%m-%d')}"
    )
    with tempfile.TemporaryDirectory(prefix="rlt-bench-") as tmp:
        for size in args.sizes:
            rules = write_library(Path(tmp) / f"lib{size}" / "rules", size)
            runs = args.runs if size < 5000 else max(1, args.runs // 2)
            for name in args.only or BENCHMARKS:
                print(BENCHMARKS[name](rules, size, runs).line(), flush=True)


if __name__ == "__main__":
    main()
