"""Plain-text helpers shared by the exports, and :func:`seed_text`, the library's own words.

``seed_text`` rebuilds the authors' original text (``tests/data/seed.txt``) from the typed
library: title, subtitle, preamble, then each category's title and its rules' headings,
statements and examples. Equality with the seed byte for byte proves no sentence was lost
between the seed and the data.
"""

from __future__ import annotations

import re

from ..model import Library, Rule

#: A Markdown code fence line (opening with an optional language, or closing).
FENCE = re.compile(r"^\s*(```|~~~)[\w+-]*\s*$")
#: Expected output of an example: the text after ``#>`` (and one space) on a comment line.
OUTPUT_LINE = re.compile(r"^\s*#>(?: (?P<text>.*)|(?P<empty>))$")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(])")


def strip_fences(markdown: str) -> str:
    """``markdown`` without its code fence lines: code becomes plain lines, as in the seed."""
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


def expected_output(code: str) -> tuple[str, ...]:
    """The output an example's code says it prints: its ``#>`` lines, without the marker."""
    if "#>" not in code:
        return ()
    lines = []
    for line in code.split("\n"):
        match = OUTPUT_LINE.match(line) if "#>" in line else None
        if match is not None:
            lines.append(match.group("text") or "")
    return tuple(lines)


def one_line(text: str) -> str:
    """``text`` with its line breaks and runs of spaces collapsed to single spaces."""
    return " ".join(text.split())


def first_sentence(text: str) -> str:
    """The first sentence of a prose paragraph (the whole text when it has only one)."""
    flat = one_line(strip_fences(text))
    return _SENTENCE_END.split(flat, maxsplit=1)[0]
