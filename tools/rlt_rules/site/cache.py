"""What generated pages and files are made of, remembered across the builds of one process.

The site plugin owns one :class:`PageCache` for as long as MkDocs keeps the plugin (a live
preview builds the site again on every edit); a one-off build makes a fresh one, which
remembers nothing. Every entry is keyed by everything its text is made from, so a cache only
changes how fast a page is made, never what it is. No module of the site keeps a memo of its
own: what is worth remembering across builds is remembered here.
"""

from __future__ import annotations

from ..files.atomic import LastWritten
from ..files.memo import ByPage, Recent
from ..library.pairs import MarkerCache
from ..render.parts import RuleParts


class PageCache:
    """Memos of the parts of generated pages (:class:`~rlt_rules.files.memo.Recent`): call
    :meth:`next_generation` once per build."""

    __slots__ = (
        "detector_yaml",
        "examples",
        "export_parts",
        "exports_written",
        "filter_texts",
        "highlighted",
        "index_rows",
        "item_json",
        "lesson_sections",
        "markers",
        "pair_diffs",
        "practice_items",
        "rule_pages",
        "sections",
        "shown_programs",
    )

    def __init__(self, markers: MarkerCache | None = None) -> None:
        #: The examples' markers, shared with the validator's DocumentCache.
        self.markers = markers if markers is not None else MarkerCache()
        #: A rule page's Markdown by its :class:`~.rule_page.RulePageInput`.
        self.rule_pages: Recent = Recent()
        #: A rule's examples section by its id and examples.
        self.examples: Recent = Recent()
        #: A detector's ast-grep rule as a fenced YAML block, by the detector.
        self.detector_yaml: Recent = Recent()
        #: An index row by what it shows of its rule; a rule's filter text likewise.
        self.index_rows: Recent = Recent()
        self.filter_texts: Recent = Recent()
        #: A rule's section of its lesson, by the lesson's URI and the rule.
        self.lesson_sections: Recent = Recent()
        #: A page's sections as HTML, by page (:mod:`.sections`): kept while the page is not
        #: rendered again.
        self.sections: ByPage = ByPage()
        #: The practice items of a library, by category (the pages and the JSON files ask).
        self.practice_items: Recent = Recent()
        #: A bad program as practice shows it, by its code and rule id; a pair's diff by the
        #: pair; a shown program's Pygments tokens by its code.
        self.shown_programs: Recent = Recent()
        self.pair_diffs: Recent = Recent()
        self.highlighted: Recent = Recent()
        #: A practice item's JSON by the item, its choices' titles and its rule's URL.
        self.item_json: Recent = Recent()
        #: The exports' per-rule pieces (:func:`rlt_rules.export.site_files`), and what was
        #: last written at each export's path, so that an unchanged file is not written again.
        self.export_parts = RuleParts()
        self.exports_written = LastWritten()

    def next_generation(self) -> None:
        for name in self.__slots__:
            memo = getattr(self, name)
            if isinstance(memo, Recent | RuleParts):
                memo.next_generation()
