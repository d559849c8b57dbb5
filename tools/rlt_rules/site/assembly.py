"""The site's pages, assembled once: what the plugin adds to a build, and what the benchmark
and the tests write out as plain MkDocs input to compare the plugin with MkDocs' own.

:func:`assemble` gives a build's generated pages and side files (:mod:`.pages`) and every
hand-written page with its ``<!-- rlt:NAME -->`` markers filled (:mod:`.markers`).
:func:`write_markdown_site` writes the same as a docs folder that MkDocs builds without the
plugin (HTML inserts inlined), for a peer build of the same pages.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .markers import Filled, fill_markers
from .markup import GeneratedPage
from .pages import GeneratedFile, SiteInput, generated_files, generated_pages
from .tags import TAGS_MARKER


@dataclass(frozen=True, slots=True)
class Assembly:
    """One build's pages: the generated ones, the side files, and each hand-written page (by
    source URI) with its markers filled."""

    pages: tuple[GeneratedPage, ...]
    files: tuple[GeneratedFile, ...]
    filled: Mapping[str, Filled]


def assemble(site: SiteInput, handwritten: Mapping[str, str]) -> Assembly:
    """The site's pages from ``site`` and the hand-written pages' Markdown by source URI."""
    filled = {uri: fill_markers(text, site.library, uri) for uri, text in handwritten.items()}
    return Assembly(generated_pages(site), generated_files(site), filled)


def write_markdown_site(
    site: SiteInput, source_docs: Path, docs: Path, *, tags_marker: str | None = None
) -> Assembly:
    """Write the site's pages into ``docs`` as plain MkDocs input: the hand-written pages of
    ``source_docs`` (with their other files) with markers filled, every generated page with
    its HTML inserts inline, and the side files.

    ``tags_marker``: what the tags listing's marker (alone on its line) becomes, for a build
    by another tags plugin (Material's: ``<!-- material/tags -->``).
    """
    shutil.copytree(source_docs, docs)
    handwritten = {}
    for path in sorted(docs.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        if tags_marker is not None:
            # Only a marker on its own line is one (authoring.md names it inside code).
            pattern = rf"(?m)^<!-- rlt:{re.escape(TAGS_MARKER)} -->[ \t]*$"
            text = re.sub(pattern, lambda _: tags_marker, text)
        handwritten[path.relative_to(docs).as_posix()] = text
    assembly = assemble(site, handwritten)
    for uri, fill in assembly.filled.items():
        (docs / uri).write_text(fill.markdown, encoding="utf-8")
    for page in assembly.pages:
        target = docs / page.src_uri
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(page.inlined_markdown(), encoding="utf-8")
    for file in assembly.files:
        target = docs / file.uri
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(file.content, encoding="utf-8")
    return assembly
