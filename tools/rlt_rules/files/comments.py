"""The comments of a Python program, as :mod:`tokenize` finds them, mostly without tokenizing.

The validator reads the comments of every example of the library (their ``# R03:`` markers);
tokenizing a thousand rules' examples took longer than parsing and schema-checking their YAML.
:func:`comments` finds them with a few regular expressions: it steps from each comment or
string literal to the next, then checks that the program would tokenize (every string closed,
brackets closed in order, indentation consistent, numbers well formed). Whatever it cannot
vouch for (t-strings, f-strings with more than plain replacement fields, tabs, backslashes
outside strings, numbers with underscores or a base prefix, non-ASCII code...) goes to
:mod:`tokenize`, so the result is always tokenize's: the comments, or None when the program
does not tokenize. A test compares the two over every example of the libraries and thousands
of mutated programs.
"""

from __future__ import annotations

import io
import re
import tokenize

#: One comment, as tokenize reports it: 1-based line, 0-based column, its text.
Comment = tuple[int, int, str]

#: Where a comment or a string literal starts.
_START = re.compile(r"[#'\"]")
#: A string literal from its opening quote (its prefix is read apart): three quotes open a
#: triple-quoted string, as tokenize reads them.
_STRING = re.compile(
    r"""'''(?:[^'\\]++|\\.|'(?!''))*+'''
      | \"\"\"(?:[^"\\]++|\\.|"(?!""))*+\"\"\"
      | '(?!'')(?:[^'\\\n]++|\\.)*+'
      | "(?!"")(?:[^"\\\n]++|\\.)*+"
      | ''(?!') | ""(?!")""",
    re.VERBOSE | re.DOTALL,
)
#: A one-line f-string from its opening quote, without backslashes, whose replacement fields
#: hold no comment, brace or line break (they may hold strings of either quote: PEP 701, but
#: not three quotes in a row, which open a triple-quoted string there).
_FSTRING = re.compile(
    r"""(?P<quote>['"])(?!(?P=quote){2})
        (?:[^'"\\\n{}]++ | (?!(?P=quote))['"] | \{\{ | \}\}
          | \{(?:[^'"{}\#\\\n]++ | '(?!'')[^'{}\\\n]*+' | "(?!"")[^"{}\\\n]*+")*+\})*+
        (?P=quote)""",
    re.VERBOSE,
)
#: A replacement field of an f-string (``{{`` and ``}}`` are literal braces: an empty match),
#: and a string inside one.
_FIELD = re.compile(r"""\{\{|\}\}|\{((?:[^'"{}]++|'[^']*+'|"[^"]*+")*+)\}""")
_FIELD_STRING = re.compile(r"""'[^']*'|"[^"]*\"""")
#: What this scan leaves to tokenize: characters that change how lines or tokens are read, or
#: that tokenize rejects outside strings and comments.
_UNUSUAL_CHARACTERS = re.compile(r"[\x00-\x09\x0b-\x1f\x7f\x85\u2028\u2029\ufeff]")
#: String prefixes (lower case) that make an f-string, and those that make a t-string.
_F_PREFIXES = frozenset({"f", "rf", "fr"})
_T_PREFIXES = frozenset({"t", "rt", "tr"})
_NOT_BRACKETS = re.compile(r"[^()\[\]{}]+")
_NOT_BRACKETS_OR_NEWLINES = re.compile(r"[^()\[\]{}\n]+")
_PAIRS = {")": "(", "]": "[", "}": "{"}
#: Number literals tokenize may reject: with underscores, or with a base prefix.
_FUSSY_NUMBER = re.compile(r"[0-9](?<!\w[0-9])(?:(?<=0)[bBoOxX]|[\w.]*_)")
#: Python's limit on nested indentation (tokenize raises beyond it); far above any example.
_MAX_INDENTS = 50


def comments(code: str) -> list[Comment] | None:
    """Every comment of ``code`` with its position, or None when it does not tokenize."""
    found = _scanned(code)
    return found if found is not None else _tokenized(code)


def _tokenized(code: str) -> list[Comment] | None:
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    return [(*token.start, token.string) for token in tokens if token.type == tokenize.COMMENT]


def _scanned(code: str) -> list[Comment] | None:
    """The comments found by the scan, or None when it cannot vouch for the result."""
    if _UNUSUAL_CHARACTERS.search(code):
        return None
    found: list[Comment] = []
    skeleton: list[str] = []  # the program without comments, each string literal one "$"
    position = 0
    while (lexeme := _START.search(code, position)) is not None:
        start = lexeme.start()
        skeleton.append(code[position:start])
        if code[start] == "#":
            end = code.find("\n", start)
            end = len(code) if end == -1 else end
            line_start = code.rfind("\n", 0, start) + 1
            found.append((code.count("\n", 0, start) + 1, start - line_start, code[start:end]))
        else:
            end = _string_end(code, start)
            if end is None:
                return None
            skeleton.append("$")
        position = end
    skeleton.append(code[position:])
    rest = "".join(skeleton)
    if not rest.isascii() or "\\" in rest or _FUSSY_NUMBER.search(rest) or not _tokenizes(rest):
        return None
    return found


def _string_end(code: str, quote: int) -> int | None:
    """Where the string literal opening at ``quote`` ends, or None when this scan leaves it to
    tokenize (never closed, a t-string, an f-string with more than plain fields)."""
    # The name right before the quote is a prefix if it is one (two letters at most).
    name = quote
    while name > 0 and quote - name <= 2 and _is_name_character(code[name - 1]):
        name -= 1
    prefix = code[name:quote].lower() if quote - name <= 2 else ""
    if prefix in _T_PREFIXES:
        return None
    if prefix in _F_PREFIXES:
        literal = _FSTRING.match(code, quote)
        if literal is None or not all(map(_plain_field, _FIELD.findall(literal.group()))):
            return None
        return literal.end()
    literal = _STRING.match(code, quote)
    return None if literal is None else literal.end()


def _is_name_character(character: str) -> bool:
    return character.isalnum() or character == "_"


def _plain_field(field: str) -> bool:
    """Whether an f-string's replacement field tokenizes as this scan reads it: ASCII, its
    brackets closed in order, its numbers plain (``""`` for a literal brace: nothing to read)."""
    field = _FIELD_STRING.sub("$", field)
    if not field.isascii() or _FUSSY_NUMBER.search(field):
        return False
    open_brackets: list[str] = []
    return _closed_in_order(_NOT_BRACKETS.sub("", field), open_brackets) and not open_brackets


def _closed_in_order(brackets: str, open_brackets: list[str]) -> bool:
    """Push each opening bracket of ``brackets`` on ``open_brackets`` and pop it with its
    closing one; False when a closing bracket does not close the last one opened."""
    for bracket in brackets:
        if bracket in "([{":
            open_brackets.append(bracket)
        elif not open_brackets or open_brackets.pop() != _PAIRS[bracket]:
            return False
    return True


def _tokenizes(skeleton: str) -> bool:
    """Whether a program without comments or strings would tokenize: brackets closed in order
    and all closed, each logical line's indentation one of the enclosing ones (as tokenize
    checks a dedent). The skeleton holds no tab or other whitespace than spaces and newlines."""
    open_brackets: list[str] = []
    indents = [0]
    bracket_lines = _NOT_BRACKETS_OR_NEWLINES.sub("", skeleton).split("\n")
    for line, brackets in zip(skeleton.split("\n"), bracket_lines, strict=True):
        if not open_brackets:
            code = line.lstrip(" ")
            indent = len(line) - len(code)
            if code and indent != indents[-1]:
                if indent > indents[-1]:
                    indents.append(indent)
                    if len(indents) > _MAX_INDENTS:
                        return False
                else:
                    while indent < indents[-1]:
                        indents.pop()
                    if indent != indents[-1]:
                        return False
        if brackets and not _closed_in_order(brackets, open_brackets):
            return False
    return not open_brackets
