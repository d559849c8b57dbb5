"""Run the rules' detectors (ast-grep rules for Python, :class:`~rlt_rules.model.Detector`)
over source code, in process through ``ast-grep-py``, and say where a detector is malformed.

:class:`DetectorSet` matches many detectors in one pass over a file's syntax tree, as
``ast-grep scan`` does: the detectors run as one ast-grep ``any`` rule (metavariables renamed
per detector, so their constraints stay apart), and the sentinel metavariable each branch
binds tells which detector found a node; the detectors after it that can match that node kind
are asked too. (A "lane" below is one such pass.) ast-grep's ``any``
stops at the first branch that matches a node and checks constraints only afterwards, so a
pass holds at most one detector with constraints per node kind, after the others; a detector
whose node kind cannot be told (a bare metavariable pattern, no ``kind``) gets a pass of its
own. Tests hold this against one pass per detector.

:func:`config_problems` checks one detector: each pattern parses as Python, each kind and
regex compiles, ``stopBy``/``field`` appear only in relational rules, every constrained
metavariable is bound, and ast-grep compiles the whole. Problems come with the path of the
offending key inside the detector, for ``path:line:column`` diagnostics.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
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


@dataclass(frozen=True, slots=True)
class _Entry:
    rule_id: str
    detector: Detector
    kinds: frozenset[str] | None
    #: In a pass of several detectors: the metavariable that binds the node this one matched.
    sentinel: str = ""

    def matches(self, node: SgNode) -> bool:
        """Whether this detector alone matches ``node`` itself."""
        if not self.detector.constraints:
            return node.matches(**self.detector.rule)
        return any(found == node for found in node.find_all(config=self.detector.config()))


@dataclass(frozen=True, slots=True)
class _Lane:
    """Detectors matched in one pass: the combined configuration, and the detectors that can
    match each node kind, in the order the pass tries them."""

    config: dict[str, Any]
    by_kind: dict[str, tuple[_Entry, ...]]
    entries: tuple[_Entry, ...]


class DetectorSet:
    """Detectors ready to run; ``entries`` are ``(rule id, detector)`` pairs."""

    def __init__(self, entries: Iterable[tuple[str, Detector]]) -> None:
        self._entries = tuple(
            _Entry(rule_id, detector, rule_kinds(detector.rule)) for rule_id, detector in entries
        )
        self._lanes = tuple(_lane(members) for members in _lanes(self._entries))

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def passes(self) -> int:
        """How many passes over a file's tree :meth:`run` makes."""
        return len(self._lanes)

    def detectors(self) -> tuple[tuple[str, Detector], ...]:
        return tuple((entry.rule_id, entry.detector) for entry in self._entries)

    def run(self, source: str) -> list[Hit]:
        """Every hit in ``source``, ordered by position, then rule and detector id."""
        if not self._entries:
            return []
        root = SgRoot(source, LANGUAGE).root()
        hits: list[Hit] = []
        for lane in self._lanes:
            matched = root.find_all(config=lane.config)
            if len(lane.entries) == 1:
                hits.extend(_hit(lane.entries[0], node) for node in matched)
                continue
            for node in matched:
                candidates = lane.by_kind.get(node.kind())
                if candidates is None:  # a kind the pass did not foresee: each on its own
                    hits.extend(
                        _hit(entry, found)
                        for entry in lane.entries
                        for found in root.find_all(config=entry.detector.config())
                    )
                    break
                # The branch that matched bound its sentinel; the pass tried the candidates
                # before it without a match, and asks those after it.
                owner = next(
                    i for i, entry in enumerate(candidates) if node.get_match(entry.sentinel)
                )
                hits.append(_hit(candidates[owner], node))
                hits.extend(
                    _hit(entry, node) for entry in candidates[owner + 1 :] if entry.matches(node)
                )
        hits = list(dict.fromkeys(hits))
        hits.sort(key=lambda h: (h.line, h.column, h.rule_id, h.detector_id))
        return hits


def run_detector(rule_id: str, detector: Detector, source: str) -> list[Hit]:
    """One detector's hits in ``source``, matched on its own (the reference for the lanes)."""
    root = SgRoot(source, LANGUAGE).root()
    entry = _Entry(rule_id, detector, None)
    return [_hit(entry, node) for node in root.find_all(config=detector.config())]


def _hit(entry: _Entry, node: SgNode) -> Hit:
    span = node.range()
    return Hit(
        entry.rule_id,
        entry.detector.id,
        entry.detector.message,
        entry.detector.severity,
        span.start.line + 1,
        span.start.column + 1,
        span.end.line + 1,
        span.end.column + 1,
        node.text(),
    )


# --- passes ------------------------------------------------------------------------------


def _lanes(entries: tuple[_Entry, ...]) -> list[list[_Entry]]:
    """Group detectors into passes: at most one detector with constraints per node kind in a
    pass, and a detector of unknown node kinds alone."""
    lanes: list[tuple[set[str] | None, list[_Entry]]] = []
    for entry in entries:
        if entry.kinds is None:
            lanes.append((None, [entry]))
            continue
        constrained = bool(entry.detector.constraints)
        for constrained_kinds, members in lanes:
            if constrained_kinds is None or (constrained and constrained_kinds & entry.kinds):
                continue
            members.append(entry)
            if constrained:
                constrained_kinds.update(entry.kinds)
            break
        else:
            lanes.append((set(entry.kinds) if constrained else set(), [entry]))
    return [members for _, members in lanes]


def _lane(members: list[_Entry]) -> _Lane:
    """One pass as one ast-grep configuration: detectors without constraints first, so a
    constrained branch is tried only when no other branch matched the node."""
    if len(members) == 1:
        return _Lane(members[0].detector.config(), {}, (members[0],))
    ordered = [
        replace(entry, sentinel=f"D{index}_HIT")
        for index, entry in enumerate(
            sorted(members, key=lambda entry: bool(entry.detector.constraints))
        )
    ]
    branches: list[Any] = []
    constraints: dict[str, Any] = {}
    by_kind: dict[str, tuple[_Entry, ...]] = {}
    for index, entry in enumerate(ordered):
        prefix = f"D{index}_"
        branches.append(
            {"all": [_renamed(entry.detector.rule, prefix), {"pattern": f"${entry.sentinel}"}]}
        )
        for name, constraint in (entry.detector.constraints or {}).items():
            constraints[prefix + name] = _renamed(constraint, prefix)
        for kind in entry.kinds or ():
            by_kind[kind] = (*by_kind.get(kind, ()), entry)
    config: dict[str, Any] = {"rule": {"any": branches}}
    if constraints:
        config["constraints"] = constraints
    return _Lane(config, by_kind, tuple(ordered))


def _renamed(node: Any, prefix: str) -> Any:
    """A rule object with every capturing metavariable renamed ``$NAME`` -> ``$<prefix>NAME``."""
    if isinstance(node, list):
        return [_renamed(item, prefix) for item in node]
    if not isinstance(node, dict):
        return node
    renamed: dict[str, Any] = {}
    for key, value in node.items():
        if key == "pattern" and isinstance(value, str):
            renamed[key] = _rename_pattern(value, prefix)
        elif key == "pattern" and isinstance(value, dict) and "context" in value:
            renamed[key] = {**value, "context": _rename_pattern(value["context"], prefix)}
        else:
            renamed[key] = _renamed(value, prefix)
    return renamed


def _rename_pattern(pattern: str, prefix: str) -> str:
    def rename(match: re.Match[str]) -> str:
        name = match.group(2)
        if name.startswith("_"):  # $_ and $_NAME capture nothing
            return match.group(0)
        return "$" + (match.group(1) or "") + prefix + name

    return METAVARIABLE.sub(rename, pattern)


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
