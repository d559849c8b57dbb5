"""Inline suppressions: ``# rlt: ignore[R09] reason`` on the line a hint starts on.

The comment names the rules it silences (``ignore[R09,R11]``) and says why: a suppression
without a reason silences nothing and is reported itself, so every accepted hint in the code
carries its justification. Only comments count (a ``# rlt:`` inside a string is text), and
only on the line a hit starts on. A comment that starts like one but is not (``ignore[]``,
full-width brackets, ``r09``), and a file whose suppressions cannot be read because it does not
tokenize, are :class:`Notice` s: reported, never silently lost.
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
MARK = "rlt"
#: A comment meant as a suppression: ``rlt`` and a colon (ASCII or full-width) after ``#``.
_ATTEMPT = re.compile(r"#[ \t]*rlt[ \t]*[:\uff1a]", re.IGNORECASE)
#: How a suppression is written, for the notice about one that is not.
FORM = "`# rlt: ignore[R09] reason` (ASCII brackets, rule ids such as R09, comma-separated)"


@dataclass(frozen=True, slots=True)
class Suppression:
    """One ``# rlt: ignore[...]`` comment: its line and column (1-based), rule ids, reason."""

    line: int
    column: int
    rule_ids: tuple[str, ...]
    reason: str


@dataclass(frozen=True, slots=True)
class Notice:
    """Something about a file's suppressions its reader must be told: where, and what."""

    line: int
    column: int
    message: str


@dataclass(frozen=True, slots=True)
class Suppressions:
    """A file's suppression comments by line, and the notices about the ones not read."""

    by_line: dict[int, list[Suppression]]
    notices: tuple[Notice, ...] = ()


def read_suppressions(source: str) -> Suppressions:
    """Every suppression comment in ``source``, by line; a comment meant as one but not
    written as one, or a file that does not tokenize, is a notice."""
    if MARK not in source.lower():
        return Suppressions({})
    found: dict[int, list[Suppression]] = {}
    notices: list[Notice] = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError) as error:
        if not _ATTEMPT.search(source):
            return Suppressions({})
        line = getattr(error, "lineno", None) or (error.args[1][0] if len(error.args) > 1 else 1)
        return Suppressions(
            {},
            (
                Notice(
                    line,
                    1,
                    "suppressions not read: the file does not tokenize here "
                    f"({error.args[0] if error.args else error}); its hints are reported "
                    "unsilenced",
                ),
            ),
        )
    for token in tokens:
        if token.type != tokenize.COMMENT or not _ATTEMPT.match(token.string):
            continue
        line, column = token.start
        match = _SUPPRESSION.fullmatch(token.string)
        if match is None:
            notices.append(
                Notice(line, column + 1, f"not a suppression rlt-rules reads: write {FORM}")
            )
            continue
        ids = tuple(part.strip() for part in match["ids"].split(","))
        found.setdefault(line, []).append(
            Suppression(line, column + 1, ids, match["reason"].strip())
        )
    return Suppressions(found, tuple(notices))


def suppressions(source: str) -> dict[int, list[Suppression]]:
    """Every suppression comment in ``source``, by line."""
    return read_suppressions(source).by_line
