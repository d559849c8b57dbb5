"""The rules within a budget, rule by rule: each rule in the most detail that still fits.

:func:`rlt_rules.render.digest.fit_rules` gives every rule the same detail, so one rule too
many drops the whole listing a level and leaves the budget half empty. Here every rule starts
as one line (:attr:`Detail.INDEX`) and is raised, in id order, while the budget holds: first
every rule to its triggers and correction (what a reviewer uses most), then the rules still
on one line to their statement, then those with a statement to their triggers where the
difference fits, then (for ``review-context``) the anchors of the triggers listed, then the
rules with triggers to the full text. The listing says which rules got which detail
(:func:`level_summary`); that note's length is counted with every raise, and since a raise
can shorten it (a detail no rule has any more drops out, or the note gives way to a shorter
one once every rule is in full), the passes are repeated until none raises anything: what is
left is too small for any one more step.

When even one line per rule does not fit, :func:`fit_each` falls back to
:func:`~rlt_rules.render.digest.fit_rules`' index of whole lines with a note of how many are
left out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

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
#: Each listed rule's id and detail, in listing order.
Levels = tuple[tuple[str, Detail], ...]


@dataclass(frozen=True, slots=True)
class FittedEach:
    """A listing of the rules: its text, each listed rule's detail in listing order, how
    many rules were left out (only when one line each does not fit), and the rules whose
    triggers end with their anchors."""

    text: str
    levels: Levels
    left_out: int
    anchored: frozenset[str] = frozenset()

    @property
    def listed(self) -> int:
        return len(self.levels)


def fit_each(
    library: Library,
    site_url: str | None,
    budget: int,
    level: int = 4,
    *,
    anchored: bool = False,
    note: Callable[[Levels], int] | None = None,
) -> FittedEach:
    """Every applicable rule, by category, each in the most detail the ``budget`` (in
    characters) allows after the rules before it; see the module's order of passes.
    ``anchored``: once every rule that fits has its triggers, and before any is raised to
    the full text, each rule's triggers end with their anchors (:func:`~.digest.rule_text`),
    rule by rule, where the budget allows. ``note``: the length of the caller's text that
    goes with the listing, given its levels, counted in the budget at every step; it may
    depend on which details the listing holds, not on which rule has which (as the length of
    a :func:`level_summary` does). When one line per rule does not fit, the note of every
    rule on one line is counted."""
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
    counts = Counter(levels.values())  # how many rules have each detail
    with_anchors: set[str] = set()
    notes: dict[frozenset[Detail], int] = {}

    def listed() -> Levels:
        return tuple((rule.id, levels[rule.id]) for rule in rules)

    def note_length() -> int:
        held = frozenset(detail for detail, count in counts.items() if count)
        if held not in notes:
            notes[held] = note(listed()) if note else 0
        return notes[held]

    headings = _headings(library, rules, level)
    noted = note_length()
    used = sum(len(heading) + len(_SEPARATOR) for heading in headings.values())
    used += sum(len(text(rule, Detail.INDEX)) + len(_SEPARATOR) for rule in rules) - len(_SEPARATOR)
    if used + noted > budget:
        fallback = fit_rules(library, site_url, max(budget - noted, 0), (Detail.INDEX,), level)
        listed_ids = [rule.id for rule in applicable_rules(library)][: fallback.listed]
        return FittedEach(
            fallback.text, tuple((i, Detail.INDEX) for i in listed_ids), fallback.left_out
        )
    used += noted

    def take(rule: Rule, after: Detail, *, cite: bool) -> bool:
        """Raise ``rule`` to ``after`` (``cite``: with its anchors) if the budget holds it,
        counting the change in the note's length."""
        nonlocal used, noted
        before, cited = levels[rule.id], rule.id in with_anchors
        _move(levels, counts, rule.id, after)
        now_noted = note_length()
        cost = len(text(rule, after, with_anchors=cite)) - len(
            text(rule, before, with_anchors=cited)
        )
        if used + cost + now_noted - noted > budget:
            _move(levels, counts, rule.id, before)
            return False
        used += cost + now_noted - noted
        noted = now_noted
        if cite:
            with_anchors.add(rule.id)
        return True

    def raise_all(before: Detail, after: Detail) -> bool:
        raised = False
        for rule in rules:
            if levels[rule.id] is before:
                raised |= take(rule, after, cite=rule.id in with_anchors)
        return raised

    def cite_all() -> bool:  # the anchors of the triggers listed
        cited = False
        for rule in rules:
            detail = levels[rule.id]
            if detail in (Detail.GUIDANCE, Detail.FULL) and rule.id not in with_anchors:
                cited |= take(rule, detail, cite=True)
        return cited

    steps = [partial(raise_all, before, after) for before, after in PASSES]
    if anchored:  # the listed triggers' anchors before the full text
        steps.insert(len(PASSES) - 1, cite_all)
    # A raise can shorten the note, so a rule that did not fit may fit later: each step is
    # repeated, and all of them, until none raises anything.
    changed = True
    while changed:
        changed = any([_repeated(step) for step in steps])
    pieces: list[str] = []
    for rule in rules:
        if rule.id in headings:
            pieces.append(headings[rule.id])
        pieces.append(text(rule, levels[rule.id], with_anchors=rule.id in with_anchors))
    listing = _SEPARATOR.join(pieces)
    assert len(listing) + noted == used, (len(listing), noted, used)
    assert note is None or note(listed()) == noted, "the note's length depends on more"
    return FittedEach(listing, listed(), 0, frozenset(with_anchors))


def _move(levels: dict[str, Detail], counts: Counter[Detail], rule_id: str, to: Detail) -> None:
    counts[levels[rule_id]] -= 1
    counts[to] += 1
    levels[rule_id] = to


def _repeated(step: Callable[[], bool]) -> bool:
    """Run ``step`` until it changes nothing; whether it changed anything."""
    changed = False
    while step():
        changed = True
    return changed


def level_summary(levels: Levels) -> str:
    """``in full (…): R01, R02; triggers and correction: R03; …``: which rule got which
    detail (``levels``, as :attr:`FittedEach.levels`), most detailed first."""
    parts = []
    for detail in (Detail.FULL, Detail.GUIDANCE, Detail.STATEMENT, Detail.INDEX):
        ids = [rule_id for rule_id, got in levels if got is detail]
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
