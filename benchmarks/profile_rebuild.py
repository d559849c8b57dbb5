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

from measure import ROOT
from mkdocs.commands.build import build
from mkdocs.config import load_config
from serve_bench import EDITS
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
    profiler = cProfile.Profile()
    with ServedLibrary(args.size) as served:
        started, cpu = time.perf_counter(), time.process_time()
        with _profiled(profiler, on=args.first and args.top > 0):
            served.build()
        print(f"first build: {_since(started, cpu)}", flush=True)
        rebuilds = [(kind, n) for kind in args.edit for n in range(1, args.edits + 1)]
        for index, (kind, number) in enumerate(rebuilds, start=1):
            EDITS[kind](served.rule_file, f"Edit {number}.")
            started, cpu = time.perf_counter(), time.process_time()
            last = index == len(rebuilds) and not args.first and args.top > 0
            with _profiled(profiler, on=last):
                served.build()
            print(f"rebuild {number} ({kind}): {_since(started, cpu)}", flush=True)
    if args.top <= 0:
        return
    if args.save is not None:
        profiler.dump_stats(args.save)
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(args.top)
    print(out.getvalue())


class ServedLibrary:
    """A synthetic library of ``size`` rules built as ``mkdocs serve --dirty`` builds it: the
    plugin started once and kept, every build after the first a dirty one. ``rule_file`` is the
    middle rule, the one the benchmarks edit; the library and the site live in a temporary
    folder until the block ends."""

    def __init__(self, size: int) -> None:
        self.size = size

    def __enter__(self) -> ServedLibrary:
        logging.basicConfig(level=logging.WARNING)
        os.environ["NO_MKDOCS_2_WARNING"] = "1"
        self._folder = tempfile.TemporaryDirectory(prefix="rlt-served-")
        folder = Path(self._folder.name)
        rules = write_library(folder / "rules", self.size)
        os.environ[RULES_DIR_ENV] = str(rules)
        self._site_dir = str(folder / "site")
        self.rule_file = rules / f"R{max(1, self.size // 2):02d}.yaml"
        self._first = self._config()
        self._first.plugins.on_startup(command="serve", dirty=True)
        self._built = False
        return self

    def _config(self):
        loaded = load_config(str(ROOT / "mkdocs.yml"), site_dir=self._site_dir)
        loaded.site_url = "http://127.0.0.1:8000/"
        return loaded

    def build(self) -> None:
        """The first build, then a rebuild with a fresh configuration, as the server does."""
        config = self._config() if self._built else self._first
        build(config, serve_url=self._first.site_url, dirty=True)
        self._built = True

    def __exit__(self, *exc: object) -> None:
        try:
            self._first.plugins.on_shutdown()
        finally:
            self._folder.cleanup()


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
