"""A rule's detectors as named contracts: an ast-grep rule with its message, severity, status
and measured figures on real engine code (:class:`Detector`, :class:`Measured`).

Part of :mod:`rlt_rules.library.model`, which re-exports every name; ``to_dict``/``from_dict`` are
the record format of ``schema/rule.schema.json``'s ``detectors``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class HintSeverity(StrEnum):
    """How loudly a detector's hint is shown (ast-grep's levels; a hint is never a verdict)."""

    HINT = "hint"
    INFO = "info"
    WARNING = "warning"


class DetectorStatus(StrEnum):
    """Whether ``rlt-rules scan`` runs a detector by default (``active``) or only with
    ``--preview`` (``preview``: not precise enough on real code yet; its record says why)."""

    ACTIVE = "active"
    PREVIEW = "preview"


class CorpusScope(StrEnum):
    """Where on the corpus a detector's hints are judged: the engine's core (``slice``), or,
    for a default-on detector that raises nothing there, the whole package (``package``)."""

    SLICE = "slice"
    PACKAGE = "package"


@dataclass(frozen=True, slots=True)
class Measured:
    """A detector's figures on the judged corpus (``tests/corpus/<corpus>.yaml``): its hints
    in ``scope`` and how many were judged ``tp``, ``arguable`` and ``fp``; ``precision`` is
    tp / hints, rounded to two places (``None`` without hints)."""

    corpus: str
    hints: int
    tp: int
    arguable: int
    fp: int
    precision: float | None
    scope: CorpusScope = CorpusScope.SLICE

    @property
    def level(self) -> str | None:
        """CodeQL's precision words, as SARIF ``properties.precision``: ``very-high`` at 0.95
        and over, ``high`` at 0.8 and over, ``medium`` below; ``None`` without hints."""
        if self.precision is None:
            return None
        if self.precision >= 0.95:
            return "very-high"
        return "high" if self.precision >= 0.8 else "medium"

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "corpus": self.corpus,
            "hints": self.hints,
            "tp": self.tp,
            "arguable": self.arguable,
            "fp": self.fp,
        }
        if self.precision is not None:
            data["precision"] = self.precision
        if self.scope is not CorpusScope.SLICE:
            data["scope"] = str(self.scope)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Measured:
        return cls(
            corpus=data["corpus"],
            hints=data["hints"],
            tp=data["tp"],
            arguable=data["arguable"],
            fp=data["fp"],
            precision=data.get("precision"),
            scope=CorpusScope(data.get("scope", CorpusScope.SLICE)),
        )


@dataclass(frozen=True, slots=True)
class Detector:
    """An automated hint: an ast-grep rule for Python that points at code shaped like one of
    the rule's triggers (``schema/rule.schema.json``, ``$defs/detector``).

    ``rule`` and ``constraints`` are ast-grep's rule object and metavariable constraints, as
    plain JSON data shared with the record they came from and with ``to_dict``'s result (no
    copies: thousands of rules are exported at once): read-only. They take no part in hashing
    (the rest does).
    """

    id: str
    message: str
    severity: HintSeverity
    rule: dict[str, Any] = field(hash=False)
    constraints: dict[str, Any] | None = field(default=None, hash=False)
    note: str | None = None
    status: DetectorStatus = DetectorStatus.ACTIVE
    preview_reason: str | None = None
    measured: Measured | None = None

    @property
    def preview(self) -> bool:
        return self.status is DetectorStatus.PREVIEW

    def config(self) -> dict[str, Any]:
        """The ast-grep configuration to match with: ``rule`` and, if any, ``constraints``."""
        config: dict[str, Any] = {"rule": self.rule}
        if self.constraints:
            config["constraints"] = self.constraints
        return config

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "message": self.message,
            "severity": str(self.severity),
            "rule": self.rule,
        }
        if self.constraints is not None:
            data["constraints"] = self.constraints
        if self.note is not None:
            data["note"] = self.note
        if self.status is not DetectorStatus.ACTIVE:
            data["status"] = str(self.status)
        if self.preview_reason is not None:
            data["preview_reason"] = self.preview_reason
        if self.measured is not None:
            data["measured"] = self.measured.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Detector:
        return cls(
            id=data["id"],
            message=data["message"],
            severity=HintSeverity(data["severity"]),
            rule=data["rule"],
            constraints=data.get("constraints"),
            note=data.get("note"),
            status=DetectorStatus(data.get("status", DetectorStatus.ACTIVE)),
            preview_reason=data.get("preview_reason"),
            measured=Measured.from_dict(data["measured"]) if "measured" in data else None,
        )
