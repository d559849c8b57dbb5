"""Every generated page and side file of the site, from two lists of generators
(:data:`GENERATORS`, :data:`SIDE_FILES`).

A generator is a function of the build's :class:`SiteInput` (the validated library, its
release history, MkDocs' URL style, the caches that outlive a build) that returns its pages as
:class:`~.markup.GeneratedPage`. A new kind of page is a module with such a function, added to
:data:`GENERATORS`; the plugin adds every page to the build, checks that no hand-written file
has the same path, and re-renders in a live preview only the pages whose Markdown changed.
Pages in the navigation also need a ``nav`` entry (see :mod:`.nav`). A side file (the index's
filter text, the practice items) is the same: a function of :class:`SiteInput` that returns
:class:`GeneratedFile`, listed in :data:`SIDE_FILES`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ..export.changelog import changelog_markdown
from ..findings import SAMPLE_DIR, SAMPLE_FINDINGS
from ..findings import site_page as review_markdown
from ..library.model import Library
from ..library.schemas import load_schema, schema_dir
from ..releases import History, rule_history
from . import learn
from .cache import PageCache
from .listing import INDEX_TABLE, category_page, index_filter_text, index_page
from .markup import (
    CHANGELOG_URI,
    FORMAT_URI,
    INDEX_TEXT_URI,
    INDEX_URI,
    GeneratedPage,
    category_uri,
    rule_uri,
)
from .reference import format_reference_page
from .rule_page import rule_page_text

#: The sample review page, at the docs root (its rule links are ``rules/<id>.md``).
REVIEW_URI = "review-example.md"
REVIEW_TITLE = "What a review looks like"


@dataclass(frozen=True, slots=True)
class SiteInput:
    """What one build generates its pages from.

    ``directory_urls`` is MkDocs' ``use_directory_urls`` (the index's raw HTML links to the
    pages' URLs); ``with_sample_review`` says that the repository's sample review belongs in
    this site. ``cache`` remembers parts of pages across the builds of a process (a fresh one
    remembers nothing); it does not change what the pages are.
    """

    library: Library
    history: History = field(default_factory=History)
    directory_urls: bool = True
    with_sample_review: bool = False
    cache: PageCache = field(default_factory=PageCache, compare=False)


def rule_pages(site: SiteInput) -> Iterable[GeneratedPage]:
    """One page per rule, kept out of the navigation (the index and categories link them)."""
    library = site.library
    for rule in library.rules:
        history = rule_history(site.history, rule.id)
        text = rule_page_text(library, rule, history, site.cache)
        yield GeneratedPage(
            rule_uri(rule.id),
            text.markdown,
            in_nav=False,
            source=rule.source.path if rule.source is not None else None,
            sections=text.sections,
        )


def _library_source(library: Library) -> str | None:
    return library.source.path if library.source is not None else None


def rule_index(site: SiteInput) -> Iterable[GeneratedPage]:
    markdown, table = index_page(site.library, directory_urls=site.directory_urls, cache=site.cache)
    yield GeneratedPage(
        INDEX_URI,
        markdown,
        in_nav=True,
        source=_library_source(site.library),
        html_inserts=((INDEX_TABLE, table),),
    )


def category_pages(site: SiteInput) -> Iterable[GeneratedPage]:
    for category in site.library.categories:
        page = category_page(site.library, category.id)
        yield GeneratedPage(
            category_uri(category.id),
            page.markdown,
            in_nav=True,
            source=_library_source(site.library),
            sections=page.sections,
        )


def format_reference(site: SiteInput) -> Iterable[GeneratedPage]:
    yield GeneratedPage(
        FORMAT_URI,
        format_reference_page(load_schema("rule.schema.json"), load_schema("library.schema.json")),
        in_nav=True,
        source=str(schema_dir() / "rule.schema.json"),
    )


def changelog(site: SiteInput) -> Iterable[GeneratedPage]:
    yield GeneratedPage(CHANGELOG_URI, changelog_markdown(site.history), in_nav=True, source=None)


def sample_review(site: SiteInput) -> Iterable[GeneratedPage]:
    """ "What a review looks like", in the site of the repository's own rules only."""
    if site.with_sample_review:
        yield GeneratedPage(
            REVIEW_URI,
            review_markdown(site.library, None),
            in_nav=True,
            source=str(SAMPLE_DIR / SAMPLE_FINDINGS),
        )


def learn_pages(site: SiteInput) -> Iterable[GeneratedPage]:
    """The Learn path: its overview, a lesson per category and the practice pages."""
    yield from learn.generated_pages(
        site.library, directory_urls=site.directory_urls, cache=site.cache
    )


#: Every page generator, in the order their pages join the build.
GENERATORS: tuple[Callable[[SiteInput], Iterable[GeneratedPage]], ...] = (
    rule_pages,
    rule_index,
    category_pages,
    format_reference,
    changelog,
    sample_review,
    learn_pages,
)


def generated_pages(site: SiteInput) -> tuple[GeneratedPage, ...]:
    """Every generated page of the site (:data:`GENERATORS`)."""
    return tuple(page for generate in GENERATORS for page in generate(site))


@dataclass(frozen=True, slots=True)
class GeneratedFile:
    """A file the site serves beside its pages (not a page): its URI and its text."""

    uri: str
    content: str


def filter_text(site: SiteInput) -> Iterable[GeneratedFile]:
    """The rule index's filter text (``site/js/rules-index.js`` reads it)."""
    yield GeneratedFile(INDEX_TEXT_URI, index_filter_text(site.library, site.cache))


def practice_files(site: SiteInput) -> Iterable[GeneratedFile]:
    """The practice items, one JSON file per category (``site/js/practice.js`` reads them)."""
    files = learn.generated_files(
        site.library, directory_urls=site.directory_urls, cache=site.cache
    )
    for uri, content in files.items():
        yield GeneratedFile(uri, content)


#: Every side-file generator.
SIDE_FILES: tuple[Callable[[SiteInput], Iterable[GeneratedFile]], ...] = (
    filter_text,
    practice_files,
)


def generated_files(site: SiteInput) -> tuple[GeneratedFile, ...]:
    """Every side file of the site (:data:`SIDE_FILES`)."""
    return tuple(file for generate in SIDE_FILES for file in generate(site))
