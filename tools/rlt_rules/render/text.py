"""Plain-text helpers shared by the exports, and :func:`seed_text`, the library's own words.

``seed_text`` rebuilds the authors' original text (``tests/data/seed.txt``) from the typed
library: title, subtitle, preamble, then each category's title and its rules' headings,
statements and examples. Equality with the seed byte for byte proves no sentence was lost
between the seed and the data.
"""

from __future__ import annotations

import re

from ..library.model import OUTPUT_LINE, Library, Rule, expected_output

#: ``OUTPUT_LINE`` and ``expected_output`` are the example contract's
#: (:mod:`rlt_rules.library.model`), offered here with the other plain-text helpers the views use.
__all__ = [
    "FENCE",
    "decodable",
    "OUTPUT_LINE",
    "expected_output",
    "first_sentence",
    "one_line",
    "rule_heading",
    "seed_example_text",
    "seed_text",
    "starts_with_code",
    "strip_fences",
    "visible",
]

#: A Markdown code fence line (opening with an optional language, or closing).
FENCE = re.compile(r"^\s*(```|~~~)[\w+-]*\s*$")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(])")


def strip_fences(markdown: str) -> str:
    """``markdown`` without its code fence lines: code becomes plain lines, as in the seed."""
    if "```" not in markdown and "~~~" not in markdown:
        return markdown
    return "\n".join(line for line in markdown.split("\n") if not FENCE.match(line))


def starts_with_code(markdown: str) -> bool:
    """Whether ``markdown`` opens with a code fence (the seed then writes ``Example:`` alone)."""
    first = markdown.split("\n", 1)[0]
    return bool(FENCE.match(first))


def seed_example_text(rule: Rule) -> str:
    """The rule's example as the seed writes it: ``Example: text`` or ``Example:`` + code."""
    body = strip_fences(rule.seed_example)
    return f"Example:\n\n{body}" if starts_with_code(rule.seed_example) else f"Example: {body}"


def rule_heading(rule: Rule) -> str:
    """``R03 — Match state lifetime to the operation it describes``."""
    return f"{rule.id} — {rule.title}"


def seed_text(library: Library) -> str:
    """The library's text in the seed's order and words, paragraphs separated by blank lines."""
    parts: list[str] = [library.title, library.subtitle, *library.preamble]
    for category in library.categories:
        parts.append(category.title)
        for rule in library.rules_in(category.id):
            parts.extend((rule_heading(rule), rule.statement, seed_example_text(rule)))
    return "\n\n".join(parts)


#: Characters that must not reach a line of output as themselves: controls (C0, DEL, C1,
#: ``U+0085`` among them) and the line and paragraph separators start a line of their own for
#: ``str.splitlines()`` and many readers (a forged hint, or a Markdown block); bidirectional
#: and invisible format characters (``U+202E``) make a line read otherwise than it is; a lone
#: surrogate is a byte of a file name that is not UTF-8, which no UTF-8 output can hold.
_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f"
    "\ufeff\ufff9-\ufffb\ud800-\udfff]"
)
_SURROGATES = re.compile("[\ud800-\udfff]")


def _escape(char: str) -> str:
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8, as Python decodes file names
        return f"\\x{code - 0xDC00:02x}"
    return repr(char)[1:-1]


def visible(text: str) -> str:
    """``text`` with control, separator, bidirectional and invisible characters as Python
    escapes (a newline as ``\\n``, ``U+202E`` as ``\\u202e``), and each byte of a name that
    is not UTF-8 as ``\\xNN``: a file name shown in a line of output stays on that line, reads
    as it is, and can be written as UTF-8."""
    return _UNSAFE.sub(lambda match: _escape(match[0]), text)


def decodable(text: str) -> str:
    """``text`` with only the bytes of a file name that are not UTF-8 (lone surrogates) as
    ``\\xNN``, for output that escapes the rest itself (JSON)."""
    return _SURROGATES.sub(lambda match: _escape(match[0]), text)


def one_line(text: str) -> str:
    """``text`` with its line breaks and runs of spaces collapsed to single spaces."""
    return " ".join(text.split())


def first_sentence(text: str) -> str:
    """The first sentence of a prose paragraph (the whole text when it has only one)."""
    flat = one_line(strip_fences(text))
    return _SENTENCE_END.split(flat, maxsplit=1)[0]
