"""Validate the files of a rules directory, each and across records, and build the model.

Order: load every file (positions kept) -> schema-check each document with one compiled
Draft 2020-12 validator per schema -> cross-record checks (:func:`check_records`). The checks
against the release history and the decision to build the :class:`Library`
(:func:`build_library`) are the project check's: :mod:`rlt_rules.project.check`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .detector_checks import detector_diagnostics
from .detector_cost import cost_diagnostics
from .load import Document, JsonPath, LoadResult, load_yaml, parse_yaml, read_source
from .model import Diagnostic, Library, Rule, SourceRef
from .pairs import MarkerCache, pair_diagnostics
from .record_checks import Record, Records, record_diagnostics
from .schema_errors import schema_diagnostics
from .text_links import link_diagnostics

LIBRARY_FILE = "library.yaml"


@dataclass(frozen=True, slots=True)
class RecordCheck:
    """Explicit outcome of checking a rules directory's files, each and across records.

    ``rule_files`` is every ``*.yaml`` beside ``library.yaml``, listed once for every check
    that needs them. ``rule_docs`` are the rule files that loaded (those with schema errors
    included when they have an id, so the cross-record checks still see them);
    ``library_doc`` is ``library.yaml`` when it loaded and matches its schema.
    """

    root: Path
    shown_root: str
    library_doc: Document | None
    rule_docs: tuple[Document, ...]
    rule_files: tuple[Path, ...]
    diagnostics: tuple[Diagnostic, ...]
    files_checked: int

    def shown(self, path: Path) -> str:
        """How diagnostics name ``path``, a file of the directory."""
        return f"{self.shown_root.rstrip('/')}/{path.name}"


class DocumentCache:
    """Files already parsed and schema-checked, by their bytes.

    For a process that validates the same directory again and again (the site's live
    preview): a file whose bytes did not change is not parsed or checked again. The documents
    and diagnostics are the ones a fresh load gives; the cross-record and release checks
    always run. Entries for files not seen by the latest validation are dropped.

    ``markers`` holds the examples' markers the pair checks read; whoever else reads them
    (the site's rule pages) can share it, so that each example is tokenized once. What is
    computed from one document alone (its detector and pair checks, its :class:`Rule`) is
    kept with it (:meth:`remember`).
    """

    def __init__(self) -> None:
        self._entries: dict[tuple[str, str, bytes], tuple[LoadResult, list[Diagnostic]]] = {}
        self._seen: set[tuple[str, str, bytes]] = set()
        #: By id of a document held in an entry: the document and what was computed from it.
        self._derived: dict[int, tuple[Document, dict[str, Any]]] = {}
        self.markers = MarkerCache()

    def load(self, path: Path, shown: str, schema_name: str) -> tuple[LoadResult, list[Diagnostic]]:
        read = read_source(path, shown)
        if read.raw is None:
            return LoadResult(None, read.diagnostics), []
        key = (shown, schema_name, read.raw)
        self._seen.add(key)
        if key not in self._entries:
            self._entries[key] = _parse_and_check(read.raw, shown, schema_name)
        return self._entries[key]

    def remember[T](self, document: Document, name: str, make: Callable[[Document], T]) -> T:
        """``make(document)``, computed once for as long as the document's file is unchanged
        (``make`` must depend on the document alone)."""
        slot = self._derived.get(id(document))
        if slot is None or slot[0] is not document:
            slot = self._derived[id(document)] = (document, {})
        values = slot[1]
        if name not in values:
            values[name] = make(document)
        return values[name]

    def forget_unseen(self) -> None:
        """Drop the files the validation that just ended did not read (and the markers of
        code not read since the validation before)."""
        self._entries = {key: self._entries[key] for key in self._seen if key in self._entries}
        self._seen = set()
        held = {id(loaded.document) for loaded, _ in self._entries.values()}
        self._derived = {key: slot for key, slot in self._derived.items() if key in held}
        self.markers.next_generation()


def _parse_and_check(
    raw: bytes, shown: str, schema_name: str
) -> tuple[LoadResult, list[Diagnostic]]:
    loaded = parse_yaml(raw, shown)
    if loaded.document is None:
        return loaded, []
    return loaded, schema_diagnostics(loaded.document, schema_name)


def _load_and_check(
    path: Path, shown: str, schema_name: str, cache: DocumentCache | None
) -> tuple[LoadResult, list[Diagnostic]]:
    """The file's load result and, when it loaded, its schema diagnostics."""
    if cache is not None:
        return cache.load(path, shown, schema_name)
    loaded = load_yaml(path, shown)
    if loaded.document is None:
        return loaded, []
    return loaded, schema_diagnostics(loaded.document, schema_name)


def _file_problems(document: Document) -> tuple[Diagnostic, ...]:
    """What one schema-valid rule file alone can get wrong beyond its schema: its detectors,
    and links in its text that would point nowhere (:mod:`rlt_rules.library.text_links`)."""
    return (*detector_diagnostics(document), *link_diagnostics(document))


def check_records(
    root: Path,
    display_root: str | None = None,
    cache: DocumentCache | None = None,
    *,
    measure_cost: bool = False,
) -> RecordCheck:
    """Check the files of ``root`` (``library.yaml`` and one ``<id>.yaml`` per rule);
    ``measure_cost`` also measures each detector's cost (:mod:`rlt_rules.library.detector_cost`: a
    second or two, in a worker process) and rejects a costly one."""
    shown_root = display_root if display_root is not None else str(root)

    def shown(path: Path) -> str:
        return f"{shown_root.rstrip('/')}/{path.name}"

    diagnostics: list[Diagnostic] = []
    library_path = root / LIBRARY_FILE
    library_doc: Document | None = None
    if not library_path.is_file():
        diagnostics.append(
            Diagnostic(
                shown(library_path),
                1,
                1,
                "missing library.yaml: the library's title, "
                "version, preamble and categories belong there (see schema/)",
            )
        )
    else:
        loaded, schema_errors = _load_and_check(
            library_path, shown(library_path), "library.schema.json", cache
        )
        diagnostics.extend(loaded.diagnostics)
        if loaded.document is not None:
            diagnostics.extend(schema_errors)
            if not schema_errors:
                library_doc = loaded.document
                diagnostics.extend(link_diagnostics(library_doc))

    rule_paths = sorted(p for p in root.glob("*.yaml") if p.name != LIBRARY_FILE)
    rule_docs: list[Document] = []
    resolved_root = root.resolve()
    for path in rule_paths:
        # Only a link needs resolving (one system call per file, not two resolves).
        if path.is_symlink():
            target = path.resolve()
            outside = not target.is_relative_to(resolved_root)
        else:
            target, outside = resolved_root / path.name, False
        if outside or not target.is_file():
            where = (
                f"a link to {target}, outside the rules directory"
                if outside
                else "not a regular file (a folder, FIFO, device or broken link)"
            )
            message = f"{path.name} is {where}: rule files must be regular files in it"
            diagnostics.append(Diagnostic(shown(path), 1, 1, message))
            continue
        loaded, schema_errors = _load_and_check(path, shown(path), "rule.schema.json", cache)
        diagnostics.extend(loaded.diagnostics)
        if loaded.document is None:
            continue
        diagnostics.extend(schema_errors)
        if not schema_errors:
            # A function of the file alone: a live preview checks only the changed files'.
            if cache is not None:
                found = cache.remember(loaded.document, "file", _file_problems)
            else:
                found = _file_problems(loaded.document)
            diagnostics.extend(found)
            rule_docs.append(loaded.document)
        elif isinstance(loaded.document.data.get("id"), str):
            # Keep a partial record for the cross-record checks, so one run reports them too.
            rule_docs.append(loaded.document)

    loaded_paths = {doc.path for doc in rule_docs}
    unloaded_stems = {p.stem for p in rule_paths if shown(p) not in loaded_paths}
    all_stems = {p.stem for p in rule_paths}
    diagnostics.extend(
        _cross_record_diagnostics(
            library_doc, rule_docs, all_stems, some_files_unloaded=bool(unloaded_stems)
        )
    )
    if cache is None:
        for doc in rule_docs:
            diagnostics.extend(pair_diagnostics(doc))
    else:
        find_markers = cache.markers.markers
        for doc in rule_docs:
            diagnostics.extend(
                cache.remember(doc, "pairs", lambda doc: pair_diagnostics(doc, find_markers))
            )
    if measure_cost:
        # Only files with no problem: their detectors compile (a broken one cannot be timed).
        sound = [doc for doc in rule_docs if not _has_errors(doc, diagnostics)]
        diagnostics.extend(cost_diagnostics(sound))
    if cache is not None:
        cache.forget_unseen()
    files_checked = len(rule_paths) + (1 if library_path.is_file() else 0)
    return RecordCheck(
        root,
        shown_root,
        library_doc,
        tuple(rule_docs),
        tuple(rule_paths),
        tuple(diagnostics),
        files_checked,
    )


def _has_errors(doc: Document, diagnostics: list[Diagnostic]) -> bool:
    return any(diagnostic.path == doc.path for diagnostic in diagnostics)


# --- cross-record checks -----------------------------------------------------------------


def _cross_record_diagnostics(
    library_doc: Document | None,
    rule_docs: list[Document],
    file_stems: set[str],
    *,
    some_files_unloaded: bool,
) -> list[Diagnostic]:
    """The checks of :data:`~rlt_rules.library.record_checks.CHECKS` over the folder's documents.
    Every rule file's name counts as an existing id, and a file that failed to load silences
    the empty-category check: its own errors are already reported, and one mistake should not
    cascade into several."""
    records = Records(
        library=_record(library_doc, file_stem=None) if library_doc is not None else None,
        rules=tuple(_record(doc, file_stem=Path(doc.path).stem) for doc in rule_docs),
        known_ids=frozenset(file_stems),
        complete=not some_files_unloaded,
    )
    return record_diagnostics(records)


def _record(doc: Document, *, file_stem: str | None) -> Record:
    def at(path: JsonPath, message: str, rule_id: str | None = None) -> Diagnostic:
        position = doc.value_position(path)
        return Diagnostic(doc.path, position.line, position.column, message, rule_id)

    return Record(doc.data, at, doc.path, file_stem)


# --- model -------------------------------------------------------------------------------


def build_library(
    library_doc: Document, rule_docs: tuple[Document, ...], cache: DocumentCache | None = None
) -> Library:
    """The typed library of documents that passed every check (each rule built once for as
    long as its file is unchanged, given the ``cache`` it was checked with)."""
    if cache is None:
        rules = tuple(_rule_from(doc) for doc in rule_docs)
    else:
        rules = tuple(cache.remember(doc, "rule", _rule_from) for doc in rule_docs)
    return Library.from_dicts(library_doc.data, rules, SourceRef(library_doc.path, 1))


def _rule_from(doc: Document) -> Rule:
    return Rule.from_dict(
        doc.data,
        SourceRef(doc.path, 1),
        _code_sources(doc, "examples"),
        _code_sources(doc, "practice"),
    )


def _code_sources(doc: Document, key: str) -> tuple[SourceRef, ...]:
    """Where the code of each entry of the list ``key`` (``examples``, ``practice``) starts."""
    return tuple(
        SourceRef(
            doc.path,
            doc.block_starts.get((key, i, "code"), doc.value_position((key, i, "code")).line),
        )
        for i in range(len(doc.data.get(key, [])))
    )
