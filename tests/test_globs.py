"""Git's wildcards without backtracking (:mod:`rlt_rules.files.globs`): the meaning of pathspec's
``GitIgnoreSpec`` (the matcher it replaced, compared on random patterns and paths), Git's
where pathspec strays, an error for a pattern that can match nothing, and time bounded by the
lengths whatever the pattern. The scan's three sources of globs (``.gitignore``, ``exclude``,
``per-file-ignores``) are run through the command in child processes in
``tests/test_hostile_inputs.py``."""

from __future__ import annotations

import random
import re
import time

import pathspec
import pytest

from rlt_rules.files.globs import Glob, GlobError, GlobSet, PathMatch

#: pathspec's verdict (include: True, False, None) as the matcher names it.
AS_MATCH = {True: PathMatch.EXCLUDED, False: PathMatch.REINCLUDED, None: PathMatch.UNMATCHED}

#: Pieces of patterns and path segments small enough for pathspec's regexes to finish.
ATOMS = ["a", "b", "*", "?", "[ab]", "[!b]", "[!a]a", "[a-b]", "**", "ab", "\\*", "."]


def _pattern(rng: random.Random) -> str:
    segments = [
        "**" if rng.random() < 0.2 else "".join(rng.choice(ATOMS) for _ in range(rng.randint(1, 3)))
        for _ in range(rng.randint(1, 4))
    ]
    text = "/".join(segments)
    text = ("/" if rng.random() < 0.25 else "") + text + ("/" if rng.random() < 0.25 else "")
    return ("!" if rng.random() < 0.2 else "") + text


def _path(rng: random.Random) -> str:
    segments = ["".join(rng.choice("ab.*") for _ in range(rng.randint(1, 3))) for _ in range(4)]
    segments = segments[: rng.randint(1, 4)]
    if segments[0] == ".":
        segments[0] = "a."  # pathspec drops a leading "./"; the walk never gives one
    return "/".join(segments) + ("/" if rng.random() < 0.3 else "")


def _pathspec(lines: list[str]) -> pathspec.GitIgnoreSpec:
    """pathspec's spec, with its one departure from Git undone: its ``[!a]`` is a regex class
    that matches ``/`` too (Git's never crosses a folder)."""
    spec = pathspec.GitIgnoreSpec.from_lines(lines)
    for pattern in spec.patterns:
        if pattern.regex is not None:
            pattern.regex = re.compile(pattern.regex.pattern.replace("[^", "[^/"))
    return pathspec.GitIgnoreSpec(spec.patterns)


@pytest.mark.parametrize("seed", range(4))
def test_the_matcher_means_what_pathspecs_gitignore_spec_means(seed: int) -> None:
    rng = random.Random(seed)
    verdicts: dict[PathMatch, int] = {}
    differences = []
    for _ in range(3000):
        lines = [_pattern(rng) for _ in range(rng.randint(1, 3))]
        theirs, ours = _pathspec(lines), GlobSet.of(lines)
        for _ in range(5):
            path = _path(rng)
            expected = AS_MATCH[theirs.check_file(path).include]
            verdicts[expected] = verdicts.get(expected, 0) + 1
            if ours.check(path) != expected:
                differences.append((lines, path, expected, ours.check(path)))
    assert differences == []
    assert min(verdicts.get(verdict, 0) for verdict in PathMatch) > 500  # all met


@pytest.mark.parametrize(
    ("patterns", "path", "verdict"),
    [
        (["build/"], "build/", True),
        (["build/"], "build", None),  # a folder pattern never matches a file
        (["build/"], "src/build/x.py", True),
        (["/build"], "src/build", None),  # anchored at the root
        (["a/**/b"], "a/x/y/b", True),
        (["a/**/b"], "a/b", True),
        (["*.py", "!keep.py"], "src/keep.py", False),
        (["src/", "!src/keep.py"], "src/keep.py", False),
        (["*.py", "!src/"], "src/x.py", True),  # a folder's '!' does not re-include a file
        (["[[:digit:]]*.py"], "1x.py", True),
        (["[[:digit:]]*.py"], "x1.py", None),
        (["[!a]"], "a/b", True),  # its last segment is not "a"
        (["x[!a]y"], "x/y", None),  # a class never matches '/'
        (["caf\\[e\\].py"], "caf[e].py", True),
        (["name\\ "], "name ", True),  # an escaped trailing space stays
        (["name  "], "name", True),  # unescaped trailing spaces go
        (["*"], "a\nb/c.py", True),  # '*' and '**' cross any character, a newline too
        (["a\nb/"], "a\nb/c.py", True),
    ],
)
def test_gits_meaning(patterns: list[str], path: str, verdict: bool | None) -> None:
    assert GlobSet.of(patterns).check(path) is AS_MATCH[verdict]


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("!", "nothing follows '!': not a pattern Git reads"),
        ("[z-a]", "the range z-a is empty ('z' sorts after 'a'): Git matches nothing with it"),
        ("src/[z-a]*.py", "the range z-a is empty"),
        ("x[", "opens a bracket expression that never closes"),
        ("[!]", "opens a bracket expression that never closes"),
        ("a\\", "a lone '\\' ends a segment"),
        ("[[:letter:]]", "[:letter:] is not a character class Git knows"),
        ("a\0b", "holds a NUL byte"),
    ],
)
def test_a_pattern_that_can_match_nothing_is_an_error_saying_why(
    pattern: str, message: str
) -> None:
    with pytest.raises(GlobError) as error:
        Glob.compile(pattern)
    assert str(error.value).startswith(f"pattern {pattern.rstrip()!r}")
    assert message in str(error.value)


@pytest.mark.parametrize("line", ["", "   ", "# a comment", "/"])
def test_blank_lines_comments_and_a_lone_slash_are_no_patterns(line: str) -> None:
    assert Glob.compile(line) is None


@pytest.mark.parametrize(
    ("pattern", "path"),
    [
        ("*a" * 12 + "*b", "a" * 40),  # pathspec: over a minute
        ("*a" * 500_000 + "b", "a" * 255),
        ("**/a" * 2000 + "/b", "a/" * 2000 + "b"),
        ("**/" + "/".join(["*a*a*a*a*a*a*b"] * 100), "/".join(["a" * 200] * 1000)),
        ("a/" * 300_000 + "b", "a/" * 2000 + "b"),
    ],
)
def test_matching_takes_time_bounded_by_the_lengths(pattern: str, path: str) -> None:
    globs = GlobSet.of([pattern])
    begun = time.monotonic()
    for folder in (False, True):
        globs.check(path + ("/" if folder else ""))
    assert time.monotonic() - begun < 20  # exponential backtracking takes minutes
