"""The live preview's search index, kept page by page by the plugin.

Material's search plugin, in a dirty build, merges the index of the previous build with the
pages it rendered by dropping the previous entries of the *first* rendered page only: it
assumes one page changed. A preview rebuild renders several (a rule page and its category
page), so there the plugin indexes each rendered page itself, with the class Material's plugin
indexes pages with, and keeps each page's entries until the page is rendered again. After the
build it writes ``search/search_index.json`` from every page's entries, in page order: the
index a clean build writes.

So that no page is parsed twice, a page the plugin has indexed is marked ``search: exclude``
(Material's documented front matter setting) while Material's plugin sees it, and the page's
own setting is put back before anything else reads it (:meth:`PreviewSearch.restore`).

A page's sections come from :class:`.search_sections.SectionMemo`: only the chunks of its HTML
(one per heading) not parsed before are parsed again; its entries are made from them by
Material's own ``create_entry_for_section``, as Material's plugin makes them.

Every entry's code blocks (``<pre>``) are moved from its ``text`` to a ``code`` field
(:func:`split_code`), which ``mkdocs.yml`` weighs below prose: the examples share one toy
engine's names (``scheduler``, ``free_blocks``, ``waiting``), and counted as prose they ranked
the rule with the most example code first for any query naming engine pieces. A word found only
in code still finds its page. Search results show ``text``, so their teasers are prose.

A rule page's first entry (its title, statement and example) also holds the text of the
sections that say when the rule applies and what to do (:data:`RULE_TEXT_SECTIONS`):
Material ranks a page's first entry well above its sections, and a reviewer describes the
code in front of them in a trigger's words, not the statement's. :func:`fold_rule_text`
does it for one page's entries; a build applies it to the index Material's plugin wrote
(:func:`fold_index_file`), a live preview to each rule page it indexes, so both indexes
are the same.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from material.plugins.search.plugin import SearchIndex
from mkdocs.structure.pages import Page
from mkdocs.utils import write_file

from .search_sections import SectionMemo

log = logging.getLogger("mkdocs.plugins.rlt_rules")

#: Where Material's search plugin writes its index, relative to the site directory.
INDEX_PATH = "search/search_index.json"
#: How Material's plugin serializes the index.
_SEPARATORS = (",", ":")
#: The section of a rule page that lists its triggers, one ``<li>`` each (its heading id).
TRIGGERS_SECTION = "when-it-applies"
#: The sections of a rule page (their heading ids, :mod:`.rule_page`) whose text its first
#: search entry holds too: the rule's own words, where a search for what code does looks. Not
#: the rationale: it says where the rule meets its neighbours, in their words ("cite R02
#: when ... a second copy kept in step"), which then drew their queries to this page; it stays
#: a section of its own.
RULE_TEXT_SECTIONS = (TRIGGERS_SECTION, "impact", "correction")
_TRIGGER_ITEM = re.compile(r"<li>(.*?)</li>", re.DOTALL)
#: A code block in an entry's text, as Material's plugin keeps it (escaped HTML).
_CODE_BLOCK = re.compile(r"<pre\b[^>]*>.*?</pre>", re.DOTALL)


def split_code(entries: list[dict[str, Any]]) -> None:
    """Move each entry's code blocks from its ``text`` to its ``code`` field (one page's or a
    whole index's entries, as Material makes them)."""
    for entry in entries:
        text = entry.get("text")
        if not isinstance(text, str) or "<pre" not in text:
            continue
        blocks = _CODE_BLOCK.findall(text)
        if blocks:
            entry["text"] = _CODE_BLOCK.sub(" ", text)
            entry["code"] = " ".join(blocks)


def fold_rule_text(
    entries: list[dict[str, Any]], trigger_anchors: Sequence[str]
) -> list[dict[str, Any]]:
    """A rule page's entries (``entries``, first entry first, as Material makes them) with the
    text of its :data:`RULE_TEXT_SECTIONS` appended to its first entry, and its "When it
    applies" section made one entry per trigger, at the trigger's anchor
    (``trigger_anchors``, in the triggers' order): a search for what the code does lands on
    the trigger to cite. A section whose items do not pair with the anchors (a trigger that
    holds a list of its own) stays whole, with a warning: ``mkdocs build --strict`` fails."""
    if not entries or "#" in entries[0]["location"]:
        return entries
    first = {**entries[0]}
    folded = [
        entry["text"]
        for entry in entries[1:]
        if entry["location"].partition("#")[2] in RULE_TEXT_SECTIONS
    ]
    first["text"] = " ".join([first["text"], *folded])
    page = first["location"]
    result = [first]
    for entry in entries[1:]:
        if entry["location"] != f"{page}#{TRIGGERS_SECTION}":
            result.append(entry)
            continue
        items = _TRIGGER_ITEM.findall(entry["text"])
        if len(items) != len(trigger_anchors):
            log.warning(
                "search: %s#%s holds %d list items for %d triggers, so it stays one search "
                "entry and a search cannot land on a trigger's anchor; write each trigger as "
                "one paragraph, without a list inside it",
                page,
                TRIGGERS_SECTION,
                len(items),
                len(trigger_anchors),
            )
            result.append(entry)
            continue
        result.extend(
            {**entry, "location": f"{page}#{anchor}", "text": text.strip()}
            for anchor, text in zip(trigger_anchors, items, strict=True)
        )
    return result


def fold_index_file(site_dir: str, trigger_anchors: Mapping[str, Sequence[str]]) -> None:
    """:func:`split_code` for every entry and :func:`fold_rule_text` for each rule page of
    ``trigger_anchors`` (its URL: its triggers' anchors) in the index Material's plugin wrote
    under ``site_dir``."""
    path = Path(site_dir) / INDEX_PATH
    if not path.is_file():
        return
    index = json.loads(path.read_text(encoding="utf-8"))
    split_code(index["docs"])
    pages: dict[str, list[dict[str, Any]]] = {}  # in the index's order
    for entry in index["docs"]:
        pages.setdefault(entry["location"].partition("#")[0], []).append(entry)
    for url, anchors in trigger_anchors.items():
        if url in pages:
            pages[url] = fold_rule_text(pages[url], anchors)
    index["docs"] = [entry for entries in pages.values() for entry in entries]
    text = json.dumps(index, separators=_SEPARATORS, default=str)
    write_file(text.encode("utf-8"), str(path))


class PreviewSearch:
    """Each page's search entries (as JSON text), from the build that last rendered it."""

    def __init__(self) -> None:
        self._entries: dict[str, str] = {}
        self._config: str | None = None
        #: Pages marked excluded for Material's plugin, with their own ``search`` setting.
        self._hidden: dict[str, tuple[bool, Any]] = {}
        self._sections = SectionMemo()

    def knows(self, src_uri: str) -> bool:
        return src_uri in self._entries

    def forget_all(self) -> None:
        self._entries.clear()  # a cross-build cache: a full rebuild resets it
        self._sections.forget_all()

    def index(
        self, page: Page, search_config: Any, *, trigger_anchors: Sequence[str] | None
    ) -> None:
        """Index ``page`` (rendered, before Material's plugin sees it; its code split off,
        :func:`split_code`; ``trigger_anchors``: a rule page's, :func:`fold_rule_text`, None
        for any other page) and hide it from Material's plugin."""
        index = SearchIndex(**search_config)
        if not (page.meta.get("search") or {}).get("exclude"):  # as add_entry_from_context
            for parsed in self._sections.sections(page.file.src_uri, page.content or ""):
                if not parsed.excluded:
                    index.create_entry_for_section(parsed.section(), page.toc, page.url, page)
            split_code(index.entries)
            if trigger_anchors is not None:
                index.entries[:] = fold_rule_text(index.entries, trigger_anchors)
        if self._config is None:
            config = json.loads(index.generate_search_index(None))["config"]
            self._config = json.dumps(config, separators=_SEPARATORS, default=str)
        docs = json.dumps(index.entries, separators=_SEPARATORS, default=str)
        self._entries[page.file.src_uri] = docs[1:-1]
        had, own = "search" in page.meta, page.meta.get("search")
        self._hidden[page.file.src_uri] = (had, own)
        page.meta["search"] = {**(own if isinstance(own, dict) else {}), "exclude": True}

    def restore(self, page: Page) -> None:
        """Give ``page`` back its own ``search`` setting (after Material's plugin saw it)."""
        hidden = self._hidden.pop(page.file.src_uri, None)
        if hidden is None:
            return
        had, own = hidden
        if had:
            page.meta["search"] = own
        else:
            del page.meta["search"]

    def write(self, site_dir: str, pages: Iterable[str]) -> None:
        """Write the index of ``pages`` (source URIs, in page order) over Material's."""
        docs = ",".join(entries for uri in pages if (entries := self._entries.get(uri, "")))
        if self._config is None:  # no page indexed in this preview yet: an empty index
            return
        text = f'{{"config":{self._config},"docs":[{docs}]}}'
        write_file(text.encode("utf-8"), str(Path(site_dir) / INDEX_PATH))
