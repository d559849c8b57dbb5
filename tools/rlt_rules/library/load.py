"""Load one YAML file into plain data plus the position of every key and value.

Uses libyaml (C) for parsing and composing. Rejects what rule files never need and what
silently changes data: duplicate keys, anchors and aliases (also stops "billion laughs"),
non-standard tags, a top level that is not a mapping, files that are not UTF-8, and files
or nesting beyond fixed bounds. Every problem becomes a :class:`Diagnostic`; nothing raises.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from ..files.reading import ReadRefused, read_regular
from .model import Diagnostic

#: A rule record is a few KB; a file larger than this is a mistake, rejected before parsing.
MAX_FILE_BYTES = 1024 * 1024
#: Prose is wrapped or kept in paragraphs; a longer line is generated or pasted by mistake.
MAX_LINE_CHARS = 10_000
#: Rule records nest four levels deep; deeper input is rejected before it reaches recursion.
MAX_DEPTH = 32

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_CONSTRUCTOR = yaml.constructor.SafeConstructor()
_SCALAR_TAGS = {
    "tag:yaml.org,2002:str",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
    "tag:yaml.org,2002:timestamp",
}
_SEQ_TAG = "tag:yaml.org,2002:seq"
_MAP_TAG = "tag:yaml.org,2002:map"

JsonPath = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class Position:
    line: int  # 1-based
    column: int  # 1-based


@dataclass(frozen=True, slots=True)
class ScalarSource:
    """How a non-string scalar was written, so a type error can say what YAML did with it."""

    text: str
    tag: str


@dataclass(frozen=True, slots=True)
class Document:
    """A parsed YAML file: its data and where each part of it was written.

    ``values[path]`` is the position of the value at ``path`` (a tuple of keys and indexes,
    ``()`` being the top-level mapping); ``keys[path]`` is the position of the key that
    introduces it. ``scalars`` records plain scalars YAML resolved to a non-string type.
    ``block_starts[path]`` is the 1-based line of the first content line of a ``|``/``>`` block.
    """

    path: str
    data: dict[str, Any]  # the top level is always a mapping: anything else is rejected
    values: dict[JsonPath, Position]
    keys: dict[JsonPath, Position]
    scalars: dict[JsonPath, ScalarSource]
    block_starts: dict[JsonPath, int]

    def value_position(self, path: JsonPath) -> Position:
        while path not in self.values and path:
            path = path[:-1]
        return self.values.get(path, Position(1, 1))


@dataclass(frozen=True, slots=True)
class LoadResult:
    """Explicit outcome: a document, or the diagnostics that kept it from loading."""

    document: Document | None
    diagnostics: tuple[Diagnostic, ...]


class LineColumn(NamedTuple):
    """A 1-based line and column, in the order ``path:line:column`` prints them."""

    line: int
    column: int


def line_column(text: str | bytes, offset: int) -> LineColumn:
    """The 1-based line and column of ``offset`` in ``text`` (columns count characters in a
    string, bytes in bytes); an offset past the end counts as the end."""
    newline = b"\n" if isinstance(text, bytes) else "\n"
    offset = min(offset, len(text))
    line = text.count(newline, 0, offset) + 1
    return LineColumn(line, offset - (text.rfind(newline, 0, offset) + 1) + 1)


def _position(mark: yaml.Mark) -> Position:
    return Position(mark.line + 1, mark.column + 1)


class _Rejected(Exception):
    def __init__(self, position: Position, message: str) -> None:
        super().__init__(message)
        self.position = position
        self.message = message


@dataclass(frozen=True, slots=True)
class SourceRead:
    """Explicit outcome of reading a file: its bytes, or why they could not be read (too
    large, unreadable)."""

    raw: bytes | None
    diagnostics: tuple[Diagnostic, ...] = ()


def load_yaml(path: Path, display_path: str | None = None) -> LoadResult:
    """Read and parse ``path``. ``display_path`` is how diagnostics name the file."""
    shown = display_path if display_path is not None else str(path)
    read = read_source(path, shown)
    if read.raw is None:
        return LoadResult(None, read.diagnostics)
    return parse_yaml(read.raw, shown)


def read_source(path: Path, shown: str) -> SourceRead:
    """The bytes of ``path``, or the failure (too large, unreadable, not a regular file: a FIFO
    is refused, never waited on)."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            message = _too_large(size)
        else:
            return SourceRead(read_regular(path, limit=MAX_FILE_BYTES))
    except ReadRefused as error:
        message = str(error)
    except OSError as error:
        message = f"cannot read file: {error.strerror or error}"
    return SourceRead(None, (Diagnostic(shown, 1, 1, message),))


def _too_large(size: int) -> str:
    return (
        f"file is {size:,} bytes, over the {MAX_FILE_BYTES:,}-byte limit for a "
        "rule file: split it or remove what does not belong"
    )


def _failure(shown: str, line: int, column: int, message: str) -> LoadResult:
    return LoadResult(None, (Diagnostic(shown, line, column, message),))


def parse_yaml(raw: bytes, shown: str) -> LoadResult:
    """Parse the bytes of a file that diagnostics call ``shown`` (see :func:`load_yaml`)."""

    def fail(line: int, column: int, message: str) -> LoadResult:
        return _failure(shown, line, column, message)

    if len(raw) > MAX_FILE_BYTES:
        return fail(1, 1, _too_large(len(raw)))
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line, column = line_column(raw, error.start)
        return fail(
            line,
            column,
            f"not UTF-8: byte 0x{raw[error.start]:02x} cannot be decoded; save the file as UTF-8",
        )
    lines = text.split("\n")
    for number, line in enumerate(lines if max(map(len, lines)) > MAX_LINE_CHARS else (), 1):
        if len(line) > MAX_LINE_CHARS:
            return fail(
                number,
                MAX_LINE_CHARS + 1,
                f"line is {len(line):,} characters long, over the "
                f"{MAX_LINE_CHARS:,}-character limit: wrap it (YAML block scalars keep newlines)",
            )

    try:
        _reject_anchors(text)
        node = yaml.compose(text, Loader=_LOADER)
    except _Rejected as rejected:
        return fail(rejected.position.line, rejected.position.column, rejected.message)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = _position(mark) if mark is not None else Position(1, 1)
        problem = " ".join(str(part) for part in (error.context, error.problem) if part)
        return fail(where.line, where.column, f"YAML syntax error: {problem}")
    except yaml.reader.ReaderError as error:
        line, column = line_column(text, error.position)
        code = error.character if isinstance(error.character, int) else ord(error.character)
        return fail(
            line, column, f"control character U+{code:04X} is not allowed in YAML: remove it"
        )
    except (yaml.YAMLError, RecursionError) as error:
        return fail(1, 1, f"YAML error: {error}")

    if node is None:
        return fail(1, 1, "file is empty: expected a mapping of fields (see schema/)")
    if not isinstance(node, yaml.MappingNode):
        where = _position(node.start_mark)
        kind = "a list" if isinstance(node, yaml.SequenceNode) else "a single value"
        return fail(where.line, where.column, f"top level is {kind}: expected a mapping of fields")

    builder = _Builder(lines)
    try:
        data = builder.build(node, (), 0)
    except _Rejected as rejected:
        return fail(rejected.position.line, rejected.position.column, rejected.message)
    if builder.duplicates:
        return LoadResult(None, tuple(Diagnostic(shown, *d) for d in builder.duplicates))
    return LoadResult(
        Document(shown, data, builder.values, builder.keys, builder.scalars, builder.block_starts),
        (),
    )


#: Anchors (&name) and aliases (*name) can only start where a node starts; text without
#: such a token needs no event pass (most rule files: Markdown emphasis still triggers one).
_MAYBE_ANCHOR = re.compile(r"(?:^|[\s\[{,:?-])[&*][^\s]", re.MULTILINE)


def _reject_anchors(text: str) -> None:
    if ("&" not in text and "*" not in text) or _MAYBE_ANCHOR.search(text) is None:
        return
    for event in yaml.parse(text, Loader=_LOADER):
        if isinstance(event, yaml.AliasEvent):
            raise _Rejected(
                _position(event.start_mark),
                f"alias *{event.anchor} is not allowed in rule files: write the value out",
            )
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            raise _Rejected(
                _position(event.start_mark),
                f"anchor &{anchor} is not allowed in rule files: write values out in full",
            )


class _Builder:
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.values: dict[JsonPath, Position] = {}
        self.keys: dict[JsonPath, Position] = {}
        self.scalars: dict[JsonPath, ScalarSource] = {}
        self.block_starts: dict[JsonPath, int] = {}
        self.duplicates: list[tuple[int, int, str]] = []

    def build(self, node: yaml.Node, path: JsonPath, depth: int) -> Any:
        if depth > MAX_DEPTH:
            where = _position(node.start_mark)
            raise _Rejected(where, f"nesting deeper than {MAX_DEPTH} levels: flatten the data")
        self.values[path] = _position(node.start_mark)
        if isinstance(node, yaml.MappingNode):
            if node.tag != _MAP_TAG:
                raise _Rejected(_position(node.start_mark), f"unsupported tag {node.tag}")
            return self._mapping(node, path, depth)
        if isinstance(node, yaml.SequenceNode):
            if node.tag != _SEQ_TAG:
                raise _Rejected(_position(node.start_mark), f"unsupported tag {node.tag}")
            return [
                self.build(item, (*path, index), depth + 1) for index, item in enumerate(node.value)
            ]
        return self._scalar(node, path)

    def _mapping(self, node: yaml.MappingNode, path: JsonPath, depth: int) -> dict[str, Any]:
        result: dict[str, Any] = {}
        first_seen: dict[str, Position] = {}
        for key_node, value_node in node.value:
            key_position = _position(key_node.start_mark)
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag != "tag:yaml.org,2002:str":
                text = key_node.value if isinstance(key_node, yaml.ScalarNode) else "?"
                raise _Rejected(
                    key_position, f"key {text!r} is not a plain string: quote it or rename it"
                )
            key = key_node.value
            if key in first_seen:
                earlier = first_seen[key]
                self.duplicates.append(
                    (
                        key_position.line,
                        key_position.column,
                        f"duplicate key '{key}': already set at line {earlier.line}, column "
                        f"{earlier.column}; YAML would silently keep only this one: remove one",
                    )
                )
                continue
            first_seen[key] = key_position
            child = (*path, key)
            self.keys[child] = key_position
            result[key] = self.build(value_node, child, depth + 1)
        return result

    def _scalar(self, node: yaml.ScalarNode, path: JsonPath) -> Any:
        if node.tag not in _SCALAR_TAGS:
            raise _Rejected(
                _position(node.start_mark),
                f"unsupported tag {node.tag}: rule files hold plain strings, lists and mappings",
            )
        if node.style in ("|", ">"):
            # Point at the block's first content line, not at its "|" indicator.
            first = node.start_mark.line + 1
            while first < len(self.lines) and not self.lines[first].strip():
                first += 1
            self.block_starts[path] = first + 1
            if first < len(self.lines):
                indent = len(self.lines[first]) - len(self.lines[first].lstrip())
                self.values[path] = Position(first + 1, indent + 1)
        if node.tag == "tag:yaml.org,2002:str":
            return node.value
        value = _CONSTRUCTOR.yaml_constructors[node.tag](_CONSTRUCTOR, node)
        # The safe constructors of _SCALAR_TAGS give a date, None, a bool, an int or a float.
        if isinstance(value, datetime.date | datetime.datetime):
            self.scalars[path] = ScalarSource(node.value, "date")
        else:
            self.scalars[path] = ScalarSource(node.value, _type_name(value))
        return value


def _type_name(value: None | bool | int | float) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    return "number"
