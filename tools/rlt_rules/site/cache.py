"""What generated pages are made of, remembered across the builds of one process.

The site plugin owns one :class:`PageCache` for as long as MkDocs keeps the plugin (a live
preview builds the site again on every edit); a one-off build makes a fresh one, which
remembers nothing. Every entry is keyed by everything its text is made from, so a cache only
changes how fast a page is made, never what it is.
"""

from __future__ import annotations

from ..memo import Recent
from ..pairs import MarkerCache


class PageCache:
    """Memos of the parts of generated pages (:class:`~rlt_rules.memo.Recent`): call
    :meth:`next_generation` once per build."""

    __slots__ = ("examples", "filter_texts", "index_rows", "markers", "rule_pages")

    def __init__(self, markers: MarkerCache | None = None) -> None:
        #: The examples' markers, shared with the validator's DocumentCache.
        self.markers = markers if markers is not None else MarkerCache()
        #: A rule page's Markdown by its :class:`~.rule_page.RulePageInput`.
        self.rule_pages: Recent = Recent()
        #: A rule's examples section by its id and examples.
        self.examples: Recent = Recent()
        #: An index row by what it shows of its rule; a rule's filter text likewise.
        self.index_rows: Recent = Recent()
        self.filter_texts: Recent = Recent()

    def next_generation(self) -> None:
        for memo in (self.rule_pages, self.examples, self.index_rows, self.filter_texts):
            memo.next_generation()
