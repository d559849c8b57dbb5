"""Read a ``rules.json`` bundle back into the typed :class:`Library`.

Order: read and decode -> parse JSON (syntax errors at their line and column) -> index where
every key and value sits in the text (rejecting duplicate keys, which JSON parsers silently
collapse) -> validate against ``bundle.schema.json`` (which ``$ref``s the rule and library
schemas) -> check the bundle's integrity (content hash, example outputs, ids and references)
-> build the model. Every problem is a :class:`Diagnostic` naming ``path:line:column`` with the
JSON pointer of the offending value in the message.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from json.decoder import scanstring
from pathlib import Path
from typing import Any

from .bundle import content_hash, example_outputs, rule_anchors
from .load import line_column
from .model import Diagnostic, Library, LibraryError, Rule, SourceRef
from .record_checks import Record, Records, record_diagnostics
from .schema_errors import JSON_WORDING, schema_messages
from .schemas import BUNDLE_SCHEMA, checker

#: A generous bound: the real bundle is about 150 KB.
MAX_BUNDLE_BYTES = 64 * 1024 * 1024

JsonPath = tuple[str | int, ...]

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_SCALAR = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|true|false|null")


@dataclass(frozen=True, slots=True)
class BundleResult:
    """Explicit outcome of reading a bundle: the library when clean, and every problem."""

    library: Library | None
    diagnostics: tuple[Diagnostic, ...]


def json_pointer(path: JsonPath) -> str:
    """RFC 6901 pointer for ``path``: ``("rules", 2, "title")`` -> ``/rules/2/title``."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path) or "/"


class _Index:
    """Where each value (and each key) of a syntactically valid JSON text starts."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.values: dict[JsonPath, int] = {}
        self.keys: dict[JsonPath, int] = {}
        self.duplicates: list[tuple[JsonPath, int, int]] = []  # path, offset, first offset
        self._value(0, ())

    def _skip(self, offset: int) -> int:
        return _WHITESPACE.match(self.text, offset).end()

    def _value(self, offset: int, path: JsonPath) -> int:
        offset = self._skip(offset)
        self.values[path] = offset
        char = self.text[offset]
        if char == "{":
            return self._object(offset + 1, path)
        if char == "[":
            return self._array(offset + 1, path)
        if char == '"':
            return scanstring(self.text, offset + 1)[1]
        return _SCALAR.match(self.text, offset).end()

    def _object(self, offset: int, path: JsonPath) -> int:
        offset = self._skip(offset)
        if self.text[offset] == "}":
            return offset + 1
        seen: dict[str, int] = {}
        while True:
            offset = self._skip(offset)
            key_offset = offset
            key, offset = scanstring(self.text, offset + 1)
            child = (*path, key)
            if key in seen:
                self.duplicates.append((child, key_offset, seen[key]))
            else:
                seen[key] = key_offset
                self.keys[child] = key_offset
            offset = self._skip(offset) + 1  # the colon
            offset = self._skip(self._value(offset, child))
            if self.text[offset] == "}":
                return offset + 1
            offset += 1  # the comma

    def _array(self, offset: int, path: JsonPath) -> int:
        offset = self._skip(offset)
        if self.text[offset] == "]":
            return offset + 1
        index = 0
        while True:
            offset = self._skip(self._value(offset, (*path, index)))
            if self.text[offset] == "]":
                return offset + 1
            offset += 1
            index += 1

    def line_column(self, offset: int) -> tuple[int, int]:
        return line_column(self.text, offset)

    def key_position(self, path: JsonPath) -> tuple[int, int]:
        """The key introducing ``path`` (for unknown fields), else the value's position."""
        if path in self.keys:
            return self.line_column(self.keys[path])
        return self.position(path)

    def position(self, path: JsonPath) -> tuple[int, int]:
        """The value at ``path``, or its nearest existing ancestor."""
        while path not in self.values and path:
            path = path[:-1]
        return self.line_column(self.values.get(path, 0))


def read_bundle(path: str | Path) -> BundleResult:
    """Read and check a bundle; never raises for bad input (see :func:`load_bundle`)."""
    shown = str(path)

    def fail(line: int, column: int, message: str) -> BundleResult:
        return BundleResult(None, (Diagnostic(shown, line, column, message),))

    try:
        size = Path(path).stat().st_size
        if size > MAX_BUNDLE_BYTES:
            return fail(1, 1, f"file is {size:,} bytes, over the {MAX_BUNDLE_BYTES:,}-byte limit")
        raw = Path(path).read_bytes()
    except OSError as error:
        return fail(1, 1, f"cannot read file: {error.strerror or error}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return fail(*line_column(raw, error.start), "not UTF-8: a bundle is UTF-8 JSON")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        return fail(error.lineno, error.colno, f"JSON syntax error: {error.msg}")
    except RecursionError:
        return fail(1, 1, "JSON nested too deeply")

    index = _Index(text)
    diagnostics = [
        Diagnostic(
            shown,
            *index.line_column(offset),
            f"{json_pointer(key_path)}: duplicate key; already set at line "
            f"{index.line_column(first)[0]}: JSON readers would silently keep only one",
        )
        for key_path, offset, first in index.duplicates
    ]
    diagnostics.extend(_schema_diagnostics(shown, data, index))
    if not diagnostics:
        diagnostics.extend(_integrity_diagnostics(shown, data, index))
    if diagnostics:
        return BundleResult(None, tuple(sorted(diagnostics, key=lambda d: (d.line, d.column))))

    rules = tuple(
        Rule.from_dict(record, SourceRef(shown, index.position(("rules", number))[0]))
        for number, record in enumerate(data["rules"])
    )
    library = Library.from_dicts(data["library"], rules, SourceRef(shown, 1))
    return BundleResult(library, ())


def load_bundle(path: str | Path) -> Library:
    """Load a ``rules.json`` bundle; raise :class:`LibraryError` with every diagnostic.

    The result equals the library the bundle was exported from, and exporting it again gives
    the same bytes (when written by the same rlt-rules version).
    """
    result = read_bundle(path)
    if result.library is None:
        raise LibraryError(result.diagnostics)
    return result.library


def _schema_diagnostics(shown: str, data: Any, index: _Index) -> list[Diagnostic]:
    """Each schema error as the YAML readers word it (:func:`schema_messages`), after the
    JSON pointer of where it is."""
    found = []
    seen: set[tuple[JsonPath, str]] = set()
    for error in checker(BUNDLE_SCHEMA).errors(data):
        for message in schema_messages(error, JSON_WORDING):
            if (message.path, message.text) in seen:
                continue  # a mapping's missing fields: one error each, each naming them all
            seen.add((message.path, message.text))
            locate = index.key_position if message.at_key else index.position
            line, column = locate(message.path)
            found.append(
                Diagnostic(shown, line, column, f"{json_pointer(message.path)}: {message.text}")
            )
    return found


def _records(shown: str, data: dict[str, Any], index: _Index) -> Records:
    """The bundle's records as the view the checks across records read."""

    def record(data: dict[str, Any], prefix: JsonPath) -> Record:
        def at(path: JsonPath, message: str, rule_id: str | None = None) -> Diagnostic:
            full = (*prefix, *path)
            return Diagnostic(
                shown, *index.position(full), f"{json_pointer(full)}: {message}", rule_id
            )

        return Record(data, at, json_pointer(prefix))

    return Records(
        library=record(data["library"], ("library",)),
        rules=tuple(record(rule, ("rules", number)) for number, rule in enumerate(data["rules"])),
        known_ids=frozenset(),
        complete=True,
    )


def _integrity_diagnostics(shown: str, data: dict[str, Any], index: _Index) -> list[Diagnostic]:
    """The bundle's own integrity (content hash, example outputs) and the checks across
    records that a rules folder gets too (:data:`~rlt_rules.library.record_checks.CHECKS`), made
    once the bundle matches its schema."""
    found: list[Diagnostic] = []

    def at(path: JsonPath, message: str) -> None:
        found.append(Diagnostic(shown, *index.position(path), f"{json_pointer(path)}: {message}"))

    rules = data["rules"]
    expected_hash = content_hash(rules)
    if data["content_hash"] != expected_hash:
        at(
            ("content_hash",),
            f"does not match the rules (computed {expected_hash}): the rules were changed after "
            "export, or the hash was; export the bundle again",
        )
    found.extend(record_diagnostics(_records(shown, data, index)))
    if found:
        return found
    typed = [Rule.from_dict(record) for record in rules]
    if data["example_outputs"] != example_outputs(typed):
        at(
            ("example_outputs",),
            "does not match the '#>' lines of the examples' code: export the bundle again",
        )
    if "anchors" in data:  # bundles written before anchors have none
        wrong = _first_difference(data["anchors"], rule_anchors(typed), ("anchors",))
        if wrong is not None:
            path, expected = wrong
            at(
                path,
                f"does not match the anchor the rules give (expected {expected}): an anchor is "
                "made from its item's text; export the bundle again",
            )
    return found


def _first_difference(given: Any, expected: Any, path: JsonPath) -> tuple[JsonPath, str] | None:
    """Where ``given`` first differs from ``expected`` (JSON data), and what was expected."""
    if isinstance(given, dict) and isinstance(expected, dict) and given.keys() == expected.keys():
        pairs: list[tuple[str | int, Any, Any]] = [(k, given[k], expected[k]) for k in expected]
    elif isinstance(given, list) and isinstance(expected, list) and len(given) == len(expected):
        pairs = [(i, g, e) for i, (g, e) in enumerate(zip(given, expected, strict=True))]
    elif given == expected:
        return None
    elif isinstance(expected, list):
        return path, f"{len(expected)} entries"
    else:
        return path, json.dumps(expected, ensure_ascii=False)[:200]
    for key, child, wanted in pairs:
        found = _first_difference(child, wanted, (*path, key))
        if found is not None:
            return found
    return None
