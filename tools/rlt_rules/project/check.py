"""The one project check: a rules folder's files, each and across records, and its release
history, checked in one pass into one :class:`ProjectCheck`.

The command line, the site, findings and the exports all start from a :class:`ProjectCheck`;
:func:`load_library` is the short way to the typed library when only that is wanted.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace
from pathlib import Path

from ..library.model import Diagnostic, Library, LibraryError
from ..library.validate import DocumentCache, build_library, check_records
from ..releases import History, release_diagnostics

#: The rules folder when none is named: ``rules/`` (beside ``mkdocs.yml`` for the site).
DEFAULT_RULES_DIR = "rules"


@dataclass(frozen=True, slots=True)
class ProjectCheck:
    """Explicit outcome of checking a rules folder.

    ``library`` is the typed library when no check found a problem, else None.
    ``history`` is the release history the rules were checked against (empty without
    ``releases/``), or None when it could not be read. ``diagnostics`` holds every problem, by
    path, line and column; ``files_checked`` counts ``library.yaml`` and the rule files.
    ``rules_dir`` is the folder, resolved.
    """

    rules_dir: Path
    library: Library | None
    history: History | None
    diagnostics: tuple[Diagnostic, ...]
    files_checked: int

    @property
    def ok(self) -> bool:
        return self.library is not None and self.history is not None


def check_project(
    rules_dir: str | Path,
    display_root: str | None = None,
    cache: DocumentCache | None = None,
    *,
    measure_cost: bool = False,
) -> ProjectCheck:
    """Check ``rules_dir``; ``display_root`` is how diagnostics name it (default: as given);
    ``measure_cost`` also rejects a detector too costly to scan with (what ``validate`` does).

    ``cache`` keeps unchanged files from being parsed and schema-checked again (see
    :class:`~rlt_rules.library.validate.DocumentCache`).
    """
    root = Path(rules_dir)
    records = check_records(root, display_root, cache, measure_cost=measure_cost)
    checked = release_diagnostics(records)
    diagnostics = sorted(
        (*records.diagnostics, *checked.diagnostics), key=lambda d: (d.path, d.line, d.column)
    )
    library = None
    if not diagnostics and records.library_doc is not None:
        library = build_library(records.library_doc, records.rule_docs, cache)
    return ProjectCheck(
        root.resolve(), library, checked.history, tuple(diagnostics), records.files_checked
    )


def load_validated(rules_dir: str | Path, cache: DocumentCache | None = None) -> ProjectCheck:
    """The check of a valid project (library and history set); raise :class:`LibraryError`
    with every diagnostic otherwise."""
    checked = check_project(rules_dir, cache=cache)
    if not checked.ok:
        raise LibraryError(checked.diagnostics)
    return checked


def load_library(rules_dir: str | Path, cache: DocumentCache | None = None) -> Library:
    """Load and validate a rules folder; raise :class:`LibraryError` with every diagnostic."""
    library = load_validated(rules_dir, cache).library
    assert library is not None  # load_validated raised otherwise
    return library


def filter_for_files(checked: ProjectCheck, names: Collection[str]) -> ProjectCheck:
    """The check of some files of the folder only (``validate rules/R03.yaml``): their
    diagnostics, and as many files checked as were named."""
    kept = tuple(d for d in checked.diagnostics if Path(d.path).name in names)
    return replace(checked, diagnostics=kept, files_checked=len(names))
