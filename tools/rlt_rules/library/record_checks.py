"""Checks across records: one named list, run by both readers (YAML files and a bundle).

Each check is a small function over one :class:`Records` view: the library record and the rule
records as plain data, each with a :class:`Locator` that turns a path inside the record into a
:class:`Diagnostic` at its position (a YAML file's line and column, or the bundle's line and
column with its JSON pointer). A reader builds the view; :func:`record_diagnostics` runs
:data:`CHECKS` over it. Adding a check is one function and one entry in :data:`CHECKS`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from .model import Diagnostic, Status, id_span

JsonPath = tuple[str | int, ...]


class Locator(Protocol):
    """Where a value of one record sits: ``path`` is relative to the record."""

    def __call__(self, path: JsonPath, message: str, rule_id: str | None = None) -> Diagnostic: ...


@dataclass(frozen=True, slots=True)
class Record:
    """One record's data, how to place a diagnostic in it, how messages name it (its file, or
    its JSON pointer in a bundle) and the file stem its id must match (None in a bundle, where
    a record has no file of its own)."""

    data: dict[str, Any]
    at: Locator
    name: str
    file_stem: str | None = None

    def value(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)


@dataclass(frozen=True, slots=True)
class Records:
    """The records a reader found. ``known_ids`` holds every id a reference may name (in a
    folder, every rule file's stem counts, even one that failed to load); ``complete`` is
    False when some record failed to load, which silences the checks one missing record would
    make cascade (a category with no rules)."""

    library: Record | None
    rules: tuple[Record, ...]
    known_ids: frozenset[str]
    complete: bool


Check = Callable[[Records], Iterable[Diagnostic]]


def _first_record_of(records: Records) -> dict[str, Record]:
    first: dict[str, Record] = {}
    for rule in records.rules:
        first.setdefault(rule.value("id"), rule)
    return first


def unique_categories(records: Records) -> Iterable[Diagnostic]:
    if records.library is None:
        return
    seen: set[str] = set()
    for index, category in enumerate(records.library.data["categories"]):
        if category["id"] in seen:
            yield records.library.at(
                ("categories", index, "id"),
                f"category '{category['id']}' is listed twice: remove one",
            )
        seen.add(category["id"])


def id_matches_file(records: Records) -> Iterable[Diagnostic]:
    for rule in records.rules:
        rule_id = rule.value("id")
        if rule.file_stem is not None and rule_id != rule.file_stem:
            yield rule.at(
                ("id",),
                f"id '{rule_id}' does not match the file name '{rule.file_stem}.yaml': "
                f"rename the file to {rule_id}.yaml or fix the id",
                rule_id,
            )


def unique_ids(records: Records) -> Iterable[Diagnostic]:
    first: dict[str, Record] = {}
    for rule in records.rules:
        rule_id = rule.value("id")
        if rule_id not in first:
            first[rule_id] = rule
            continue
        yield rule.at(
            ("id",),
            f"id '{rule_id}' is already used by {first[rule_id].name}: "
            "ids are unique and never reused",
            rule_id,
        )


def related_rules_exist(records: Records) -> Iterable[Diagnostic]:
    known = records.known_ids | {rule.value("id") for rule in records.rules}
    for rule in records.rules:
        rule_id = rule.value("id")
        for index, related in enumerate(rule.value("related", []) or []):
            if not isinstance(related, str):
                continue
            if related == rule_id:
                yield rule.at(
                    ("related", index),
                    f"related lists the rule itself ({related}): remove it",
                    rule_id,
                )
            elif related not in known:
                yield rule.at(
                    ("related", index),
                    f"related rule '{related}' does not exist: "
                    f"known ids are {id_span(known, listed_up_to=3)}",
                    rule_id,
                )


def replacement_exists(records: Records) -> Iterable[Diagnostic]:
    known = records.known_ids | {rule.value("id") for rule in records.rules}
    first = _first_record_of(records)
    for rule in records.rules:
        rule_id, replaced_by = rule.value("id"), rule.value("replaced_by")
        if not isinstance(replaced_by, str):
            continue
        if replaced_by == rule_id:
            yield rule.at(("replaced_by",), "replaced_by names the rule itself", rule_id)
        elif replaced_by not in known:
            yield rule.at(
                ("replaced_by",), f"replaced_by rule '{replaced_by}' does not exist", rule_id
            )
        elif replaced_by in first and first[replaced_by].value("status") == str(Status.RETIRED):
            yield rule.at(
                ("replaced_by",),
                f"replaced_by rule '{replaced_by}' is retired: point at an active rule",
                rule_id,
            )


def known_category(records: Records) -> Iterable[Diagnostic]:
    if records.library is None:
        return
    category_ids = [category["id"] for category in records.library.data["categories"]]
    for rule in records.rules:
        category = rule.value("category")
        if isinstance(category, str) and category not in category_ids:
            yield rule.at(
                ("category",),
                f"unknown category '{category}': the library defines {', '.join(category_ids)}",
                rule.value("id"),
            )


def unique_example_names(records: Records) -> Iterable[Diagnostic]:
    for rule in records.rules:
        names: set[tuple[Any, str]] = set()
        for index, example in enumerate(rule.value("examples", []) or []):
            if not isinstance(example, dict) or not isinstance(example.get("name"), str):
                continue
            key = (example.get("kind"), example["name"])
            if key in names:
                yield rule.at(
                    ("examples", index, "name"),
                    f"two {key[0]} examples are named '{key[1]}': a name is unique per kind "
                    "(a bad and a good example may share one to form a pair)",
                    rule.value("id"),
                )
            names.add(key)


def unique_practice_names(records: Records) -> Iterable[Diagnostic]:
    for rule in records.rules:
        names: set[str] = set()
        for index, program in enumerate(rule.value("practice", []) or []):
            if not isinstance(program, dict) or not isinstance(program.get("name"), str):
                continue
            if program["name"] in names:
                yield rule.at(
                    ("practice", index, "name"),
                    f"two practice programs are named '{program['name']}': a name is unique "
                    "among a rule's practice programs (it names the item and its test)",
                    rule.value("id"),
                )
            names.add(program["name"])


def no_empty_category(records: Records) -> Iterable[Diagnostic]:
    if records.library is None or not records.complete:
        return
    used = {rule.value("category") for rule in records.rules}
    for index, category in enumerate(records.library.data["categories"]):
        if category["id"] not in used:
            yield records.library.at(
                ("categories", index, "id"),
                f"category '{category['id']}' has no rules: give a rule this category or remove it",
            )


def no_detector_without_detectors(records: Records) -> Iterable[Diagnostic]:
    for rule in records.rules:
        if rule.value("no_detector") is not None and rule.value("detectors"):
            yield rule.at(
                ("no_detector",),
                "no_detector says no pattern catches this rule, but the rule has detectors: "
                "remove no_detector, or the detectors",
                rule.value("id"),
            )


#: Every check across records, in the order their diagnostics are listed. Both readers run
#: all of them: ``validate`` on a rules folder, ``read_bundle`` on a bundle.
CHECKS: tuple[Check, ...] = (
    unique_categories,
    id_matches_file,
    unique_ids,
    related_rules_exist,
    replacement_exists,
    known_category,
    unique_example_names,
    unique_practice_names,
    no_empty_category,
    no_detector_without_detectors,
)


def record_diagnostics(records: Records) -> list[Diagnostic]:
    """Every check of :data:`CHECKS` over ``records``."""
    return [diagnostic for check in CHECKS for diagnostic in check(records)]
