"""Benchmarks: rlt-rules against its peers on synthetic libraries of 17, 1,000 and 5,000 rules.

Run with ``./dev bench`` (or ``.venv/bin/python benchmarks/run.py``). Each figure is the median
of several runs, printed with its ratio against the peer measured in the same run and, where
the issue sets one, the target and PASS/FAIL. ``--sizes``, ``--runs`` and ``--only`` shorten a
run while you work. See benchmarks/README.md for what each benchmark measures.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml
from scan_bench import bench_scan, bench_sglang
from synth import write_library

from rlt_rules import load_library
from rlt_rules.export import site_files
from rlt_rules.releases import load_history
from rlt_rules.site.assembly import write_markdown_site
from rlt_rules.site.nav import add_categories_to_nav
from rlt_rules.site.pages import SiteInput

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
#: Sizes above which a benchmark only prints why it was skipped (minutes per full site build).
SITE_MAX_SIZE = 1000
#: How long to wait for ``site serve``'s first build and for a rebuild to show an edit.
SERVE_FIRST_BUILD_TIMEOUT = 900.0
SERVE_REBUILD_TIMEOUT = 300.0
#: The issue's targets: validate of 1,000 rules against check-jsonschema (times faster; a first
#: run with no detector cost remembered, 3 times), all
#: exports of 5,000 rules (seconds), a preview rebuild at 1,000 rules after each edit (seconds).
VALIDATE_TARGET = 5.0
VALIDATE_COLD_TARGET = 3.0
EXPORTS_TARGET = 1.0
REBUILD_TARGETS = {"statement": 1.0, "title": 1.5}


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


def _run(command: Sequence[str], cwd: Path = ROOT, env: dict[str, str] | None = None) -> float:
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
            times[name].append(_run(command.argv, ROOT, command.env))
    return {name: statistics.median(values) for name, values in times.items()}


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("RLT_RULES_DIR", None)
    env["NO_MKDOCS_2_WARNING"] = "1"
    return env


# --- validate -----------------------------------------------------------------------------


def bench_validate(rules: Path, size: int, runs: int) -> list[Result]:
    """``rlt-rules validate`` against ``check-jsonschema`` over the same files.

    ``validate`` also times detectors against a bound and remembers the costs within it
    (``detector_cost.CostRecord``). Two figures: warm, with the costs remembered (a rule
    author's next ``validate``), and cold, a first run with nothing remembered (CI, a new
    clone): its cache folder is removed before each run. All three commands alternate."""
    with tempfile.TemporaryDirectory(prefix="rlt-bench-cache-") as folder:
        warm_cache, cold_cache = Path(folder) / "warm", Path(folder) / "cold"
        warm_env = {**_environment(), "RLT_RULES_CACHE_DIR": str(warm_cache)}
        argv = [str(BIN / "rlt-rules"), "validate", str(rules)]
        _run(argv, ROOT, warm_env)  # fills the warm cache
        cold = ["sh", "-c", 'rm -rf "$RLT_RULES_CACHE_DIR" && exec "$@"', "cold", *argv]
        medians = interleaved_medians(
            {
                "warm": Command(argv, warm_env),
                "cold": Command(cold, {**warm_env, "RLT_RULES_CACHE_DIR": str(cold_cache)}),
                "peer": Command(
                    [
                        str(BIN / "check-jsonschema"),
                        "--schemafile",
                        str(ROOT / "schema" / "rule.schema.json"),
                        *sorted(str(path) for path in rules.glob("R*.yaml")),
                    ]
                ),
            },
            runs,
        )
    peer = medians["peer"]
    at_target = size == 1000
    return [
        Measurement(
            f"validate, {name}",
            size,
            medians[name],
            peer=peer,
            peer_name="check-jsonschema",
            target=f"target >= {target:g}x" if at_target else "",
            verdict=peer / medians[name] >= target if at_target else None,
            note=note,
        )
        for name, target, note in (
            ("warm", VALIDATE_TARGET, "detector costs remembered"),
            ("cold", VALIDATE_COLD_TARGET, "first run: nothing remembered"),
        )
    ]


# --- site build -----------------------------------------------------------------------------


def write_static_project(rules: Path, project: Path) -> Path:
    """The same site as plain MkDocs input: generated pages written out as Markdown.

    The docs folder holds the hand-written pages (markers already filled) and every page the
    plugin generates; the configuration is mkdocs.yml without the plugin, with the same theme,
    extensions and nav shape (category pages in the nav, rule pages kept out of it), and
    Material's tags plugin doing what the plugin does for tags (the tags page, the chips).
    Returns the configuration file.
    """
    library = load_library(rules)
    docs = project / "docs"
    site = SiteInput(library, load_history(rules))
    generated = write_markdown_site(
        site, ROOT / "site", docs, tags_marker="<!-- material/tags -->"
    ).pages

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    config["plugins"] = [name for name in config["plugins"] if name != "rlt-rules"] + ["tags"]
    config["docs_dir"] = str(docs)
    config["site_dir"] = str(project / "site")
    config["theme"]["custom_dir"] = str(ROOT / config["theme"]["custom_dir"])
    config["not_in_nav"] = "\n".join(f"/{page.src_uri}" for page in generated if not page.in_nav)
    add_categories_to_nav(config["nav"], library)  # the nav the plugin makes
    config_file = project / "mkdocs.yml"
    config_file.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return config_file


def _html_pages(site: Path) -> set[str]:
    return {path.relative_to(site).as_posix() for path in site.rglob("*.html")}


def bench_site(rules: Path, size: int, runs: int) -> list[Result]:
    """The site build against ``mkdocs build`` of the same pages written out as Markdown.

    Two figures: ``mkdocs build`` with the plugin (the generation overhead alone) and
    ``rlt-rules site build`` (which also validates the library, then runs MkDocs in the same
    process with that library and swaps the built site in).
    """
    if size > SITE_MAX_SIZE:
        return [f"{'site build':<28} {size:>5}  skipped: sizes up to {SITE_MAX_SIZE} only"]
    # At 17 rules a build takes under two seconds and the plugin's fixed cost is a few tenths:
    # three runs on a busy two-core machine put the ratio anywhere from 1.0 to 1.4, so small
    # sites get three times the rounds. At 1,000 rules one build takes about a minute.
    runs = runs * 3 if size < 1000 else min(runs, 2)
    with tempfile.TemporaryDirectory(prefix="rlt-bench-site-") as tmp:
        work = Path(tmp)
        config = write_static_project(rules, work / "static")
        env = _environment()
        plugin_env = dict(env, RLT_RULES_DIR=str(rules))
        cli_site, plugin_site = work / "cli", work / "plugin"
        peer_site = work / "static" / "site"
        mkdocs = [str(BIN / "mkdocs"), "build", "--quiet"]
        medians = interleaved_medians(
            {
                "plugin": Command(
                    [*mkdocs, "--config-file", str(ROOT / "mkdocs.yml")]
                    + ["--site-dir", str(plugin_site)],
                    plugin_env,
                ),
                "cli": Command(
                    [str(BIN / "rlt-rules"), "site", "build", "--rules", str(rules)]
                    + ["--site-dir", str(cli_site)],
                    env,
                ),
                "peer": Command([*mkdocs, "--config-file", str(config)], env),
            },
            runs,
        )
        plugin, cli, peer = medians["plugin"], medians["cli"], medians["peer"]
        built = _html_pages(peer_site)
        for ours in (plugin_site, cli_site):
            missing = built ^ _html_pages(ours)
            if missing:
                raise SystemExit(f"site benchmark: {ours.name} differs in pages: {sorted(missing)}")
    return [
        Measurement(
            name,
            size,
            ours,
            peer=peer,
            peer_name="plain mkdocs build",
            overhead=True,
            target="target <= 1.3x",
            verdict=ours / peer <= 1.3,
            note=note,
        )
        for name, ours, note in (
            ("site: mkdocs + plugin", plugin, f"{len(built)} HTML pages each"),
            ("site: rlt-rules site build", cli, "validates, then mkdocs in process"),
        )
    ]


# --- exports ------------------------------------------------------------------------------


def bench_exports(rules: Path, size: int, runs: int) -> list[Result]:
    """``site_files`` in process: time, and peak memory beyond the loaded library."""
    load_times = []
    for _ in range(runs):
        started = time.perf_counter()
        library = load_library(rules)
        load_times.append(time.perf_counter() - started)
    export_times = []
    for _ in range(runs):
        started = time.perf_counter()
        published = site_files(library, "https://rlt-rules.example/1.0.0/")
        export_times.append(time.perf_counter() - started)
        del published
    del library

    tracemalloc.start()
    library = load_library(rules)
    data_bytes = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    before = tracemalloc.get_traced_memory()[0]
    published = site_files(library, "https://rlt-rules.example/1.0.0/")
    peak = tracemalloc.get_traced_memory()[1] - before
    tracemalloc.stop()
    output_bytes = sum(len(data) for data in published.values())
    del published, library

    per_rule = peak / size
    timed = size == 5000
    return [
        Measurement("load library", size, statistics.median(load_times)),
        Measurement(
            "exports (site_files)",
            size,
            statistics.median(export_times),
            target=f"target < {EXPORTS_TARGET:g} s" if timed else "",
            verdict=statistics.median(export_times) < EXPORTS_TARGET if timed else None,
        ),
        Measurement(
            "exports peak memory",
            size,
            per_rule / 1024,
            unit="KB/rule",
            target="target <= 50 KB/rule",
            verdict=per_rule <= 50 * 1024,
            note=f"peak {peak / 2**20:.1f} MB, output {output_bytes / 2**20:.1f} MB, "
            f"library objects {data_bytes / size / 1024:.1f} KB/rule",
        ),
    ]


# --- serve rebuild -----------------------------------------------------------------------------


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
                env=_environment(),
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


BENCHMARKS: dict[str, Callable[[Path, int, int], list[Result]]] = {
    "validate": bench_validate,
    "site": bench_site,
    "exports": bench_exports,
    "serve-rebuild": bench_serve_rebuild,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[17, 1000, 5000])
    parser.add_argument("--runs", type=int, default=3, help="runs per figure (median)")
    parser.add_argument("--only", choices=sorted([*BENCHMARKS, "scan", "scan-sglang"]), nargs="+")
    args = parser.parse_args()
    print(
        f"rlt-rules benchmarks — {platform.platform()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, {time.strftime('%Y-%m-%d')}"
    )
    selected = args.only or [*BENCHMARKS, "scan", "scan-sglang"]
    if "scan" in selected:  # files, not library size: once, with the real rules
        for line in bench_scan(max(args.runs, 5)):
            print(line, flush=True)
    if "scan-sglang" in selected:  # the whole SGLang package (tools/corpus.py fetches it)
        for line in bench_sglang(max(args.runs, 5)):
            print(line, flush=True)
    by_size = [name for name in selected if name in BENCHMARKS]
    with tempfile.TemporaryDirectory(prefix="rlt-bench-") as tmp:
        for size in args.sizes if by_size else ():
            rules = write_library(Path(tmp) / f"lib{size}" / "rules", size)
            runs = args.runs if size < 5000 else max(1, args.runs - 1)
            for name in by_size:
                for result in BENCHMARKS[name](rules, size, runs):
                    print(result if isinstance(result, str) else result.line(), flush=True)


if __name__ == "__main__":
    main()
