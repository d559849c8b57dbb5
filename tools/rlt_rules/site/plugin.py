"""The MkDocs plugin (``plugins: [rlt-rules]`` in ``mkdocs.yml``, registered through the
``mkdocs.plugins`` entry point): the rule library's pages and exports in the site.

Per build (:class:`SiteBuild`, made by ``on_config``): the validated library and the category
pages added to the nav. The library reaches the plugin one way: ``$RLT_RULES_DIR`` names its
rules folder (``rlt-rules site`` sets it, so do the tests and benchmarks; a plain ``mkdocs``
run may too), else it is ``rules/`` next to ``mkdocs.yml``. ``on_files`` adds the generated
pages and side files (:mod:`.assembly`); ``on_page_markdown`` fills the ``<!-- rlt:NAME -->``
markers of hand-written pages (:mod:`.markers`); ``on_page_content`` puts HTML inserts and the
tags listing in place; ``on_page_context`` gives rule pages their tag chips (:mod:`.tags`);
``on_post_build`` writes :func:`rlt_rules.export.site_files` and ``tags.json`` under
``site_dir`` (:mod:`.export_files`).

Across builds the plugin instance keeps caches that never change what a build produces (parsed
rule files, examples' markers, the parts of generated pages: :class:`~.cache.PageCache`), and,
while ``mkdocs serve --dirty`` runs, the live preview's memory (:class:`~.preview.Preview`): a
rebuild renders only the pages whose input changed.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

from mkdocs.config import config_options as c
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.livereload import LiveReloadServer
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page

from ..facts.addresses import versioned_site_url
from ..findings import SAMPLE_DIR, SAMPLE_FINDINGS
from ..library.model import LibraryError, Rule
from ..library.validate import DocumentCache
from ..project.check import DEFAULT_RULES_DIR, ProjectCheck, load_validated
from . import RULES_DIR_ENV
from .assembly import assemble
from .cache import PageCache
from .example_links import ExampleTarget, example_targets, link_example_names
from .export_files import publish_exports
from .file_names import FILE_NAMES_PAGE, break_file_names
from .idle import IdleCollector
from .markers import MARKERS, Filled, fill_markers
from .markup import GeneratedPage, output_path, rule_uri
from .nav import EditLinks, add_generated_pages_to_nav
from .pages import SiteInput
from .preview import FullBuild, Layout, PartialBuild, Preview, PreviewBuild
from .search import fold_index_file
from .sections import build_key, page_with_sections
from .serve import Watcher, watch_quickly
from .tags import TAGS_MARKER, TagIndex, chips

log = logging.getLogger("mkdocs.plugins.rlt_rules")

#: Seconds after a preview rebuild before its garbage is collected: browsers told to reload
#: have fetched the page by then.
IDLE_COLLECTION_DELAY = 0.5


class RulesPluginConfig(Config):
    #: While serving: how the server learns of a changed file (:class:`~.serve.Watcher`):
    #: ``native`` (the operating system reports it) or ``polling`` (MkDocs' own way: for
    #: Docker Desktop's bind mounts and network drives, whose changes may go unreported).
    watcher = c.Choice(tuple(w.value for w in Watcher), default=Watcher.NATIVE.value)
    #: While serving with ``watcher: polling``: seconds between two looks for changed files
    #: (MkDocs' own: 0.5).
    poll_interval = c.Type((int, float), default=0.1)
    #: While serving: seconds without further change before rebuilding (MkDocs' own: 0.1).
    build_delay = c.Type((int, float), default=0.05)


@dataclass(slots=True)
class SiteBuild:
    """One build: made by ``on_config``, read by that build's later events."""

    valid: ProjectCheck
    site: SiteInput
    tags: TagIndex
    #: Set by ``on_files``: the generated pages by source URI, the hand-written page that
    #: lists the tags (if any), and the rule of each rule page.
    generated: dict[str, GeneratedPage] = field(default_factory=dict)
    listing_uri: str | None = None
    rules_by_uri: dict[str, Rule] = field(default_factory=dict)
    #: Set by ``on_page_context``: each rule page's URL and its triggers' anchors (its search
    #: entries, :mod:`.search`).
    trigger_anchors: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: Set by ``on_files``: what generated pages' sections are rendered with
    #: (:func:`.sections.build_key`).
    section_key: str = ""
    #: Set by ``on_nav``: every page's source URI, in the order MkDocs renders them.
    page_order: tuple[str, ...] = ()
    #: A live preview's part of this build (None outside ``mkdocs serve --dirty``).
    preview: PreviewBuild | None = None
    #: In a preview, set by ``on_files``: the exports being rendered and written on the
    #: plugin's export thread (the number of files, when done).
    exports: Future[int] | None = None
    #: Set by ``on_files``: each pair name's rule and anchor (:mod:`.example_links`).
    examples: dict[str, tuple[ExampleTarget, ...]] = field(default_factory=dict)


class _UnchangedPage(File):
    """A generated page whose input is the same as in the previous preview build."""

    def is_modified(self) -> bool:
        return False


class RulesPlugin(BasePlugin[RulesPluginConfig]):
    """The rule library's pages, tags and exports in an MkDocs (Material) site."""

    def __init__(self) -> None:
        super().__init__()
        #: Caches kept across builds: they change how fast a build is, never what it makes.
        self._documents = DocumentCache()
        self._pages = PageCache(self._documents.markers)
        #: The live preview's memory while ``mkdocs serve --dirty`` runs, else None.
        self._preview: Preview | None = None
        #: While the preview runs: garbage collected after a rebuild rather than during one.
        self._collector: IdleCollector | None = None
        #: While the preview runs: the thread that renders and writes a rebuild's exports while
        #: MkDocs renders its pages (writing 51 MB at 1,000 rules leaves the interpreter lock
        #: to the pages).
        self._exporter: ThreadPoolExecutor | None = None
        #: True under ``mkdocs serve``: a live preview has no deployed versions to list.
        self._serving = False
        self._build: SiteBuild | None = None

    # --- lifetime ----------------------------------------------------------------------------

    def on_startup(self, *, command: str, dirty: bool) -> None:
        self._close_preview()
        self._serving = command == "serve"
        if command == "serve" and dirty:
            self._preview = Preview()
            self._collector = IdleCollector(delay=IDLE_COLLECTION_DELAY)
            self._exporter = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rlt-exports")

    def on_shutdown(self) -> None:
        self._close_preview()

    def _close_preview(self) -> None:
        if self._preview is not None:
            self._preview.close()
        self._preview = None
        if self._collector is not None:
            self._collector.close()
        self._collector = None
        if self._exporter is not None:
            self._exporter.shutdown(wait=True)
        self._exporter = None

    def _current(self) -> SiteBuild:
        if self._build is None:
            raise PluginError("rlt-rules plugin: on_config did not run before this event")
        return self._build

    # --- configuration and files -------------------------------------------------------------

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        self._build = None
        if self._collector is not None:
            self._collector.build_started()
        self._pages.next_generation()
        valid = self._load(rules_dir(config))
        library = valid.library
        assert library is not None and valid.history is not None
        # The sample review (samples/review beside this package's repository) cites the
        # repository's own rules: it belongs in that library's site only, not in one built from
        # another rules directory (RLT_RULES_DIR, test fixtures, a copied project).
        own_rules = (SAMPLE_DIR.parents[1] / DEFAULT_RULES_DIR).resolve()
        with_review = valid.rules_dir == own_rules and (SAMPLE_DIR / SAMPLE_FINDINGS).is_file()
        site = SiteInput(
            library, valid.history, config.use_directory_urls, with_review, self._pages
        )
        self._build = SiteBuild(valid, site, TagIndex.of(library))
        if self._serving:
            # Material's version selector would fetch ../versions.json on every page; only
            # mike's deployments have one.
            config.extra.pop("version", None)
        if config.nav is not None:  # else MkDocs builds the nav from the files, categories too
            add_generated_pages_to_nav(config.nav, library, with_sample_review=with_review)
        log.info("rlt-rules: %d rules from %s", len(library.rules), valid.rules_dir)
        return config

    def _load(self, rules_dir: Path) -> ProjectCheck:
        try:
            return load_validated(rules_dir, self._documents)
        except LibraryError as error:
            raise PluginError(
                f"the rule library in {rules_dir} is invalid:\n{error}\n"
                "fix these, or run `rlt-rules validate` to see them again"
            ) from error

    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        build = self._current()
        handwritten = files.documentation_pages()
        assembly = assemble(build.site, {file.src_uri: file.content_string for file in handwritten})
        generated, filled = assembly.pages, assembly.filled
        build.generated = {page.src_uri: page for page in generated}
        build.rules_by_uri = {rule_uri(rule.id): rule for rule in build.site.library.rules}
        build.examples = example_targets(build.site.library)
        build.listing_uri = next(
            (uri for uri, fill in filled.items() if TAGS_MARKER in fill.used), None
        )
        if self._preview is not None:
            build.preview = self._plan_preview(config, build, handwritten, filled)
        plan = build.preview.plan if build.preview is not None else None
        unchanged = plan.unchanged if isinstance(plan, PartialBuild) else frozenset()
        edit_links = EditLinks(Path(config.docs_dir))
        for page in generated:
            if files.get_file_from_path(page.src_uri) is not None:
                raise PluginError(
                    f"{Path(config.docs_dir) / page.src_uri}: this page is generated from the "
                    "rule library; remove the hand-written file"
                )
            kind = _UnchangedPage if page.src_uri in unchanged else File
            file = kind.generated(
                config,
                page.src_uri,
                content=page.markdown,
                inclusion=InclusionLevel.INCLUDED if page.in_nav else InclusionLevel.NOT_IN_NAV,
            )
            file.edit_uri = edit_links.edit_uri(page.source)
            files.append(file)
        for side_file in assembly.files:
            files.append(File.generated(config, side_file.uri, content=side_file.content))
        build.section_key = build_key(config, files)
        if self._exporter is not None:  # after the plan, which may empty the site directory
            build.exports = self._exporter.submit(self._publish_exports, config, build)
        return files

    def _fill(self, markdown: str, page_uri: str) -> Filled:
        return fill_markers(markdown, self._current().site.library, page_uri)

    def _plan_preview(
        self,
        config: MkDocsConfig,
        build: SiteBuild,
        handwritten: list[File],
        filled: Mapping[str, Filled],
    ) -> PreviewBuild:
        assert self._preview is not None
        site = build.site
        layout = Layout(
            Path(config.config_file_path).read_bytes() if config.config_file_path else b"",
            tuple((file.src_uri, file.content_string) for file in handwritten),
            site.library.metadata_dict(),
            site.with_sample_review,
            str(Path(config.site_dir).resolve()),
        )
        directory_urls = config.use_directory_urls
        inputs: dict[str, tuple[object, str]] = {}
        for file in handwritten:
            listing = build.tags if file.src_uri == build.listing_uri else None
            inputs[file.src_uri] = ((filled[file.src_uri].markdown, listing), file.dest_uri)
        for page in build.generated.values():
            output = output_path(page.src_uri, directory_urls=directory_urls)
            inputs[page.src_uri] = ((page.markdown, page.html_inserts, page.sections), output)
        preview = self._preview.plan(layout, inputs, config.site_dir)
        plan = preview.plan
        if isinstance(plan, FullBuild):
            log.info("rlt-rules: rendering every page: %s", plan.reason)
        else:
            log.info(
                "rlt-rules: %d of %d pages changed", len(inputs) - len(plan.unchanged), len(inputs)
            )
        return preview

    def on_nav(self, nav: Navigation, config: MkDocsConfig, files: Files) -> Navigation:
        """Preview rebuilds: the pages not rendered again keep the titles their last rendering
        found (MkDocs knows the others only from the nav, and shows them in every sidebar)."""
        build = self._current()
        documentation = files.documentation_pages()
        build.page_order = tuple(file.src_uri for file in documentation)
        plan = build.preview.plan if build.preview is not None else None
        if self._preview is None or not isinstance(plan, PartialBuild):
            return nav
        for file in documentation:
            page = file.page
            uri = file.src_uri
            if uri in plan.unchanged and page is not None and page.title is None:
                page.title = self._preview.title(uri)
        return nav

    # --- pages ---------------------------------------------------------------------------------

    def on_page_markdown(
        self, markdown: str, page: Page, config: MkDocsConfig, files: Files
    ) -> str:
        if page.file.src_uri in self._current().generated:
            return markdown
        filled = self._fill(markdown, page.file.src_uri)
        for name in filled.unknown:
            log.warning(
                "%s: unknown marker <!-- rlt:%s --> (known: %s)",
                page.file.src_uri,
                name,
                ", ".join(sorted(MARKERS)),
            )
        return filled.markdown

    def on_page_content(self, html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        """The page's content (:meth:`_content`), its prose naming examples linked to them."""
        html = self._content(html, page, config, files)
        urls = config.use_directory_urls
        html = link_example_names(
            html, page.file.src_uri, self._current().examples, directory_urls=urls
        )
        return break_file_names(html) if page.file.src_uri == FILE_NAMES_PAGE else html

    def _content(self, html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        """Put a generated page's sections, HTML inserts and the tags listing in place."""
        build = self._current()
        uri = page.file.src_uri
        generated = build.generated.get(uri)
        if generated is not None and generated.sections:
            memo, key = self._pages.sections, build.section_key
            html = page_with_sections(html, page, generated, config, files, memo=memo, key=key)
        if generated is not None and generated.html_inserts:
            return generated.insert_html(html)
        if uri == build.listing_uri:
            return build.tags.fill_listing(html, uri, directory_urls=config.use_directory_urls)
        return html

    @event_priority(100)  # before Material's search plugin (0) reads the page
    def _page_context_first(self, context, page: Page, config: MkDocsConfig, nav: Navigation):
        build = self._current()
        rule = build.rules_by_uri.get(page.file.src_uri)
        if rule is not None:  # its copy buttons' address (js/cite.js)
            build.trigger_anchors[page.url] = rule.anchors().triggers
            version = build.site.library.version
            context["rlt_published_url"] = versioned_site_url(config.site_url, version)
        if rule is not None and rule.tags:
            context["tags"] = chips(
                rule.tags, build.listing_uri, directory_urls=config.use_directory_urls
            )
        preview = self._preview
        if preview is not None and build.preview is not None:
            preview.rendered(build.preview, page.file.src_uri, page.title)
            search = config.plugins.get("material/search")
            if search is not None:
                anchors = None if rule is None else build.trigger_anchors[page.url]
                preview.search.index(page, search.config, trigger_anchors=anchors)
        return context

    @event_priority(-100)  # after Material's search plugin, before the page's template
    def _page_context_last(self, context, page: Page, config: MkDocsConfig, nav: Navigation):
        if self._preview is not None:
            self._preview.search.restore(page)
        return context

    on_page_context = CombinedEvent(_page_context_first, _page_context_last)

    @event_priority(110)  # before anything renders a template
    def on_env(self, env, config: MkDocsConfig, files: Files):
        if self._preview is not None:
            env.bytecode_cache = self._preview.templates
        return env

    # --- serving and publishing ------------------------------------------------------------------

    @event_priority(100)  # first, so that other plugins' watches go to the faster watcher
    def on_serve(self, server: LiveReloadServer, config: MkDocsConfig, builder) -> LiveReloadServer:
        watch_quickly(
            server,
            config,
            [str(self._current().valid.rules_dir)],
            watcher=Watcher(self.config.watcher),
            poll_interval=float(self.config.poll_interval),
            build_delay=float(self.config.build_delay),
        )
        return server

    @event_priority(-50)  # after Material's search plugin has written its index
    def on_post_build(self, config: MkDocsConfig) -> None:
        """Publish the exports and ``tags.json`` at the site root (in a preview, wait for the
        export thread to have done so); in a preview, write the search index of every page."""
        build = self._current()
        if build.exports is not None:
            published = build.exports.result()  # its error, if any, fails the build
        else:
            published = self._publish_exports(config, build)
        log.info("rlt-rules: published %d export files", published)
        searched = config.plugins.get("material/search") is not None
        if self._preview is not None and build.preview is not None:
            if searched:
                self._preview.search.write(config.site_dir, build.page_order)
            self._preview.finished(build.preview)
        elif searched:
            fold_index_file(config.site_dir, build.trigger_anchors)
        if self._collector is not None:
            self._collector.build_ended()

    def _publish_exports(self, config: MkDocsConfig, build: SiteBuild) -> int:
        """Write the exports and ``tags.json`` under ``site_dir``, each file replaced
        atomically; the number of files. Reads only ``build``'s library and tags and the
        plugin's export caches, which nothing else touches during a build (so it may run on
        the export thread).

        The exports' links (SARIF ``helpUri``, llms.txt) point at this version's pages as mike
        publishes them: ``<site_url><library version>/rules/R03/``.
        """
        library = build.site.library
        # While serving, unchanged rules' pieces come from the builds before (same bytes); a
        # one-off build makes them for itself (keeping them would cost it, not save).
        return publish_exports(
            library,
            build.tags,
            Path(config.site_dir),
            versioned_site_url(config.site_url, library.version),
            directory_urls=config.use_directory_urls,
            written=self._pages.exports_written,
            parts=self._pages.export_parts if self._serving else None,
        )

    def on_build_error(self, error: Exception) -> None:
        if self._build is not None and self._build.exports is not None:
            wait([self._build.exports])  # no export thread outlives its build
        if self._preview is not None and self._build is not None and self._build.preview:
            self._preview.failed(self._build.preview)
        if self._collector is not None:
            self._collector.build_ended()


def rules_dir(config: MkDocsConfig) -> Path:
    """``$RLT_RULES_DIR`` (relative to the working directory), else ``rules/`` next to
    ``mkdocs.yml``."""
    configured = os.environ.get(RULES_DIR_ENV)
    if configured:
        return Path(configured).resolve()
    return (Path(config.config_file_path).resolve().parent / DEFAULT_RULES_DIR).resolve()
