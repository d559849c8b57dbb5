"""MkDocs hook (``hooks:`` in ``mkdocs.yml``): the rule library's pages and exports in the site.

Per build: ``on_config`` loads the library (from ``$RLT_RULES_DIR``, default ``rules/`` next to
``mkdocs.yml``), or takes the one ``rlt-rules site build`` hands over (:mod:`.handoff`), and
adds the category pages to the nav after ``rules/index.md``; ``on_files`` adds the generated
pages (rule pages kept out of the nav); ``on_page_markdown`` fills the ``<!-- rlt:NAME -->``
markers of hand-written pages; ``on_serve`` watches the rules directory; ``on_post_build``
writes :func:`rlt_rules.export.site_files` under ``site_dir``.

Live preview (``mkdocs serve --dirty``, which ``rlt-rules site serve`` runs): a rebuild renders
only the pages whose input changed (see :class:`Preview`), so editing one rule of 1,000
shows in seconds instead of a minute.

MkDocs loads this file by path, so it imports the package absolutely.
"""

from __future__ import annotations

import copy
import html
import logging
import os
import posixpath
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from jinja2 import BytecodeCache
from jinja2.bccache import Bucket
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.livereload import LiveReloadServer
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page
from mkdocs.utils import clean_directory
from mkdocs.utils.meta import get_data

from rlt_rules.atomic import write_atomic
from rlt_rules.export import site_files
from rlt_rules.findings import SAMPLE_DIR, SAMPLE_FINDINGS
from rlt_rules.findings import site_page as review_page
from rlt_rules.model import Library, LibraryError
from rlt_rules.project import DEFAULT_RULES_DIR, ProjectCheck, load_validated
from rlt_rules.schemas import load_schema, schema_dir
from rlt_rules.site import RULES_DIR_ENV, learn, pages
from rlt_rules.site.handoff import provided_library
from rlt_rules.validate import DocumentCache

log = logging.getLogger("mkdocs.hooks.rlt_rules")

#: The sample review page, at the docs root (its rule links are ``rules/<id>.md``).
REVIEW_URI = "review-example.md"
REVIEW_TITLE = "What a review looks like"


@dataclass(frozen=True, slots=True)
class BuildInput:
    """What one build generates from: the validated library (its directory and release history
    with it), and whether the repository's sample review belongs in this site."""

    valid: ProjectCheck
    with_sample_review: bool


#: Set by ``on_config`` at the start of every build (MkDocs hooks share state as module globals).
_current: BuildInput | None = None
#: This build's generated pages that carry HTML inserts, by source URI (set by ``on_files``).
_with_inserts: dict[str, pages.GeneratedPage] = {}


class _CompiledTemplates(BytecodeCache):
    """The theme's templates compiled once per preview, not once per rebuild.

    Each build gets a new Jinja environment, which compiles every template it renders again
    (about a quarter of a second for Material's). Jinja checks each entry against the
    template's source, so an edited template is compiled again.
    """

    def __init__(self) -> None:
        self._compiled: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        compiled = self._compiled.get(bucket.key)
        if compiled is not None:
            bucket.bytecode_from_string(compiled)

    def dump_bytecode(self, bucket: Bucket) -> None:
        self._compiled[bucket.key] = bucket.bytecode_to_string()


@dataclass(slots=True)
class Preview:
    """What the previous build of a live preview (``mkdocs serve --dirty``) produced.

    MkDocs' dirty builds render only files it reports modified; a generated page always
    reports modified, so the hook decides instead. A rebuild is *full* (the site directory
    emptied, every page rendered) when anything every page depends on changed: the
    configuration, a hand-written page's source, the library's title, version, preamble or
    categories (the nav), or the set of rules and their tags (the tags page). Otherwise it is
    *partial*: only the pages whose input differs from the previous build's are rendered, and
    the search index keeps the entries of the others. A generated page's input is its Markdown
    and HTML inserts; a hand-written page's is its Markdown with the ``<!-- rlt:NAME -->``
    markers filled, plus every rule's title (the tags page lists them). Either way the site
    equals a clean build's.
    """

    documents: DocumentCache = field(default_factory=DocumentCache)
    templates: _CompiledTemplates = field(default_factory=_CompiledTemplates)
    #: Each page handed over unrendered: its source, and the Markdown and metadata read from it.
    front_matter: dict[str, tuple[str, str, dict]] = field(default_factory=dict)
    #: What every page depends on, as of the last finished build (None: none finished yet).
    layout: tuple | None = None
    #: What each page was rendered from in the last finished build, by source URI.
    inputs: dict[str, object] = field(default_factory=dict)
    #: Each page's title as its last rendering found it (the text of its first heading).
    titles: dict[str, str] = field(default_factory=dict)
    #: This build: a full one, the URL of every page, the pages rendered so far, whether its
    #: pages are all written, and what becomes ``layout`` and ``inputs`` when they are.
    full: bool = True
    pages: set[str] = field(default_factory=set)
    rendered: set[str] = field(default_factory=set)
    written: bool = False
    pending_layout: tuple | None = None
    pending_inputs: dict[str, object] = field(default_factory=dict)
    #: Pages not rendered in this build, in order, not yet handed to the plugins.
    unrendered: list[File] = field(default_factory=list)
    order: dict[str, int] = field(default_factory=dict)

    def start_build(self) -> None:
        self.full, self.pages, self.rendered, self.written = True, set(), set(), False


#: Set by ``on_startup`` for ``mkdocs serve --dirty``; None for every other build.
_preview: Preview | None = None

#: MkDocs warns before every dirty build that navigation may be wrong; with the hook deciding
#: what is rebuilt it is not, and in strict mode the warning would fail every rebuild.
_DIRTY_WARNING = "A 'dirty' build is being performed"


class _DirtyWarningFilter(logging.Filter):
    rlt_rules_dirty_filter = True

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith(_DIRTY_WARNING)


class _UnchangedPage(File):
    """A generated page whose Markdown is the same as in the previous preview build."""

    def is_modified(self) -> bool:
        return False


def on_startup(*, command: str, dirty: bool) -> None:
    global _preview
    _preview = Preview() if command == "serve" and dirty else None
    if _preview is not None:
        logger = logging.getLogger("mkdocs.commands.build")
        if not any(getattr(f, "rlt_rules_dirty_filter", False) for f in logger.filters):
            logger.addFilter(_DirtyWarningFilter())


def rules_dir_for(config: MkDocsConfig) -> Path:
    """``$RLT_RULES_DIR`` (relative to the working directory), else ``rules/`` by mkdocs.yml."""
    configured = os.environ.get(RULES_DIR_ENV)
    if configured:
        return Path(configured).resolve()
    return (Path(config.config_file_path).resolve().parent / DEFAULT_RULES_DIR).resolve()


def _build_input() -> BuildInput:
    if _current is None:
        raise PluginError("rlt-rules hook: on_config did not run before this event")
    return _current


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    global _current
    if _preview is not None:
        _preview.start_build()
    # rlt-rules site build has loaded and validated it already (see handoff).
    valid = provided_library() or _load(rules_dir_for(config))
    library = valid.library
    # The sample review (samples/review beside this package's repository) cites the
    # repository's own rules: it belongs in that library's site only, not in one built from
    # another rules directory (RLT_RULES_DIR, test fixtures, a copied project).
    own_rules = (SAMPLE_DIR.parents[1] / DEFAULT_RULES_DIR).resolve()
    with_sample_review = valid.rules_dir == own_rules and (SAMPLE_DIR / SAMPLE_FINDINGS).is_file()
    _current = BuildInput(valid, with_sample_review)
    if config.nav is not None:  # else MkDocs builds the nav from the files, categories too
        add_categories_to_nav(config.nav, library)
    if with_sample_review and config.nav is not None:
        entry = {REVIEW_TITLE: REVIEW_URI}
        if entry not in config.nav:
            config.nav.append(entry)
    log.info("rlt-rules: %d rules from %s", len(library.rules), valid.rules_dir)
    return config


def _load(rules_dir: Path) -> ProjectCheck:
    try:
        return load_validated(rules_dir, _preview.documents if _preview is not None else None)
    except LibraryError as error:
        raise PluginError(
            f"the rule library in {rules_dir} is invalid:\n{error}\n"
            "fix these, or run `rlt-rules validate` to see them again"
        ) from error


def add_categories_to_nav(nav: list, library: Library) -> None:
    """Insert the category pages after ``rules/index.md`` in its nav section (once), and the
    Learn path's lessons after ``learn/index.md`` (:func:`learn.add_to_nav`)."""
    section = _nav_section_holding(nav, pages.INDEX_URI)
    if section is None:
        raise PluginError(
            f"mkdocs.yml: the nav must list {pages.INDEX_URI}; the rlt-rules hook adds the "
            "category pages after it"
        )
    listed = {_nav_target(item) for item in section}
    position = next(i for i, item in enumerate(section) if _nav_target(item) == pages.INDEX_URI)
    additions = [
        # Nav titles reach the HTML unescaped; a category title is plain text.
        {html.escape(category.title): pages.category_uri(category.id)}
        for category in library.categories
        if pages.category_uri(category.id) not in listed
    ]
    section[position + 1 : position + 1] = additions
    learn.add_to_nav(nav, library)


def _nav_target(item: object) -> object:
    if isinstance(item, dict) and len(item) == 1:
        return next(iter(item.values()))
    return item


def _nav_section_holding(nav: list, target: str) -> list | None:
    for item in nav:
        value = _nav_target(item)
        if value == target:
            return nav
        if isinstance(value, list):
            found = _nav_section_holding(value, target)
            if found is not None:
                return found
    return None


def on_files(files: Files, config: MkDocsConfig) -> Files:
    current = _build_input()
    generated = pages.generated_pages(
        current.valid.library,
        load_schema("rule.schema.json"),
        load_schema("library.schema.json"),
        schema_source=str(schema_dir() / "rule.schema.json"),
        history=current.valid.history,
        directory_urls=config.use_directory_urls,
    ) + learn.generated_pages(current.valid.library, config.use_directory_urls)
    if current.with_sample_review:
        generated += (
            pages.GeneratedPage(
                REVIEW_URI,
                review_page(current.valid.library, None),
                in_nav=True,
                source=str(SAMPLE_DIR / SAMPLE_FINDINGS),
            ),
        )
    global _with_inserts
    _with_inserts = {page.src_uri: page for page in generated if page.html_inserts}
    docs_dir = Path(config.docs_dir).resolve()
    unchanged = _plan_preview_build(config, files, current, generated)
    folders: dict[str, Path] = {}
    for page in generated:
        existing = files.get_file_from_path(page.src_uri)
        if existing is not None:
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
        file.edit_uri = _edit_uri(page.source, docs_dir, folders)
        files.append(file)
    files.append(
        File.generated(
            config, pages.INDEX_TEXT_URI, content=pages.index_filter_text(current.valid.library)
        )
    )
    for uri, content in learn.generated_files(
        current.valid.library, config.use_directory_urls
    ).items():
        files.append(File.generated(config, uri, content=content))
    return files


def _plan_preview_build(
    config: MkDocsConfig,
    files: Files,
    current: BuildInput,
    generated: tuple[pages.GeneratedPage, ...],
) -> set[str]:
    """For a preview rebuild: the pages to leave as they are (see :class:`Preview`).

    Empties the site directory first when this rebuild must be full.
    """
    preview = _preview
    if preview is None:
        return set()
    library = current.valid.library
    handwritten = tuple((file.src_uri, file.content_string) for file in files.documentation_pages())
    layout = (
        Path(config.config_file_path).read_bytes() if config.config_file_path else b"",
        handwritten,
        library.metadata_dict(),
        tuple((rule.id, rule.tags) for rule in library.rules),
        current.with_sample_review,
        str(Path(config.site_dir).resolve()),
    )
    titles = tuple(rule.title for rule in library.rules)
    inputs: dict[str, object] = {
        file.src_uri: (pages.fill_markers(file.content_string, library, file.src_uri)[0], titles)
        for file in files.documentation_pages()
    }
    inputs.update((page.src_uri, (page.markdown, page.html_inserts)) for page in generated)
    preview.full = layout != preview.layout
    preview.pending_layout = layout
    preview.pending_inputs = inputs
    if preview.full:
        clean_directory(config.site_dir)
        preview.front_matter.clear()  # forget pages that may be gone
        return set()
    site_dir = Path(config.site_dir)
    unchanged = {
        uri
        for uri, source in inputs.items()
        if preview.inputs.get(uri) == source and (site_dir / _output_path(uri, config)).is_file()
    }
    for file in files.documentation_pages():
        if file.src_uri not in unchanged:
            # MkDocs renders a page whose output is missing.
            (site_dir / file.dest_uri).unlink(missing_ok=True)
    return unchanged


def _output_path(src_uri: str, config: MkDocsConfig) -> str:
    return File(src_uri, None, "", config.use_directory_urls).dest_uri


def on_nav(nav: Navigation, config: MkDocsConfig, files: Files) -> Navigation:
    """Preview rebuilds: line up the pages that are not rendered again (see :func:`on_pre_page`)."""
    preview = _preview
    if preview is None:
        return nav
    documentation = files.documentation_pages()
    preview.pages = {_page_url(file) for file in documentation}
    preview.unrendered = [] if preview.full else [f for f in documentation if not f.is_modified()]
    preview.order = {file.src_uri: position for position, file in enumerate(documentation)}
    return nav


def on_pre_page(page: Page, config: MkDocsConfig, files: Files) -> Page:
    """Preview rebuilds: give plugins the Markdown of the pages not rendered again, in order.

    MkDocs skips every event of a page it does not rebuild, but plugins collect from every
    page's Markdown what rebuilt pages show (tag links, the tags page, ``tags.json``), in the
    order of the pages: so the pages before this one are handed over first.
    """
    if _preview is not None:
        _hand_over_unrendered(config, files, before=_preview.order.get(page.file.src_uri, 0))
    return page


@event_priority(110)  # before the tags plugin (100) renders its listings
def on_env(env, config: MkDocsConfig, files: Files):
    if _preview is not None:
        env.bytecode_cache = _preview.templates
        _hand_over_unrendered(config, files, before=len(_preview.order))
    return env


def _hand_over_unrendered(config: MkDocsConfig, files: Files, before: int) -> None:
    preview = _preview
    assert preview is not None
    while preview.unrendered and preview.order[preview.unrendered[0].src_uri] < before:
        file = preview.unrendered.pop(0)
        page = file.page if file.page is not None else Page(None, file, config)
        _read_source(page, config, preview)
        if file.src_uri in preview.titles:
            # Unrendered, a page's title is its heading's Markdown source (``private\-state``).
            page.meta.setdefault("title", preview.titles[file.src_uri])
        page.markdown = config.plugins.on_page_markdown(
            page.markdown, page=page, config=config, files=files
        )
        # The tags plugin fills its listings into the HTML of a page that holds one (the tags
        # page); that of a page not rendered again is never written.
        page.content = ""


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Put a generated page's HTML inserts in place (see :class:`pages.GeneratedPage`)."""
    generated = _with_inserts.get(page.file.src_uri)
    return generated.insert_html(html) if generated is not None else html


def _read_source(page: Page, config: MkDocsConfig, preview: Preview) -> None:
    """``page.read_source``, without parsing the same front matter again every rebuild."""
    source = config.plugins.on_page_read_source(page=page, config=config)
    if source is None:
        source = page.file.content_string
    known = preview.front_matter.get(page.file.src_uri)
    if known is None or known[0] != source:
        markdown, meta = get_data(source)
        known = preview.front_matter[page.file.src_uri] = (source, markdown, meta)
    page.markdown, page.meta = known[1], copy.deepcopy(known[2])


def on_page_context(context, page: Page, config: MkDocsConfig, nav: Navigation):
    if _preview is not None:
        _preview.rendered.add(page.url)
        if page.title is not None:
            _preview.titles[page.file.src_uri] = page.title
    return context


def on_build_error(error: Exception) -> None:
    """A preview build that failed while writing pages: the next one renders every page.

    (An invalid library fails before any page is written; strict mode's warnings fail the
    build after every page is written: neither needs it.)
    """
    if _preview is not None and _preview.rendered and not _preview.written:
        _preview.layout = None


def _edit_uri(source: str | None, docs_dir: Path, folders: dict[str, Path]) -> str | None:
    """The source file's path relative to the docs dir (``../rules/R03.yaml``).

    ``edit_uri`` in mkdocs.yml points at the docs dir in the repository, so MkDocs joins this to
    the repository URL of the YAML file itself. Files outside the repository get no edit link.
    ``folders`` holds the folders resolved so far in this build (one per folder, not per file).
    """
    if source is None:
        return None
    folder, name = os.path.split(source)
    resolved = folders.get(folder)
    if resolved is None:
        resolved = folders[folder] = Path(folder).resolve()
    path = resolved / name
    repository = docs_dir.parent
    if not path.is_relative_to(repository):
        return None
    return posixpath.relpath(path.as_posix(), docs_dir.as_posix())


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    filled, unknown = pages.fill_markers(markdown, _build_input().valid.library, page.file.src_uri)
    for name in unknown:
        log.warning(
            "%s: unknown marker <!-- rlt:%s --> (known: %s)",
            page.file.src_uri,
            name,
            ", ".join(sorted(pages.MARKERS)),
        )
    return filled


def on_serve(server: LiveReloadServer, config: MkDocsConfig, builder) -> LiveReloadServer:
    server.watch(str(_build_input().valid.rules_dir))
    return server


@event_priority(50)  # before the search plugin writes its index: see _keep_search_entries
def on_post_build(config: MkDocsConfig) -> None:
    """Publish the exports at the site root, each file replaced atomically.

    Their links (SARIF ``helpUri``, llms.txt) point at this version's pages as mike publishes
    them: ``<site_url><library version>/rules/R03/``.
    """
    preview = _preview
    if preview is not None:
        _keep_search_entries(config, preview)
        preview.layout, preview.inputs = preview.pending_layout, preview.pending_inputs
        preview.written = True
    library = _build_input().valid.library
    published = site_files(library, versioned_site_url(config.site_url, library.version))
    site_dir = Path(config.site_dir)
    for relative, data in published.items():
        target = site_dir / _safe_relative(relative)
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, data)
    log.info("rlt-rules: published %d export files", len(published))


def _keep_search_entries(config: MkDocsConfig, preview: Preview) -> None:
    """Add the previous index's entries of the pages not rendered again to this build's index.

    Material's search plugin, in a dirty build, merges the previous index by dropping the
    entries of the *first* rendered page only, which assumes one page changed. Here the
    entries of every page not rendered in this build are carried over and the plugin is given
    no previous index, so its index holds each page once, as a clean build's does.
    """
    search = config.plugins.get("material/search")
    if search is None:
        return
    previous = search.search_index_prev
    kept = preview.pages - preview.rendered
    if previous is not None and kept:
        carried = [entry for entry in previous.entries if _page_of(entry["location"]) in kept]
        search.search_index.entries[:0] = carried
    search.search_index_prev = None


def _page_url(file: File) -> str:
    """A page's URL as ``Page.url`` and the search index give it: the home page's is ``""``."""
    return "" if file.url in (".", "./") else file.url


def _page_of(location: str) -> str:
    """``rules/R03/#statement`` -> ``rules/R03/`` (the page URL of a search entry)."""
    return location.split("#", 1)[0]


def versioned_site_url(site_url: str | None, version: str) -> str | None:
    if not site_url:
        return None
    return f"{site_url.rstrip('/')}/{version}/"


def _safe_relative(relative: str) -> Path:
    path = PurePosixPath(relative)
    if path.is_absolute() or ".." in path.parts or not path.parts:
        raise PluginError(f"export file {relative!r} would be written outside the site")
    return Path(*path.parts)
