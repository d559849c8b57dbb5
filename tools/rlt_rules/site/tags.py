"""Tags from the model: the tags page's listing, the tag chips on rule pages, ``tags.json``.

Material's tags plugin collects tags from every page's Markdown as MkDocs renders it, so a
build that renders only some pages (the live preview) cannot use it. Here they come from the
library, like the category pages, with Material's markup: a page with the ``<!-- rlt:tags -->``
marker gets one heading per tag (:func:`tags_markdown`, in its table of contents) and, after
Markdown, each heading becomes the listing Material renders (:meth:`TagIndex.fill_listing`);
rule pages get their chips through the ``tags`` variable of Material's ``partials/tags.html``
(:meth:`TagIndex.chips`); ``tags.json`` is Material's export format (:meth:`TagIndex.export`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from ..library.model import Library
from .markup import href, page_title, page_url, rule_uri

#: The marker of a hand-written page that lists every tag (``<!-- rlt:tags -->``).
TAGS_MARKER = "tags"
#: Where Material's tags plugin exported the tags, and so where this site keeps them.
TAGS_EXPORT = "tags.json"

#: A tag heading as Markdown renders ``## name {#tag:name}``, with the toc permalink if any.
_TAG_HEADING = re.compile(
    r'<h2 id="tag:(?P<tag>[a-z0-9-]+)">(?P=tag)'
    r'(?P<permalink><a class="headerlink"[^>]*>[^<]*</a>)?</h2>'
)


def tag_anchor(tag: str) -> str:
    """A tag's heading id on the tags page: Material's ``tag:{slug}``; a tag is a slug already
    (``schema/rule.schema.json``), so the slug is the tag."""
    return f"tag:{tag}"


@dataclass(frozen=True, slots=True)
class TagChip:
    """One tag as ``partials/tags.html`` shows it on a page: linked to its place in the
    listing (``url`` relative to the site root; the template makes it relative to the page)."""

    name: str
    url: str | None
    hidden: bool = False


@dataclass(frozen=True, slots=True)
class TagIndex:
    """Every tag of the library (sorted) with its rules' ids and page titles (sorted by title,
    as Material sorts a listing)."""

    tags: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]

    @classmethod
    def of(cls, library: Library) -> TagIndex:
        by_tag: dict[str, list[tuple[str, str]]] = {}
        for rule in library.rules:
            if rule.tags:
                entry = (page_title(rule), rule.id)
                for tag in rule.tags:
                    by_tag.setdefault(tag, []).append(entry)
        return cls(tuple((tag, tuple(sorted(by_tag[tag]))) for tag in sorted(by_tag)))

    def markdown(self) -> str:
        """What the marker becomes: a heading per tag, for the table of contents and anchors."""
        return "\n\n".join(f"## {tag} {{#{tag_anchor(tag)}}}" for tag, _ in self.tags)

    def fill_listing(self, rendered: str, page_uri: str, *, directory_urls: bool = True) -> str:
        """``rendered`` (the HTML of the page at ``page_uri``) with each tag heading turned into
        Material's listing: the heading with the tag as a chip, then the rules that carry it."""
        rules = dict(self.tags)

        def link(rule_id: str) -> str:
            return href(page_uri, rule_uri(rule_id), directory_urls=directory_urls)

        def listing(match: re.Match[str]) -> str:
            tag = match["tag"]
            items = "".join(
                "    \n      <li>\n"
                f'        <a href="{link(rule_id)}">\n'
                f"          {title}\n"
                "        </a>\n      </li>\n"
                for title, rule_id in rules.get(tag, ())
            )
            # The whitespace is that of Material's fragments/tags/default/*.html templates.
            return (
                f'\n\n  <h2 id="{tag_anchor(tag)}">\n\n\n<span class="md-tag">{tag}</span>'
                f"{match['permalink'] or ''}</h2>\n  <ul>\n{items}    \n    \n  </ul>\n"
            )

        return _TAG_HEADING.sub(listing, rendered)

    def export(self, library: Library, *, directory_urls: bool = True) -> bytes:
        """``tags.json``: each tagged rule's page (URL, title) and its tags, in page order."""
        mappings = [
            {
                "item": {
                    "url": page_url(rule_uri(rule.id), directory_urls=directory_urls),
                    "title": page_title(rule),
                },
                "tags": sorted(rule.tags),
            }
            for rule in library.rules
            if rule.tags
        ]
        return json.dumps({"mappings": mappings}).encode("utf-8")


def chips(
    tags: tuple[str, ...], listing_uri: str | None, *, directory_urls: bool = True
) -> list[TagChip]:
    """A rule page's tags, sorted, each linked to its heading on the page at ``listing_uri``
    (no link without a tags page)."""
    if listing_uri is None:
        return [TagChip(tag, None) for tag in sorted(tags)]
    base = page_url(listing_uri, directory_urls=directory_urls) or "."
    return [TagChip(tag, f"{base}#{tag_anchor(tag)}") for tag in sorted(tags)]


def tags_markdown(library: Library, page_uri: str) -> str:
    """The ``<!-- rlt:tags -->`` marker's Markdown (see :meth:`TagIndex.markdown`)."""
    return TagIndex.of(library).markdown()
