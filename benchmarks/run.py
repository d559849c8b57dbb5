"""Benchmarks: rlt-rules against its peers on synthetic libraries of 17, 1,000 and 5,000 rules.

Run with ``./dev bench`` (or ``.venv/bin/python benchmarks/run.py``). Each figure is the median
of several runs, printed with its ratio against the peer measured in the same run and, where
the issue sets one, the target and PASS/FAIL. ``--sizes``, ``--runs`` and ``--only`` shorten a
run while you work. See benchmarks/README.md for what each benchmark measures. This file holds
the library-size benchmarks (validate, site, exports); ``measure.py`` what they all share,
``scan_bench.py`` and ``serve_bench.py`` the scan and serve benchmarks.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import yaml
from measure import (
    BIN,
    ROOT,
    SITE_MAX_SIZE,
    Command,
    Measurement,
    Result,
    environment,
    interleaved_medians,
    timed_run,
)
from scan_bench import bench_scan, bench_sglang
from serve_bench import bench_serve_rebuild
from synth import write_library

from rlt_rules import load_library
from rlt_rules.export import site_files
from rlt_rules.releases import load_history
from rlt_rules.site.assembly import write_markdown_site
from rlt_rules.site.nav import add_categories_to_nav
from rlt_rules.site.pages import SiteInput

#: The issue's targets: validate of 1,000 rules against check-jsonschema (times faster; cold,
#: a first run with no detector cost remembered: 3 times), all
#: exports of 5,000 rules (seconds); the serve rebuild's are in serve_bench.py.
VALIDATE_TARGET = 5.0
VALIDATE_COLD_TARGET = 3.0
EXPORTS_TARGET = 1.0


# --- validate -----------------------------------------------------------------------------


def bench_validate(rules: Path, size: int, runs: int) -> list[Result]:
    """``rlt-rules validate`` against ``check-jsonschema`` over the same files.

    ``validate`` also times detectors against a bound and remembers the costs within it
    (``detector_cost.CostRecord``). Two figures: warm, with the costs remembered (a rule
    author's next ``validate``), and cold, a first run with nothing remembered (CI, a new
    clone): its cache folder is removed before each run. All three commands alternate."""
    with tempfile.TemporaryDirectory(prefix="rlt-bench-cache-") as folder:
        warm_cache, cold_cache = Path(folder) / "warm", Path(folder) / "cold"
        warm_env = {**environment(), "RLT_RULES_CACHE_DIR": str(warm_cache)}
        argv = [str(BIN / "rlt-rules"), "validate", str(rules)]
        timed_run(argv, ROOT, warm_env)  # fills the warm cache
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
        env = environment()
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
