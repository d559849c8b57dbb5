"""Check a findings file (YAML or JSON) against its schema, the library and, optionally, the repo.

Order: load with positions (:func:`rlt_rules.library.load.parse_yaml`; libyaml reads JSON
too; a syntax error says how agents' answers usually go wrong and what to do:
:mod:`.syntax_hints`) -> schema (:func:`rlt_rules.library.schema_errors.schema_problems`, same
messages as ``validate``) -> the library (unknown, retired and deprecated rules; the cited
version) -> the reviewed files when a repository is given (read by :mod:`.repo_files`: paths,
line ranges, columns, whether a suggested patch applies) -> the change under review when its
diff is given (each location among the lines it touches). Every check after the schema runs on
each part the schema accepted, so one run reports every problem.
Every problem is a :class:`Diagnostic` at its ``path:line:column`` in the findings file;
warnings do not stop the review from being built.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..library.load import Document, JsonPath, Position, parse_yaml, read_source
from ..library.model import Diagnostic, Library, Severity, Status, id_span
from ..library.schema_errors import SchemaProblem, schema_problems
from .cites import trigger_anchor_diagnostics
from .diff import Change, LineRange
from .model import FindingsError, Review
from .patch import Patch, PatchError, PatchOp, parse_patch
from .repo_files import RepoFiles
from .syntax_hints import with_hint

SCHEMA_NAME = "findings.schema.json"
TEXT_FIELDS = ("trigger", "impact", "correction")
#: What ``findings check --diff`` says of findings on context lines alone (accepted).
CONTEXT_NOTE = (
    "on context lines only (unchanged lines a hunk shows around the change), no line the change "
    "adds: accepted, as context lines count as part of the change's surroundings"
)


@dataclass(frozen=True, slots=True)
class CheckResult:
    """Explicit outcome: the review when there are no errors, every diagnostic in file order,
    and (checked against a change) the findings that touch only its context lines: unchanged
    lines a hunk shows, accepted as part of the change's surroundings."""

    review: Review | None
    diagnostics: tuple[Diagnostic, ...]
    context_only: tuple[str, ...] = ()

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
    shown = display_path if display_path is not None else str(path)
    read = read_source(path, shown)
    if read.raw is None:
        return CheckResult(None, read.diagnostics)
    return check_answer(read.raw, shown, library, repo, change)


def check_answer(
    raw: bytes,
    shown: str,
    library: Library,
    repo: Path | None = None,
    change: Change | None = None,
) -> CheckResult:
    """:func:`check_review` of a findings document given as bytes (an agent's answer), which
    diagnostics call ``shown``."""
    loaded = parse_yaml(raw, shown)
    if loaded.document is None:
        return CheckResult(None, tuple(with_hint(d, raw) for d in loaded.diagnostics))
    document = loaded.document
    problems = schema_problems(document, SCHEMA_NAME)
    accepted = _Accepted(tuple(problems))
    found = [problem.diagnostic for problem in problems]
    version = document.data.get("library_version")
    if accepted.part(("library_version",)):
        found.extend(_version_diagnostics(document, version, library))
    findings = document.data.get("findings")
    files = RepoFiles(repo) if repo is not None else None
    for index, finding in enumerate(findings if isinstance(findings, list) else ()):
        if isinstance(finding, dict):
            found.extend(
                _finding_checks(document, index, finding, library, files, change, accepted)
            )
    found.sort(key=lambda d: (d.line, d.column))
    if any(d.severity is Severity.ERROR for d in found):
        return CheckResult(None, tuple(found))
    review = Review.from_dict(document.data)
    return CheckResult(review, tuple(found), _context_only(review, change))


def _context_only(review: Review, change: Change | None) -> tuple[str, ...]:
    """Each finding on a hunk's context lines alone, as ``findings[0] (path, lines 3–4)``."""
    found = []
    for index, finding in enumerate(review.findings if change is not None else ()):
        where = finding.location
        changed = change.file(where.path) if change is not None else None
        if changed is not None and not changed.adds_within(where.start_line, where.end_line):
            found.append(f"findings[{index}] ({where.path}, {where.lines_label()})")
    return tuple(found)


@dataclass(frozen=True, slots=True)
class _Accepted:
    """Which parts of the document the schema accepted: a part is checked further only when no
    schema error concerns it, a part of it or a mapping holding it (an unknown key aside)."""

    problems: tuple[SchemaProblem, ...]

    def part(self, path: JsonPath) -> bool:
        for problem in self.problems:
            if problem.unknown_field:
                continue
            concerns = problem.concerns
            shorter = min(len(concerns), len(path))
            if concerns[:shorter] == path[:shorter]:
                return False
        return True


def _finding_checks(
    document: Document,
    index: int,
    finding: dict[str, Any],
    library: Library,
    files: RepoFiles | None,
    change: Change | None,
    accepted: _Accepted,
):
    """Every check of one finding on the parts the schema accepted."""
    base: JsonPath = ("findings", index)
    rule_id = finding.get("rule") if isinstance(finding.get("rule"), str) else None
    if "rule" in finding and accepted.part((*base, "rule")):
        yield from _rule_diagnostics(document, index, finding["rule"], library)
        yield from trigger_anchor_diagnostics(document, index, finding, library, accepted.part)
    for name in TEXT_FIELDS:
        if accepted.part((*base, name)) and not finding[name].strip():
            yield _at(
                document, (*base, name), f"findings[{index}].{name} is blank: write it", rule_id
            )
    location_ok = accepted.part((*base, "location"))
    lines: tuple[str, ...] | None = None
    if location_ok:
        lines, found = _location_diagnostics(document, index, finding["location"], files, rule_id)
        yield from found
        if change is not None:
            yield from _change_diagnostics(document, index, finding["location"], change, rule_id)
    patch_text = finding.get("suggested_patch")
    if patch_text is not None and location_ok and accepted.part((*base, "suggested_patch")):
        path = finding["location"]["path"]
        yield from _patch_diagnostics(document, index, patch_text, path, lines, rule_id)


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


def _version_diagnostics(document: Document, cited: str, library: Library):
    if cited != library.version:
        yield _at(
            document,
            ("library_version",),
            f"the review cites library version {cited}, but the library is {library.version}: "
            "check each finding against the current rules and update library_version",
            severity=Severity.WARNING,
        )


def _rule_diagnostics(document: Document, index: int, rule_id: str, library: Library):
    where = ("findings", index, "rule")
    try:
        rule = library.rule(rule_id)
    except KeyError:
        span = id_span([rule.id for rule in library.rules], listed_up_to=5)
        yield _at(
            document,
            where,
            f"unknown rule '{rule_id}': library {library.version} has rules {span}",
            rule_id,
        )
        return
    if rule.status is Status.RETIRED:
        yield _at(
            document,
            where,
            f"rule {rule_id} is retired ({(rule.retired_reason or '').strip().rstrip('.')}): "
            "cite a current rule or drop the finding",
            rule_id,
        )
    elif rule.status is Status.DEPRECATED:
        replacement = rule.replaced_by or ""
        title = ""
        if replacement:
            try:
                title = library.rule(replacement).title
            except KeyError:
                title = ""
        yield _at(
            document,
            where,
            f"rule {rule_id} is deprecated: cite {replacement}"
            + (f" ({title})" if title else "")
            + ", which replaces it",
            rule_id,
            Severity.WARNING,
        )


def _location_diagnostics(
    document: Document,
    index: int,
    location: dict[str, Any],
    files: RepoFiles | None,
    rule_id: str | None,
) -> tuple[tuple[str, ...] | None, list[Diagnostic]]:
    """The problems of a location the schema accepted, and its file's lines when read."""
    where: JsonPath = ("findings", index, "location")
    found: list[Diagnostic] = []
    fractional = [key for key in ("start_line", "end_line", "column") if _is_float(location, key)]
    for key in fractional:
        found.append(
            _at(
                document,
                (*where, key),
                f"findings[{index}].location.{key} must be an integer, got {location[key]!r}: "
                "write it without a decimal point",
                rule_id,
            )
        )
    if fractional:
        return None, found
    start, end = location["start_line"], location["end_line"]
    if start > end:
        found.append(
            _at(
                document,
                (*where, "start_line"),
                f"findings[{index}].location.start_line {start} is after end_line {end}: "
                "a location is an inclusive range, start_line <= end_line",
                rule_id,
            )
        )
    lines: tuple[str, ...] | None = None
    if files is not None:
        lines, problem = files.lines(location["path"])
        if problem is not None:
            found.append(
                _at(document, (*where, "path"), f"findings[{index}].location.{problem}", rule_id)
            )
        elif start <= end:
            assert lines is not None
            found.extend(_range_diagnostics(document, index, location, lines, rule_id))
    return lines, found


def _change_diagnostics(
    document: Document,
    index: int,
    location: dict[str, Any],
    change: Change,
    rule_id: str | None,
):
    """A finding points at lines the change touches: a file of the diff, inside one of its
    hunks (the ranges ``review-context`` lists)."""
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
            rule_id,
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
            rule_id,
        )


def _is_float(mapping: dict[str, Any], key: str) -> bool:
    """JSON Schema counts 3.0 as an integer; a line number must be written as one."""
    return isinstance(mapping.get(key), float)


def _range_diagnostics(
    document: Document,
    index: int,
    location: dict[str, Any],
    lines: tuple[str, ...],
    rule_id: str | None,
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
    rule_id: str | None,
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
