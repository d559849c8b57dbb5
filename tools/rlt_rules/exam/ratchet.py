"""The detectors' ratchet: their exam figures may rise and may not fall.

``exam/detectors.json`` holds, for the default detectors and for the preview set (default and
preview detectors, as ``scan --preview`` runs them), per group of tasks (library, real) and
per rule: cases, hits and noise. :func:`compare` sets today's figures against it: a rule whose
hits fell or whose noise rose is a regression; more hits or less noise is progress, to be
written down (``rlt-rules exam ratchet --write``) so it cannot be lost again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..files.errors import InputError
from ..files.jsonout import indented
from .scoring import ExamScore
from .tasks import Group

#: The figures file, in the exam folder.
FIGURES = "detectors.json"
#: The detector sets, by name: whether the preview detectors run too.
SETS = {"default": False, "preview": True}
#: The counts kept per rule.
COUNTS = ("cases", "hits", "noise")

Figures = dict[str, dict[str, dict[str, dict[str, int]]]]


def figures_of(scores: dict[str, ExamScore]) -> Figures:
    """``{set: {group: {rule: {cases, hits, noise}}}}`` of each set's score."""
    found: Figures = {}
    for name, score in scores.items():
        groups = {}
        for group in Group:
            if not any(s.task.group is group for s in score.tasks):
                continue
            table = score.table(group)
            groups[str(group)] = {
                rule: {"cases": t.cases, "hits": t.hits, "noise": t.noise}
                for rule, t in table.rows.items()
            }
        found[name] = groups
    return found


class FiguresError(InputError):
    """The figures file cannot be read: the message says what to do."""


def read_figures(path: Path) -> Figures:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FiguresError(
            f"{path}: no such file: write it with `rlt-rules exam ratchet --write`"
        ) from None
    except (OSError, ValueError) as error:
        raise FiguresError(f"{path}: not a figures file: {error}") from None
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise FiguresError(f"{path}: not a figures file: expected {{set: {{group: {{rule: …}}}}}}")
    return data


def figures_bytes(figures: Figures) -> bytes:
    return indented(figures)


@dataclass(frozen=True, slots=True)
class Line:
    """One rule of one group of one set: the committed counts and today's."""

    set: str
    group: str
    rule: str
    was: dict[str, int]
    now: dict[str, int]

    @property
    def fell(self) -> bool:
        return self.now["hits"] < self.was["hits"] or self.now["noise"] > self.was["noise"]

    @property
    def rose(self) -> bool:
        return not self.fell and (
            self.now["hits"] > self.was["hits"] or self.now["noise"] < self.was["noise"]
        )


@dataclass(frozen=True, slots=True)
class Comparison:
    lines: tuple[Line, ...]

    @property
    def regressions(self) -> tuple[Line, ...]:
        return tuple(line for line in self.lines if line.fell)

    @property
    def progress(self) -> tuple[Line, ...]:
        return tuple(line for line in self.lines if line.rose)

    def text(self) -> str:
        """The table: each set, group and rule, with the committed counts beside today's."""
        out = [
            f"{'set':8}{'group':9}{'rule':14}{'cases':>11}{'hits':>11}{'noise':>11}  verdict",
        ]
        for line in self.lines:
            cells = "".join(f"{line.now[key]:>5} ({line.was[key]:>3})" for key in COUNTS)
            verdict = "FELL" if line.fell else "rose: write it" if line.rose else ""
            out.append(f"{line.set:8}{line.group:9}{line.rule:14}{cells}  {verdict}".rstrip())
        out.append("counts: today (committed). Hits may not fall; noise may not rise.")
        return "\n".join(out) + "\n"


_ZERO = {key: 0 for key in COUNTS}


def compare(committed: Figures, current: Figures) -> Comparison:
    """Every rule of every group and set, in either figures."""
    lines = []
    for set_name in sorted(set(committed) | set(current), key=lambda s: (s not in SETS, s)):
        was_groups: dict[str, Any] = committed.get(set_name, {})
        now_groups: dict[str, Any] = current.get(set_name, {})
        for group in sorted(set(was_groups) | set(now_groups)):
            was_rules = was_groups.get(group, {})
            now_rules = now_groups.get(group, {})
            for rule in sorted(set(was_rules) | set(now_rules)):
                was = {**_ZERO, **was_rules.get(rule, {})}
                now = {**_ZERO, **now_rules.get(rule, {})}
                lines.append(Line(set_name, group, rule, was, now))
    return Comparison(tuple(lines))
