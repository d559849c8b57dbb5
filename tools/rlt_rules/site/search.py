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
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from material.plugins.search.plugin import SearchIndex
from mkdocs.structure.pages import Page
from mkdocs.utils import write_file

from .search_sections import SectionMemo

#: Where Material's search plugin writes its index, relative to the site directory.
INDEX_PATH = "search/search_index.json"
#: How Material's plugin serializes the index.
_SEPARATORS = (",", ":")


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

    def index(self, page: Page, search_config: Any) -> None:
        """Index ``page`` (rendered, before Material's plugin sees it) and hide it from
        Material's plugin."""
        index = SearchIndex(**search_config)
        if not (page.meta.get("search") or {}).get("exclude"):  # as add_entry_from_context
            for parsed in self._sections.sections(page.file.src_uri, page.content or ""):
                if not parsed.excluded:
                    index.create_entry_for_section(parsed.section(), page.toc, page.url, page)
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
