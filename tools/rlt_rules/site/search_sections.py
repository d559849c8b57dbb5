"""A page's search sections, parsed by Material's own parser one heading's chunk at a time.

Material's search plugin parses a page's whole HTML (``Parser``, an ``HTMLParser`` that calls
Python for every tag, so for every Pygments ``<span>`` of highlighted code) and makes one entry
per section: the text from one heading with an ``id`` to the next. A preview rebuild indexes
each page it renders again, but most of such a page did not change. :class:`SectionMemo` cuts
the page's HTML before every ``<h1>``..``<h6>`` that has an ``id`` and parses each chunk that
it has not parsed before with a fresh ``Parser`` set up as the whole-page parser is at that
point; the sections of a chunk are remembered by a digest of the chunk's text.

Why a chunk's sections are the whole-page parser's, when the chunk ends *clean* (nothing left
in ``rawdata``, no ``<script>``/``<style>`` content open, no element open, ``skip`` back to its
initial tags):

* ``HTMLParser`` reads a token (text up to the next ``<``, a tag up to its ``>``, a comment up
  to ``-->``) the same whatever follows it; a token it cannot complete inside the chunk (an
  unclosed comment or quote, a cut character reference, ``<script>`` content) makes it stop
  and keep the rest in ``rawdata``, or leaves CDATA mode on: not clean. So when the chunk is
  clean, the whole-page parser, fed the same text from the same state, made the same calls
  and stands at the chunk's end with the state a fresh parser has, but for ``Parser.section``
  and ``Parser.data``.
* Elements the ``data-search-exclude`` or ``linenodiv`` rule adds to ``skip`` leave it when an
  element of their tag closes; with no element open none is left.
* The next chunk starts at a heading with an ``id`` and no element open: the heading starts a
  new section of depth 1, so nothing after it is added to an earlier section, and a nested
  heading's section, once its element closes, falls back to a section of depth <= 1, found
  before reaching an earlier chunk's. What the new section depends on is only whether a
  section came before: the first section has no ``id``, and a first heading other than
  ``<h1>`` adds an untitled section. So a chunk is parsed with one placeholder section in
  ``Parser.data`` when sections came before (``prior``), and its key says so. If anything of
  the chunk lands in the placeholder (the cut was not at a section's start: an ``id`` inside a
  quoted attribute, say), the page is parsed whole.
* A chunk that does not end clean (a heading nested in an element, a comment or script across
  a heading) is parsed together with the rest of the page as one chunk.

The last chunk is parsed as the whole page's end is: fed, then closed. A page without a heading
is one chunk: parsed whole, as Material does. Tests compare the sections with Material's for
every page of the repository's site and of the hostile site, and for each of these cases.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass
from enum import Enum

from material.plugins.search.plugin import Element, Parser, Section

#: Where a section may start: an ``<h1>``..``<h6>`` start tag with an ``id`` attribute.
#: A candidate only: the parse decides (a chunk that does not end clean is not cut there).
SECTION_START = re.compile(r"<h[1-6](?=[\s/>])[^<>]*?\sid(?=[\s=/>])", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class ParsedSection:
    """One section of Material's parse: what ``create_entry_for_section`` reads from it."""

    id: str | None
    #: The title's parts joined; ``None`` when the parser gave it no part (Material then
    #: titles the entry with the page's title: an empty part list, not an empty string).
    title: str | None
    text: str
    excluded: bool

    def section(self) -> Section:
        """A fresh Material ``Section`` (its ``create_entry_for_section`` assigns its title)."""
        section = Section(Element("hx"))
        section.id = self.id
        section.title = [] if self.title is None else [self.title]
        section.text = [self.text]
        return section


class Outcome(Enum):
    """How a chunk's parse ended when it did not give sections."""

    #: The chunk ends with something open: parse it with the rest of the page.
    OPEN = "open"
    #: Part of the chunk belongs to the section before it: parse the page whole.
    MISFIT = "misfit"


#: What the memo keeps for a chunk.
Parsed = tuple[ParsedSection, ...] | Outcome


@dataclass(frozen=True, slots=True)
class ChunkKey:
    """A chunk's text (by digest), whether sections came before it, whether it ends the page."""

    digest: bytes
    prior: bool
    last: bool


def whole_page_sections(html: str) -> tuple[ParsedSection, ...]:
    """Material's parse of ``html``, whole, as ``SearchIndex.add_entry_from_context`` runs it."""
    parser = Parser()
    parser.feed(html)
    parser.close()
    return tuple(_frozen(section) for section in parser.data)


def chunks(html: str) -> list[str]:
    """``html`` cut before every candidate section start (no empty chunk)."""
    cuts = [match.start() for match in SECTION_START.finditer(html)]
    bounds = [0, *(cut for cut in cuts if cut > 0), len(html)]
    return [html[start:end] for start, end in zip(bounds, bounds[1:], strict=False) if end > start]


class SectionMemo:
    """Chunks' sections for the pages of one preview, each chunk parsed once while it lives.

    A chunk lives while the latest indexing of some page used it; the memo forgets it when no
    page does (one entry per live chunk).
    """

    def __init__(self) -> None:
        self._parsed: dict[ChunkKey, Parsed] = {}
        self._users: Counter[ChunkKey] = Counter()
        self._keys_by_page: dict[str, frozenset[ChunkKey]] = {}
        self._initial_skip = _tags(Parser().skip)

    def __len__(self) -> int:
        return len(self._parsed)

    def forget_all(self) -> None:
        self._parsed.clear()
        self._users.clear()
        self._keys_by_page.clear()

    def sections(self, page: str, html: str) -> tuple[ParsedSection, ...]:
        """The sections of ``html``, the content of the page ``page`` (its source URI)."""
        used: set[ChunkKey] = set()
        found = self._page_sections(chunks(html), used)
        if found is None:  # a cut was not at a section's start: the page whole, as one chunk
            found = self._page_sections([html], used)
            assert found is not None  # a page's only chunk is its last: never open nor misfit
        self._use(page, frozenset(used))
        return found

    def _page_sections(
        self, parts: list[str], used: set[ChunkKey]
    ) -> tuple[ParsedSection, ...] | None:
        """The sections of ``parts`` (a page cut in chunks), or ``None`` if a cut misfits;
        adds the memo keys it read to ``used``."""
        sections: list[ParsedSection] = []
        at = 0
        while at < len(parts):
            text, last = parts[at], at == len(parts) - 1
            key = ChunkKey(_digest(text), prior=bool(sections), last=last)
            parsed = self._parse_once(key, text)
            used.add(key)
            if parsed is Outcome.OPEN:
                text = "".join(parts[at:])
                at = len(parts) - 1
                key = ChunkKey(_digest(text), prior=bool(sections), last=True)
                parsed = self._parse_once(key, text)
                used.add(key)
            if parsed is Outcome.MISFIT:
                return None
            assert not isinstance(parsed, Outcome)  # a last chunk is never open
            sections.extend(parsed)
            at += 1
        return tuple(sections)

    def _parse_once(self, key: ChunkKey, text: str) -> Parsed:
        parsed = self._parsed.get(key)
        if parsed is None:
            parsed = self._parse(text, prior=key.prior, last=key.last)
            self._parsed[key] = parsed
        return parsed

    def _parse(self, text: str, *, prior: bool, last: bool) -> Parsed:
        """Parse ``text`` from the state the whole-page parser has at a section's start."""
        parser = Parser()
        placeholder = Section(Element("hx"))
        if prior:
            parser.section = placeholder
            parser.data.append(placeholder)
        try:
            parser.feed(text)
            if last:
                parser.close()
        except ValueError:
            if not prior:
                raise  # Material's own parse fails so
            return Outcome.MISFIT  # an end tag looked for its start in the placeholder's text
        if placeholder.text or placeholder.title or placeholder.depth != 0:
            return Outcome.MISFIT
        if not last and not self._clean(parser):
            return Outcome.OPEN
        return tuple(_frozen(section) for section in parser.data[1 if prior else 0 :])

    def _clean(self, parser: Parser) -> bool:
        """Whether ``parser`` stands where a fresh one does, but for its sections."""
        return (
            not parser.rawdata
            and parser.cdata_elem is None
            and not parser.context
            and _tags(parser.skip) == self._initial_skip
        )

    def _use(self, page: str, keys: frozenset[ChunkKey]) -> None:
        """Make ``keys`` the chunks of ``page``; forget its previous ones no page uses now."""
        old = self._keys_by_page.get(page, frozenset())
        self._keys_by_page[page] = keys
        self._users.update(keys)
        self._users.subtract(old)
        for key in old - keys:
            if self._users[key] <= 0:
                del self._users[key]
                self._parsed.pop(key, None)


def _frozen(section: Section) -> ParsedSection:
    title = "".join(section.title) if section.title else None
    return ParsedSection(section.id, title, "".join(section.text), section.is_excluded())


def _tags(skip: set[object]) -> frozenset[str]:
    return frozenset(item.tag if isinstance(item, Element) else str(item) for item in skip)


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()
