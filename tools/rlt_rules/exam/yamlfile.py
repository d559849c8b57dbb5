"""Read one exam data file (a YAML mapping or a YAML list) and check it against its schema.

The project's YAML reader (:func:`rlt_rules.library.load.parse_yaml`: duplicate keys, anchors and
YAML 1.1 surprises rejected, every value's position kept) reads mappings only; a list file
(``controls.yaml``, ``valid.yaml``) is read as the one value of a mapping, each of its lines
indented, and every position is given back as the file's own. Every problem is a
:class:`~rlt_rules.library.model.Diagnostic` at the file's ``path:line:column``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..library.load import Document, JsonPath, Position, parse_yaml, read_source
from ..library.model import Diagnostic
from ..library.schema_errors import YAML_TYPES, Wording, schema_messages
from ..library.schemas import checker

#: The key a list file is read under.
_WRAP = "items"


@dataclass(frozen=True, slots=True)
class DataFile:
    """A file's data, where each value and key of it is written, and its problems (none:
    the schema accepts it)."""

    shown: str
    data: Any
    values: dict[JsonPath, Position]
    keys: dict[JsonPath, Position]
    problems: tuple[Diagnostic, ...]

    def at(self, path: JsonPath, message: str) -> Diagnostic:
        """A problem with the value at ``path``, at its position in the file."""
        while path not in self.values and path:
            path = path[:-1]
        where = self.values.get(path, Position(1, 1))
        return Diagnostic(self.shown, where.line, where.column, message)


def read_data_file(path: Path, shown: str, schema_name: str, *, is_list: bool) -> DataFile:
    """``path`` read and checked against ``schema/<schema_name>``; ``is_list`` for a file
    whose top level is a list."""
    read = read_source(path, shown)
    if read.raw is None:
        return DataFile(shown, None, {}, {}, read.diagnostics)
    raw = read.raw
    if is_list:
        lines = raw.decode("utf-8-sig", errors="replace").splitlines(True)
        if not any(line.strip() and not line.lstrip().startswith("#") for line in lines):
            message = "the file holds no list: write [] for none"
            return DataFile(shown, None, {}, {}, (Diagnostic(shown, 1, 1, message),))
        for index, line in enumerate(lines):  # a document start marker: kept as a blank line
            if line.strip() == "---":
                lines[index] = "\n"
            if line.strip() and not line.lstrip().startswith("#"):
                break
        raw = (f"{_WRAP}:\n" + "".join(f"  {line}" for line in lines)).encode()
    loaded = parse_yaml(raw, shown)
    if loaded.document is None:
        found = loaded.diagnostics
        return DataFile(
            shown, None, {}, {}, tuple(_unwrapped(d) for d in found) if is_list else found
        )
    document = loaded.document
    if not is_list:
        data, values, keys = document.data, document.values, document.keys
    else:
        data = document.data.get(_WRAP)
        values = _inner(document.values)
        keys = _inner(document.keys)
    problems = _schema_problems(document, data, values, keys, schema_name, is_list=is_list)
    return DataFile(shown, data, values, keys, tuple(problems))


def _inner(positions: dict[JsonPath, Position]) -> dict[JsonPath, Position]:
    """The positions of the wrapped list, as the file writes them."""
    return {
        path[1:]: Position(max(where.line - 1, 1), max(where.column - 2, 1))
        for path, where in positions.items()
        if path[:1] == (_WRAP,)
    }


#: A position a message of the YAML reader names (a duplicate key's first one).
_AT = re.compile(r"line (\d+), column (\d+)")


def _unwrapped(diagnostic: Diagnostic) -> Diagnostic:
    message = _AT.sub(
        lambda m: f"line {max(int(m[1]) - 1, 1)}, column {max(int(m[2]) - 2, 1)}",
        diagnostic.message,
    )
    return replace(
        diagnostic,
        line=max(diagnostic.line - 1, 1),
        column=max(diagnostic.column - 2, 1),
        message=message,
    )


def _schema_problems(
    document: Document,
    data: Any,
    values: dict[JsonPath, Position],
    keys: dict[JsonPath, Position],
    schema_name: str,
    *,
    is_list: bool,
) -> list[Diagnostic]:
    scalars = {
        (path[1:] if is_list else path): source
        for path, source in document.scalars.items()
        if not is_list or path[:1] == (_WRAP,)
    }

    def got(path: JsonPath, value: Any) -> str:
        source = scalars.get(path)
        if source is not None:
            return (
                f"got {source.tag} {source.text!r}: YAML 1.1 reads an unquoted {source.text} "
                f'as a {source.tag}; quote it: "{source.text}"'
            )
        if isinstance(value, list):
            return "got a list"
        if isinstance(value, dict):
            return "got a mapping"
        return "got nothing" if value is None else f"got {value!r}"[:80]

    wording = Wording(_field_name, got, YAML_TYPES)
    found: list[Diagnostic] = []
    for error in checker(schema_name).errors(data):
        for message in schema_messages(error, wording):
            path = message.path
            where = keys.get(path) if message.at_key else None
            if where is None:
                while path not in values and path:
                    path = path[:-1]
                where = values.get(path, Position(1, 1))
            found.append(Diagnostic(document.path, where.line, where.column, message.text))
    # jsonschema reports each missing field as its own error; each is worded with them all.
    return sorted(dict.fromkeys(found), key=lambda d: (d.line, d.column))


def _field_name(path: JsonPath) -> str:
    name = ""
    for part in path:
        name += f"[{part}]" if isinstance(part, int) else (f".{part}" if name else part)
    return name or "top level"
