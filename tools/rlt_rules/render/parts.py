"""Each rule's pieces of the exports, remembered across the builds of one live preview.

A preview builds the site again on every edit, and the exports with it: the same rules, most
of them unchanged (the validator hands back the same :class:`~rlt_rules.library.model.Rule`
objects). :class:`RuleParts` is an :class:`~.inert.InertRules` whose inert rules and per-rule pieces
(:meth:`~.inert.InertRules.part`: a rule's record as JSON, its SARIF descriptor, its Markdown
blocks…) are kept from one run to the next. Every piece is keyed by everything it is made
from (the rule by value, the site URL, the library's inputs it reads), never by a rule id
alone, so keeping them changes how fast the exports are made, never what they are.

Its owner keeps it for as long as what it remembers (the site plugin, on its
:class:`~rlt_rules.site.cache.PageCache`) and calls :meth:`RuleParts.next_generation` once
per build: what the last two builds did not ask for is forgotten, so a removed or edited
rule's pieces do not pile up.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from ..files.memo import Recent
from ..library.model import Rule
from .inert import InertRules, inert_rule


class RuleParts(InertRules):
    """Inert rules and the formats' per-rule pieces, each made once while they are asked for
    in every build (:class:`~rlt_rules.files.memo.Recent`)."""

    __slots__ = ("_inert", "_parts")

    def __init__(self) -> None:
        super().__init__()
        #: A rule made inert, by the rule (by value: an unchanged rule is equal, and usually
        #: the same object, from build to build).
        self._inert: Recent[Rule, Rule] = Recent()
        #: A format's piece, by its key.
        self._parts: Recent[Hashable, object] = Recent()

    def rule(self, rule: Rule) -> Rule:
        return self._inert.get(rule, inert_rule)

    def part[V](self, key: Hashable, make: Callable[[], V]) -> V:
        return self._parts.get(key, lambda _key: make())  # type: ignore[return-value]

    def next_generation(self) -> None:
        """Start a build: what neither this build nor the last one asks for is forgotten."""
        self._inert.next_generation()
        self._parts.next_generation()

    def kept(self) -> int:
        """How many pieces are kept (inert rules and parts). Not ``__len__``: callers test an
        optional one with ``or``, and an empty one must not read as none."""
        return len(self._inert) + len(self._parts)
