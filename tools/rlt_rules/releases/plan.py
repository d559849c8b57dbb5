"""Planning a release (what it will write, or why it is refused) and writing it."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

from ..files.atomic import write_atomic
from ..library.bundle import render
from ..library.model import Library, Rule
from ..library.validate import LIBRARY_FILE
from .history import History, Release, release_path
from .policy import LibraryDiff, compare
from .versions import NEXT, Bump, Version, bump_between


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
