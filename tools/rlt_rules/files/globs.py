"""Git's wildcards (``.gitignore`` lines, ``[tool.rlt-rules]`` ``exclude`` and
``per-file-ignores``) matched in time bounded by the pattern's and the path's lengths.

A regular expression translated from a glob backtracks: ``*a*a*a*a*a*a*a*a*a*a*a*a*b``
against a 40-character name took over a minute (pathspec's translation). Here nothing
backtracks across a choice already made, at either level. Within a segment (between ``/``),
the greedy two-pointer glob algorithm: on a mismatch only the last ``*`` takes one more
character. Across segments, each run of segments between two ``**`` is placed where it first
matches, after the run before it (the earliest place leaves the most room to the rest). The
cost is at most the pattern's length times the path's, whatever the pattern.

The meaning is pathspec's ``GitIgnoreSpec`` (which the tests compare it with), Git's where
they differ: ``**`` and ``*`` cross any character, a newline too, a bracket expression takes
Git's ``[:alpha:]`` classes and ``\\`` escapes, and trailing spaces go unless escaped.
A pattern that can never match is a :class:`GlobError` saying why: nothing after ``!``, a
trailing ``\\``, a ``[`` that never closes, an empty range (``[z-a]``), an unknown class or a
NUL byte. A path is relative with ``/`` between segments; a folder ends with ``/``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

from .errors import InputError

#: Git's character classes (``[[:alpha:]]``), as wildmatch.c tests them.
_CLASSES = {
    "alnum": str.isalnum,
    "alpha": str.isalpha,
    "blank": lambda c: c in " \t",
    "cntrl": lambda c: ord(c) < 32 or ord(c) == 127,
    "digit": lambda c: "0" <= c <= "9",
    "graph": lambda c: c.isprintable() and not c.isspace(),
    "lower": str.islower,
    "print": lambda c: c.isprintable(),
    "punct": lambda c: c.isprintable() and not c.isalnum() and not c.isspace(),
    "space": str.isspace,
    "upper": str.isupper,
    "xdigit": lambda c: c in "0123456789abcdefABCDEF",
}


class GlobError(InputError, ValueError):
    """A pattern that can never match anything; ``str()`` says why and what to write."""


class Reach(Enum):
    """How a pattern met a path: the path itself, or one of its folders (``foo`` meets
    ``foo/bar.py`` through the folder ``foo/``)."""

    FILE = "file"
    FOLDER = "folder"


@dataclass(frozen=True, slots=True)
class _Class:
    """A bracket expression: single characters, ranges and named classes, maybe negated."""

    chars: frozenset[str]
    ranges: tuple[tuple[str, str], ...]
    named: tuple[str, ...]
    negated: bool

    def matches(self, char: str) -> bool:
        found = (
            char in self.chars
            or any(low <= char <= high for low, high in self.ranges)
            or any(_CLASSES[name](char) for name in self.named)
        )
        return found != self.negated


_STAR = "*"
_ANY = "?"
#: One segment's pattern: a literal character (a str of length 1 that is not a wildcard is
#: kept as ``("lit", c)``), ``?``, ``*`` or a bracket expression.
_Token = tuple[str, str] | str | _Class


@dataclass(frozen=True, slots=True)
class _Segment:
    """One segment of a pattern with a wildcard; ``needed``: the characters it takes at least;
    ``regex``: the same pattern as a regular expression when it has at most one ``*`` (it
    cannot backtrack more than once over the segment, and runs in C), else None."""

    tokens: tuple[_Token, ...]
    needed: int
    regex: re.Pattern[str] | None

    @classmethod
    def of(cls, tokens: Sequence[_Token]) -> _Segment:
        needed = sum(token is not _STAR for token in tokens)
        regex = None
        if len(tokens) - needed <= 1 and not any(
            isinstance(token, _Class) and token.named for token in tokens
        ):
            regex = re.compile("".join(map(_regex, tokens)), re.DOTALL)
        return cls(tuple(tokens), needed, regex)

    def matches(self, text: str) -> bool:
        if self.regex is not None:
            return self.regex.fullmatch(text) is not None
        return len(text) >= self.needed and _segment_matches(self.tokens, text)


def _regex(token: _Token) -> str:
    """One token as a regular expression over a segment (which holds no ``/``)."""
    if token is _STAR:
        return ".*"
    if token is _ANY:
        return "."
    if isinstance(token, _Class):  # one without named classes: those stay in Python
        chars = "".join(map(re.escape, sorted(token.chars)))
        ranges = "".join(f"{re.escape(low)}-{re.escape(high)}" for low, high in token.ranges)
        return f"[{'^' if token.negated else ''}{chars}{ranges}]"
    return re.escape(token[1])


def _segment_matches(tokens: Sequence[_Token], text: str) -> bool:
    """Whether the segment ``text`` matches ``tokens`` (``*`` never crosses a ``/``, which a
    segment does not hold): greedy, and on a mismatch only the last ``*`` takes one more
    character, so the work is at most ``len(tokens) * len(text)``."""
    t = p = 0
    star = -1
    resume = 0
    while t < len(text):
        token = tokens[p] if p < len(tokens) else None
        if token is _STAR:
            star, resume = p, t
            p += 1
            continue
        if token is not None and _one(token, text[t]):
            p += 1
            t += 1
        elif star >= 0:
            resume += 1
            p, t = star + 1, resume
        else:
            return False
    while p < len(tokens) and tokens[p] is _STAR:
        p += 1
    return p == len(tokens)


def _one(token: _Token, char: str) -> bool:
    if token is _ANY:
        return True
    if isinstance(token, _Class):
        return token.matches(char)
    return token[1] == char  # a literal


def _segment(text: str) -> _Segment | str:
    """A segment of a pattern as tokens, or as the plain string it matches when it has no
    wildcard; :class:`GlobError` when it cannot match."""
    if text == "*":
        return _Segment.of((_ANY, _STAR))  # a whole segment of ``*`` is one character or more
    tokens: list[_Token] = []
    i = 0
    while i < len(text):
        char = text[i]
        i += 1
        if char == "\\":
            if i == len(text):
                raise GlobError(
                    "a lone '\\' ends a segment: not a pattern Git reads "
                    "(write '\\\\' for a backslash)"
                )
            tokens.append(("lit", text[i]))
            i += 1
        elif char == "*":
            if not tokens or tokens[-1] is not _STAR:
                tokens.append(_STAR)
        elif char == "?":
            tokens.append(_ANY)
        elif char == "[":
            bracket, i = _bracket(text, i)
            tokens.append(bracket)
        else:
            tokens.append(("lit", char))
    if all(isinstance(token, tuple) for token in tokens):
        return "".join(token[1] for token in tokens if isinstance(token, tuple))
    return _Segment.of(tokens)


def _bracket(text: str, i: int) -> tuple[_Class, int]:
    """The bracket expression opened just before ``text[i]``, and the index after it."""
    start = i - 1
    negated = i < len(text) and text[i] in "!^"
    i += negated
    chars: set[str] = set()
    ranges: list[tuple[str, str]] = []
    named: list[str] = []
    first = True
    while i < len(text) and (first or text[i] != "]"):
        first = False
        if text.startswith("[:", i):
            end = text.find(":]", i + 2)
            if end < 0:
                break
            name = text[i + 2 : end]
            if name not in _CLASSES:
                raise GlobError(
                    f"[:{name}:] is not a character class Git knows "
                    f"({', '.join(f'[:{known}:]' for known in _CLASSES)})"
                )
            named.append(name)
            i = end + 2
            continue
        low, i = _class_char(text, i)
        if low is None:
            break
        if text.startswith("-", i) and i + 1 < len(text) and text[i + 1] != "]":
            high, i = _class_char(text, i + 1)
            if high is None:
                break
            if high < low:
                raise GlobError(
                    f"the range {low}-{high} is empty ({low!r} sorts after {high!r}): Git "
                    f"matches nothing with it; write {high}-{low}"
                )
            ranges.append((low, high))
        else:
            chars.add(low)
    if i >= len(text):
        raise GlobError(
            f"{text[start:]!r} opens a bracket expression that never closes: Git matches "
            "nothing with it (write '\\[' for a literal bracket)"
        )
    return _Class(frozenset(chars), tuple(ranges), tuple(named), negated), i + 1


def _class_char(text: str, i: int) -> tuple[str | None, int]:
    """One character of a bracket expression (``\\`` escapes the next), or None at the end."""
    if i < len(text) and text[i] == "\\":
        i += 1
    if i >= len(text):
        return None, i
    return text[i], i + 1


def _trim(line: str) -> str:
    """``line`` without its trailing spaces, as Git reads it: a space after ``\\`` stays."""
    end = len(line)
    while end and line[end - 1] == " ":
        slashes = len(line[: end - 1]) - len(line[: end - 1].rstrip("\\"))
        if slashes % 2:
            break
        end -= 1
    return line[:end]


_GAP = "**"


class _Shape(Enum):
    """What a pattern's segments come to: pathspec's shortcuts for ``**`` and ``*``."""

    EVERYTHING = "every path"  # ``**``, ``*``, ``**/*``
    NESTED = "every path inside a folder"  # ``**/``, ``*/``, ``**/*/**``
    SEGMENTS = "segment by segment"


_Part = _Segment | str
#: Segments to match one after the other, each against one path segment.
_Run = tuple[_Part, ...]


def _run_at(run: _Run, segments: Sequence[str], start: int) -> bool:
    """Whether ``run`` matches the path segments from ``start`` on, one for one."""
    if start + len(run) > len(segments):
        return False
    for offset, part in enumerate(run):
        text = segments[start + offset]
        if not (text == part if isinstance(part, str) else part.matches(text)):
            return False
    return True


def _earliest(run: _Run, segments: Sequence[str], start: int, last: int) -> int | None:
    """The first position from ``start`` to ``last`` where ``run`` matches, if any."""
    if last < start:
        return None
    head = run[0]
    if isinstance(head, str):  # most runs start with a plain name: let list.index find it
        while True:
            try:
                start = segments.index(head, start, last + 1)
            except ValueError:
                return None
            if len(run) == 1 or _run_at(run, segments, start):
                return start
            start += 1
    for at in range(start, last + 1):
        if head.matches(segments[at]) and (len(run) == 1 or _run_at(run, segments, at)):
            return at
    return None


@dataclass(frozen=True, slots=True)
class Glob:
    """One compiled pattern: ``include`` is False for a ``!`` (re-including) pattern."""

    text: str
    include: bool
    shape: _Shape
    #: The runs of segments between ``**``: the first is anchored at the root (empty after
    #: a leading ``**``), each other one may start anywhere after the one before it.
    runs: tuple[_Run, ...]
    #: Ends with ``**`` (``foo/`` and ``foo/**``): matches what is inside, never the path
    #: itself.
    inside: bool
    #: Written with a final ``/``: a match counts as through a folder.
    folder: bool
    #: The plain names among its segments: a path without one of them is never met.
    names: frozenset[str]

    @classmethod
    def compile(cls, line: str) -> Glob | None:
        """The pattern of one ``.gitignore`` line; None for a blank line, a comment or
        ``/``, which match nothing by design; :class:`GlobError` for one that cannot match."""
        text = _trim(line)
        if not text or text.startswith("#") or text == "/":
            return None
        if "\0" in text:
            raise GlobError(f"pattern {text!r} holds a NUL byte: no path does")
        include = not text.startswith("!")
        segments = (text if include else text[1:]).split("/")
        folder = not segments[-1]
        if not segments[0]:
            del segments[0]  # anchored: relative to the root
        elif (len(segments) == 1 or (len(segments) == 2 and not segments[1])) and segments[
            0
        ] != _GAP:
            segments.insert(0, _GAP)  # a bare name matches at any depth
        if not segments:
            raise GlobError(f"pattern {text!r}: nothing follows '!': not a pattern Git reads")
        if not segments[-1]:
            segments[-1] = _GAP
        segments = [s for i, s in enumerate(segments) if s != _GAP or segments[i - 1 : i] != [_GAP]]
        if segments == [_GAP]:
            shape = _Shape.NESTED if folder else _Shape.EVERYTHING
        elif segments == [_GAP, "*"]:
            shape = _Shape.EVERYTHING
        elif segments == [_GAP, "*", _GAP]:
            shape = _Shape.NESTED
        else:
            shape = _Shape.SEGMENTS
        inside = segments[-1] == _GAP
        runs: list[list[_Part]] = [[]]
        for segment in segments[:-1] if inside else segments:
            if segment == _GAP:
                runs.append([])
                continue
            try:
                runs[-1].append(_segment(segment))
            except GlobError as error:
                raise GlobError(f"pattern {text!r}: {error}") from None
        names = frozenset(part for run in runs for part in run if isinstance(part, str))
        return cls(line, include, shape, tuple(map(tuple, runs)), inside, folder, names)

    def reach(self, path: str) -> Reach | None:
        """How this pattern meets ``path`` (relative, ``/``-separated, a folder ending in
        ``/``): the path itself, one of its folders, or not at all.

        Each run after a ``**`` is placed where it first matches (the earliest place leaves
        the most room to the runs after it), so no placement is ever tried twice: the work is
        at most the path's segments times the longest run."""
        return self.reach_segments(path.split("/"))

    def reach_segments(self, segments: list[str]) -> Reach | None:
        """:meth:`reach` of a path already split at its ``/``."""
        if self.shape is _Shape.EVERYTHING:
            return Reach.FILE if segments != [""] else None
        if self.shape is _Shape.NESTED:
            return (Reach.FOLDER if self.folder else Reach.FILE) if len(segments) > 1 else None
        count = len(segments)
        runs = self.runs
        if runs[0] and not _run_at(runs[0], segments, 0):
            return None
        at = len(runs[0])
        if len(runs) == 1:
            whole, partly = at == count, at < count
        else:
            for run in runs[1:-1]:
                found = _earliest(run, segments, at, count - len(run))
                if found is None:
                    return None
                at = found + len(run)
            last = runs[-1]
            start = count - len(last)
            whole = start >= at and _run_at(last, segments, start)
            partly = _earliest(last, segments, at, start - 1) is not None
        if self.inside:
            if not partly:
                return None
            return Reach.FOLDER if self.folder else Reach.FILE
        if whole:
            return Reach.FILE
        return Reach.FOLDER if partly else None


class PathMatch(Enum):
    """What a set of patterns says of a path: the last pattern meeting it excludes it, a ``!``
    pattern re-includes it, or no pattern meets it."""

    EXCLUDED = "excluded"
    REINCLUDED = "reincluded"
    UNMATCHED = "unmatched"


def _outcome(include: bool) -> PathMatch:
    return PathMatch.EXCLUDED if include else PathMatch.REINCLUDED


class GlobSet:
    """Patterns in order, read as Git reads one ``.gitignore`` (pathspec's ``GitIgnoreSpec``):
    the last pattern that meets the path itself decides, else the last that meets one of its
    folders."""

    def __init__(self, globs: Iterable[Glob]) -> None:
        self.globs = tuple(globs)

    @classmethod
    def of(cls, lines: Iterable[str]) -> GlobSet:
        """The patterns of ``lines``; :class:`GlobError` at the first that cannot match."""
        return cls(glob for line in lines if (glob := Glob.compile(line)) is not None)

    def check(self, path: str) -> PathMatch:
        """Whether ``path`` is excluded, re-included by a ``!`` pattern, or met by none."""
        through_folder = PathMatch.UNMATCHED
        segments = path.split("/")
        present = frozenset(segments)
        for glob in reversed(self.globs):
            if not glob.names <= present:
                continue  # a name it needs is not in the path: checked once, in C
            reach = glob.reach_segments(segments)
            if reach is Reach.FILE:
                return _outcome(glob.include)
            if reach is Reach.FOLDER and through_folder is PathMatch.UNMATCHED:
                through_folder = _outcome(glob.include)
        return through_folder

    def matches(self, path: str) -> bool:
        """Whether the patterns exclude ``path``."""
        return self.check(path) is PathMatch.EXCLUDED
