"""The rules within a budget, rule by rule: each rule in the most detail that still fits.

:func:`rlt_rules.render.digest.fit_rules` gives every rule the same detail, so one rule too
many drops the whole listing a level and leaves the budget half empty. Here every rule starts
as one line (:attr:`Detail.INDEX`) and is raised, in id order, while the budget holds: first
every rule to its triggers and correction (what a reviewer uses most), then the rules still
on one line to their statement, then those with a statement to their triggers where the
difference fits, then (for ``review-context``) the anchors of the triggers listed, then the
rules with triggers to the full text. The listing
says which rules got which detail (:func:`level_summary`).

When even one line per rule does not fit, :func:`fit_each` falls back to
:func:`~rlt_rules.render.digest.fit_rules`' index of whole lines with a note of how many are
left out.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..library.model import Library, Rule
from .digest import Detail, applicable_rules, fit_rules, rule_text
from .inert import inert_rule, md_text

#: Each pass raises the rules at the first detail to the second, where the budget allows.
PASSES = (
    (Detail.INDEX, Detail.GUIDANCE),
    (Detail.INDEX, Detail.STATEMENT),
    (Detail.STATEMENT, Detail.GUIDANCE),
    (Detail.GUIDANCE, Detail.FULL),
)
#: How a detail is named in the listing's note.
LABELS = {
    Detail.FULL: "in full (statement, triggers, impact, correction)",
    Detail.GUIDANCE: "triggers and correction",
    Detail.STATEMENT: "statement only",
    Detail.INDEX: "title only",
}
_SEPARATOR = "\n\n"


@dataclass(frozen=True, slots=True)
class FittedEach:
    """A listing of the rules: its text, each listed rule's detail in listing order, how
    many rules were left out (only when one line each does not fit), and the rules whose
    triggers end with their anchors."""

    text: str
    levels: tuple[tuple[str, Detail], ...]
    left_out: int
    anchored: frozenset[str] = frozenset()

    @property
    def listed(self) -> int:
        return len(self.levels)


def fit_each(
    library: Library, site_url: str | None, budget: int, level: int = 4, *, anchored: bool = False
) -> FittedEach:
    """Every applicable rule, by category, each in the most detail the ``budget`` (in
    characters) allows after the rules before it; see the module's order of passes.
    ``anchored``: once every rule that fits has its triggers, and before any is raised to
    the full text, each rule's triggers end with their anchors (:func:`~.digest.rule_text`),
    rule by rule, where the budget allows."""
    rules = _by_category(library)
    shown = {rule.id: inert_rule(rule) for rule in rules}
    texts: dict[tuple[str, Detail, bool], str] = {}

    def text(rule: Rule, detail: Detail, *, with_anchors: bool = False) -> str:
        key = (rule.id, detail, with_anchors)
        if key not in texts:
            texts[key] = rule_text(
                rule, detail, site_url, level, shown[rule.id], anchored=with_anchors
            )
        return texts[key]

    levels = {rule.id: Detail.INDEX for rule in rules}
    headings = _headings(library, rules, level)
    used = sum(len(heading) + len(_SEPARATOR) for heading in headings.values())
    used += sum(len(text(rule, Detail.INDEX)) + len(_SEPARATOR) for rule in rules) - len(_SEPARATOR)
    if used > budget:
        fallback = fit_rules(library, site_url, budget, (Detail.INDEX,), level)
        listed = [rule.id for rule in applicable_rules(library)][: fallback.listed]
        return FittedEach(
            fallback.text, tuple((i, Detail.INDEX) for i in listed), fallback.left_out
        )
    with_anchors: set[str] = set()
    for before, after in PASSES:
        if anchored and after is Detail.FULL:  # the listed triggers' anchors before the rest
            for rule in rules:
                if levels[rule.id] is Detail.GUIDANCE:
                    cost = len(text(rule, Detail.GUIDANCE, with_anchors=True)) - len(
                        text(rule, Detail.GUIDANCE)
                    )
                    if used + cost <= budget:
                        with_anchors.add(rule.id)
                        used += cost
        for rule in rules:
            if levels[rule.id] is not before:
                continue
            cited = rule.id in with_anchors
            cost = len(text(rule, after, with_anchors=cited)) - len(
                text(rule, before, with_anchors=cited)
            )
            if used + cost <= budget:
                levels[rule.id] = after
                used += cost
    pieces: list[str] = []
    for rule in rules:
        if rule.id in headings:
            pieces.append(headings[rule.id])
        pieces.append(text(rule, levels[rule.id], with_anchors=rule.id in with_anchors))
    listing = _SEPARATOR.join(pieces)
    assert len(listing) == used, (len(listing), used)
    listed = tuple((rule.id, levels[rule.id]) for rule in rules)
    return FittedEach(listing, listed, 0, frozenset(with_anchors))


def level_summary(fitted: FittedEach) -> str:
    """``Rules in full: R01, R02. Triggers and correction: R03. …``: which rule got which
    detail, most detailed first."""
    parts = []
    for detail in (Detail.FULL, Detail.GUIDANCE, Detail.STATEMENT, Detail.INDEX):
        ids = [rule_id for rule_id, got in fitted.levels if got is detail]
        if ids:
            parts.append(f"{LABELS[detail]}: {', '.join(ids)}")
    return "; ".join(parts)


def _by_category(library: Library) -> tuple[Rule, ...]:
    order = {category.id: index for index, category in enumerate(library.categories)}
    return tuple(sorted(applicable_rules(library), key=lambda rule: order[rule.category]))


def _headings(library: Library, rules: tuple[Rule, ...], level: int) -> dict[str, str]:
    """The category heading placed before each category's first rule, by that rule's id."""
    headings: dict[str, str] = {}
    current = None
    for rule in rules:
        if rule.category != current:
            current = rule.category
            headings[rule.id] = f"{'#' * (level - 1)} {md_text(library.category(current).title)}"
    return headings
