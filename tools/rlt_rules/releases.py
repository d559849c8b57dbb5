"""Release history: stable rule ids enforced by software, not by care.

A release is a bundle: ``releases/<version>.json`` beside ``rules/``, written by
:func:`rlt_rules.bundle.render` and read back by :func:`rlt_rules.bundle_load.read_bundle`.
A rules directory without a ``releases/`` folder (or with no ``*.json`` directly in it) has no
history, and none of the checks below apply. Only ``releases/*.json`` counts: sub-folders and
other files are ignored.

What ``validate`` checks against the history (:func:`release_diagnostics`):

* every release file loads as a bundle, is named ``<its library version>.json``, and keeps every
  id of the releases before it;
* a released id never disappears: its ``rules/<id>.yaml`` must exist (retire it instead);
* a released id is never reused for a different rule. *Reused* means: the rule's current title
  AND its current statement both differ from every released version of that id. (Rewording
  the title or the statement is an edit; rewriting both at once is a new rule, which needs a
  new id. To rewrite both, change one per release.)
* a retired rule stays retired (its id stays reserved);
* ``since`` is the first release containing the rule; a rule in no release says ``since: next``
  (or the version ``library.yaml`` announces, not yet released: what an interrupted
  ``release`` leaves behind);
* ``library.yaml``'s version is not older than the latest release.

Deprecation without ``replaced_by`` is rejected by the rule schema itself.

Version policy (:func:`compare`, the smallest release each change requires):

* **major**: a rule retired, a retired rule brought back, a released rule removed, a change of
  meaning: a rule's ``category`` changed, or declared with ``release --meaning-changed ID``
  (a meaning change cannot be detected in text), a category removed;
* **minor**: a rule added, a rule deprecated (or un-deprecated), a category added;
* **patch**: any other edit of a released rule (title, statement, seed_example, rationale,
  triggers, impact, correction, examples, tags, related, replaced_by, retired_reason) or of the
  library's title, subtitle, preamble or a category title.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from dataclasses import field as dataclass_field
from enum import IntEnum, StrEnum
from pathlib import Path

from .atomic import write_atomic
from .bundle import render
from .bundle_load import read_bundle
from .load import Document, line_column
from .model import Diagnostic, Library, LibraryError, Rule, Status
from .validate import LIBRARY_FILE

RELEASES_DIR = "releases"
NEXT = "next"
RULE_ID = re.compile(r"^R([0-9]{2,})$")
_VERSION = re.compile(r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$")


# --- versions ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, order=True)
class Version:
    """A library version, ``MAJOR.MINOR.PATCH`` (no pre-release part)."""

    major: int
    minor: int
    patch: int

    @classmethod
    def parse(cls, text: str) -> Version | None:
        """The version ``text`` names, or None when it is not ``MAJOR.MINOR.PATCH``."""
        match = _VERSION.match(text) if isinstance(text, str) else None
        return cls(*(int(part) for part in match.groups())) if match else None

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}"


class Bump(IntEnum):
    """How big a release is, or must be: ordered, so ``max`` gives the one required."""

    NONE = 0
    PATCH = 1
    MINOR = 2
    MAJOR = 3

    def __str__(self) -> str:
        return self.name.lower()


def bump_between(old: Version, new: Version) -> Bump:
    """The kind of release going from ``old`` to ``new`` is (NONE when ``new`` is not later)."""
    if new <= old:
        return Bump.NONE
    if new.major > old.major:
        return Bump.MAJOR
    if new.minor > old.minor:
        return Bump.MINOR
    return Bump.PATCH


def _sort_key(version: str) -> Version:
    return Version.parse(version) or Version(0, 0, 0)


# --- history -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Release:
    """One published release: its version and the library exactly as released."""

    version: str
    library: Library


@dataclass(frozen=True, slots=True)
class History:
    """Every release, oldest first. Empty when the rules directory has no ``releases/``."""

    releases: tuple[Release, ...] = ()
    #: ``rule id -> ((version, rule as released), ...)``, oldest first: built once, so looking
    #: up every rule's versions costs one pass over the history, not one pass per rule.
    _by_id: dict[str, tuple[tuple[str, Rule], ...]] = dataclass_field(
        init=False, repr=False, compare=False, hash=False
    )

    def __post_init__(self) -> None:
        found: dict[str, list[tuple[str, Rule]]] = {}
        for release in self.releases:
            for rule in release.library.rules:
                found.setdefault(rule.id, []).append((release.version, rule))
        object.__setattr__(self, "_by_id", {key: tuple(value) for key, value in found.items()})

    @property
    def latest(self) -> Release | None:
        return self.releases[-1] if self.releases else None

    def released_ids(self) -> set[str]:
        return set(self._by_id)

    def versions_of(self, rule_id: str) -> tuple[tuple[str, Rule], ...]:
        """``(version, rule as released)`` for every release containing ``rule_id``."""
        return self._by_id.get(rule_id, ())

    def get(self, version: str) -> Release | None:
        for release in self.releases:
            if release.version == version:
                return release
        return None


@dataclass(frozen=True, slots=True)
class RuleHistory:
    """For a rule page: the release that added the rule and those that changed it."""

    rule_id: str
    added_in: str | None
    changed_in: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class HistoryResult:
    """Explicit outcome of reading ``releases/`` (or of checking rules against it): the
    history when it could be read, and every problem found."""

    history: History | None
    diagnostics: tuple[Diagnostic, ...]


def releases_dir(rules_dir: Path) -> Path:
    """Where the history of ``rules_dir`` lives: ``<rules_dir>/../releases``."""
    return Path(os.path.normpath(Path(rules_dir) / os.pardir / RELEASES_DIR))


def releases_display(rules_display: str) -> str:
    """How to name ``releases/`` in messages, given how the rules directory is named."""
    return os.path.normpath(os.path.join(rules_display, os.pardir, RELEASES_DIR))


def release_path(rules_dir: Path, version: str) -> Path:
    return releases_dir(rules_dir) / f"{version}.json"


def read_history(rules_dir: Path, rules_display: str | None = None) -> HistoryResult:
    """Read every ``releases/*.json`` beside ``rules_dir``; never raises for bad input."""
    folder = releases_dir(rules_dir)
    shown_folder = releases_display(rules_display if rules_display is not None else str(rules_dir))
    if not folder.is_dir():
        return HistoryResult(History(), ())
    diagnostics: list[Diagnostic] = []
    releases: list[Release] = []
    for path in sorted(folder.glob("*.json")):
        shown = f"{shown_folder}/{path.name}"
        version = Version.parse(path.stem)
        if version is None:
            diagnostics.append(
                Diagnostic(
                    shown,
                    1,
                    1,
                    f"{path.name} is not named after a version: a release file is "
                    "releases/MAJOR.MINOR.PATCH.json, written by `rlt-rules release`",
                )
            )
            continue
        result = read_bundle(path)
        if result.library is None:
            diagnostics.extend(replace(d, path=shown) for d in result.diagnostics)
            continue
        if result.library.version != path.stem:
            line, column = _library_version_position(path)
            diagnostics.append(
                Diagnostic(
                    shown,
                    line,
                    column,
                    f"/library/version is {result.library.version} but the file is named "
                    f"{path.name}: a release file is named after the version it released",
                )
            )
            continue
        releases.append(Release(path.stem, result.library))
    releases.sort(key=lambda release: _sort_key(release.version))
    for earlier, later in zip(releases, releases[1:], strict=False):
        later_ids = {rule.id for rule in later.library.rules}
        for rule in earlier.library.rules:
            if rule.id not in later_ids:
                diagnostics.append(
                    Diagnostic(
                        f"{shown_folder}/{later.version}.json",
                        1,
                        1,
                        f"{rule.id} ('{rule.title}') is in release {earlier.version} but not in "
                        f"{later.version}: a released id never disappears from later releases",
                        rule.id,
                    )
                )
    if diagnostics:
        return HistoryResult(None, tuple(diagnostics))
    return HistoryResult(History(tuple(releases)), ())


def load_history(rules_dir: str | Path) -> History:
    """The release history of ``rules_dir``; raise :class:`LibraryError` when it is unreadable."""
    result = read_history(Path(rules_dir))
    if result.history is None:
        raise LibraryError(result.diagnostics)
    return result.history


def _library_version_position(path: Path) -> tuple[int, int]:
    """Line and column of ``/library/version`` in a bundle written by the bundle renderer."""
    text = path.read_text(encoding="utf-8")
    start = text.find('"library":')
    found = text.find('"version":', start) if start >= 0 else -1
    return line_column(text, found) if found >= 0 else (1, 1)


# --- comparison and version policy -------------------------------------------------------


class ChangeKind(StrEnum):
    ADDED = "added"
    CHANGED = "changed"
    DEPRECATED = "deprecated"
    RETIRED = "retired"
    REACTIVATED = "reactivated"
    REMOVED = "removed"


#: Fields of a rule whose edit is a patch (a rewording); ``category`` is a change of meaning.
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


def compare_rules(old: Rule, new: Rule, meaning_changed: bool = False) -> RuleChange | None:
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
    for rule_id in sorted(set(old_rules) | set(new_rules), key=lambda text: int(text[1:])):
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
            change = compare_rules(before, after, rule_id in declared)
            if change is not None:
                changes.append(change)
    return LibraryDiff(old.version, new.version, tuple(changes), tuple(_library_changes(old, new)))


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


# --- validation against the history ------------------------------------------------------


def release_diagnostics(
    root: Path,
    library_doc: Document | None,
    rule_docs: list[Document],
    shown: Callable[[Path], str],
) -> HistoryResult:
    """Every way the working rules in ``root`` break the release history (see module doc),
    with the history they were checked against (None when it cannot be read)."""
    library_shown = shown(root / LIBRARY_FILE)
    rules_shown = os.path.dirname(library_shown) or "."
    loaded = read_history(root, rules_shown)
    if loaded.history is None:
        return loaded
    history = loaded.history
    latest = history.latest
    if latest is None:
        return loaded
    releases_shown = releases_display(rules_shown)
    found: list[Diagnostic] = []

    library_version = None
    version_at = (1, 1)
    if library_doc is not None:
        library_version = library_doc.data.get("version")
        position = library_doc.keys.get(("version",)) or library_doc.value_position(())
        version_at = (position.line, position.column)
        parsed = Version.parse(library_version)
        if parsed is not None and parsed < Version.parse(latest.version):
            value_at = library_doc.value_position(("version",))
            found.append(
                Diagnostic(
                    library_shown,
                    value_at.line,
                    value_at.column,
                    f"version {library_version} is older than the latest release "
                    f"{latest.version} ({releases_shown}/{latest.version}.json): the library's "
                    "version only moves forward; `rlt-rules release` sets it",
                )
            )

    file_ids = {path.stem for path in root.glob("*.yaml") if path.name != LIBRARY_FILE}
    for rule_id in sorted(history.released_ids() - file_ids, key=lambda text: int(text[1:])):
        versions = history.versions_of(rule_id)
        last_version, last = versions[-1]
        found.append(
            Diagnostic(
                library_shown,
                *version_at,
                f"{rule_id} ('{last.title}') was published in "
                f"{_version_list([version for version, _ in versions])} and "
                f"{rules_shown}/{rule_id}.yaml is missing: a released id never disappears; "
                f"restore {rules_shown}/{rule_id}.yaml (as released in "
                f"{releases_shown}/{last_version}.json) and retire it with status: retired and "
                "retired_reason",
                rule_id,
            )
        )

    announced = Version.parse(library_version) if isinstance(library_version, str) else None
    pending = (
        library_version
        if announced is not None
        and announced > Version.parse(latest.version)
        and history.get(library_version) is None
        else None
    )
    for doc in rule_docs:
        found.extend(_rule_diagnostics(doc, history, releases_shown, pending))
    return HistoryResult(history, tuple(found))


def _rule_diagnostics(
    doc: Document, history: History, releases_shown: str, pending: str | None
) -> Iterable[Diagnostic]:
    data = doc.data
    rule_id = data.get("id")
    if not isinstance(rule_id, str):
        return

    def at(key: str, message: str) -> Diagnostic:
        position = doc.value_position((key,))
        return Diagnostic(doc.path, position.line, position.column, message, rule_id)

    since = data.get("since")
    versions = history.versions_of(rule_id)
    if not versions:
        if isinstance(since, str) and since != NEXT and since != pending:
            yield at(
                "since",
                f"since {since}: {rule_id} is in no release yet (latest: "
                f"{history.latest.version}); write since: next, which `rlt-rules release` "
                "replaces with the version that first publishes it",
            )
        return

    first_version = versions[0][0]
    last_version, last = versions[-1]
    published = _version_list([version for version, _ in versions])
    title, statement = data.get("title"), data.get("statement")
    if (
        isinstance(title, str)
        and isinstance(statement, str)
        and all(title != rule.title and statement != rule.statement for _, rule in versions)
    ):
        yield at(
            "id",
            f"{rule_id} is reused for a different rule: neither its title nor its statement "
            f"matches {rule_id} as published in {published} ('{last.title}'); a released id is "
            f"never reused: restore {rule_id} as released ({releases_shown}/{last_version}.json; "
            "retire it if it no longer applies) and add this rule under a new id with "
            "`rlt-rules new`",
        )
    retired_in = next((v for v, rule in versions if rule.status is Status.RETIRED), None)
    status = data.get("status")
    if retired_in is not None and isinstance(status, str) and status != str(Status.RETIRED):
        yield at(
            "status",
            f"{rule_id} was retired in {retired_in} and is now {status}: a retired rule stays "
            "retired and its id stays reserved; set status: retired, and add a new rule with "
            "`rlt-rules new` instead",
        )
    if isinstance(since, str) and since != first_version:
        if since == NEXT:
            yield at(
                "since",
                f"since: next, but {rule_id} was already published in {first_version}: "
                f"write since: {first_version}",
            )
        else:
            yield at(
                "since",
                f"since {since} does not match the release history: {rule_id} was first "
                f"published in {first_version} ({releases_shown}/{first_version}.json); "
                f"write since: {first_version}",
            )


def _version_list(versions: list[str]) -> str:
    if len(versions) <= 4:
        return ", ".join(versions)
    return f"{versions[0]} and {len(versions) - 1} later releases (last {versions[-1]})"


# --- release -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FileEdit:
    """A whole-file replacement: ``path`` gets ``text`` (the rest of the file unchanged)."""

    path: Path
    text: str


@dataclass(frozen=True, slots=True)
class ReleasePlan:
    """What ``release`` will write: file edits first, then the bundle."""

    version: str
    library: Library
    previous: Release | None
    diff: LibraryDiff | None
    edits: tuple[FileEdit, ...]
    target: Path
    bundle: bytes


@dataclass(frozen=True, slots=True)
class PlanResult:
    """Explicit outcome of planning a release: the plan, or why the release is refused."""

    plan: ReleasePlan | None
    refusals: tuple[str, ...]


_SINCE_LINE = re.compile(
    r"^since:[ \t]*(?P<value>(['\"]?)next\2)[ \t]*(?:#[^\r\n]*)?\r?$", re.MULTILINE
)
_VERSION_LINE = re.compile(
    r"^version:[ \t]*(?P<value>(['\"]?)[0-9]+\.[0-9]+\.[0-9]+\2)[ \t]*(?:#[^\r\n]*)?\r?$",
    re.MULTILINE,
)


def _replace_value(text: str, pattern: re.Pattern[str], value: str) -> str | None:
    """``text`` with the one top-level value ``pattern`` finds set to ``value``; None if not one."""
    matches = list(pattern.finditer(text))
    if len(matches) != 1:
        return None
    start, end = matches[0].span("value")
    return text[:start] + value + text[end:]


def plan_release(
    rules_dir: Path, library: Library, history: History, version: str, meaning_changed: set[str]
) -> PlanResult:
    """Plan releasing the valid ``library`` (from ``rules_dir``) as ``version``.

    Refused when: ``version`` is not later than the latest release or is already released; a
    rule not yet released says ``since`` other than ``next`` or ``version``; nothing changed;
    or the changes need a bigger version than ``version`` (the refusal names each of them).
    """
    new_version = Version.parse(version)
    if new_version is None:
        return PlanResult(None, (f"{version!r} is not a version: write MAJOR.MINOR.PATCH",))
    target = release_path(rules_dir, version)
    if target.exists() or history.get(version) is not None:
        return PlanResult(None, (f"{version} is already released ({target.name} exists)",))
    previous = history.latest
    refusals: list[str] = []
    if previous is not None and new_version <= Version.parse(previous.version):
        refusals.append(
            f"{version} is not later than the latest release {previous.version}: "
            "a release version only moves forward"
        )
    released_ids = history.released_ids()
    edits: list[FileEdit] = []
    rules: list[Rule] = []
    for rule in library.rules:
        if rule.id in released_ids or rule.since == version:
            rules.append(rule)
            continue
        if rule.since != NEXT:
            refusals.append(
                f"{rule.id} says since: {rule.since}, but {version} is the first release to "
                "publish it: write since: next"
            )
            continue
        if rule.source is None:
            raise ValueError(f"{rule.id} has no source file to edit")
        path = Path(rule.source.path)
        text = path.read_bytes().decode("utf-8")
        edited = _replace_value(text, _SINCE_LINE, version)
        if edited is None:
            refusals.append(
                f"{rule.source.path}: no single top-level `since: next` line to replace: "
                f"write since: {version} by hand"
            )
            continue
        edits.append(FileEdit(path, edited))
        rules.append(replace(rule, since=version))
    released = replace(library, version=version, rules=tuple(rules))
    library_path = Path(rules_dir) / LIBRARY_FILE
    if library.version != version:
        text = library_path.read_bytes().decode("utf-8")
        edited = _replace_value(text, _VERSION_LINE, version)
        if edited is None:
            refusals.append(
                f"{library_path}: no single top-level `version:` line to replace: "
                f"write version: {version} by hand"
            )
        else:
            # First: a release interrupted after this edit leaves since: <version> acceptable.
            edits.insert(0, FileEdit(library_path, edited))

    diff = None
    if previous is None and meaning_changed:
        refusals.append("--meaning-changed: this is the first release; there is nothing to compare")
    if previous is not None and not refusals:
        unknown = sorted(meaning_changed - {rule.id for rule in previous.library.rules})
        if unknown:
            refusals.append(
                f"--meaning-changed {', '.join(unknown)}: not in the latest release "
                f"{previous.version}; a meaning change applies to a released rule"
            )
        diff = compare(previous.library, released, meaning_changed)
        required = diff.required_bump
        given = bump_between(Version.parse(previous.version), new_version)
        if required is Bump.NONE:
            refusals.append(
                f"nothing changed since {previous.version}: there is nothing to release"
            )
        elif given < required:
            refusals.append(
                f"{version} is a {given} release after {previous.version}, but the changes "
                f"require a {required} release (at least {_smallest(previous.version, required)}):"
            )
            for level in (Bump.MAJOR, Bump.MINOR, Bump.PATCH):
                if level > given:
                    refusals.extend(f"  {line}" for line in diff.reasons(level))
    if refusals:
        return PlanResult(None, tuple(refusals))
    return PlanResult(
        ReleasePlan(version, released, previous, diff, tuple(edits), target, render(released)),
        (),
    )


def _smallest(previous: str, bump: Bump) -> str:
    old = Version.parse(previous)
    if bump is Bump.MAJOR:
        return str(Version(old.major + 1, 0, 0))
    if bump is Bump.MINOR:
        return str(Version(old.major, old.minor + 1, 0))
    return str(Version(old.major, old.minor, old.patch + 1))


def write_release(plan: ReleasePlan) -> None:
    """Apply ``plan``: each file edit atomically, then the release bundle atomically, last."""
    for edit in plan.edits:
        write_atomic(edit.path, edit.text.encode("utf-8"))
    plan.target.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(plan.target, plan.bundle)


# --- new rule ----------------------------------------------------------------------------


def next_rule_id(rules_dir: Path, history: History) -> str:
    """One more than every id ever used: rule files in ``rules_dir`` and every released rule,
    retired ones included. Two digits at least (``R18``)."""
    numbers = [
        int(match.group(1))
        for name in (
            *(path.stem for path in Path(rules_dir).glob("*.yaml")),
            *history.released_ids(),
        )
        if (match := RULE_ID.match(name))
    ]
    return f"R{max(numbers, default=0) + 1:02d}"


_PLAIN = re.compile(r"[A-Za-z(`][^\n#:'\"{}\[\]]*[^\s#:'\"{}\[\]]|[A-Za-z]")
_RESOLVED = re.compile(r"(?i)y|yes|n|no|true|false|on|off|null|[0-9eE._:+-]+")


def _yaml_string(text: str) -> str:
    """``text`` as a one-line YAML scalar: plain when YAML reads it back as this string,
    else double-quoted (a JSON string is a valid YAML double-quoted scalar)."""
    if _PLAIN.fullmatch(text) and not _RESOLVED.fullmatch(text):
        return text
    return json.dumps(text, ensure_ascii=False)


def scaffold_rule(rule_id: str, category: str, title: str) -> str:
    """A new rule file: the given fields set, every other required field a TODO the schema
    rejects (``$defs/text``), so ``validate`` fails until each is written."""
    return f"""\
# yaml-language-server: $schema=../schema/rule.schema.json
id: {rule_id}
title: {_yaml_string(title)}
category: {category}
status: active
since: next
tags: []
related: []
statement: |-
  TODO: the rule, as an imperative statement (Markdown).
seed_example: |-
  TODO: a short example of the contract, in words or a fenced code block.
rationale: |-
  TODO: why the rule exists: the failure it prevents, in one to three sentences.
triggers:
  - |-
    TODO: a concrete condition a reviewer can spot in a diff.
impact: |-
  TODO: what goes wrong when the rule is broken.
correction: |-
  TODO: what to do instead.
examples:
  - name: first-case
    kind: bad
    title: "TODO: one line saying what goes wrong"
    explanation: |-
      TODO: the triggering condition in this code.
    code: |
      TODO: a complete Python program (standard library only) that shows the defect happening;
      mark the lines that break the rule with a '# {rule_id}: why' comment and
      follow each print with its output as '#> ' comment lines.
  - name: first-case
    kind: good
    title: "TODO: one line saying what the correction does"
    explanation: |-
      TODO: the correction applied to the same scenario.
    code: |
      TODO: the same program with only the correction applied, marked with '# {rule_id}: why';
      its printed output as '#> ' lines.
"""


# --- changelog ---------------------------------------------------------------------------


def _link(rule_id: str, title: str) -> str:
    escaped = title.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
    return f"[{rule_id} — {escaped}](rules/{rule_id}.md)"


def changelog_markdown(history: History) -> str:
    """The site's changelog page (at the site root, next to ``rules/``): every release, newest
    first, with the rules it added, changed, deprecated and retired, each linking to its page."""
    lines = [
        "# Changelog",
        "",
        "Every release of the library, newest first. Rule ids are stable: a released id is never "
        "reused or removed; a rule that no longer applies is retired and keeps its page.",
        "",
    ]
    if not history.releases:
        lines.extend(["No release yet.", ""])
    previous: Library | None = None
    sections: list[list[str]] = []
    for release in history.releases:
        section = [f"## {release.version}", ""]
        if previous is None:
            count = len(release.library.rules)
            section.extend([f"First release: {count} rule{'s' if count != 1 else ''}.", ""])
            diff = compare(replace(release.library, rules=()), release.library)
        else:
            diff = compare(previous, release.library)
            bump = diff.required_bump
            summary = (
                f"A {bump} release after {previous.version}."
                if bump is not Bump.NONE
                else f"No changes since {previous.version}."
            )
            section.extend([summary, ""])
        section.extend(_diff_lines(diff, heading="###", links=True))
        sections.append(section)
        previous = release.library
    for section in reversed(sections):
        lines.extend(section)
    return "\n".join(lines).rstrip("\n") + "\n"


_SECTION_TITLES = {
    ChangeKind.ADDED: "Added",
    ChangeKind.CHANGED: "Changed",
    ChangeKind.DEPRECATED: "Deprecated",
    ChangeKind.RETIRED: "Retired",
    ChangeKind.REACTIVATED: "Reactivated",
    ChangeKind.REMOVED: "Removed (not allowed: retire instead)",
}


def _diff_lines(diff: LibraryDiff, heading: str, links: bool) -> list[str]:
    lines: list[str] = []
    for kind, section_title in _SECTION_TITLES.items():
        changes = diff.of_kind(kind)
        if not changes:
            continue
        lines.extend([f"{heading} {section_title}", ""])
        for change in changes:
            name = (
                _link(change.rule_id, change.title)
                if links and kind is not ChangeKind.REMOVED
                else f"{change.rule_id} — {change.title}"
            )
            detail = ""
            if change.replaced_by is not None:
                detail = f" (replaced by {change.replaced_by})"
            elif change.retired_reason is not None:
                detail = f": {change.retired_reason.splitlines()[0]}"
            if change.fields and kind is not ChangeKind.ADDED:
                detail += f" — changed: {', '.join(change.fields)}"
            lines.append(f"- {name}{detail}")
        lines.append("")
    if diff.library:
        lines.extend([f"{heading} Library", ""])
        lines.extend(f"- {change.field}: {change.reason}" for change in diff.library)
        lines.append("")
    return lines


def diff_markdown(diff: LibraryDiff) -> str:
    """``rlt-rules diff``'s Markdown: each kind of change, and the release it requires."""
    lines = [
        f"# Changes from {diff.old_version} to {diff.new_version}",
        "",
    ]
    required = diff.required_bump
    if required is Bump.NONE:
        lines.extend(["No changes.", ""])
    else:
        lines.extend([f"Requires at least a {required} release.", ""])
    lines.extend(_diff_lines(diff, heading="##", links=False))
    return "\n".join(lines).rstrip("\n") + "\n"
