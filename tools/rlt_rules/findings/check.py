"""Check a findings file (YAML or JSON) against its schema, the library and, optionally, the repo.

Order: load with positions (:func:`rlt_rules.load.load_yaml`; libyaml reads JSON too) ->
schema (:func:`rlt_rules.schema_errors.schema_diagnostics`, same messages as ``validate``) -> the
library (unknown, retired and deprecated rules; the cited version) -> the reviewed files when a
repository is given (paths, line ranges, columns, whether a suggested patch applies) -> the
change under review when its diff is given (each location among the lines it touches). Every
problem is a :class:`Diagnostic` at its ``path:line:column`` in the findings file; warnings do
not stop the review from being built.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..load import Document, JsonPath, Position, load_yaml
from ..model import Diagnostic, Library, Severity, Status, id_span
from ..schema_errors import schema_diagnostics
from .diff import Change, LineRange
from .model import FindingsError, Review
from .patch import Patch, PatchError, PatchOp, parse_patch

SCHEMA_NAME = "findings.schema.json"
TEXT_FIELDS = ("trigger", "impact", "correction")


@dataclass(frozen=True, slots=True)
class CheckResult:
    """Explicit outcome: the review when there are no errors, and every diagnostic in file order."""

    review: Review | None
    diagnostics: tuple[Diagnostic, ...]

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity is Severity.ERROR)

    @property
    def warnings(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity is Severity.WARNING)


def load_review(
    path: Path,
    library: Library,
    repo: Path | None = None,
    display_path: str | None = None,
    change: Change | None = None,
) -> tuple[Review, tuple[Diagnostic, ...]]:
    """The checked review and its warnings; raise :class:`FindingsError` when there are errors."""
    result = check_review(path, library, repo, display_path, change)
    if result.review is None:
        raise FindingsError(result.errors)
    return result.review, result.warnings


def check_review(
    path: Path,
    library: Library,
    repo: Path | None = None,
    display_path: str | None = None,
    change: Change | None = None,
) -> CheckResult:
    """Check the findings file ``path``; ``repo`` is the reviewed repository's root, if known,
    and ``change`` the diff under review (each location must meet one of its hunks)."""
    loaded = load_yaml(path, display_path)
    if loaded.document is None:
        return CheckResult(None, loaded.diagnostics)
    document = loaded.document
    schema_errors = schema_diagnostics(document, SCHEMA_NAME)
    if schema_errors:
        return CheckResult(None, tuple(schema_errors))
    found = list(_library_diagnostics(document, library))
    files = _RepoFiles(repo) if repo is not None else None
    for index, finding in enumerate(document.data["findings"]):
        found.extend(_finding_diagnostics(document, index, finding, files))
        if change is not None:
            found.extend(_change_diagnostics(document, index, finding, change))
    found.sort(key=lambda d: (d.line, d.column))
    if any(d.severity is Severity.ERROR for d in found):
        return CheckResult(None, tuple(found))
    return CheckResult(Review.from_dict(document.data), tuple(found))


def _at(
    document: Document,
    path: JsonPath,
    message: str,
    rule_id: str | None = None,
    severity: Severity = Severity.ERROR,
    position: Position | None = None,
) -> Diagnostic:
    where = position or document.value_position(path)
    return Diagnostic(document.path, where.line, where.column, message, rule_id, severity)


def _library_diagnostics(document: Document, library: Library):
    cited = document.data["library_version"]
    if cited != library.version:
        yield _at(
            document,
            ("library_version",),
            f"the review cites library version {cited}, but the library is {library.version}: "
            "check each finding against the current rules and update library_version",
            severity=Severity.WARNING,
        )
    known = {rule.id: rule for rule in library.rules}
    for index, finding in enumerate(document.data["findings"]):
        rule_id = finding["rule"]
        where = ("findings", index, "rule")
        rule = known.get(rule_id)
        if rule is None:
            span = id_span(known, listed_up_to=5)
            yield _at(
                document,
                where,
                f"unknown rule '{rule_id}': library {library.version} has rules {span}",
                rule_id,
            )
        elif rule.status is Status.RETIRED:
            yield _at(
                document,
                where,
                f"rule {rule_id} is retired ({(rule.retired_reason or '').strip().rstrip('.')}): "
                "cite a current rule or drop the finding",
                rule_id,
            )
        elif rule.status is Status.DEPRECATED:
            replacement = rule.replaced_by or ""
            title = known[replacement].title if replacement in known else ""
            yield _at(
                document,
                where,
                f"rule {rule_id} is deprecated: cite {replacement}"
                + (f" ({title})" if title else "")
                + ", which replaces it",
                rule_id,
                Severity.WARNING,
            )


def _finding_diagnostics(
    document: Document, index: int, finding: dict[str, Any], files: _RepoFiles | None
):
    rule_id = finding["rule"]
    base: JsonPath = ("findings", index)
    for name in TEXT_FIELDS:
        if not finding[name].strip():
            yield _at(
                document, (*base, name), f"findings[{index}].{name} is blank: write it", rule_id
            )

    location = finding["location"]
    where: JsonPath = (*base, "location")
    fractional = [key for key in ("start_line", "end_line", "column") if _is_float(location, key)]
    for key in fractional:
        yield _at(
            document,
            (*where, key),
            f"findings[{index}].location.{key} must be an integer, got {location[key]!r}: "
            "write it without a decimal point",
            rule_id,
        )
    if fractional:
        return
    start, end = location["start_line"], location["end_line"]
    if start > end:
        yield _at(
            document,
            (*where, "start_line"),
            f"findings[{index}].location.start_line {start} is after end_line {end}: "
            "a location is an inclusive range, start_line <= end_line",
            rule_id,
        )
    lines: tuple[str, ...] | None = None
    if files is not None:
        lines, problem = files.lines(location["path"])
        if problem is not None:
            yield _at(document, (*where, "path"), f"findings[{index}].location.{problem}", rule_id)
        elif start <= end:
            assert lines is not None
            yield from _range_diagnostics(document, index, location, lines, rule_id)

    patch_text = finding.get("suggested_patch")
    if patch_text is not None:
        yield from _patch_diagnostics(document, index, patch_text, location["path"], lines, rule_id)


def _change_diagnostics(document: Document, index: int, finding: dict[str, Any], change: Change):
    """A finding points at lines the change touches: a file of the diff, inside one of its
    hunks (the ranges ``review-context`` lists)."""
    location = finding["location"]
    where: JsonPath = ("findings", index, "location")
    shown = f"findings[{index}].location"
    changed = change.file(location["path"])
    if changed is None:
        listed = ", ".join(f"'{other.path}'" for other in change.files[:5])
        more = f" and {len(change.files) - 5} more" if len(change.files) > 5 else ""
        yield _at(
            document,
            (*where, "path"),
            f"{shown}.path '{location['path']}' is not in the change under review, which "
            f"changes {listed}{more}",
            finding["rule"],
        )
        return
    start, end = location["start_line"], location["end_line"]
    if isinstance(start, float) or isinstance(end, float) or start > end:
        return  # reported above
    if not changed.covers(start, end):
        ranges = ", ".join(hunk.lines.label() for hunk in changed.hunks) or "none"
        yield _at(
            document,
            (*where, "start_line"),
            f"{shown}: {LineRange(start, end).label()} of {location['path']}: outside the "
            f"change under review, whose hunks there are {ranges}",
            finding["rule"],
        )


def _is_float(mapping: dict[str, Any], key: str) -> bool:
    """JSON Schema counts 3.0 as an integer; a line number must be written as one."""
    return isinstance(mapping.get(key), float)


def _range_diagnostics(
    document: Document,
    index: int,
    location: dict[str, Any],
    lines: tuple[str, ...],
    rule_id: str,
):
    where: JsonPath = ("findings", index, "location")
    shown = f"findings[{index}].location"
    count = len(lines)
    for key in ("start_line", "end_line"):
        if location[key] > count:
            yield _at(
                document,
                (*where, key),
                f"{shown}.{key} {location[key]} is beyond the end of {location['path']} "
                f"({count} lines)",
                rule_id,
            )
            return
    column = location.get("column")
    if column is not None:
        text = lines[location["start_line"] - 1]
        if column > len(text) + 1:
            yield _at(
                document,
                (*where, "column"),
                f"{shown}.column {column} is beyond the end of line {location['start_line']} "
                f"of {location['path']} ({len(text)} characters)",
                rule_id,
            )


def _patch_position(document: Document, path: JsonPath, text: str, line_index: int) -> Position:
    """Where line ``line_index`` of a ``|`` block scalar was written; else the value's start."""
    first = document.block_starts.get(path)
    if first is None:
        return document.value_position(path)
    leading = len(text) - len(text.lstrip("\n"))
    return Position(first - leading + line_index, document.value_position(path).column)


def _patch_diagnostics(
    document: Document,
    index: int,
    text: str,
    location_path: str,
    lines: tuple[str, ...] | None,
    rule_id: str,
):
    path: JsonPath = ("findings", index, "suggested_patch")
    shown = f"findings[{index}].suggested_patch"

    def at_line(line_index: int, message: str) -> Diagnostic:
        position = _patch_position(document, path, text, line_index)
        return _at(document, path, f"{shown}: {message}", rule_id, position=position)

    try:
        patch = parse_patch(text)
    except PatchError as error:
        yield at_line(error.index, error.message)
        return
    if patch.path != location_path or patch.old_path != location_path:
        yield at_line(
            0,
            f"the patch changes '{patch.path}', not the location's file '{location_path}'",
        )
        return
    if lines is not None:
        yield from _apply_diagnostics(patch, lines, location_path, at_line)


def _apply_diagnostics(patch: Patch, lines: tuple[str, ...], file_path: str, at_line):
    """Whether each hunk's context and removed lines are the file's lines where it says."""
    for hunk in patch.hunks:
        line_number = hunk.old_start if hunk.old_count else hunk.old_start + 1
        last = hunk.old_start + hunk.old_count - 1 if hunk.old_count else hunk.old_start
        if last > len(lines):
            yield at_line(
                hunk.index,
                f"the hunk reaches line {last}, beyond the end of {file_path} ({len(lines)} lines)",
            )
            return
        for patch_line in hunk.lines:
            if patch_line.op is PatchOp.ADDED:
                continue
            actual = lines[line_number - 1]
            if actual != patch_line.text:
                yield at_line(
                    patch_line.index,
                    f"does not apply: line {line_number} of {file_path} is {actual!r}, "
                    f"the patch expects {patch_line.text!r}",
                )
                return
            line_number += 1


class _RepoFiles:
    """The reviewed repository's text files, read once each, confined to the repository."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._cache: dict[str, tuple[tuple[str, ...] | None, str | None]] = {}

    def lines(self, relative: str) -> tuple[tuple[str, ...] | None, str | None]:
        """The file's lines (without line ends), or ``None`` and what is wrong with the path."""
        if relative not in self._cache:
            self._cache[relative] = self._read(relative)
        return self._cache[relative]

    def _read(self, relative: str) -> tuple[tuple[str, ...] | None, str | None]:
        target = (self.root / relative).resolve()
        if not target.is_relative_to(self.root):
            return None, f"path '{relative}' leads outside the repository"
        if not target.exists():
            return None, f"path '{relative}' does not exist in the repository"
        if not target.is_file():
            return None, f"path '{relative}' is not a file"
        try:
            raw = target.read_bytes()
        except OSError as error:
            return None, f"path '{relative}' cannot be read: {error.strerror or error}"
        if b"\0" in raw:
            return None, f"path '{relative}' is a binary file: findings point at text"
        text = raw.decode("utf-8", errors="replace")
        parts = text.split("\n")
        if parts[-1] == "":
            parts.pop()
        return tuple(part.removesuffix("\r") for part in parts), None
