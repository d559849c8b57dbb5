"""The pair contract: a rule is taught by a bad and a good example of one scenario.

A pair is one ``bad`` and one ``good`` example with the same ``name`` in the same rule; the
good program is the bad one with the rule's correction applied. Each example marks the lines
that break the rule (bad) or apply its correction (good) with a comment naming its own rule::

    self.selected = set()  # R03: one batch's selection stored on the scheduler.

An inline marker marks its own line. A marker on a line of its own marks itself and the lines
that follow at the same or deeper indentation, up to a blank line or a line indented less.

This module reads only example code; the validator, the ``examples --pairs`` command and the
site's rule pages all take their markers, diffs and similarity from here.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from ..files.comments import comments
from ..files.memo import Recent
from .load import Document
from .model import Diagnostic, Example, ExampleKind, Rule, Status

#: A marker comment's text: ``# R03: reason``. The id is the marker's rule.
MARKER = re.compile(r"^#\s*(?P<rule_id>R\d{2,}):")
#: What every marker's text holds, wherever it is (code without it has no marker).
_MARKER_TEXT = re.compile(r"#\s*R\d{2,}:")
#: A comment that opens with a rule id but no colon: a marker written wrong ("# R08 why").
_MARKER_WITHOUT_COLON = re.compile(r"^#\s*(?P<rule_id>R\d{2,})(?![\d:])")
#: Its text anywhere: code without it is not tokenized a second time (every example's markers
#: are, once, by :func:`markers`).
_COLONLESS_TEXT = re.compile(r"#\s*R\d{2,}(?![\d:])")

#: Every pair of the library reaches at least this similarity (difflib's ratio over lines).
MIN_PAIR_RATIO = 0.6


@dataclass(frozen=True, slots=True)
class Marker:
    """One ``# Rnn:`` comment: its 1-based line and column in the code, and its rule id."""

    line: int
    column: int
    rule_id: str
    inline: bool


def markers(code: str) -> tuple[Marker, ...]:
    """Every marker comment in ``code`` (comments only: a ``# R03:`` inside a string is text;
    none when the code does not tokenize)."""
    if _MARKER_TEXT.search(code) is None:
        return ()
    found_comments = comments(code)
    if found_comments is None:
        return ()
    found: list[Marker] = []
    lines = code.splitlines()
    for line, column, text in found_comments:
        match = MARKER.match(text)
        if match is None:
            continue
        inline = bool(lines[line - 1][:column].strip())
        found.append(Marker(line, column + 1, match["rule_id"], inline))
    return tuple(found)


def markers_without_colon(code: str) -> tuple[tuple[int, int, str], ...]:
    """Comments of ``code`` that open with a rule id and no colon (``# R08 why``): each one's
    1-based line and column and the id. Not a marker, so nothing highlights it."""
    if _COLONLESS_TEXT.search(code) is None:
        return ()
    return tuple(
        (line, column + 1, match["rule_id"])
        for line, column, text in comments(code) or ()
        if (match := _MARKER_WITHOUT_COLON.match(text)) is not None
    )


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())


def marked_lines(code: str, rule_id: str) -> frozenset[int]:
    """The 1-based lines of ``code`` that ``rule_id``'s markers cover."""
    return _covered_lines(code, markers(code), rule_id)


class MarkerCache:
    """The markers of each example's code, found once per distinct code.

    The validator (:func:`pair_diagnostics`) and the site's rule pages both read every
    example's markers; given one cache, they tokenize each code once, and a live preview that
    keeps the cache across its builds tokenizes only the code an edit changed. Its owner calls
    :meth:`next_generation` once per build (see :class:`~rlt_rules.files.memo.Recent`).
    """

    __slots__ = ("_found",)

    def __init__(self) -> None:
        self._found: Recent[str, tuple[Marker, ...]] = Recent()

    def markers(self, code: str) -> tuple[Marker, ...]:
        """:func:`markers`, remembered."""
        return self._found.get(code, markers)

    def marked_lines(self, code: str, rule_id: str) -> frozenset[int]:
        """:func:`marked_lines`, from the remembered markers."""
        return _covered_lines(code, self.markers(code), rule_id)

    def next_generation(self) -> None:
        self._found.next_generation()


def _covered_lines(code: str, found: tuple[Marker, ...], rule_id: str) -> frozenset[int]:
    lines = code.splitlines()
    covered: set[int] = set()
    for marker in found:
        if marker.rule_id != rule_id:
            continue
        covered.add(marker.line)
        if marker.inline:
            continue
        depth = _indent(lines[marker.line - 1])
        for number in range(marker.line + 1, len(lines) + 1):
            text = lines[number - 1]
            if not text.strip() or _indent(text) < depth:
                break
            covered.add(number)
    return frozenset(covered)


def program_lines(code: str) -> list[str]:
    """The code's lines without its ``#>`` expected-output comments."""
    return [line for line in code.splitlines() if not line.lstrip().startswith("#>")]


def similarity(bad_code: str, good_code: str) -> float:
    """difflib's ratio over the two programs' lines: 1.0 for the same program."""
    return difflib.SequenceMatcher(
        None, bad_code.splitlines(), good_code.splitlines(), autojunk=False
    ).ratio()


class LineChanges(NamedTuple):
    """The size of a correction: lines removed from the bad program, lines added in the good."""

    removed: int
    added: int


@dataclass(frozen=True, slots=True)
class ExamplePair:
    """One scenario of a rule, broken (``bad``) and corrected (``good``)."""

    rule_id: str
    name: str
    bad: Example
    good: Example

    @property
    def ratio(self) -> float:
        return similarity(self.bad.code, self.good.code)

    def diff(self, *, context: int = 3) -> tuple[str, ...]:
        """The unified diff from the bad program to the good one, without file headers and
        without the ``#>`` output lines (each side's output is shown on its own)."""
        lines = difflib.unified_diff(
            program_lines(self.bad.code),
            program_lines(self.good.code),
            lineterm="",
            n=context,
        )
        # The first two lines are the file headers ("--- ", "+++ "); a removed code line may
        # itself start with "--", so only the headers are dropped, by position.
        return tuple(lines)[2:]

    def changed_lines(self) -> LineChanges:
        """How many lines the correction removes from the bad and adds in the good."""
        removed = added = 0
        for line in self.diff(context=0):
            if line.startswith("-"):
                removed += 1
            elif line.startswith("+"):
                added += 1
        return LineChanges(removed, added)


def pairs_of(rule: Rule) -> tuple[ExamplePair, ...]:
    """The rule's pairs, in the order their bad examples appear."""
    good_by_name = {example.name: example for example in rule.examples_of(ExampleKind.GOOD)}
    return tuple(
        ExamplePair(rule.id, bad.name, bad, good_by_name[bad.name])
        for bad in rule.examples_of(ExampleKind.BAD)
        if bad.name in good_by_name
    )


def pair_of(rule: Rule, example: Example) -> ExamplePair | None:
    """The pair ``example`` belongs to, or None when it has no counterpart."""
    for pair in pairs_of(rule):
        if example in (pair.bad, pair.good):
            return pair
    return None


def pair_diagnostics(
    doc: Document, find_markers: Callable[[str], tuple[Marker, ...]] = markers
) -> list[Diagnostic]:
    """The pair contract of one rule file: every example paired, every example (and every
    practice program) marked.

    Runs on the loaded document, so each problem is reported where the example is written.
    ``find_markers`` is :func:`markers` or a :class:`MarkerCache`'s.
    """
    rule_id = doc.data.get("id")
    examples = doc.data.get("examples")
    if not isinstance(rule_id, str) or not isinstance(examples, list):
        return []
    # An id that does not match its file name is reported on its own; its markers are not.
    check_markers = rule_id == Path(doc.path).stem
    found: list[Diagnostic] = []

    def at(path: tuple[str | int, ...], message: str) -> None:
        position = doc.value_position(path)
        found.append(Diagnostic(doc.path, position.line, position.column, message, rule_id))

    def colonless(path: tuple[str | int, ...], code: object) -> None:
        """Each ``# R08 why`` comment of ``code``, at its line and column in the file."""
        if not isinstance(code, str):
            return
        start = doc.value_position(path)
        for line, column, marked in markers_without_colon(code):
            found.append(
                Diagnostic(
                    doc.path,
                    start.line + line - 1,
                    start.column + column - 1,
                    f"'# {marked}' without a colon is not a marker (nothing highlights it, and "
                    f"practice shows it): write '# {marked}: <why>'",
                    rule_id,
                )
            )

    kinds_by_name: dict[str, set[str]] = {}
    for example in examples:
        if isinstance(example, dict) and isinstance(example.get("name"), str):
            kinds_by_name.setdefault(example["name"], set()).add(str(example.get("kind")))
    kinds = set().union(*kinds_by_name.values())
    active = doc.data.get("status") == str(Status.ACTIVE)
    for index, example in enumerate(examples):
        if not isinstance(example, dict):
            continue
        name, kind, code = example.get("name"), example.get("kind"), example.get("code")
        if isinstance(name, str) and kind in ("bad", "good"):
            other = "good" if kind == "bad" else "bad"
            # An active rule without any example of one kind is already reported as such.
            if other not in kinds_by_name[name] and (other in kinds or not active):
                at(
                    ("examples", index, "name"),
                    f"{kind} example '{name}' has no {other} counterpart: add a {other} example "
                    f"named '{name}' showing the same scenario "
                    + ("with the correction" if other == "good" else "with the rule broken"),
                )
        if check_markers:
            colonless(("examples", index, "code"), code)
        if (
            check_markers
            and isinstance(code, str)
            and not any(m.rule_id == rule_id for m in find_markers(code))
        ):
            what = "the lines that break the rule" if kind == "bad" else "the correction"
            at(
                ("examples", index, "code"),
                f"example '{name}' has no '# {rule_id}:' marker: mark {what} with a comment "
                f"such as '# {rule_id}: <why>'",
            )
    practice = doc.data.get("practice")
    for index, program in enumerate(
        practice if check_markers and isinstance(practice, list) else ()
    ):
        code = program.get("code") if isinstance(program, dict) else None
        colonless(("practice", index, "code"), code)
        if isinstance(code, str) and not any(m.rule_id == rule_id for m in find_markers(code)):
            at(
                ("practice", index, "code"),
                f"practice program '{program.get('name')}' has no '# {rule_id}:' marker: mark the "
                f"lines that break the rule with a comment such as '# {rule_id}: <why>'",
            )
    paired = any(both == {"bad", "good"} for both in kinds_by_name.values())
    if active and {"bad", "good"} <= kinds and not paired:
        at(
            ("examples",),
            "an active rule needs at least one pair: a bad and a good example with one name",
        )
    return found
