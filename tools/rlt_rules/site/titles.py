"""How titles and pair names read on the site.

An example's title is plain text whose code spans (`` `watermark` ``) show as code
(:func:`md_title`); everything else renders as exactly the characters written, as
:func:`~rlt_rules.render.inert.md_text` makes it. A pair's name (``cuda-graph-backend-selection``)
becomes a heading whose words are written as the pair's own titles and explanations write them
(:func:`pair_heading`: "CUDA Graph backend selection", "hasattr guard").
"""

from __future__ import annotations

import builtins
import keyword
import re
from collections.abc import Iterable

from ..library.pairs import ExamplePair
from ..render.code import code_span
from ..render.inert import md_text

#: A code span: a run of backticks, text, the same run (CommonMark's rule, on one paragraph).
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)
#: Where a sentence starts: a capital there says nothing about how a word is written.
_SENTENCE_START = re.compile(r"(?:^|[.!?:]\s+|\n\s*)$")


def text_segments(markdown: str) -> list[list[str]]:
    """A Markdown paragraph as ``[kind, text]`` segments, ``kind`` being ``code`` (a code span)
    or ``text``: ``practice.js`` shows code spans as code and everything else as written."""
    segments: list[list[str]] = []
    position = 0
    for match in _CODE_SPAN.finditer(markdown):
        if match.start() > position:
            segments.append(["text", markdown[position : match.start()]])
        code = match.group(2)
        if code.startswith(" ") and code.endswith(" ") and code.strip():
            code = code[1:-1]
        segments.append(["code", code])
        position = match.end()
    if position < len(markdown):
        segments.append(["text", markdown[position:]])
    return segments


def md_title(text: str) -> str:
    """A title as inline Markdown: its code spans as code, the rest as exactly these
    characters (no emphasis, link or HTML from a title)."""
    return "".join(
        code_span(segment) if kind == "code" else md_text(segment)
        for kind, segment in text_segments(text)
    )


def pair_heading(pair: ExamplePair) -> str:
    """A pair's name as a heading, its words as the pair's text writes them."""
    texts = (pair.bad.title, pair.good.title, pair.bad.explanation, pair.good.explanation)
    return name_as_written(pair.name, texts)


def name_as_written(name: str, texts: Iterable[str]) -> str:
    """``name``'s words (split at ``-``) as ``texts`` write them, the first one capitalised
    unless it is code.

    A run of words takes the form the prose writes it in when every occurrence that does not
    start a sentence agrees (``cuda graph`` → "CUDA Graph"); a first word that is Python's own
    (a builtin or keyword) written as a code span (`` `hasattr()` ``) stays as code writes it.
    """
    words = [word for word in name.split("-") if word]
    if not words:
        return name
    prose: list[str] = []
    code: set[str] = set()
    for text in texts:
        for kind, segment in text_segments(text):
            if kind == "code":
                code.add(segment.removesuffix("()").strip())
            else:
                prose.append(segment)
    written = "\n".join(prose)
    out: list[str] = []
    start = 0
    first_is_code = words[0] in code and (words[0] in vars(builtins) or keyword.iskeyword(words[0]))
    while start < len(words):
        for end in range(len(words), start, -1):
            form = _consistent_form(words[start:end], written)
            if form is not None:
                out.append(form)
                start = end
                break
        else:
            out.append(words[start])
            start += 1
    heading = " ".join(out)
    if first_is_code or heading[:1] != words[0][:1]:
        return heading  # code, or a word the text writes with capitals already
    return heading[:1].upper() + heading[1:]


def _consistent_form(words: list[str], written: str) -> str | None:
    """How ``written`` writes these words (joined by spaces, hyphens or underscores) when it
    writes them with a capital and always the same way; None otherwise."""
    pattern = r"[\s_-]+".join(re.escape(word) for word in words)
    forms: set[str] = set()
    for match in re.finditer(rf"(?<![\w.])(?:{pattern})(?=s?(?!\w))", written, re.IGNORECASE):
        if _SENTENCE_START.search(written, 0, match.start()):
            continue
        forms.add(match.group(0))
    if len(forms) != 1:
        return None
    (form,) = forms
    if form == form.lower():
        return None
    return re.sub(r"[\s_-]+", " ", form)
