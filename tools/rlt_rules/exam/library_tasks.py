"""The library's own tasks: every example pair of an active rule gives two.

The bad program holds one defect, the pair's rule on its marked lines; the good program holds
none (any finding there is noise). A reviewer sees the program as a new file ``example.py``
without what would name its answer: marker comments (``# R03: why``: the rule and its
explanation), the ``#>`` output lines (the damage, printed), and any comment naming a rule id.
An inline comment is cut from its line; a comment on a line of its own goes with the line.
The marked lines are mapped onto the program the reviewer sees.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..files.comments import comments
from ..library.model import Library, Status
from ..library.pairs import MARKER, ExamplePair, marked_lines, pairs_of
from .patches import file_diff
from .tasks import Expected, Task, TaskFile, TaskKind, make_task

#: The file a library task adds.
EXAMPLE_FILE = "example.py"
#: A rule id anywhere in a comment.
_RULE_ID = re.compile(r"\bR\d{2,}\b")


@dataclass(frozen=True, slots=True)
class ShownProgram:
    """A program as the reviewer sees it, and where each line of the original went: the
    line it became, or for a removed line the next line kept."""

    text: str
    moved_to: dict[int, int]
    removed: frozenset[int]


def shown_program(code: str) -> ShownProgram:
    """``code`` without markers, ``#>`` lines and comments naming a rule."""
    lines = code.splitlines()
    cut: dict[int, int] = {}
    removed: set[int] = set()
    found = comments(code)
    if found is None:  # the library runs every example: it tokenizes
        found = [(n, len(t) - len(t.lstrip()), t.strip()) for n, t in enumerate(lines, 1)]
        found = [item for item in found if item[2].startswith("#")]
    for line, column, text in found:
        if not (text.startswith("#>") or MARKER.match(text) or _RULE_ID.search(text)):
            continue
        if lines[line - 1][:column].strip():
            cut[line] = column
        else:
            removed.add(line)
    kept: list[str] = []
    moved_to: dict[int, int] = {}
    pending: list[int] = []
    for number, text in enumerate(lines, 1):
        if number in removed:
            pending.append(number)
            continue
        kept.append(text[: cut[number]].rstrip() if number in cut else text)
        moved_to[number] = len(kept)
        for earlier in pending:
            moved_to[earlier] = len(kept)
        pending.clear()
    while kept and not kept[-1].strip():
        kept.pop()
    for earlier in pending:
        moved_to[earlier] = max(len(kept), 1)
    return ShownProgram("\n".join(kept) + "\n", moved_to, frozenset(removed))


def _expected(pair: ExamplePair, shown: ShownProgram) -> Expected:
    marked = marked_lines(pair.bad.code, pair.rule_id)
    lines = sorted(shown.moved_to[n] for n in marked if n not in shown.removed) or sorted(
        shown.moved_to[n] for n in marked
    )
    return Expected(
        f"{pair.rule_id} {pair.name}", pair.rule_id, (), EXAMPLE_FILE, lines[0], lines[-1]
    )


def library_tasks(library: Library) -> list[Task]:
    """Two tasks per pair of every active rule: the bad program, the good one."""
    tasks = []
    for rule in library.rules:
        if rule.status is not Status.ACTIVE:
            continue
        for pair in pairs_of(rule):
            for example, bad in ((pair.bad, True), (pair.good, False)):
                shown = shown_program(example.code)
                tasks.append(
                    make_task(
                        TaskKind.LIBRARY_BAD if bad else TaskKind.LIBRARY_GOOD,
                        f"{pair.rule_id} {pair.name} ({example.kind})",
                        (TaskFile(EXAMPLE_FILE, shown.text),),
                        file_diff(EXAMPLE_FILE, None, shown.text),
                        (_expected(pair, shown),) if bad else (),
                    )
                )
    return tasks
