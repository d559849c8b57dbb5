"""Code in Markdown: the one fenced block and the one code span every view writes.

A fence or span is longer than any backtick run inside the code, so no line of the code can
close it (a tilde line never closes a backtick fence). The code is shown as given: a caller
holding text with a final newline (a file, a YAML dump, a patch) drops it first.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

_BACKTICK_RUN = re.compile(r"`+")


def _longest_backtick_run(code: str) -> int:
    return max((len(run) for run in _BACKTICK_RUN.findall(code)), default=0)


def fenced(
    code: str,
    info: str,
    *,
    title: str | None = None,
    hl_lines: Iterable[int] = (),
    numbered: bool = False,
) -> str:
    """``code`` as a fenced code block with info string ``info`` (``"python"``, ``"diff"``).

    The options are SuperFences' (the site's): ``title`` shows above the block, ``hl_lines``
    (1-based lines of ``code``) are highlighted, ``numbered`` shows each line's number from 1.
    """
    fence = "`" * max(3, _longest_backtick_run(code) + 1) if "`" in code else "```"
    options = f' title="{html.escape(title)}"' if title else ""
    if numbered:
        options += ' linenums="1"'
    highlighted = _line_ranges(sorted(set(hl_lines)))
    if highlighted:
        options += f' hl_lines="{highlighted}"'
    return f"{fence}{info}{options}\n{code}\n{fence}"


def _line_ranges(lines: list[int]) -> str:
    """``[3, 4, 5, 9]`` -> ``3-5 9`` (SuperFences' ``hl_lines`` syntax)."""
    spans: list[list[int]] = []
    for line in lines:
        if spans and line == spans[-1][1] + 1:
            spans[-1][1] = line
        else:
            spans.append([line, line])
    return " ".join(f"{first}-{last}" if first != last else f"{first}" for first, last in spans)


def code_span(code: str) -> str:
    """``code`` as one inline code span: its characters shown as written, never as markup."""
    fence = "`" * (_longest_backtick_run(code) + 1)
    pad = " " if code[:1] == "`" or code[-1:] == "`" else ""
    return f"{fence}{pad}{code}{pad}{fence}"
