"""What to do about a findings file's YAML syntax error when its cause is one agents' answers
usually have (a Markdown fence around the YAML, a value starting with a backtick or holding
``: ``): :func:`with_hint` adds it to the parser's message."""

from __future__ import annotations

from dataclasses import replace

from ..library.model import Diagnostic

#: What to do about the YAML syntax errors agents' answers usually have.
_FENCE_HINT = (
    "the answer is wrapped in a Markdown code fence (```): give the YAML alone, without the "
    "fence lines"
)
_BACKTICK_HINT = (
    'a plain YAML value cannot start with a backtick: quote the value ("`x` is ...") or '
    "write it as a block (`trigger: |-` and the text on the next lines, indented)"
)
_COLON_HINT = (
    "a plain YAML value cannot hold ': ': quote the value or write it as a block "
    "(`trigger: |-` and the text on the next lines, indented)"
)


def with_hint(diagnostic: Diagnostic, raw: bytes) -> Diagnostic:
    """A syntax error with what to do when its cause is a common one."""
    if not diagnostic.message.startswith("YAML syntax error"):
        return diagnostic
    text = raw.decode("utf-8", errors="replace")
    lines = text.split("\n")
    first = next((line.strip() for line in lines if line.strip()), "")
    hint = None
    if first.startswith(("```", "~~~")):
        hint = _FENCE_HINT
    elif 0 < diagnostic.line <= len(lines):
        line = lines[diagnostic.line - 1]
        at = line[diagnostic.column - 1 : diagnostic.column]
        if at == "`":
            hint = _BACKTICK_HINT
        elif "mapping values are not allowed" in diagnostic.message:
            hint = _COLON_HINT
    if hint is None:
        return diagnostic
    return replace(diagnostic, message=f"{diagnostic.message}; {hint}")
