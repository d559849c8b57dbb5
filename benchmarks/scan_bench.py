"""``rlt-rules scan`` against ``ast-grep scan`` with the exported rules, over the same files.

Two corpora. ``scan``: 1,000 Python files of about 300 lines, each the library's example
programs (whole programs, so every file parses) appended until it reaches 300 lines, so the
detectors find what they find in real rule examples. ``scan-sglang``: the whole SGLang 0.5.23
package (4,719 files, fetched once by ``tools/corpus.py fetch``), real engine code. Both
commands print every hit as JSON; the hit counts must agree or the run stops. Default-on
detectors only, on both sides (the export leaves preview ones out). Runs alternate.
``python benchmarks/scan_bench.py [RUNS] [--sglang]`` runs one alone.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rlt_rules import load_library
from rlt_rules.export import astgrep
from rlt_rules.project.discover import build_bundle

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
FILES = 1000
LINES = 300


def write_corpus(folder: Path, files: int = FILES, lines: int = LINES) -> int:
    """``files`` Python files of at least ``lines`` lines; returns the total line count."""
    library = load_library(ROOT / "rules")
    programs = [example.code for rule in library.rules for example in rule.examples]
    folder.mkdir(parents=True, exist_ok=True)
    total = 0
    for index in range(files):
        parts: list[str] = []
        count = 0
        position = index
        while count < lines:
            program = programs[position % len(programs)]
            parts.append(program)
            count += program.count("\n")
            position += 7  # a different mix in each file
        (folder / f"module_{index:04}.py").write_text("\n\n".join(parts), encoding="utf-8")
        total += count
    return total


def _timed(command: list[str], output: Path) -> tuple[float, str]:
    """Wall time of one fresh process; exit 0 (no hits) and 1 (hits) both count as success."""
    started = time.perf_counter()
    with output.open("w", encoding="utf-8") as sink:
        completed = subprocess.run(
            command, stdout=sink, stderr=subprocess.PIPE, text=True, check=False
        )
    elapsed = time.perf_counter() - started
    if completed.returncode not in (0, 1):
        raise SystemExit(f"benchmark command failed: {' '.join(command)}\n{completed.stderr}")
    return elapsed, output.read_text(encoding="utf-8")


def bench_scan(runs: int = 5) -> list[str]:
    """The synthetic corpus: medians, their ratio and the issue's targets."""
    with tempfile.TemporaryDirectory(prefix="rlt-scan-bench-") as tmp:
        corpus = Path(tmp) / "corpus"
        total_lines = write_corpus(corpus)
        hits, medians, times = _compare(corpus, Path(tmp), runs)
    return [
        f"scan corpus: {FILES} files, {total_lines} lines, {hits} hits each",
        *_lines("scan", FILES, medians, 1.3),
        f"  target < 5 s: {'PASS' if medians['ours'] < 5 else 'FAIL'}",
        _runs(times),
    ]


def bench_sglang(runs: int = 5) -> list[str]:
    """The whole SGLang package: medians, their ratio and the target (<= 1.2x)."""
    sys.path.insert(0, str(ROOT / "tools"))
    import corpus as corpus_script  # tools/corpus.py: where the fetched package is

    folder = corpus_script.fetch()
    package = folder / corpus_script.PACKAGE
    files = sum(1 for _ in package.rglob("*.py"))
    lines = sum(path.read_bytes().count(b"\n") for path in package.rglob("*.py"))
    with tempfile.TemporaryDirectory(prefix="rlt-scan-bench-") as tmp:
        hits, medians, times = _compare(package, Path(tmp), runs)
    return [
        f"scan-sglang corpus: {corpus_script.NAME}, {files} files, {lines} lines, {hits} hits each",
        *_lines("scan-sglang", files, medians, 1.2),
        _runs(times),
    ]


#: Our two ways of reading the library: the rules folder (checked as ``validate`` checks it,
#: as in the library's checkout) and the bundle an installed rlt-rules reads (its package's
#: ``rules.json``, built as the wheel builds it).
OURS = {"ours": "rules folder", "bundle": "rules.json bundle"}


def _lines(name: str, files: int, medians: dict[str, float], target: float) -> list[str]:
    peer = medians["peer"]
    return [
        f"{f'{name} ({label})':<28} {files:>5}  {medians[key]:9.3f} s       "
        f"ast-grep scan {peer:8.3f} s = {medians[key] / peer:5.2f}x of it  "
        f"target <= {target:g}x: {'PASS' if medians[key] / peer <= target else 'FAIL'}"
        for key, label in OURS.items()
    ]


def _runs(times: dict[str, list[float]]) -> str:
    return (
        "  (runs: "
        + "; ".join(
            f"{name} {', '.join(f'{t:.2f}' for t in values)}" for name, values in times.items()
        )
        + ")"
    )


def _compare(
    corpus: Path, base: Path, runs: int
) -> tuple[int, dict[str, float], dict[str, list[float]]]:
    """Interleaved runs of the commands over ``corpus``: the hit count (equal on every side or
    the run stops), each command's median and every run's time."""
    exported = base / "ast-grep"
    library = load_library(ROOT / "rules")
    for relative, data in astgrep.files(library, None).items():
        (exported / relative).parent.mkdir(parents=True, exist_ok=True)
        (exported / relative).write_bytes(data)
    build_bundle(ROOT / "rules", base / "rules.json")
    ours = [str(BIN / "rlt-rules"), "scan", str(corpus), "--format", "json", "--rules"]
    commands = {
        "ours": [*ours, str(ROOT / "rules")],
        "bundle": [*ours, str(base / "rules.json")],
        "peer": [str(BIN / "ast-grep"), "scan", "-c", str(exported / "sgconfig.yml")]
        + ["--json=compact", str(corpus)],
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    hits: dict[str, int] = {}
    names = list(commands)
    for round_number in range(runs):
        shift = round_number % len(names)
        for name in names[shift:] + names[:shift]:
            elapsed, text = _timed(commands[name], base / f"{name}.json")
            times[name].append(elapsed)
            found = json.loads(text)
            hits[name] = len(found if name == "peer" else found["hits"])
    if len(set(hits.values())) != 1:
        raise SystemExit(f"the scans disagree: {hits}")
    return hits["peer"], {name: statistics.median(t) for name, t in times.items()}, times


if __name__ == "__main__":
    numbers = [int(arg) for arg in sys.argv[1:] if arg.isdigit()]
    bench = bench_sglang if "--sglang" in sys.argv else bench_scan
    for line in bench(numbers[0] if numbers else 5):
        print(line, flush=True)
