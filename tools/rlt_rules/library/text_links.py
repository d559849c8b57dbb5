"""Links in library text: which destinations stay links, and the ones ``validate`` rejects.

Library text is Markdown, printed on the site's pages (at several depths) and in the exports.
A destination with a scheme other than http, https or mailto (``javascript:``, ``data:``), or
with a code span before its closing bracket, is broken up by :mod:`rlt_rules.render.inert`
and shows as text (:func:`unsafe_destination`, :func:`code_before_close` decide it, for both).
Any other destination stays a link, and only an absolute http, https or mailto address means
the same on every page and in every export: a relative one (``[x](java%0ascript:…)``, whose
``%0a`` hides the scheme; ``![x](x" onerror="…")``; ``#anchor``) points nowhere, and MkDocs'
strict build aborts on it. :func:`link_diagnostics` reports each at its position: in a ``|``
block, the destination's own line and column; elsewhere, the value's.
"""

from __future__ import annotations

import html
import re
from typing import Any

from .load import Document, JsonPath
from .model import Diagnostic

#: Link schemes a rule may link to; any other scheme is shown as text, not linked.
SAFE_SCHEMES = frozenset({"http", "https", "mailto"})
#: How much of the text after ``](`` or ``]:`` is read for the destination's scheme.
DESTINATION_WINDOW = 512

_SCHEME = re.compile(r"[a-z][a-z0-9+.\-]*:")
#: A destination every page and export resolves alike.
_ABSOLUTE = re.compile(r"(?:https?://[^\s/?#\\]|mailto:[^\s])", re.IGNORECASE)
_FENCE_OPEN = re.compile(r" {0,3}(?P<fence>`{3,}|~{3,})")
_REFERENCE = re.compile(r"[ \t]{0,3}\[[^\]\n]*\]:")
#: Record parts that are not Markdown: programs and detectors' ast-grep rules.
_NOT_TEXT = frozenset({"code", "detectors"})


def unsafe_destination(text: str) -> bool:
    """Whether a link destination at the start of ``text`` has a scheme outside SAFE_SCHEMES.

    Read the way browsers and renderers would: character references decoded, and whitespace,
    control characters, backslashes, backticks and angle brackets dropped.
    """
    for candidate in (text, html.unescape(text)):
        squeezed = "".join(
            char for char in candidate if ord(char) > 0x20 and char not in "\x7f\\`<>"
        ).lower()
        scheme = _SCHEME.match(squeezed)
        if scheme is not None and scheme.group(0)[:-1] not in SAFE_SCHEMES:
            return True
    return False


def code_before_close(text: str, opening: str, closing: str) -> bool:
    """Whether a backtick comes before the bracket that closes one already open (or none does).

    Brackets inside code spans do not count for a renderer, but a code span starts with a
    backtick: up to the first backtick, counting every bracket finds the renderer's closing one.
    """
    depth = 1
    for char in text:
        if char == "`":
            return True
        if char == opening:
            depth += 1
        elif char == closing:
            depth -= 1
            if depth == 0:
                return False
    return True


def link_diagnostics(document: Document) -> list[Diagnostic]:
    """Each link in ``document``'s text (outside code) that stays a link and is not an
    absolute http, https or mailto address, at its position."""
    found = []
    for path, text in _texts(document.data, ()):
        for offset, destination in relative_links(text):
            line, column = _position(document, path, text, offset)
            found.append(
                Diagnostic(
                    document.path,
                    line,
                    column,
                    f"a link to {destination!r} stays a link that points nowhere on the site "
                    "and in the exports (MkDocs' strict build stops on it): link only to an "
                    "absolute http, https or mailto address, or put the text in backticks",
                    document.data.get("id") if isinstance(document.data.get("id"), str) else None,
                )
            )
    return found


def relative_links(text: str) -> list[tuple[int, str]]:
    """Each destination in Markdown ``text`` that stays a link (outside code, not broken up
    by :mod:`rlt_rules.render.inert`) and is not absolute: its offset and its text."""
    if "](" not in text and "]:" not in text:
        return []
    masked = _without_code(text)
    found = []
    for match in re.finditer(r"\]\(|\]:", masked):
        start = match.end()
        line_start = masked.rfind("\n", 0, match.start()) + 1
        if match.group(0) == "]:":
            if not _REFERENCE.match(masked, line_start) or masked.find("]", line_start) != (
                match.start()
            ):
                continue
        elif "[" not in masked[line_start : match.start()]:
            continue
        after = text[start : start + DESTINATION_WINDOW]
        if unsafe_destination(after):
            continue
        if match.group(0) == "](" and code_before_close(after, "(", ")"):
            continue
        skipped = len(after) - len(after.lstrip(" \t"))
        if after[skipped : skipped + 1] == "\n":
            skipped += 1 + len(after[skipped + 1 :]) - len(after[skipped + 1 :].lstrip(" \t"))
        destination = _destination(after[skipped:], closing=match.group(0) == "](")
        if not _ABSOLUTE.match(destination):
            found.append((start + skipped, destination))
    return found


def _destination(text: str, *, closing: bool) -> str:
    """The destination at the start of ``text``: up to whitespace, or (in ``(…)``) the
    parenthesis that closes the link."""
    depth = 0
    for index, char in enumerate(text):
        if char.isspace():
            return text[:index]
        if closing and char == "(":
            depth += 1
        elif closing and char == ")":
            if depth == 0:
                return text[:index]
            depth -= 1
    return text


def _without_code(text: str) -> str:
    """``text`` with fenced blocks and inline code spans blanked (same length and lines)."""
    lines = text.split("\n")
    out = []
    fence: str | None = None
    for line in lines:
        opening = _FENCE_OPEN.match(line)
        if fence is not None:
            if line.strip() == fence or (opening and line.strip().startswith(fence)):
                fence = None
            out.append(" " * len(line))
            continue
        if opening is not None:
            fence = opening.group("fence")
            out.append(" " * len(line))
            continue
        out.append(_without_spans(line))
    return "\n".join(out)


def _without_spans(line: str) -> str:
    """``line`` with its paired single-backtick code spans blanked."""
    ticks = [index for index, char in enumerate(line) if char == "`"]
    if not ticks or len(ticks) % 2:
        return line
    chars = list(line)
    for start, end in zip(ticks[::2], ticks[1::2], strict=True):
        chars[start : end + 1] = " " * (end + 1 - start)
    return "".join(chars)


def _texts(value: Any, path: JsonPath) -> list[tuple[JsonPath, str]]:
    """Every string of a record that holds link syntax (``](`` or ``]:``), with its path, in
    the record's order; programs and detectors left out. A path is built only for such a
    string: a validate of 1,000 rules walks about 40,000 strings, nearly all without one."""
    found: list[tuple[JsonPath, str]] = []
    _collect(value, path, found)
    return found


def _collect(value: Any, path: JsonPath, found: list[tuple[JsonPath, str]]) -> None:
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, item in items:
        if key in _NOT_TEXT:
            continue
        if isinstance(item, str):
            if "](" in item or "]:" in item:
                found.append(((*path, key), item))
        elif isinstance(item, (dict, list)):
            _collect(item, (*path, key), found)


def _position(document: Document, path: JsonPath, text: str, offset: int) -> tuple[int, int]:
    """The file's line and column of ``text[offset]``: exact in a ``|`` block (its lines are
    the file's, after the block's indentation), else the value's own position."""
    start = document.value_position(path)
    if path not in document.block_starts:
        return start.line, start.column
    leading = len(text) - len(text.lstrip("\n"))  # blank lines before the first content line
    line = text.count("\n", 0, offset) - leading
    column = offset - (text.rfind("\n", 0, offset) + 1)
    return start.line + line, start.column + column
