"""JSON for the exports, written in C.

:func:`indented` gives exactly the bytes of ``json.dumps(data, ensure_ascii=False, indent=2)``
plus a final newline, UTF-8 encoded, for the data the exports hold (strings, integers,
booleans, null, lists and string-keyed mappings). The standard library's encoder runs in pure
Python whenever ``indent`` is set: at 5,000 rules that was most of the exports' time and
memory; orjson writes the same text directly as bytes.
"""

from __future__ import annotations

from typing import Any

import orjson

_INDENTED = orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE


def indented(data: Any) -> bytes:
    """Two-space-indented JSON of ``data``, non-ASCII kept as UTF-8, ending with a newline."""
    return orjson.dumps(data, option=_INDENTED)


def canonical(data: Any) -> bytes:
    """Compact JSON with keys sorted: the bytes of ``json.dumps(data, ensure_ascii=False,
    sort_keys=True, separators=(",", ":"))`` UTF-8 encoded (code point order is byte order)."""
    return orjson.dumps(data, option=orjson.OPT_SORT_KEYS)
