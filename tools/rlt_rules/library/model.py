"""The named contracts that cross every module boundary.

Data flows one way: ``rules/*.yaml`` -> load -> validate -> these frozen objects -> outputs.
Nothing downstream of :mod:`rlt_rules.library.validate` sees raw dicts or re-reads YAML.

``to_dict``/``from_dict`` are the one mapping between these objects and plain JSON data
(the record format of ``schema/rule.schema.json``); the bundle export and ``load_bundle``
use them, so a round trip is lossless. Source positions are not part of that data.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any

# The detector types live in their own module; importing them from here stays valid.
from ..detectors.model import CorpusScope as CorpusScope
from ..detectors.model import Detector
from ..detectors.model import DetectorStatus as DetectorStatus
from ..detectors.model import HintSeverity as HintSeverity
from ..detectors.model import Measured as Measured
from ..files.errors import InputError
from .anchors import RuleAnchors as RuleAnchors
from .anchors import cite_anchor as cite_anchor


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem found in an input file, at the position of the offending key or value.

    ``line`` and ``column`` are 1-based, as editors and ``path:line:column`` readers expect.
    """

    path: str
    line: int
    column: int
    message: str
    rule_id: str | None = None
    severity: Severity = Severity.ERROR

    def __str__(self) -> str:
        prefix = "warning: " if self.severity is Severity.WARNING else ""
        return f"{self.path}:{self.line}:{self.column}: {prefix}{self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "rule_id": self.rule_id,
            "severity": str(self.severity),
            "message": self.message,
        }


class LibraryError(InputError):
    """Raised by the Python API when input is invalid; carries every diagnostic found."""

    def __init__(self, diagnostics: tuple[Diagnostic, ...]) -> None:
        self.diagnostics = diagnostics
        super().__init__("\n".join(str(d) for d in diagnostics))


class Status(StrEnum):
    ACTIVE = "active"
    DEPRECATED = "deprecated"
    RETIRED = "retired"


class ExampleKind(StrEnum):
    GOOD = "good"
    BAD = "bad"


@dataclass(frozen=True, slots=True)
class SourceRef:
    """Where a record came from: its file and the 1-based line of the thing described."""

    path: str
    line: int


#: Expected output of an example: the text after ``#>`` (and one space) on a comment line.
OUTPUT_LINE = re.compile(r"^\s*#>(?: (?P<text>.*)|(?P<empty>))$")


def expected_output(code: str) -> tuple[str, ...]:
    """The output an example's code says it prints: its ``#>`` lines, without the marker.

    The lines :data:`OUTPUT_LINE` matches, found from each ``#>`` rather than by matching every
    line (a test compares the two).
    """
    if "#>" not in code:
        return ()
    found: list[str] = []
    start = 0
    while (at := code.find("#>", start)) != -1:
        line_start = code.rfind("\n", 0, at) + 1
        line_end = code.find("\n", at)
        if line_end == -1:
            line_end = len(code)
        if not code[line_start:at].strip():  # only whitespace before it (``^\s*#>``)
            rest = code[at + 2 : line_end]
            if not rest:
                found.append("")
            elif rest[0] == " ":
                found.append(rest[1:])
        start = line_end
    return tuple(found)


@dataclass(frozen=True, slots=True)
class Example:
    """A runnable Python program that shows a rule broken (``bad``) or kept (``good``).

    ``code`` holds the program with its expected output as ``#>`` comments after each print.
    ``code_source.line`` is the YAML line of the code's first line (None when loaded from a bundle).
    """

    name: str
    kind: ExampleKind
    title: str
    explanation: str
    code: str
    code_source: SourceRef | None = field(default=None, compare=False)

    def anchor(self) -> str:
        """Its anchor (:func:`cite_anchor`): from its kind, name and code (names are unique per
        kind within a rule)."""
        return cite_anchor("example", f"{self.kind} {self.name}\n{self.code}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": str(self.kind),
            "title": self.title,
            "explanation": self.explanation,
            "code": self.code,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], code_source: SourceRef | None = None) -> Example:
        return cls(
            name=data["name"],
            kind=ExampleKind(data["kind"]),
            title=data["title"],
            explanation=data["explanation"],
            code=data["code"],
            code_source=code_source,
        )


@dataclass(frozen=True, slots=True)
class PracticeProgram:
    """A program of the practice bank: the rule broken, and no other, in a setting its examples
    do not use. Marked and print-checked like a bad example; it has no good twin, so its
    ``explanation`` says the correction. ``code_source.line`` is the YAML line of the code's
    first line (None when loaded from a bundle)."""

    name: str
    explanation: str
    code: str
    code_source: SourceRef | None = field(default=None, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "explanation": self.explanation, "code": self.code}

    @classmethod
    def from_dict(
        cls, data: dict[str, Any], code_source: SourceRef | None = None
    ) -> PracticeProgram:
        return cls(
            name=data["name"],
            explanation=data["explanation"],
            code=data["code"],
            code_source=code_source,
        )


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule. ``statement`` and ``seed_example`` are the seed's words (Markdown)."""

    id: str
    title: str
    category: str
    status: Status
    since: str
    tags: tuple[str, ...]
    related: tuple[str, ...]
    statement: str
    seed_example: str
    rationale: str
    triggers: tuple[str, ...]
    impact: str
    correction: str
    examples: tuple[Example, ...]
    replaced_by: str | None = None
    retired_reason: str | None = None
    detectors: tuple[Detector, ...] = ()
    #: The practice bank's programs for this rule (the record's optional ``practice``).
    practice: tuple[PracticeProgram, ...] = ()
    #: Why no detector catches this rule's triggers (only on a rule without detectors).
    no_detector: str | None = None
    #: How reviewers name the rule's code when searching (the record's optional
    #: ``search_terms``): shown on its page, searched with its own words.
    search_terms: tuple[str, ...] = ()
    source: SourceRef | None = field(default=None, compare=False)
    #: The hash, computed on first use: the site's memos look rules up by value thousands of
    #: times per build, and a rule's hash covers every example and detector.
    _hash: int | None = field(default=None, init=False, repr=False, compare=False)

    def __hash__(self) -> int:
        if self._hash is None:
            compared = tuple(getattr(self, name) for name in _RULE_COMPARED)
            object.__setattr__(self, "_hash", hash(compared))
        assert self._hash is not None
        return self._hash

    @property
    def number(self) -> int:
        return id_number(self.id)

    def examples_of(self, kind: ExampleKind) -> tuple[Example, ...]:
        return tuple(example for example in self.examples if example.kind is kind)

    def anchors(self) -> RuleAnchors:
        """The anchors of its triggers, impact, correction and examples: its page's ids, and
        what ``show``, the bundle, SARIF and findings cite. A trigger repeating another's text
        gets ``-2``, ``-3``…"""
        seen: Counter[str] = Counter()

        def unique(anchor: str) -> str:
            seen[anchor] += 1
            return anchor if seen[anchor] == 1 else f"{anchor}-{seen[anchor]}"

        return RuleAnchors(
            triggers=tuple(unique(cite_anchor("trigger", text)) for text in self.triggers),
            impact=cite_anchor("impact", self.impact),
            correction=cite_anchor("correction", self.correction),
            examples=tuple(unique(example.anchor()) for example in self.examples),
        )

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "title": self.title,
            "category": self.category,
            "status": str(self.status),
            "since": self.since,
            "tags": list(self.tags),
            "related": list(self.related),
            **({"search_terms": list(self.search_terms)} if self.search_terms else {}),
            "statement": self.statement,
            "seed_example": self.seed_example,
            "rationale": self.rationale,
            "triggers": list(self.triggers),
            "impact": self.impact,
            "correction": self.correction,
            "examples": [example.to_dict() for example in self.examples],
        }
        if self.replaced_by is not None:
            data["replaced_by"] = self.replaced_by
        if self.retired_reason is not None:
            data["retired_reason"] = self.retired_reason
        if self.detectors:
            data["detectors"] = [detector.to_dict() for detector in self.detectors]
        if self.practice:
            data["practice"] = [program.to_dict() for program in self.practice]
        if self.no_detector is not None:
            data["no_detector"] = self.no_detector
        return data

    @classmethod
    def from_dict(
        cls,
        data: dict[str, Any],
        source: SourceRef | None = None,
        example_sources: tuple[SourceRef | None, ...] = (),
        practice_sources: tuple[SourceRef | None, ...] = (),
    ) -> Rule:
        examples = data.get("examples", [])
        sources = example_sources or (None,) * len(examples)
        practice = data.get("practice", [])
        practice_sources = practice_sources or (None,) * len(practice)
        return cls(
            id=data["id"],
            title=data["title"],
            category=data["category"],
            status=Status(data["status"]),
            since=data["since"],
            tags=tuple(data.get("tags", ())),
            related=tuple(data.get("related", ())),
            statement=data["statement"],
            seed_example=data["seed_example"],
            rationale=data["rationale"],
            triggers=tuple(data["triggers"]),
            impact=data["impact"],
            correction=data["correction"],
            examples=tuple(
                Example.from_dict(item, code_source)
                for item, code_source in zip(examples, sources, strict=True)
            ),
            replaced_by=data.get("replaced_by"),
            retired_reason=data.get("retired_reason"),
            detectors=tuple(Detector.from_dict(item) for item in data.get("detectors", ())),
            practice=tuple(
                PracticeProgram.from_dict(item, code_source)
                for item, code_source in zip(practice, practice_sources, strict=True)
            ),
            no_detector=data.get("no_detector"),
            search_terms=tuple(data.get("search_terms", ())),
            source=source,
        )


#: The fields equality compares, which the hash covers.
_RULE_COMPARED = tuple(f.name for f in fields(Rule) if f.compare)


@dataclass(frozen=True, slots=True)
class Category:
    """A group of rules. ``title`` is the seed's heading; ``what_goes_wrong`` (Markdown, not seed
    text) opens the category's lesson: what goes wrong in the engine when it is ignored."""

    id: str
    title: str
    what_goes_wrong: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "title": self.title}
        if self.what_goes_wrong is not None:
            data["what_goes_wrong"] = self.what_goes_wrong
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Category:
        return cls(id=data["id"], title=data["title"], what_goes_wrong=data.get("what_goes_wrong"))


@dataclass(frozen=True, slots=True)
class Library:
    """The whole library: metadata from ``library.yaml`` and every rule, ordered by id number.

    A rule's ``category`` is the one owner of its membership; ``rules_in`` derives the grouping.
    The library owns its id index: :meth:`rule` and :meth:`position` look an id up without
    scanning the rules.
    """

    title: str
    subtitle: str
    version: str
    preamble: tuple[str, ...]
    categories: tuple[Category, ...]
    rules: tuple[Rule, ...]
    source: SourceRef | None = field(default=None, compare=False)
    #: ``rule id -> position in rules``, built once with the library.
    _positions: dict[str, int] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        positions: dict[str, int] = {}
        for position, rule in enumerate(self.rules):
            positions.setdefault(rule.id, position)
        object.__setattr__(self, "_positions", positions)

    def rule(self, rule_id: str) -> Rule:
        return self.rules[self._positions[rule_id]]

    def position(self, rule_id: str) -> int:
        """Where ``rule_id`` is in reading (id) order; ``KeyError`` for an unknown id."""
        return self._positions[rule_id]

    def id_span(self) -> str:
        """Every rule id as one span: ``R01–R17``."""
        return id_span([rule.id for rule in self.rules])

    def category(self, category_id: str) -> Category:
        for category in self.categories:
            if category.id == category_id:
                return category
        raise KeyError(category_id)

    def rules_in(self, category_id: str) -> tuple[Rule, ...]:
        return tuple(rule for rule in self.rules if rule.category == category_id)

    def select(
        self, *, category: str | None = None, tag: str | None = None, status: str | None = None
    ) -> tuple[Rule, ...]:
        """The rules matching every given filter, in id order."""
        return tuple(
            rule
            for rule in self.rules
            if (category is None or rule.category == category)
            and (tag is None or tag in rule.tags)
            and (status is None or str(rule.status) == status)
        )

    def metadata_dict(self) -> dict[str, Any]:
        """``library.yaml``'s data (the format of ``schema/library.schema.json``)."""
        return {
            "title": self.title,
            "subtitle": self.subtitle,
            "version": self.version,
            "preamble": list(self.preamble),
            "categories": [category.to_dict() for category in self.categories],
        }

    @classmethod
    def from_dicts(
        cls,
        metadata: dict[str, Any],
        rules: tuple[Rule, ...],
        source: SourceRef | None = None,
    ) -> Library:
        return cls(
            title=metadata["title"],
            subtitle=metadata["subtitle"],
            version=metadata["version"],
            preamble=tuple(metadata["preamble"]),
            categories=tuple(Category.from_dict(item) for item in metadata["categories"]),
            rules=tuple(sorted(rules, key=lambda rule: rule.number)),
            source=source,
        )


def id_number(rule_id: str) -> int:
    """The number of a rule id (``R03`` -> 3): the one key of id order."""
    return int(rule_id[1:])


def id_span(ids: Iterable[str], *, listed_up_to: int = 1) -> str:
    """Rule ids in id order as one span, ``R01–R17``; ``none`` for none, and the ids listed
    (``R01, R02``) when there are at most ``listed_up_to`` of them."""
    ordered = sorted(ids, key=id_number)
    if not ordered:
        return "none"
    if len(ordered) <= listed_up_to:
        return ", ".join(ordered)
    return f"{ordered[0]}–{ordered[-1]}"
