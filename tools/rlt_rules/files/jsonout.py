"""JSON for the exports, written in C.

:func:`indented` gives exactly the bytes of ``json.dumps(data, ensure_ascii=False, indent=2)``
plus a final newline, UTF-8 encoded, for the data the exports hold (strings, integers,
booleans, null, lists and string-keyed mappings). The standard library's encoder runs in pure
Python whenever ``indent`` is set: at 5,000 rules that was most of the exports' time and
memory; orjson writes the same text directly as bytes.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import orjson

_INDENTED = orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE


def indented(data: Any) -> bytes:
    """Two-space-indented JSON of ``data``, non-ASCII kept as UTF-8, ending with a newline."""
    return orjson.dumps(data, option=_INDENTED)


#: The UTF-8 of characters a line-by-line reader takes for a line break (C1 controls, U+0085
#: among them; U+2028, U+2029) or that make a line read otherwise than it is (bidirectional
#: controls). Lead bytes are never continuation bytes, so a match is always a whole character.
_LINE_UNSAFE = re.compile(
    rb"\xc2[\x80-\x9f]|\xe2\x80[\x8e\x8f\xa8-\xae]|\xe2\x81[\xa6-\xa9]|\xd8\x9c"
)


def line_safe(data: bytes) -> bytes:
    """JSON ``data`` with line separators, C1 controls and bidirectional controls written as
    ``\\uXXXX`` escapes: the same document to a JSON reader, one line per line to any other.
    They can only occur inside strings, where the escape means the same character."""
    return _LINE_UNSAFE.sub(lambda match: b"\\u%04x" % ord(match[0].decode("utf-8")), data)


def canonical(data: Any) -> bytes:
    """Compact JSON with keys sorted: the bytes of ``json.dumps(data, ensure_ascii=False,
    sort_keys=True, separators=(",", ":"))`` UTF-8 encoded (code point order is byte order)."""
    return orjson.dumps(data, option=orjson.OPT_SORT_KEYS)


def indented_fragment(data: Any, depth: int) -> bytes:
    """:func:`indented` of ``data`` as it reads ``depth`` levels inside a document: without
    the final newline, every line after the first shifted by ``depth`` indents. Exact, since
    JSON text holds no line break inside a string: every line break is the indentation's."""
    text = orjson.dumps(data, option=orjson.OPT_INDENT_2)
    return text.replace(b"\n", b"\n" + b"  " * depth) if depth else text


@dataclass(frozen=True, slots=True)
class ArrayPieces:
    """An array's indented JSON as pieces to join (:func:`indented_array`): joined once, into
    the document (:func:`indented_members`) or into an ``orjson.Fragment`` (:meth:`fragment`),
    never copied whole twice."""

    pieces: list[bytes]

    def fragment(self) -> orjson.Fragment:
        """The array for :func:`indented` to write as it is, anywhere at its depth."""
        return orjson.Fragment(b"".join(self.pieces))


def indented_array(groups: Iterable[bytes], depth: int) -> ArrayPieces:
    """An array at ``depth`` of a document, as :func:`indented` writes it.

    ``groups`` are runs of the array's elements, each element its :func:`indented_fragment`
    at ``depth + 1`` and the elements of a run joined by :func:`element_separator`; an empty
    run holds no element.
    """
    separator = element_separator(depth)
    pieces = [b"[\n" + b"  " * (depth + 1)]
    for group in groups:
        if group:
            pieces += (group, separator)
    if len(pieces) == 1:
        return ArrayPieces([b"[]"])
    pieces[-1] = b"\n" + b"  " * depth + b"]"  # the last separator closes the array
    return ArrayPieces(pieces)


def indented_members(members: Iterable[tuple[str, Any]]) -> bytes:
    """:func:`indented` of an object with these members (keys in order), where a value may be
    :class:`ArrayPieces` at depth 1: the document is joined once."""
    pieces = [b"{"]
    separator = b"\n  "
    for key, value in members:
        pieces += (separator, orjson.dumps(key), b": ")
        if isinstance(value, ArrayPieces):
            pieces += value.pieces
        else:
            pieces.append(indented_fragment(value, 1))
        separator = b",\n  "
    pieces.append(b"}\n" if len(pieces) == 1 else b"\n}\n")
    return b"".join(pieces)


def element_separator(depth: int) -> bytes:
    """What :func:`indented` writes between two elements of an array at ``depth``."""
    return b",\n" + b"  " * (depth + 1)


def canonical_array_digest(elements: Iterable[bytes]) -> str:
    """The hex SHA-256 of :func:`canonical` of a list, from each element's :func:`canonical`
    bytes (hashed as they come: the list's JSON is never joined)."""
    digest = hashlib.sha256(b"[")
    separator = b""
    for element in elements:
        digest.update(separator)
        digest.update(element)
        separator = b","
    digest.update(b"]")
    return digest.hexdigest()
