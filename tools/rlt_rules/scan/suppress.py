"""Inline suppressions: ``# rlt: ignore[R09] reason`` on the line a hint starts on.

The comment names the rules it silences (``ignore[R09,R11]``) and says why: a suppression
without a reason silences nothing and is reported itself, so every accepted hint in the code
carries its justification. Only comments count (a ``# rlt:`` inside a string is text), and
only on the line a hit starts on.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass

#: Linear on any comment: the reason is everything after the brackets, stripped afterwards (a
#: lazy ``.*?`` before ``\s*$`` would retry every run of spaces: quadratic on a long one).
_SUPPRESSION = re.compile(
    r"#[ \t]*rlt:[ \t]*ignore\[(?P<ids>R[0-9]{2,}(?:[ \t]*,[ \t]*R[0-9]{2,})*)\](?P<reason>.*)"
)
#: What a file must contain for any suppression to be in it (the fast path skips the rest).
MARK = "rlt:"


@dataclass(frozen=True, slots=True)
class Suppression:
    """One ``# rlt: ignore[...]`` comment: its line and column (1-based), rule ids, reason."""

    line: int
    column: int
    rule_ids: tuple[str, ...]
    reason: str


def suppressions(source: str) -> dict[int, list[Suppression]]:
    """Every suppression comment in ``source``, by line."""
    if MARK not in source:
        return {}
    found: dict[int, list[Suppression]] = {}
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return {}
    for token in tokens:
        if token.type != tokenize.COMMENT or MARK not in token.string:
            continue
        match = _SUPPRESSION.fullmatch(token.string)
        if match is None:
            continue
        ids = tuple(part.strip() for part in match["ids"].split(","))
        line, column = token.start
        found.setdefault(line, []).append(
            Suppression(line, column + 1, ids, match["reason"].strip())
        )
    return found
