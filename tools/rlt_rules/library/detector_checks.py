"""The detectors' two checks: each compiles (at ``validate`` time, reported where it is
written), and each is proven against the library's examples (:func:`prove`).

The proof is Pylint's and ESLint's discipline applied to design rules: a detector must flag a
bad example of its own rule, on the lines that example's ``# Rnn:`` markers cover, and flag
nothing in any other example, good or bad, of any rule (a bad example breaks its own rule and
no other). :class:`Proof` holds the whole detector × example matrix and prints it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ast_grep_py import SgRoot

from ..detectors.detect import LANGUAGE, config_problems
from .load import Document
from .model import Detector, Diagnostic, ExampleKind, Library
from .pairs import marked_lines


def detector_diagnostics(doc: Document) -> list[Diagnostic]:
    """Every problem of a schema-valid rule file's detectors, at its position: a repeated id,
    a pattern that is not Python, a kind or regex ast-grep rejects, a constraint on an unbound
    metavariable, a rule ast-grep cannot compile."""
    rule_id = doc.data.get("id")
    detectors = doc.data.get("detectors")
    if not isinstance(rule_id, str) or not isinstance(detectors, list):
        return []
    found: list[Diagnostic] = []
    seen: set[str] = set()
    for index, detector in enumerate(detectors):
        if not isinstance(detector, dict):
            continue
        name = detector.get("id")
        if name in seen:
            position = doc.value_position(("detectors", index, "id"))
            found.append(
                Diagnostic(
                    doc.path,
                    position.line,
                    position.column,
                    f"two detectors are named '{name}': a detector id is unique within its rule",
                    rule_id,
                )
            )
        seen.add(str(name))
        for path, message in config_problems(detector):
            position = doc.value_position(("detectors", index, *path))
            found.append(
                Diagnostic(
                    doc.path,
                    position.line,
                    position.column,
                    f"detector '{name}': {message}",
                    rule_id,
                )
            )
    return found


# --- the proof ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Cell:
    """One detector run over one example: the 1-based lines of its hits (start lines)."""

    rule_id: str
    detector_id: str
    example_rule: str
    kind: ExampleKind
    name: str
    lines: tuple[int, ...]
    marked: frozenset[int]

    @property
    def own_bad(self) -> bool:
        return self.example_rule == self.rule_id and self.kind is ExampleKind.BAD

    @property
    def unmarked(self) -> tuple[int, ...]:
        """Hit lines the example's own markers do not cover (for the detector's bad examples)."""
        return tuple(line for line in self.lines if line not in self.marked)

    @property
    def ok(self) -> bool:
        if self.own_bad:
            return not self.unmarked
        return not self.lines

    def symbol(self) -> str:
        if not self.lines:
            return "."
        text = ",".join(str(line) for line in self.lines)
        return text + ("" if self.ok else "!")


@dataclass(frozen=True, slots=True)
class Proof:
    """The detector × example matrix of a library."""

    detectors: tuple[tuple[str, Detector], ...]
    examples: tuple[tuple[str, ExampleKind, str], ...]
    cells: tuple[Cell, ...]

    def failures(self) -> list[str]:
        """Each broken promise, in words; empty when every detector is proven."""
        found: list[str] = []
        for rule_id, detector in self.detectors:
            cells = [c for c in self.cells if (c.rule_id, c.detector_id) == (rule_id, detector.id)]
            name = f"{rule_id}-{detector.id}"
            if not any(cell.own_bad and cell.lines for cell in cells):
                found.append(f"{name} flags no bad example of {rule_id}")
            for cell in cells:
                where = f"{cell.example_rule} {cell.kind} example '{cell.name}'"
                if cell.own_bad and cell.unmarked:
                    lines = ", ".join(map(str, cell.unmarked))
                    found.append(
                        f"{name} flags {where} on line(s) {lines}, outside its "
                        f"'# {rule_id}:' markers"
                    )
                elif not cell.own_bad and cell.lines:
                    lines = ", ".join(map(str, cell.lines))
                    found.append(f"{name} flags {where} on line(s) {lines}")
        return found

    def table(self) -> str:
        """The matrix as text: one row per example, one column per detector; a cell lists the
        lines flagged (``.`` none), ``!`` marks a line that breaks the promise."""
        legend = [f"{n:>3}  {rule_id}-{d.id}" for n, (rule_id, d) in enumerate(self.detectors, 1)]
        by_key = {(c.rule_id, c.detector_id, c.example_rule, c.kind, c.name): c for c in self.cells}
        width = max(
            [4, *(len(c.symbol()) + 1 for c in self.cells)],
        )
        head = " " * 40 + "".join(f"{n:>{width}}" for n in range(1, len(self.detectors) + 1))
        rows = [*legend, "", head]
        for example_rule, kind, name in self.examples:
            label = f"{example_rule} {kind:<4} {name}"[:39].ljust(40)
            cells = (
                by_key[(rule_id, d.id, example_rule, kind, name)].symbol()
                for rule_id, d in self.detectors
            )
            rows.append(label + "".join(f"{cell:>{width}}" for cell in cells))
        return "\n".join(rows)


def prove(library: Library) -> Proof:
    """Run every detector of ``library`` over every example of every rule."""
    detectors = tuple((rule.id, d) for rule in library.rules for d in rule.detectors)
    examples = tuple((rule, example) for rule in library.rules for example in rule.examples)
    cells: list[Cell] = []
    for rule, example in examples:
        root = SgRoot(example.code, LANGUAGE).root()
        marked = marked_lines(example.code, rule.id)
        for rule_id, detector in detectors:
            lines = sorted(
                {node.range().start.line + 1 for node in root.find_all(config=detector.config())}
            )
            cells.append(
                Cell(
                    rule_id,
                    detector.id,
                    rule.id,
                    example.kind,
                    example.name,
                    tuple(lines),
                    marked,
                )
            )
    return Proof(
        detectors,
        tuple((rule.id, example.kind, example.name) for rule, example in examples),
        tuple(cells),
    )
