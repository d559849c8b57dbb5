"""The contracts of a review: a :class:`Review` citing a library version, holding findings.

The plain-data format is ``schema/findings.schema.json``; ``from_dict`` expects data that
:func:`rlt_rules.findings.check.check_review` has already accepted, and ``to_dict`` gives it back.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ..files.errors import InputError
from ..library.model import Diagnostic


class FindingSeverity(StrEnum):
    """How much a finding matters; the names are SARIF's result levels."""

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


DEFAULT_SEVERITY = FindingSeverity.WARNING


class FindingKind(StrEnum):
    """What a finding cites: a rule of the library (the default), or nothing, for a real
    problem no rule covers (the preamble's reviewer still reports it)."""

    RULE = "rule"
    OUTSIDE_RULES = "outside-rules"


#: How the outside-the-rules kind is named where a rule id would stand (SARIF ``ruleId``).
OUTSIDE_RULES = str(FindingKind.OUTSIDE_RULES)


@dataclass(frozen=True, slots=True)
class Location:
    """A file (relative to the repository root) and an inclusive, 1-based line range."""

    path: str
    start_line: int
    end_line: int
    column: int | None = None

    def lines_label(self) -> str:
        """``line 12`` or ``lines 12–18`` (en dash), for people."""
        if self.start_line == self.end_line:
            return f"line {self.start_line}"
        return f"lines {self.start_line}–{self.end_line}"

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "path": self.path,
            "start_line": self.start_line,
            "end_line": self.end_line,
        }
        if self.column is not None:
            data["column"] = self.column
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Location:
        return cls(
            path=data["path"],
            start_line=data["start_line"],
            end_line=data["end_line"],
            column=data.get("column"),
        )


@dataclass(frozen=True, slots=True)
class Finding:
    """One place where the reviewed code breaks one rule (``rule``), or a real problem no rule
    covers (``kind`` outside-rules, ``rule`` None), explained as the preamble asks."""

    rule: str | None
    location: Location
    trigger: str
    impact: str
    correction: str
    severity: FindingSeverity = DEFAULT_SEVERITY
    suggested_patch: str | None = None
    kind: FindingKind = FindingKind.RULE
    #: The anchor of the rule's trigger it matches (:meth:`rlt_rules.library.model.Rule.anchors`).
    trigger_anchor: str | None = None

    @property
    def outside_rules(self) -> bool:
        return self.kind is FindingKind.OUTSIDE_RULES

    def to_dict(self) -> dict[str, Any]:
        cites: dict[str, Any] = (
            {"kind": str(self.kind)} if self.outside_rules else {"rule": self.rule}
        )
        if self.trigger_anchor is not None:
            cites["trigger_anchor"] = self.trigger_anchor
        data: dict[str, Any] = {
            **cites,
            "location": self.location.to_dict(),
            "trigger": self.trigger,
            "impact": self.impact,
            "correction": self.correction,
            "severity": str(self.severity),
        }
        if self.suggested_patch is not None:
            data["suggested_patch"] = self.suggested_patch
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Finding:
        return cls(
            rule=data.get("rule"),
            location=Location.from_dict(data["location"]),
            trigger=data["trigger"],
            impact=data["impact"],
            correction=data["correction"],
            severity=FindingSeverity(data.get("severity", DEFAULT_SEVERITY)),
            suggested_patch=data.get("suggested_patch"),
            kind=FindingKind(data.get("kind", FindingKind.RULE)),
            trigger_anchor=data.get("trigger_anchor"),
        )


@dataclass(frozen=True, slots=True)
class Review:
    """A review: the library version it cites and its findings, in reading order."""

    library_version: str
    findings: tuple[Finding, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "library_version": self.library_version,
            "findings": [finding.to_dict() for finding in self.findings],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Review:
        return cls(
            library_version=data["library_version"],
            findings=tuple(Finding.from_dict(item) for item in data["findings"]),
        )


class FindingsError(InputError):
    """Raised by the Python API when a findings file has errors; carries every diagnostic."""

    def __init__(self, diagnostics: tuple[Diagnostic, ...]) -> None:
        self.diagnostics = diagnostics
        super().__init__("\n".join(str(d) for d in diagnostics))
