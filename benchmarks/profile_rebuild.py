"""Profile a live-preview rebuild in one process, as ``mkdocs serve --dirty`` builds.

    .venv/bin/python benchmarks/profile_rebuild.py --size 1000 --edit statement title --top 30

Writes a synthetic library of ``--size`` rules (:mod:`synth`), builds it once the way
``rlt-rules site serve`` does (the plugin kept across builds, dirty builds), then edits the
middle rule ``--edits`` times per kind of ``--edit`` (its statement, its title, or both in
turn, as ``run.py``'s serve benchmark does) and rebuilds after each edit. Prints each
build's wall and CPU time (CPU time moves less with the machine's load: compare trees by it);
the last rebuild runs under cProfile, whose ``--top`` functions by cumulative time are
printed (``--save FILE`` keeps the whole profile for ``python -m pstats``). ``--first``
profiles the first build instead, ``--top 0`` none.

What it leaves out of the server's time: noticing the edit (the watcher's poll and delay) and
serving the page.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import logging
import os
import pstats
import tempfile
import time
from pathlib import Path

from mkdocs.commands.build import build
from mkdocs.config import load_config
from run import EDITS, ROOT
from synth import write_library

from rlt_rules.site import RULES_DIR_ENV


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--edit", choices=sorted(EDITS), nargs="+", default=["statement"])
    parser.add_argument("--edits", type=int, default=2, help="rebuilds per kind of edit")
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--first", action="store_true", help="profile the first build")
    parser.add_argument("--save", type=Path, help="write the profile here")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    os.environ["NO_MKDOCS_2_WARNING"] = "1"
    with tempfile.TemporaryDirectory(prefix="rlt-profile-") as tmp:
        rules = write_library(Path(tmp) / "rules", args.size)
        os.environ[RULES_DIR_ENV] = str(rules)
        site_dir = str(Path(tmp) / "site")
        rule_file = rules / f"R{max(1, args.size // 2):02d}.yaml"

        def config():
            loaded = load_config(str(ROOT / "mkdocs.yml"), site_dir=site_dir)
            loaded.site_url = "http://127.0.0.1:8000/"
            return loaded

        first = config()
        first.plugins.on_startup(command="serve", dirty=True)
        profiler = cProfile.Profile()
        try:
            started, cpu = time.perf_counter(), time.process_time()
            with _profiled(profiler, on=args.first and args.top > 0):
                build(first, serve_url=first.site_url, dirty=True)
            print(f"first build: {_since(started, cpu)}", flush=True)
            rebuilds = [(kind, n) for kind in args.edit for n in range(1, args.edits + 1)]
            for index, (kind, number) in enumerate(rebuilds, start=1):
                EDITS[kind](rule_file, f"Edit {number}.")
                started, cpu = time.perf_counter(), time.process_time()
                last = index == len(rebuilds) and not args.first and args.top > 0
                with _profiled(profiler, on=last):
                    build(config(), serve_url=first.site_url, dirty=True)
                print(f"rebuild {number} ({kind}): {_since(started, cpu)}", flush=True)
        finally:
            first.plugins.on_shutdown()
    if args.top <= 0:
        return
    if args.save is not None:
        profiler.dump_stats(args.save)
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(args.top)
    print(out.getvalue())


def _since(started: float, cpu: float) -> str:
    wall, used = time.perf_counter() - started, time.process_time() - cpu
    return f"{wall:.2f} s wall, {used:.2f} s CPU"


class _profiled:
    """``profiler`` enabled inside the block when ``on``."""

    def __init__(self, profiler: cProfile.Profile, *, on: bool) -> None:
        self.profiler, self.on = profiler, on

    def __enter__(self) -> None:
        if self.on:
            self.profiler.enable()

    def __exit__(self, *exc: object) -> None:
        if self.on:
            self.profiler.disable()


if __name__ == "__main__":
    main()
