"""The rules as instructions for a reviewer, at three levels of detail, within a budget.

Every view that hands the rules to a reviewer (the AI reviewers' files, ``review-context``)
renders them here: :func:`rule_text` gives one rule at a :class:`Detail`, and
:func:`fit_rules` gives the most detailed listing of every rule that fits a number of
characters. A rule is always whole: when even the one-line index of every rule is too long,
whole lines are left out and a last line says how many and where they are. Retired rules no
longer apply and are never listed; a deprecated rule says which rule replaces it.

Rule text is the inert library's (:func:`rlt_rules.export.inert.inert_rule`); titles in link
text are escaped as all plain text is (:func:`rlt_rules.export.inert.md_text`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from ..model import Library, Rule, Status
from .inert import inert_rule, md_text
from .markdown import bullet_list, rule_url, site_base
from .text import rule_heading


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


def rule_text(rule: Rule, detail: Detail, site_url: str | None, level: int = 3) -> str:
    """One rule at ``detail``: a heading of ``level`` (0: a plain line) linking its page, then
    its guidance (one list item for :attr:`Detail.INDEX`)."""
    note = deprecation(rule)
    if detail is Detail.INDEX:
        return f"- {rule_link(rule, site_url)}" + (f" ({note.rstrip('.')})" if note else "")
    shown = inert_rule(rule)
    blocks = [("#" * level + " " if level else "") + rule_link(rule, site_url)]
    if note:
        blocks.append(note)
    if detail in (Detail.FULL, Detail.STATEMENT):
        blocks.append(shown.statement)
    if detail is Detail.STATEMENT:
        return "\n\n".join(blocks)
    blocks += ["Triggers:", bullet_list(shown.triggers)]
    if detail is Detail.FULL:
        blocks.append(f"Impact: {shown.impact}")
    blocks.append(f"Correction: {shown.correction}")
    return "\n\n".join(blocks)


def rules_text(
    library: Library,
    detail: Detail,
    site_url: str | None,
    level: int = 3,
    *,
    by_category: bool = False,
) -> str:
    """Every applicable rule at ``detail``, in id order or (``by_category``) under a heading
    of ``level - 1`` per category, in the library's order."""
    rules = applicable_rules(library)
    separator = "\n" if detail is Detail.INDEX else "\n\n"
    if not by_category:
        return separator.join(rule_text(rule, detail, site_url, level) for rule in rules)
    sections = []
    for category in library.categories:
        members = [rule for rule in rules if rule.category == category.id]
        if members:
            entries = separator.join(rule_text(rule, detail, site_url, level) for rule in members)
            sections.append(f"{'#' * (level - 1)} {md_text(category.title)}\n\n{entries}")
    return "\n\n".join(sections)


def characters(text: str) -> int:
    return len(text)


def utf8_bytes(text: str) -> int:
    return len(text.encode("utf-8"))


def lines(text: str) -> int:
    return text.count("\n") + 1


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
    measure: Callable[[str], int] = characters,
) -> Fitted:
    """The first of ``details`` whose listing of every applicable rule measures at most
    ``budget`` (characters, or what ``measure`` counts; the first detail when there is no
    budget). When none fits, the last detail's entries in id order, as many as fit with a
    line saying how many are left out and where every rule is listed; a ``budget`` too small
    for that line gives an empty listing."""
    rules = applicable_rules(library)
    for detail in details:
        text = rules_text(library, detail, site_url, level, by_category=by_category)
        if budget is None or measure(text) <= budget:
            return Fitted(text, detail, len(rules), 0)
    detail = details[-1]
    entries = [rule_text(rule, detail, site_url, level) for rule in rules]
    separator = "\n" if detail is Detail.INDEX else "\n\n"
    assert budget is not None
    kept: list[str] = []
    for count in range(len(entries) - 1, -1, -1):
        kept = entries[:count]
        note = left_out_note(len(entries) - count, site_url)
        text = separator.join([*kept, note])
        if measure(text) <= budget:
            return Fitted(text, detail, count, len(entries) - count)
    return Fitted("", detail, 0, len(entries))


def left_out_note(count: int, site_url: str | None) -> str:
    rules = "rule" if count == 1 else "rules"
    return f"- … {count} more {rules}, listed at {site_base(site_url)}rules/"
