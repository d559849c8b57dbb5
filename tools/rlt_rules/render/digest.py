"""The rules as instructions for a reviewer, at four levels of detail, within a budget.

Every view that hands the rules to a reviewer (the AI reviewers' files, ``review-context``)
renders them here: :func:`rule_text` gives one rule at a :class:`Detail`, and
:func:`fit_rules` gives the most detailed listing of every rule that fits a budget. A rule is
always whole: when even the one-line index of every rule is too long, whole lines are left out
and a last line says how many and where they are. Retired rules no longer apply and are never
listed; a deprecated rule says which rule replaces it.

Rule text is the inert library's (:func:`rlt_rules.render.inert.inert_rule`); titles in link
text are escaped as all plain text is (:func:`rlt_rules.render.inert.md_text`).

Budgets are counted by an additive measure (the count of a text is the sum of its pieces'):
characters, UTF-8 bytes or line breaks. So a listing is measured piece by piece and given up
as soon as it is over budget, without rendering the rest: a 5,000-rule library costs the
AI reviewers' files no more than the rules that fit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum

from ..library.model import Library, Rule, Status
from .inert import InertRules, inert_rule, md_text
from .links import rule_url, site_base
from .markdown import bullet_list, cited
from .text import rule_heading

#: Counts a text; additive: ``measure(a + b) == measure(a) + measure(b)``.
Measure = Callable[[str], int]


class Detail(StrEnum):
    """How much of each rule a listing holds."""

    #: Statement, triggers, impact and correction.
    FULL = "full"
    #: What a reviewer spots and what to do: triggers and correction.
    GUIDANCE = "guidance"
    #: The rule in its authors' words: the statement alone.
    STATEMENT = "statement"
    #: One line: id and title, linked to the rule's page.
    INDEX = "index"


#: From most to least detailed.
DETAILS = (Detail.FULL, Detail.GUIDANCE, Detail.STATEMENT, Detail.INDEX)


def characters(text: str) -> int:
    return len(text)


def utf8_bytes(text: str) -> int:
    return len(text.encode("utf-8"))


def line_breaks(text: str) -> int:
    """Line breaks: a file of N lines ending with a newline has N."""
    return text.count("\n")


def applicable_rules(library: Library) -> tuple[Rule, ...]:
    """The rules a reviewer applies: every rule but the retired ones, in id order."""
    return tuple(rule for rule in library.rules if rule.status is not Status.RETIRED)


def rule_link(rule: Rule, site_url: str | None) -> str:
    """``[R03 — Title](<site_url>rules/R03/)``: the rule's heading linked to its page."""
    return f"[{md_text(rule_heading(rule))}]({rule_url(site_url, rule.id)})"


def deprecation(rule: Rule) -> str | None:
    if rule.status is Status.DEPRECATED:
        return f"Deprecated: cite {rule.replaced_by} instead."
    return None


def rule_text(
    rule: Rule,
    detail: Detail,
    site_url: str | None,
    level: int = 3,
    shown: Rule | None = None,
    *,
    anchored: bool = False,
) -> str:
    """One rule at ``detail``: a heading of ``level`` (0: a plain line) linking its page, then
    its guidance (one list item for :attr:`Detail.INDEX`). ``shown`` is the rule made inert,
    when the caller has it already; ``anchored``: each trigger ends with its anchor
    (:meth:`~rlt_rules.library.model.Rule.anchors`), for a finding's ``trigger_anchor``."""
    note = deprecation(rule)
    if detail is Detail.INDEX:
        return f"- {rule_link(rule, site_url)}" + (f" ({note.rstrip('.')})" if note else "")
    shown = shown if shown is not None else inert_rule(rule)
    blocks = [("#" * level + " " if level else "") + rule_link(rule, site_url)]
    if note:
        blocks.append(note)
    if detail in (Detail.FULL, Detail.STATEMENT):
        blocks.append(shown.statement)
    if detail is not Detail.STATEMENT:
        triggers = shown.triggers
        if anchored:
            triggers = cited(triggers, tuple(f"`{a}`" for a in rule.anchors().triggers))
        blocks += ["Triggers:", bullet_list(triggers)]
        if detail is Detail.FULL:
            blocks.append(f"Impact: {shown.impact}")
        blocks.append(f"Correction: {shown.correction}")
    return "\n\n".join(blocks)


def rule_pieces(
    library: Library,
    detail: Detail,
    site_url: str | None,
    level: int,
    *,
    by_category: bool,
    inert: InertRules | None = None,
    anchored: bool = False,
) -> Iterator[str]:
    """The listing in pieces whose concatenation is the listing: each applicable rule after
    its separator (a line break between index lines, a blank line otherwise) and
    (``by_category``) a heading of ``level - 1`` before each category's first rule;
    ``anchored``: as :func:`rule_text`'s."""
    rules = applicable_rules(library)
    if by_category:
        order = {category.id: index for index, category in enumerate(library.categories)}
        rules = tuple(sorted(rules, key=lambda rule: order[rule.category]))
    inert = inert or InertRules()
    between = "\n" if detail is Detail.INDEX else "\n\n"
    separator = ""
    current = None
    for rule in rules:
        if by_category and rule.category != current:
            current = rule.category
            heading = f"{'#' * (level - 1)} {md_text(library.category(current).title)}"
            yield ("\n\n" if separator else "") + heading
            separator = "\n\n"
        yield separator + inert.part(
            ("rule_text", rule, detail.value, site_url, level, anchored),  # str: hashed once
            lambda rule=rule: rule_text(
                rule,
                detail,
                site_url,
                level,
                None if detail is Detail.INDEX else inert.rule(rule),
                anchored=anchored,
            ),
        )
        separator = between


def rules_text(
    library: Library,
    detail: Detail,
    site_url: str | None,
    level: int = 3,
    *,
    by_category: bool = False,
    inert: InertRules | None = None,
    anchored: bool = False,
) -> str:
    """Every applicable rule at ``detail``, in id order or (``by_category``) under a heading
    of ``level - 1`` per category, in the library's order of categories. ``inert``: the rules
    made inert so far, kept by the caller; ``anchored``: as :func:`rule_text`'s."""
    pieces = rule_pieces(
        library, detail, site_url, level, by_category=by_category, inert=inert, anchored=anchored
    )
    return "".join(pieces)


@dataclass(frozen=True, slots=True)
class Fitted:
    """A listing of the rules: its text, its detail, and how many rules it left out."""

    text: str
    detail: Detail
    listed: int
    left_out: int


def fit_rules(
    library: Library,
    site_url: str | None,
    budget: int | None,
    details: tuple[Detail, ...] = DETAILS,
    level: int = 3,
    *,
    by_category: bool = False,
    measure: Measure = characters,
    inert: InertRules | None = None,
    anchored: bool = False,
) -> Fitted:
    """The first of ``details`` whose listing of every applicable rule measures at most
    ``budget`` (characters, or what the additive ``measure`` counts; the first detail when
    there is no budget). When none fits, the last detail's entries in id order, as many as fit
    with a line saying how many are left out and where every rule is listed; a ``budget`` too
    small for that line gives an empty listing. ``inert``: the rules made inert so far, kept
    by the caller; ``anchored``: as :func:`rule_text`'s."""
    count = len(applicable_rules(library))
    inert = inert or InertRules()  # each rule made inert once, whichever details are tried
    for detail in details:
        pieces = rule_pieces(
            library,
            detail,
            site_url,
            level,
            by_category=by_category,
            inert=inert,
            anchored=anchored,
        )
        if budget is None or _within(pieces, measure, budget):
            text = rules_text(
                library,
                detail,
                site_url,
                level,
                by_category=by_category,
                inert=inert,
                anchored=anchored,
            )
            return Fitted(text, detail, count, 0)
    assert budget is not None
    detail = details[-1]
    kept: list[str] = []
    used = 0
    for piece in rule_pieces(library, detail, site_url, level, by_category=False, inert=inert):
        note = f"\n{left_out_note(count - len(kept) - 1, site_url)}"
        if used + measure(piece) + measure(note) > budget:
            break
        kept.append(piece)
        used += measure(piece)
    if len(kept) == count:
        return Fitted("".join(kept), detail, count, 0)
    note = ("\n" if kept else "") + left_out_note(count - len(kept), site_url)
    if not kept and measure(note) > budget:
        return Fitted("", detail, 0, count)
    return Fitted("".join([*kept, note]), detail, len(kept), count - len(kept))


def _within(pieces: Iterator[str], measure: Measure, budget: int) -> bool:
    """Whether the pieces measure at most ``budget`` together; stops at the first over it."""
    used = 0
    for piece in pieces:
        used += measure(piece)
        if used > budget:
            return False
    return True


def left_out_note(count: int, site_url: str | None) -> str:
    rules = "rule" if count == 1 else "rules"
    return f"- … {count} more {rules}, listed at {site_base(site_url)}rules/"
