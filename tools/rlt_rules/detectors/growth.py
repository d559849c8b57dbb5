"""How a detector's cost grows with the file it reads: the generated files of the growth probe
and the verdict on what they measured (:mod:`rlt_rules.library.detector_cost` runs them).

The package sample is many small files, where a detector whose cost grows with the cube of a
file (a ``follows``/``precedes``/``follows`` chain with ``stopBy: end`` searches every sibling
statement again at every level) stays cheap: 5 times a node-kind match there, minutes on one
400-statement file. So each detector is also timed on a generated file and on one
:data:`GROWTH_FACTOR` times as large (more classes and module statements, and a function body
that grows: the siblings and subtrees relational rules search), and rejected when its cost,
as a ratio to a node-kind match over the same file, is over the sample's bound
(:data:`rlt_rules.library.detector_cost.MAX_COST`) on the larger file, or grows more than
:data:`GROWTH_BOUND` times between the two. A linear
detector's ratio stays about level (the library's: 0.5–1×); one that grows with the square of a
function's size grows 2–6× (the library's ``state-literal``: 2.4×); with the cube, 8× and more.
Time is the worker's CPU time, so a loaded machine does not make a detector look costly.

The files hold the shapes the library's detectors look for (``hasattr(self, …)``, positional
``True``, ``== -1``, ``self.x[k] = v``, status strings, ``super().__init__``); a detector whose
costly part runs only on shapes absent from them is measured on its examples and the sample
alone.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

#: Copies of the repeated code in the smaller generated file (about 290 lines).
GROWTH_COPIES = 8
#: The larger file holds this many times as many copies (about 1,150 lines).
GROWTH_FACTOR = 4
#: A detector's cost ratio may grow at most this many times from the smaller file to the larger.
GROWTH_BOUND = 8.0

_BLOCK = textwrap.dedent(
    """\
    if hasattr(self, "cache") and getattr(self, "pool", None) is not None:
        self.cache.clear()
    self.table[request.rid] = request
    count = self.pool.free(request.rid, True)
    if count == -1 or backend.generation == 4:
        return request, True
    for item in self.requests:
        item.state = "running"
        self.runner.queue.append(item)
    try:
        super().__init__(cache)
    except AttributeError:
        pass
    with self.lock:
        total += len(batch) * 2
    """
)


def generated_code(copies: int) -> str:
    """A module of ``copies`` classes (each with an ``__init__`` holding the block) and module
    statements, and one function whose body is the block ``copies`` times."""
    method = textwrap.indent(_BLOCK, " " * 8)
    parts = [
        f"class Worker{i}(Base):\n"
        "    def __init__(self, cache, request, backend, batch, total):\n"
        f"{method}\n"
        f"worker{i} = Worker{i}(cache)\n"
        f"worker{i}.step(batch, True)\n"
        for i in range(copies)
    ]
    body = textwrap.indent(_BLOCK, " " * 4) * copies
    parts.append(f"def run(self, cache, request, backend, batch, total):\n{body}")
    return "\n".join(parts)


def growth_sources() -> tuple[str, str]:
    """The smaller and the larger generated file."""
    return generated_code(GROWTH_COPIES), generated_code(GROWTH_COPIES * GROWTH_FACTOR)


@dataclass(frozen=True, slots=True)
class Growth:
    """A detector's cost ratio to a node-kind match on the smaller generated file and on the
    larger; both None when it was still running at its deadline (``seconds``)."""

    small: float | None
    large: float | None
    seconds: float

    @property
    def stalled(self) -> bool:
        return self.small is None or self.large is None

    @property
    def factor(self) -> float:
        """How many times the ratio grew from the smaller file to the larger (0 if stalled)."""
        if self.small is None or self.large is None:
            return 0.0
        return self.large / self.small if self.small > 0 else 0.0

    def over(self, max_cost: float) -> bool:
        """Stalled, over ``max_cost`` on the larger file, or grown over :data:`GROWTH_BOUND`."""
        if self.large is None:
            return True
        return self.large > max_cost or self.factor > GROWTH_BOUND


def growth_from(line: str, small_baseline: float, large_baseline: float) -> Growth:
    """A :class:`Growth` from the worker's line (the detector's CPU seconds on each file) and
    the node-kind match's over the same files."""
    small, large = (float(part) for part in line.split())
    return Growth(
        small / small_baseline if small_baseline > 0 else 0.0,
        large / large_baseline if large_baseline > 0 else 0.0,
        small + large,
    )


def line_count(text: str) -> int:
    return text.count("\n") + (not text.endswith("\n"))
