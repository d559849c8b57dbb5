"""Python code as lines of ``[class, text]`` tokens, highlighted at build time by Pygments, the
highlighter the rest of the site uses (pymdownx.highlight), with its short class names, so
Material's colours apply alike. The practice pages' script only shows these tokens; it never
tokenizes Python itself.
"""

from __future__ import annotations

from pygments.lexers.python import PythonLexer
from pygments.token import STANDARD_TYPES, _TokenType

#: One line: its tokens, each the Pygments class ("" for plain text) and the text.
Line = list[tuple[str, str]]


def _css_class(token_type: _TokenType) -> str:
    """The short class pymdownx.highlight's HTML gives a token (its nearest typed ancestor)."""
    while token_type not in STANDARD_TYPES:
        token_type = token_type.parent
    return STANDARD_TYPES[token_type]


class PythonHighlighter:
    """Highlights Python with one lexer, made once for the build that owns this object."""

    def __init__(self) -> None:
        # stripnl=False and ensurenl=False: the tokens give back the code exactly.
        self._lexer = PythonLexer(stripnl=False, ensurenl=False)

    def lines(self, code: str) -> list[Line]:
        """``code``'s lines, each a list of tokens; joining every token's text gives the line."""
        lines: list[Line] = [[]]
        for token_type, text in self._lexer.get_tokens(code):
            css = _css_class(token_type)
            for index, part in enumerate(text.split("\n")):
                if index:
                    lines.append([])
                if part:
                    lines[-1].append((css, part))
        if len(lines) > 1 and not lines[-1] and code.endswith("\n"):
            lines.pop()
        return lines
