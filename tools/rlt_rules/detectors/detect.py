"""Run the rules' detectors (ast-grep rules for Python, :class:`~rlt_rules.library.model.Detector`)
over source code, in process through ``ast-grep-py``, and say where a detector is malformed.

:class:`DetectorSet` matches detectors one at a time over a file's syntax tree: the reference
the examples are proven with and a snippet is matched with; many files go to the ``ast-grep``
command instead (:mod:`rlt_rules.scan.matcher`, which compiles the detectors once per run), and
a test holds the two equal. :func:`cli_rule` writes a detector for that command.

:func:`config_problems` checks one detector: each pattern parses as Python, each kind and
regex compiles, ``stopBy``/``field`` appear only in relational rules, every constrained
metavariable is bound, the rule says which node kinds it matches (``ast-grep scan`` refuses
one that does not), and ast-grep compiles the whole. Problems come with the path of the
offending key inside the detector, for ``path:line:column`` diagnostics.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ast_grep_py import SgNode, SgRoot

from .model import Detector, HintSeverity

LANGUAGE = "python"
#: ast-grep reads ``$NAME`` in a Python pattern as this character followed by the name.
_EXPANDO = "µ"
#: A metavariable in a pattern: ``$NAME``, ``$$NAME`` (unnamed nodes too) or ``$$$NAME`` (many).
METAVARIABLE = re.compile(r"\$(\$\$|\$)?([A-Z_][A-Z0-9_]*)")
_RELATIONAL = ("inside", "has", "follows", "precedes")
_COMPOSITE = ("all", "any")
_RELATION_ONLY = ("stopBy", "field")

JsonPath = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class Hit:
    """One place a detector flagged: 1-based lines, 1-based columns counted in characters
    (``end_column`` is exclusive), and the flagged code."""

    rule_id: str
    detector_id: str
    message: str
    severity: HintSeverity
    line: int
    column: int
    end_line: int
    end_column: int
    text: str

    @property
    def qualified_id(self) -> str:
        """``R10-hasattr-guard``: the detector's name in exports and machine output."""
        return f"{self.rule_id}-{self.detector_id}"


class DetectorSet:
    """Detectors ready to run; ``entries`` are ``(rule id, detector)`` pairs."""

    def __init__(self, entries: Iterable[tuple[str, Detector]]) -> None:
        self._entries = tuple(entries)

    def __len__(self) -> int:
        return len(self._entries)

    def detectors(self) -> tuple[tuple[str, Detector], ...]:
        return self._entries

    def run(self, source: str) -> list[Hit]:
        """Every hit in ``source``, matched in this process one detector at a time, ordered by
        position, then rule and detector id. (Many files go to the ``ast-grep`` command:
        :mod:`rlt_rules.scan.matcher`.)"""
        if not self._entries:
            return []
        root = SgRoot(source, LANGUAGE).root()
        hits = {
            _hit(rule_id, detector, node)
            for rule_id, detector in self._entries
            for node in root.find_all(config=detector.config())
        }
        return sorted(hits, key=lambda h: (h.line, h.column, h.rule_id, h.detector_id))


def run_detector(rule_id: str, detector: Detector, source: str) -> list[Hit]:
    """One detector's hits in ``source``."""
    return DetectorSet([(rule_id, detector)]).run(source)


def cli_rule(name: str, detector: Detector) -> dict[str, Any]:
    """``detector`` as one rule, named ``name``, of a rule file for the ``ast-grep scan``
    command; its severity is ``hint``, so the command's exit status says only whether it ran."""
    return {"id": name, "language": LANGUAGE, "severity": "hint", **detector.config()}


def _hit(rule_id: str, detector: Detector, node: SgNode) -> Hit:
    span = node.range()
    return Hit(
        rule_id,
        detector.id,
        detector.message,
        detector.severity,
        span.start.line + 1,
        span.start.column + 1,
        span.end.line + 1,
        span.end.column + 1,
        node.text(),
    )


# --- node kinds ---------------------------------------------------------------------------


def rule_kinds(rule: Any) -> frozenset[str] | None:
    """The node kinds a rule object can match, or None when any kind could."""
    if not isinstance(rule, dict):
        return None
    found: list[frozenset[str]] = []
    if isinstance(rule.get("kind"), str):
        found.append(frozenset({rule["kind"]}))
    pattern = rule.get("pattern")
    if isinstance(pattern, str):
        kind = _pattern_kind(pattern)
        if kind is not None:
            found.append(frozenset({kind}))
    elif isinstance(pattern, dict) and isinstance(pattern.get("selector"), str):
        found.append(frozenset({pattern["selector"]}))
    if isinstance(rule.get("any"), list) and rule["any"]:
        branches = [rule_kinds(branch) for branch in rule["any"]]
        if all(branch is not None for branch in branches):
            found.append(frozenset().union(*(b for b in branches if b is not None)))
    if isinstance(rule.get("all"), list):
        found.extend(k for k in (rule_kinds(item) for item in rule["all"]) if k is not None)
    if not found:
        return None
    return functools.reduce(frozenset.intersection, found)


def _pattern_kind(pattern: str) -> str | None:
    """The kind of a pattern's root node as ast-grep reads it (None: a lone metavariable)."""
    node = _pattern_root(pattern)
    if node is None or (node.kind() == "identifier" and node.text().startswith(_EXPANDO)):
        return None
    return node.kind()


def _pattern_root(pattern: str) -> SgNode | None:
    root = SgRoot(_expanded(pattern), LANGUAGE).root()
    children = root.children()
    if len(children) != 1:
        return None
    node = children[0]
    while node.kind() == "expression_statement" and len(node.children()) == 1:
        node = node.children()[0]
    return node


def _expanded(pattern: str) -> str:
    return METAVARIABLE.sub(lambda m: _EXPANDO * (1 + len(m.group(1) or "")) + m.group(2), pattern)


# --- problems ----------------------------------------------------------------------------


def config_problems(detector: dict[str, Any]) -> list[tuple[JsonPath, str]]:
    """What keeps a detector record (already schema-valid) from working, each with the path
    of the offending key inside the record; empty when ast-grep compiles and runs it.

    The whole configuration is compiled first: when ast-grep accepts it, every kind, regex and
    pattern object in it compiles too, and only what ast-grep accepts silently is looked for
    part by part; when it refuses, each part is compiled on its own to say which one."""
    rule, constraints = detector.get("rule"), detector.get("constraints")
    config = {"rule": rule, **({"constraints": constraints} if constraints else {})}
    error = _compile_error(config)
    compile_parts = error is not None
    problems = list(_part_problems(rule, ("rule",), relational=False, compile_each=compile_parts))
    bound: set[str] = set()
    _collect_metavariables(rule, bound)
    for name, constraint in (constraints or {}).items():
        problems.extend(
            _part_problems(
                constraint, ("constraints", name), relational=False, compile_each=compile_parts
            )
        )
        _collect_metavariables(constraint, bound)
    for name in constraints or {}:
        if name not in bound:
            problems.append(
                (
                    ("constraints", name),
                    f"constrains ${name}, which no pattern of the rule binds",
                )
            )
    if not problems and isinstance(rule, dict) and rule_kinds(rule) is None:
        problems.append(
            (
                ("rule",),
                "ast-grep scan cannot tell which node kinds this rule matches (a regex, a "
                "relational rule or a lone metavariable matches any node): add a `kind:` or a "
                "pattern at the rule's top level",
            )
        )
    if not problems and error is not None:
        problems.append((("rule",), f"ast-grep cannot use this rule: {error}"))
    return problems


def _part_problems(
    rule: Any, path: JsonPath, *, relational: bool, compile_each: bool
) -> Iterator[tuple[JsonPath, str]]:
    """The problems of one rule object; ``compile_each``: also compile its kind, regex and pattern
    object on their own (only needed when the whole configuration does not compile)."""
    if not isinstance(rule, dict):
        return
    for key in _RELATION_ONLY:
        if key in rule and not relational:
            yield (*path, key), f"{key} belongs in a relational rule ({', '.join(_RELATIONAL)})"
    pattern = rule.get("pattern")
    if isinstance(pattern, str):
        problem = pattern_problem(pattern)
        if problem is not None:
            yield (*path, "pattern"), problem
    elif isinstance(pattern, dict) and compile_each:
        error = _compile_error({"rule": {"pattern": pattern}})
        if error is not None:
            yield (*path, "pattern"), f"pattern: {error}"
    kind = rule.get("kind")
    if compile_each and isinstance(kind, str) and _compile_error({"rule": {"kind": kind}}):
        yield (*path, "kind"), f"kind '{kind}' is not a node kind of Python in ast-grep"
    if compile_each and isinstance(rule.get("regex"), str):
        error = _compile_error({"rule": {"regex": rule["regex"]}})
        if error is not None:
            yield (*path, "regex"), f"regex: {error}"
    for key in _RELATIONAL:
        yield from _part_problems(
            rule.get(key), (*path, key), relational=True, compile_each=compile_each
        )
    yield from _part_problems(
        rule.get("not"), (*path, "not"), relational=False, compile_each=compile_each
    )
    if isinstance(rule.get("stopBy"), dict):
        yield from _part_problems(
            rule["stopBy"], (*path, "stopBy"), relational=False, compile_each=compile_each
        )
    for key in _COMPOSITE:
        for index, item in enumerate(rule.get(key) or ()):
            yield from _part_problems(
                item, (*path, key, index), relational=False, compile_each=compile_each
            )


def pattern_problem(pattern: str) -> str | None:
    """Why ``pattern`` is not one piece of Python code, or None. (ast-grep itself accepts a
    pattern that does not parse and then matches nothing, silently.)"""
    root = SgRoot(_expanded(pattern), LANGUAGE).root()
    for node in _walk(root):
        if node.kind() == "ERROR" or (node.is_leaf() and not node.text() and node is not root):
            start = node.range().start
            where = f"line {start.line + 1}, " if "\n" in pattern.strip() else ""
            return (
                f"pattern {pattern!r} does not parse as Python (from {where}column "
                f"{start.column + 1}), so ast-grep would silently match nothing"
            )
    return None


def _walk(node: SgNode) -> Iterator[SgNode]:
    yield node
    for child in node.children():
        yield from _walk(child)


def _collect_metavariables(node: Any, found: set[str]) -> None:
    if isinstance(node, list):
        for item in node:
            _collect_metavariables(item, found)
    elif isinstance(node, dict):
        for key, value in node.items():
            if key == "pattern" and isinstance(value, str):
                found.update(m.group(2) for m in METAVARIABLE.finditer(value))
            elif key == "pattern" and isinstance(value, dict):
                found.update(m.group(2) for m in METAVARIABLE.finditer(value.get("context", "")))
            else:
                _collect_metavariables(value, found)


def _compile_error(config: dict[str, Any]) -> str | None:
    """ast-grep's reason for rejecting ``config``, in one line, or None when it compiles."""
    try:
        SgRoot("", LANGUAGE).root().find_all(config=config)
    except Exception as error:  # ast-grep-py raises RuntimeError or a bare Exception
        return _reason(str(error))
    return None


def _reason(text: str) -> str:
    text = text.split("Stack backtrace:")[0]
    if "Caused by:" not in text:
        return text.strip().splitlines()[0] if text.strip() else "rejected"
    lines = [
        re.sub(r"^\d+:\s*", "", line.strip())
        for line in text.split("Caused by:", 1)[1].splitlines()
    ]
    lines = [line for line in lines if line and not line.endswith("is not configured correctly.")]
    errors = [line for line in lines if line.startswith("error:")]
    if errors:
        return "invalid regular expression: " + errors[-1].removeprefix("error:").strip()
    return lines[-1] if lines else "rejected"
