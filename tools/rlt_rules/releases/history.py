"""The release history beside a rules folder: ``releases/<version>.json``, each a bundle.

A rules directory without a ``releases/`` folder (or with no ``*.json`` directly in it) has no
history. Only ``releases/*.json`` counts: sub-folders and other files are ignored. Reading
checks that every release file loads as a bundle, is named ``<its library version>.json``, and
keeps every id of the releases before it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from dataclasses import field as dataclass_field
from pathlib import Path

from ..library.bundle_load import read_bundle
from ..library.load import line_column
from ..library.model import Diagnostic, Library, LibraryError, Rule
from .versions import Version, version_key

RELEASES_DIR = "releases"
RULE_ID = re.compile(r"^R([0-9]{2,})$")


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
    releases.sort(key=lambda release: version_key(release.version))
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
