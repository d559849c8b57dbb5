"""The change policy: how two libraries differ, and the smallest release each change requires.

Version policy (:func:`compare`):

* **major**: a rule retired, a retired rule brought back, a released rule removed, a change of
  meaning: a rule's ``category`` changed, or declared with ``release --meaning-changed ID``
  (a meaning change cannot be detected in text), a category removed;
* **minor**: a rule added, a rule deprecated (or un-deprecated), a category added;
* **patch**: any other edit of a released rule (title, statement, seed_example, rationale,
  triggers, impact, correction, examples, tags, related, search_terms, replaced_by,
  retired_reason, detectors, practice, no_detector) or of the library's title, subtitle,
  preamble, a category title or its ``what_goes_wrong`` text.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from ..library.model import Library, Rule, Status, id_number
from .history import History
from .versions import Bump


class ChangeKind(StrEnum):
    ADDED = "added"
    CHANGED = "changed"
    DEPRECATED = "deprecated"
    RETIRED = "retired"
    REACTIVATED = "reactivated"
    REMOVED = "removed"


#: Fields of a rule whose edit is a patch (a rewording, or a detector added or refined: a hint
#: changes no rule's meaning); ``category`` is a change of meaning.
TEXT_FIELDS = (
    "title",
    "statement",
    "seed_example",
    "rationale",
    "triggers",
    "impact",
    "correction",
    "examples",
    "tags",
    "related",
    "replaced_by",
    "retired_reason",
    "detectors",
    "practice",
    "no_detector",
    "search_terms",
)
MEANING_FIELDS = ("category",)


@dataclass(frozen=True, slots=True)
class RuleChange:
    """How one rule differs between two libraries, and the release that difference requires.

    ``fields`` names the record fields that differ (``since`` and ``status`` left out: the
    status change is ``kind``). ``reason`` says why the change needs ``bump``.
    """

    rule_id: str
    title: str
    kind: ChangeKind
    fields: tuple[str, ...]
    bump: Bump
    reason: str
    replaced_by: str | None = None
    retired_reason: str | None = None


@dataclass(frozen=True, slots=True)
class LibraryChange:
    """A change to ``library.yaml``'s own data (title, subtitle, preamble, categories)."""

    field: str
    bump: Bump
    reason: str


@dataclass(frozen=True, slots=True)
class LibraryDiff:
    """Everything that differs between two libraries, in id order."""

    old_version: str
    new_version: str
    rules: tuple[RuleChange, ...]
    library: tuple[LibraryChange, ...]

    @property
    def required_bump(self) -> Bump:
        return max((c.bump for c in (*self.rules, *self.library)), default=Bump.NONE)

    def of_kind(self, kind: ChangeKind) -> tuple[RuleChange, ...]:
        return tuple(change for change in self.rules if change.kind is kind)

    def reasons(self, bump: Bump) -> tuple[str, ...]:
        """Why the diff needs a ``bump`` release: one line per change at that level."""
        lines = [f"{c.rule_id}: {c.reason}" for c in self.rules if c.bump is bump]
        lines.extend(f"library {c.field}: {c.reason}" for c in self.library if c.bump is bump)
        return tuple(lines)

    def to_dict(self) -> dict[str, object]:
        def entry(change: RuleChange) -> dict[str, object]:
            data: dict[str, object] = {
                "id": change.rule_id,
                "title": change.title,
                "fields": list(change.fields),
                "bump": str(change.bump),
                "reason": change.reason,
            }
            if change.replaced_by is not None:
                data["replaced_by"] = change.replaced_by
            if change.retired_reason is not None:
                data["retired_reason"] = change.retired_reason
            return data

        return {
            "old": self.old_version,
            "new": self.new_version,
            "required_bump": str(self.required_bump),
            **{str(kind): [entry(c) for c in self.of_kind(kind)] for kind in ChangeKind},
            "library": [
                {"field": c.field, "bump": str(c.bump), "reason": c.reason} for c in self.library
            ],
        }


def _compared_fields(rule: Rule) -> dict[str, object]:
    data = rule.to_dict()
    data.pop("since")
    data.pop("status")
    return data


def _status_change(old: Rule, new: Rule) -> tuple[ChangeKind, Bump, str] | None:
    if old.status is new.status:
        return None
    if new.status is Status.RETIRED:
        return ChangeKind.RETIRED, Bump.MAJOR, "retired (a retirement is a major release)"
    if old.status is Status.RETIRED:
        return (
            ChangeKind.REACTIVATED,
            Bump.MAJOR,
            f"brought back from retired to {new.status} (a major release)",
        )
    if new.status is Status.DEPRECATED:
        return (
            ChangeKind.DEPRECATED,
            Bump.MINOR,
            f"deprecated in favour of {new.replaced_by} (a deprecation is a minor release)",
        )
    return ChangeKind.REACTIVATED, Bump.MINOR, "deprecation withdrawn (a minor release)"


def compare_rules(old: Rule, new: Rule, *, meaning_changed: bool = False) -> RuleChange | None:
    """How ``new`` differs from ``old`` (the same id), or None when only ``since`` differs."""
    before, after = _compared_fields(old), _compared_fields(new)
    fields = tuple(
        key for key in (*MEANING_FIELDS, *TEXT_FIELDS) if before.get(key) != after.get(key)
    )
    status = _status_change(old, new)
    if status is None and not fields and not meaning_changed:
        return None
    kind, bump, reasons = ChangeKind.CHANGED, Bump.NONE, []
    if status is not None:
        kind, bump = status[0], status[1]
        reasons.append(status[2])
        hidden = {ChangeKind.DEPRECATED: "replaced_by", ChangeKind.RETIRED: "retired_reason"}
        fields = tuple(field for field in fields if field != hidden.get(kind))
    if "category" in fields:
        bump = Bump.MAJOR
        reasons.append(
            f"category changed from {old.category} to {new.category} "
            "(a change of meaning is a major release)"
        )
    if meaning_changed:
        bump = Bump.MAJOR
        reasons.append("meaning changed, as declared with --meaning-changed (a major release)")
    text_fields = [field for field in fields if field in TEXT_FIELDS]
    if text_fields:
        bump = max(bump, Bump.PATCH)
        reasons.append(f"reworded: {', '.join(text_fields)} (an edit is a patch release)")
    return RuleChange(
        rule_id=new.id,
        title=new.title,
        kind=kind,
        fields=fields,
        bump=bump,
        reason="; ".join(reasons),
        replaced_by=new.replaced_by if kind is ChangeKind.DEPRECATED else None,
        retired_reason=new.retired_reason if kind is ChangeKind.RETIRED else None,
    )


def _library_changes(old: Library, new: Library) -> Iterable[LibraryChange]:
    for field in ("title", "subtitle", "preamble"):
        if getattr(old, field) != getattr(new, field):
            yield LibraryChange(field, Bump.PATCH, "reworded (an edit is a patch release)")
    old_categories = {category.id: category for category in old.categories}
    new_categories = {category.id: category for category in new.categories}
    for category_id, category in new_categories.items():
        if category_id not in old_categories:
            yield LibraryChange(
                "categories", Bump.MINOR, f"category {category_id} added (a minor release)"
            )
        elif old_categories[category_id].title != category.title:
            yield LibraryChange(
                "categories",
                Bump.PATCH,
                f"category {category_id} retitled (an edit is a patch release)",
            )
        before = old_categories.get(category_id)
        if before is not None and before.what_goes_wrong != category.what_goes_wrong:
            edit = (
                "added"
                if before.what_goes_wrong is None
                else "removed"
                if category.what_goes_wrong is None
                else "reworded"
            )
            yield LibraryChange(
                "categories",
                Bump.PATCH,
                f"category {category_id}: what goes wrong {edit} (an edit is a patch release)",
            )
    for category_id in old_categories:
        if category_id not in new_categories:
            yield LibraryChange(
                "categories", Bump.MAJOR, f"category {category_id} removed (a major release)"
            )


def compare(old: Library, new: Library, meaning_changed: Iterable[str] = ()) -> LibraryDiff:
    """Every difference from ``old`` to ``new``, each with the release it requires."""
    declared = set(meaning_changed)
    old_rules = {rule.id: rule for rule in old.rules}
    new_rules = {rule.id: rule for rule in new.rules}
    changes: list[RuleChange] = []
    for rule_id in sorted(set(old_rules) | set(new_rules), key=id_number):
        before, after = old_rules.get(rule_id), new_rules.get(rule_id)
        if before is None and after is not None:
            changes.append(
                RuleChange(
                    rule_id,
                    after.title,
                    ChangeKind.ADDED,
                    (),
                    Bump.MINOR,
                    "new rule (a new rule is a minor release)",
                )
            )
        elif after is None and before is not None:
            changes.append(
                RuleChange(
                    rule_id,
                    before.title,
                    ChangeKind.REMOVED,
                    (),
                    Bump.MAJOR,
                    "removed: a released id never disappears; retire the rule instead",
                )
            )
        elif before is not None and after is not None:
            change = compare_rules(before, after, meaning_changed=rule_id in declared)
            if change is not None:
                changes.append(change)
    return LibraryDiff(old.version, new.version, tuple(changes), tuple(_library_changes(old, new)))


@dataclass(frozen=True, slots=True)
class RuleHistory:
    """For a rule page: the release that added the rule and those that changed it."""

    rule_id: str
    added_in: str | None
    changed_in: tuple[str, ...]


def rule_history(history: History, rule_id: str) -> RuleHistory:
    """The release that first published ``rule_id`` and every later release that changed it."""
    versions = history.versions_of(rule_id)
    if not versions:
        return RuleHistory(rule_id, None, ())
    changed = tuple(
        version
        for (_, before), (version, after) in zip(versions, versions[1:], strict=False)
        if compare_rules(before, after) is not None
    )
    return RuleHistory(rule_id, versions[0][0], changed)
