"""A generated page's sections, each rendered to HTML on its own and kept while it is unchanged:
a lesson teaches about 250 rules at 1,000, and editing one of them renders its section only,
not the whole lesson (two seconds of Python-Markdown and Pygments); a category page's rules
are sections too (a statement edit renders one, not 250); a rule page's examples are its
section, so a page rendered again for a neighbour's new title keeps them.

A page with sections (:attr:`~.markup.GeneratedPage.sections`) has the line
:data:`~.markup.SECTIONS_MARKER` where they go. MkDocs renders the rest of the page as usual;
:func:`rendered_sections` renders each section as MkDocs renders a page
(:meth:`mkdocs.structure.pages.Page.render`: the site's Markdown extensions, links resolved
and checked from the page's own URI), and :func:`splice` (the plugin's ``on_page_content``)
puts them in place so that the page is the one a whole render gives: the sections' HTML
joined as Markdown joins blocks, the table of contents and the anchors merged in page order,
and what pymdownx numbers per page in page order (code blocks' line ids ``__span-N-L``,
tabbed sets) numbered again across the page. Where a whole render would let one section
change another (a reference definition, ``[TOC]``, a heading id used twice), the plugin
renders the page whole.

A rendered section is kept (:class:`~rlt_rules.files.memo.ByPage`, on the plugin's ``PageCache``) by
its Markdown and :func:`build_key`, unless rendering it logged a warning (a broken link): that
one is rendered, and warns, on every build.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from markdown.extensions.toc import nest_toc_tokens
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from mkdocs.structure.toc import AnchorLink, get_toc

from ..files.memo import ByPage
from .markup import SECTIONS_MARKER, GeneratedPage

#: Markdown that reaches across blocks: a reference, footnote or abbreviation definition (any
#: block of the page may use it) and the table-of-contents marker.
_SHARED_MARKDOWN = re.compile(r"(?m)^ {0,3}\*?\[[^\]\n]+\]:|\[TOC\]")
#: What pymdownx numbers per page, as its tags are written (``<`` never starts rule text
#: there: it is escaped): a code block's line spans (``line_spans: __span``; blocks from 0),
#: and a tabbed set's container, radio buttons and labels (sets from 1).
_SPAN = re.compile(r'<span id="__span-(\d+)-(\d+)">')
_TAB_SET = re.compile(r'(<div class="tabbed-set[^"<>]*" data-tabs=")(\d+)(:\d+">)')
_TAB_INPUT = re.compile(
    r'<input (checked="checked" )?id="__tabbed_(\d+)_(\d+)" name="__tabbed_(\d+)"'
)
_TAB_LABEL = re.compile(r'<label for="__tabbed_(\d+)_(\d+)">')
_MKDOCS_LOGGER = "mkdocs"


@dataclass(frozen=True, slots=True)
class TocEntry:
    level: int
    id: str
    title: str


@dataclass(frozen=True, slots=True)
class RenderedSection:
    """One section as MkDocs renders it alone: its HTML, its headings (in order), the ids it
    holds, its links to other pages' anchors (by target URI), and whether it warned."""

    html: str
    toc: tuple[TocEntry, ...]
    anchor_ids: frozenset[str]
    anchor_links: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]
    warned: bool


def build_key(config: MkDocsConfig, files: Files) -> str:
    """What a section's HTML depends on besides its Markdown and its page: the configuration
    (extensions, URL style, link checks) and which pages exist (its links)."""
    settings = (
        config.markdown_extensions,
        config.mdx_configs,
        config.use_directory_urls,
        config.validation,
        config.docs_dir,
    )
    digest = hashlib.sha256(repr(settings).encode())
    for file in files.documentation_pages():
        digest.update(file.src_uri.encode() + b"\0")
    return digest.hexdigest()


def shares_markdown(texts: Iterable[str]) -> bool:
    """Whether a whole render could let one block of these texts change another."""
    return any(_SHARED_MARKDOWN.search(text) for text in texts)


def rendered_sections(
    page: Page,
    sections: Sequence[str],
    config: MkDocsConfig,
    files: Files,
    *,
    memo: ByPage[tuple[str, str], RenderedSection],
    key: str,
) -> list[RenderedSection]:
    """Each section of ``page`` rendered, kept in ``memo`` by its Markdown and ``key``."""
    uri = page.file.src_uri
    return memo.use(
        uri,
        [(text, key) for text in sections],
        lambda section: render_section(section[0], uri, config, files),
        reusable=lambda rendered: not rendered.warned,
    )


def page_with_sections(
    html: str,
    page: Page,
    generated: GeneratedPage,
    config: MkDocsConfig,
    files: Files,
    *,
    memo: ByPage[tuple[str, str], RenderedSection],
    key: str,
) -> str:
    """The page's HTML with its sections, each rendered on its own and kept in ``memo`` while
    unchanged, or the page rendered whole where that could differ."""
    spliced = None
    if not shares_markdown([page.markdown or "", *generated.sections]):
        rendered = rendered_sections(page, generated.sections, config, files, memo=memo, key=key)
        spliced = splice(html, page, rendered, files)
    if spliced is not None:
        return spliced
    page.markdown = generated.with_sections(page.markdown or "")
    page.render(config, files)
    return page.content or ""


def render_section(text: str, page_uri: str, config: MkDocsConfig, files: Files) -> RenderedSection:
    """``text`` rendered as MkDocs renders the page ``page_uri`` (a page of its own, not in
    ``files``)."""
    fragment = Page(None, File.generated(config, page_uri, content=text), config)
    fragment.markdown = text
    with _Warnings() as warnings:
        fragment.render(config, files)
    links = fragment.links_to_anchors or {}
    return RenderedSection(
        fragment.content or "",
        tuple(_flat(fragment.toc)),
        frozenset(fragment.present_anchor_ids or ()),
        tuple((file.src_uri, tuple(anchors.items())) for file, anchors in links.items()),
        warnings.count > 0,
    )


def splice(html: str, page: Page, sections: Sequence[RenderedSection], files: Files) -> str | None:
    """``html`` (the page rendered without its sections) with ``sections`` in place, and the
    page's table of contents and anchors made the whole page's; None (page unchanged) when the
    page must be rendered whole."""
    at = html.find(SECTIONS_MARKER)
    if at < 0:
        return None
    before, after = html[:at], html[at + len(SECTIONS_MARKER) :]
    skeleton_toc = list(_flat(page.toc))
    # Heading ids a whole render would have made unique across the page.
    owners = Counter(entry.id for entry in skeleton_toc)
    for section in sections:
        owners.update({entry.id for entry in section.toc})
    held = Counter(page.present_anchor_ids or ())
    for section in sections:
        held.update(section.anchor_ids)
    if any(count > 1 for count in owners.values()) or any(
        held[entry.id] > 1 for section in sections for entry in section.toc
    ):
        return None
    # A raw HTML block ends with a blank line; a whole render joins blocks with one newline.
    after = after.removeprefix("\n\n")
    last = len(sections) - 1
    pieces = [before]
    pieces += [s.html + ("\n" if i < last or after else "") for i, s in enumerate(sections)]
    spliced = "".join(_numbered_per_page([*pieces, after]))
    toc = [entry for entry in skeleton_toc if _position(html, entry.id) < at]
    toc += [entry for section in sections for entry in section.toc]
    toc += [entry for entry in skeleton_toc if _position(html, entry.id) >= at]
    page.toc = get_toc(
        nest_toc_tokens(
            [{"level": e.level, "id": e.id, "name": e.title, "children": []} for e in toc]
        )
    )
    page.present_anchor_ids = set(page.present_anchor_ids or ()).union(
        *(section.anchor_ids for section in sections)
    )
    if page.links_to_anchors is not None:
        for section in sections:
            for target_uri, anchors in section.anchor_links:
                target = files.get_file_from_path(target_uri)
                if target is not None:
                    page.links_to_anchors.setdefault(target, {}).update(anchors)
    return spliced


def _numbered_per_page(pieces: Sequence[str]) -> Iterator[str]:
    """Each piece with the numbers pymdownx gives per page (code blocks' line spans, tabbed
    sets) continued from the pieces before it, in the order they appear, as a whole page's."""
    blocks_before, sets_before = 0, 0
    for piece in pieces:
        blocks = _first_appearances([m[0] for m in _SPAN.findall(piece)], blocks_before)
        sets = _first_appearances([m[1] for m in _TAB_SET.findall(piece)], sets_before + 1)
        blocks_before += len(blocks)
        sets_before += len(sets)
        yield _renumbered(piece, blocks, sets)


def _renumbered(piece: str, blocks: dict[str, int], sets: dict[str, int]) -> str:
    if any(int(old) != new for old, new in blocks.items()):
        piece = _SPAN.sub(lambda m: f'<span id="__span-{blocks[m[1]]}-{m[2]}">', piece)
    if all(int(old) == new for old, new in sets.items()):
        return piece

    def tab_set(number: str) -> int:
        return sets.get(number, int(number))

    piece = _TAB_SET.sub(lambda m: f"{m[1]}{tab_set(m[2])}{m[3]}", piece)
    piece = _TAB_INPUT.sub(
        lambda m: (
            f'<input {m[1] or ""}id="__tabbed_{tab_set(m[2])}_{m[3]}" '
            f'name="__tabbed_{tab_set(m[4])}"'
        ),
        piece,
    )
    return _TAB_LABEL.sub(lambda m: f'<label for="__tabbed_{tab_set(m[1])}_{m[2]}">', piece)


def _first_appearances(found: Iterable[str], first: int) -> dict[str, int]:
    """Each distinct number of ``found``, in order, numbered on from ``first``."""
    numbers: dict[str, int] = {}
    for number in found:
        if number not in numbers:
            numbers[number] = first + len(numbers)
    return numbers


def _position(html: str, anchor: str) -> int:
    found = html.find(f'id="{anchor}"')
    return found if found >= 0 else len(html)


def _flat(toc: Iterable[AnchorLink]) -> Iterator[TocEntry]:
    for item in toc:
        yield TocEntry(item.level, item.id, item.title)
        yield from _flat(item.children)


class _Warnings(logging.Handler):
    """Counts the warnings MkDocs logs inside the block."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1

    def __enter__(self) -> _Warnings:
        logging.getLogger(_MKDOCS_LOGGER).addHandler(self)
        return self

    def __exit__(self, *exc: object) -> None:
        logging.getLogger(_MKDOCS_LOGGER).removeHandler(self)
