"""The one Markdown-safety path: library text made inert for Markdown renderers, so raw HTML
and script links show as text. Every Markdown view (the site's pages, the changelog, the Markdown
exports, rendered findings) escapes through here; code is fenced by
:func:`rlt_rules.render.code.fenced`.

Plain text (titles, tags, finding text outside code spans) becomes literal Markdown with
:func:`md_text`; in an export's running text a title is :func:`inert_text`.

Rule fields are Markdown (statement, seed example, rationale, triggers, impact, correction,
retired reason, explanations, preamble) or plain text (titles). A renderer passes raw HTML in
Markdown through, so ``<script>`` or ``<img onerror=…>`` in a rule would run in a reader's
browser. :func:`inert_markdown` rewrites a field so that every Markdown renderer we target
(Python-Markdown with the site's extensions, and CommonMark/GFM for the exported files) shows
those characters as text, while code, emphasis and ordinary links keep working:

* outside code, ``<`` becomes ``&lt;`` and an ``&`` that starts a character reference becomes
  ``&amp;`` (so ``&lt;`` written by an author stays ``&lt;`` and ``javascript&#58;`` is not a
  hidden colon); with ``attr_lists`` (the site), ``{`` becomes ``&#123;`` so attr_list cannot
  add ``onfocus=…`` attributes;
* a link or reference definition whose destination has a scheme other than http, https or
  mailto (``javascript:``, ``data:``…) is broken up: its ``](`` or ``]:`` gets an entity, and
  the text shows as written (:mod:`rlt_rules.library.text_links` decides it, and ``validate``
  rejects a link that stays one but is not absolute);
* fenced code blocks and inline code spans stay verbatim: renderers escape code themselves.
  Only code the renderers are sure to read as code is kept; anything ambiguous (an unclosed
  fence, a fence whose lines are less indented than its opening, a line with unpaired or
  double backticks) is treated as text: escaped, and a fence run at a line start broken up so
  no renderer opens a block there;
* a table delimiter row has its pipes replaced by entities: table cells must not split a code
  span apart.

For text without any of these constructs (the real library) the result equals the input.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Hashable
from dataclasses import replace

from ..library.model import Example, Library, Rule
from ..library.text_links import DESTINATION_WINDOW as _DESTINATION_WINDOW
from ..library.text_links import SAFE_SCHEMES as SAFE_SCHEMES
from ..library.text_links import code_before_close as _code_before_close
from ..library.text_links import unsafe_destination as _unsafe_destination
from .text import starts_with_code

# Markdown's backslash escapes, less ``>``: html.escape turns it (and ``<``, ``&``) into entities.
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|])")
_CHAR_REF = re.compile(r"&(?=#[0-9]+;|#[xX][0-9a-fA-F]+;|[A-Za-z0-9]+;)")
#: An opening fence both Python-Markdown's SuperFences and CommonMark accept: up to three
#: spaces, three or more backticks or tildes, and at most a plain language name.
_FENCE_OPEN = re.compile(r"(?P<ws> {0,3})(?P<fence>`{3,}|~{3,})[ \t]*[A-Za-z0-9_+-]*[ \t]*")
#: A fence run at a line start (after the indentation and quote markers renderers skip).
_FENCE_RUN = re.compile(r"^(?P<lead>[ \t>]*)(?P<char>[`~])(?=(?P=char){2})")
_DELIMITER_ROW = re.compile(r"[ \t>]*[|:\- \t]*")
#: Backtick runs and the backslashes before them (a backslash escapes a backtick).
_BACKTICKS = re.compile(r"\\*`+")
_TEXT_SPECIAL = re.compile(r"!\[|\]\(|\]:|&|<|\{")
#: Text without any of these comes out of :func:`inert_markdown` unchanged (most rule text):
#: they are everything the escaping, fence and delimiter-row rules act on, and ``\r``.
#: (Substring tests: a regular expression alternating them is ten times slower.)
_MAYBE_ACTIVE = ("<", "&", "{", "|", "](", "]:", "![", "```", "~~~", "\r")


def inert_markdown(text: str, *, at_line_start: bool = True, attr_lists: bool = False) -> str:
    """``text`` (Markdown) with raw HTML, character references and script links made inert.

    ``at_line_start``: the caller puts the text's first line at the start of a line (its own
    block); when False (``Impact: {text}``, a list item) a fence there is not trusted.
    ``attr_lists``: the renderer has the attr_list extension (the site), so ``{`` is escaped.
    """
    if not _maybe_active(text):
        return text
    normalized = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = normalized.split("\n")
    out: list[str] = []
    offset = 0  # of the current line in ``normalized``
    spans_trusted = True  # no unpaired backtick earlier in the current paragraph
    index = 0
    while index < len(lines):
        line = lines[index]
        if index > 0 or at_line_start:
            end = _fence_end(lines, index)
            if end is not None:
                out.extend(lines[index : end + 1])
                offset += sum(len(kept) + 1 for kept in lines[index : end + 1])
                index = end + 1
                continue
        if not line.strip(" \t"):
            spans_trusted = True
            out.append(line)
            offset += len(line) + 1
            index += 1
            continue
        paired = _paired_spans(line)
        if paired is None:
            spans_trusted = False
        spans = paired if spans_trusted and paired is not None else []
        out.append(_inert_line(line, spans, (normalized, offset), attr_lists=attr_lists))
        offset += len(line) + 1
        index += 1
    return "\n".join(out)


def _maybe_active(text: str) -> bool:
    """Whether ``text`` holds one of :data:`_MAYBE_ACTIVE`: one chain of substring tests, five
    times faster than ``any()`` over them (most rule text has none, and every export asks)."""
    return (
        "<" in text
        or "&" in text
        or "{" in text
        or "|" in text
        or "](" in text
        or "]:" in text
        or "![" in text
        or "```" in text
        or "~~~" in text
        or "\r" in text
    )


def md_text(text: str) -> str:
    """Plain text made safe for inline Markdown and HTML: it renders as exactly these characters
    (a title, a tag, a finding's words), in link text too."""
    # ``~`` has no Markdown escape; as an entity a "~~~" line cannot open a fenced block.
    return html.escape(_MD_SPECIAL.sub(r"\\\1", text), quote=True).replace("~", "&#126;")


#: ASCII punctuation: a backslash before one of these is an escape in CommonMark.
_ASCII_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
#: Characters that change an inline's rendering wherever they are: emphasis, code, raw HTML,
#: attr_list braces, strikethrough (GFM), how each is written instead.
_PROSE_ALWAYS = {"*": "\\*", "`": "\\`", "<": "&lt;", "{": "\\{", "~": "&#126;"}
#: A block a line can open: a heading, quote, list, admonition (``!!!``), details (``???``),
#: tabs (``===``) or an ordered list's ``1.``/``1)``; what is written instead.
_PROSE_BLOCK_START = re.compile(
    r"(?P<mark>[#>]|[+\-](?=[ \t-]|$)|!(?=!!))|(?P<twice>[?=])(?=(?P=twice){2})"
    r"|\d{1,9}(?P<dot>[.)])(?=[ \t]|$)"
)


def md_prose(text: str, *, at_line_start: bool, link_text: bool = False) -> str:
    """One line of plain text as Markdown that renders as exactly these characters, escaping
    only what would change the rendering (a sentence keeps its quotes, dots, dashes and
    parentheses as written): ``*``, unpaired backticks, ``<``, ``{`` and ``~`` always; ``_``
    outside a word; ``&`` that starts a character reference; ``]`` that would close a link
    (before ``(``, ``[`` or ``:``); a backslash before punctuation; and what would open a block
    at the start of a line (``at_line_start``: the text starts one). ``link_text``: the text goes
    between a link's brackets, so every bracket is escaped. For CommonMark, GFM and
    Python-Markdown with the site's extensions."""
    out: list[str] = []
    last = len(text) - 1
    for index, char in enumerate(text):
        after = text[index + 1] if index < last else ""
        if char in _PROSE_ALWAYS:
            out.append(_PROSE_ALWAYS[char])
        elif char == "_":
            before = text[index - 1] if index else ""
            inside_word = before.isalnum() and after.isalnum()
            out.append("_" if inside_word else "\\_")
        elif char == "&":
            out.append("&amp;" if _CHAR_REF.match(text, index) else "&")
        elif char == "]" or (char == "[" and link_text):
            out.append(f"\\{char}" if link_text or after in ("(", "[", ":") else char)
        elif char == "\\":
            out.append("\\\\" if after and after in _ASCII_PUNCTUATION else "\\")
        else:
            out.append(char)
    prose = "".join(out)
    start = _PROSE_BLOCK_START.match(prose) if at_line_start else None
    if start is None:
        return prose
    if start["mark"]:
        return "\\" + prose
    if start["twice"]:
        return f"&#{ord(start['twice'])};" + prose[1:]
    dot = start.start("dot")
    return prose[:dot] + "\\" + prose[dot:]


def inert_text(text: str) -> str:
    """Plain text (a title) for a Markdown document: inert, and never opening a block."""
    return inert_markdown(text, at_line_start=False)


def _fence_end(lines: list[str], start: int) -> int | None:
    """The closing line of a fenced block opening at ``start`` that every renderer agrees on."""
    opening = _FENCE_OPEN.fullmatch(lines[start])
    if opening is None:
        return None
    ws, fence = opening.group("ws"), opening.group("fence")
    closing = re.compile(rf"(?P<indent> *)(?P<run>{re.escape(fence[0])}{{{len(fence)},}})[ \t]*")
    for number in range(start + 1, len(lines)):
        line = lines[number]
        if not line.strip():
            continue
        if not line.startswith(ws):
            return None  # SuperFences abandons a fence whose lines are less indented
        found = closing.fullmatch(line)
        if found is None:
            continue
        if found.group("indent") == ws and found.group("run") == fence:
            return number
        if len(found.group("indent")) <= 3:
            return None  # CommonMark would close the block here, SuperFences would not
    return None


def _paired_spans(line: str) -> list[tuple[int, int]] | None:
    """Code spans of ``line`` as (start, end), or None when the line is not self-contained.

    Self-contained: single backticks only, none escaped, paired within the line. Then every
    renderer pairs them the same way; anything else is left for the text escaping.
    """
    runs = list(_BACKTICKS.finditer(line))
    if any(run.group(0) != "`" for run in runs) or len(runs) % 2:
        return None
    return [(runs[i].start(), runs[i + 1].end()) for i in range(0, len(runs), 2)]


def _inert_line(
    line: str, spans: list[tuple[int, int]], where: tuple[str, int], *, attr_lists: bool
) -> str:
    """One line outside fences: ``spans`` kept verbatim, the rest escaped.

    ``where`` is the whole text and this line's offset in it: a link destination may follow
    on the next line.
    """
    if _DELIMITER_ROW.fullmatch(line) and "|" in line and "-" in line:
        return line.replace("|", "&#124;")
    pieces: list[str] = []
    position = 0
    for start, end in [*spans, (len(line), len(line))]:
        pieces.append(_inert_segment(line, position, start, where, attr_lists=attr_lists))
        pieces.append(line[start:end])
        position = end
    result = "".join(pieces)
    run = _FENCE_RUN.match(result)
    if run is not None:
        entity = "&#96;" if run.group("char") == "`" else "&#126;"
        result = result[: run.start("char")] + entity + result[run.end("char") :]
    return result


def _inert_segment(
    line: str, start: int, end: int, where: tuple[str, int], *, attr_lists: bool
) -> str:
    """Escape ``line[start:end]`` (text, not code)."""
    text, line_offset = where

    def replace_special(match: re.Match[str]) -> str:
        token = match.group(0)
        after_start = line_offset + start + match.end()
        after = text[after_start : after_start + _DESTINATION_WINDOW]
        if token == "![":
            # Python-Markdown puts an image's text in its alt attribute, and a code span there
            # comes back unescaped: ![`"onerror=…`](x) would add an attribute.
            return "&#33;[" if _code_before_close(after, "[", "]") else token
        if token == "](":
            # The same holds for a code span in a link's destination or title.
            unsafe = _unsafe_destination(after) or _code_before_close(after, "(", ")")
            return "]&#40;" if unsafe else token
        if token == "]:":
            return "]&#58;" if _unsafe_destination(after) else token
        if token == "&":
            return "&amp;" if _CHAR_REF.match(line, start + match.start()) else "&"
        if token == "<":
            return "&lt;"
        return "&#123;" if attr_lists else token

    return _TEXT_SPECIAL.sub(replace_special, line[start:end])


# --- a whole library ---------------------------------------------------------------------


def inert_rule(rule: Rule) -> Rule:
    """``rule`` with every text field inert for a Markdown export (see the module doc)."""
    return _replaced(
        rule,
        title=inert_text(rule.title),
        statement=inert_markdown(rule.statement),
        seed_example=inert_markdown(
            rule.seed_example, at_line_start=starts_with_code(rule.seed_example)
        ),
        rationale=inert_markdown(rule.rationale, at_line_start=False),
        triggers=tuple(inert_markdown(t, at_line_start=False) for t in rule.triggers),
        impact=inert_markdown(rule.impact, at_line_start=False),
        correction=inert_markdown(rule.correction, at_line_start=False),
        retired_reason=(
            None
            if rule.retired_reason is None
            else inert_markdown(rule.retired_reason, at_line_start=False)
        ),
        examples=tuple(_inert_example(example) for example in rule.examples),
    )


class InertRules:
    """Rules made inert (:func:`inert_rule`), each once, for as long as its owner keeps this
    object: one listing or one export run, which asks for the same rules at several levels of
    detail. Rules are known by identity: the owner holds one library. The formats ask it for
    their per-rule pieces too (:meth:`part`): this one makes them every time, and
    :class:`~.parts.RuleParts`, its kind kept across a live preview's builds, remembers them."""

    __slots__ = ("_known",)

    def __init__(self) -> None:
        self._known: dict[int, tuple[Rule, Rule]] = {}

    @classmethod
    def seeded(cls, library: Library, shown: Library) -> InertRules:
        """Knowing already ``shown``, which is :func:`inert_library` of ``library``."""
        inert = cls()
        pairs = zip(library.rules, shown.rules, strict=True)
        inert._known = {id(rule): (rule, made) for rule, made in pairs}
        return inert

    def rule(self, rule: Rule) -> Rule:
        known = self._known.get(id(rule))
        if known is None or known[0] is not rule:
            known = self._known[id(rule)] = (rule, inert_rule(rule))
        return known[1]

    def part[V](self, key: Hashable, make: Callable[[], V]) -> V:
        """A format's piece of one rule, made by ``make``; ``key`` holds everything it is made
        from (the rule, the site URL, the library's inputs it reads). Made every time here;
        :class:`~.parts.RuleParts` keeps them across runs."""
        return make()


def _inert_example(example: Example) -> Example:
    return _replaced(
        example, title=inert_text(example.title), explanation=inert_markdown(example.explanation)
    )


def inert_library(library: Library, known: InertRules | None = None) -> Library:
    """The library as the Markdown exports print it: every text field inert.

    ``known``: the rules made inert so far, kept by a caller that renders several exports of
    one library (:func:`rlt_rules.export.site_files`), so that each rule is made inert once.
    """
    return _replaced(
        library,
        title=inert_text(library.title),
        subtitle=inert_text(library.subtitle),
        preamble=tuple(inert_markdown(paragraph) for paragraph in library.preamble),
        categories=tuple(
            _replaced(
                category,
                title=inert_text(category.title),
                what_goes_wrong=(
                    None
                    if category.what_goes_wrong is None
                    else inert_markdown(category.what_goes_wrong)
                ),
            )
            for category in library.categories
        ),
        rules=tuple(
            inert_rule(rule) if known is None else known.rule(rule) for rule in library.rules
        ),
    )


def _replaced[T](record: T, **fields: object) -> T:
    """``record`` with ``fields`` replaced, or ``record`` itself when none of them changes
    (the usual case: building a model object again validates it, which costs more)."""
    if all(value == getattr(record, name) for name, value in fields.items()):
        return record
    return replace(record, **fields)
