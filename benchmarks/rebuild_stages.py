"""CPU time of a live-preview rebuild's stages, without a profiler's overhead.

    .venv/bin/python benchmarks/rebuild_stages.py --size 1000 --edits 3

Builds a synthetic library (:mod:`synth`) once as ``mkdocs serve --dirty`` does, then edits
the middle rule's statement and title in turn and rebuilds after each edit, as
``profile_rebuild.py`` does. Each stage named in :data:`STAGES` is timed by wrapping the
function that does it (CPU seconds, summed over its calls in the rebuild); the rest of the
rebuild is MkDocs' own work and the plugin's other events. cProfile charges every Python call,
so it inflates call-heavy stages (the exports, Material's HTML parser) against the rest: use
this to rank stages, ``profile_rebuild.py`` to see inside one. Wrapping a function by its
import path means a stage renamed in the plugin must be renamed here too.
"""

from __future__ import annotations

import argparse
import collections
import time
from collections.abc import Callable

from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page
from profile_rebuild import ServedLibrary
from serve_bench import EDITS

from rlt_rules.files import atomic
from rlt_rules.site import plugin, search

#: (owner, attribute, label): the functions timed, as the plugin calls them.
STAGES: tuple[tuple[object, str, str], ...] = (
    (plugin, "load_validated", "load and validate"),
    (plugin, "assemble", "generated pages' Markdown"),
    (Files, "add_files_from_theme", "theme files"),
    (Page, "render", "Markdown renders"),
    (search.PreviewSearch, "index", "search entries"),
    (plugin, "site_files", "exports"),
    # Writing them: through LastWritten since it leaves unchanged files alone; write_atomic
    # called by the plugin before (so a tree from before that can be timed too).
    (getattr(atomic, "LastWritten", None), "write", "exports written"),
    (plugin, "write_atomic", "exports written"),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--edits", type=int, default=3, help="rebuilds per kind of edit")
    args = parser.parse_args()
    spent: collections.Counter[str] = collections.Counter()
    for owner, name, label in STAGES:
        if hasattr(owner, name):  # a stage of another tree's plugin is left out
            setattr(owner, name, _timed(getattr(owner, name), label, spent))
    with ServedLibrary(args.size) as served:
        cpu = time.process_time()
        served.build()
        print(f"first build: {time.process_time() - cpu:.2f} s CPU", flush=True)
        for number in range(1, args.edits + 1):
            for kind in ("statement", "title"):
                EDITS[kind](served.rule_file, f"Edit {number}.")
                spent.clear()
                cpu = time.process_time()
                served.build()
                total = time.process_time() - cpu
                stages = ", ".join(f"{label} {s:.2f}" for label, s in spent.most_common())
                print(f"{kind} edit: {total:.2f} s CPU; {stages}", flush=True)


def _timed(function: Callable, label: str, spent: collections.Counter[str]) -> Callable:
    def timed(*args, **kwargs):
        cpu = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            spent[label] += time.process_time() - cpu

    return timed


if __name__ == "__main__":
    main()
