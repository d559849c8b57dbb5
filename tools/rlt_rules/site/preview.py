"""The live preview (``mkdocs serve --dirty``, which ``rlt-rules site serve`` runs): a rebuild
renders only the pages whose input changed, and the site equals a clean build's.

MkDocs' dirty builds render only the files it reports modified; a generated page always
reports modified, so the plugin decides instead (:meth:`Preview.plan`). A rebuild is *full*
(the site directory emptied, every page rendered) when no build of this preview has finished,
when the last one stopped while writing pages, or when something every page depends on
changed (:class:`Layout`): the configuration, a hand-written page, the library's title,
version, preamble or categories (the navigation). Otherwise it is *partial*: only the pages
whose input differs from the last finished build's are rendered (a generated page's input is
its Markdown and HTML inserts; a hand-written page's is its Markdown with the markers filled,
and the tags listing if it shows it), the pages that are gone are removed, and the search
index keeps the entries of the others (:mod:`.search`).

:class:`Preview` is what one preview remembers from build to build; :class:`PreviewBuild` is
one build's part, made anew by each.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from enum import Enum
from pathlib import Path
from typing import Any

from jinja2 import BytecodeCache
from jinja2.bccache import Bucket
from mkdocs.utils import clean_directory

from .search import PreviewSearch


@dataclass(frozen=True, slots=True)
class Layout:
    """What every page of the site depends on; a change renders the whole site again."""

    config: bytes
    handwritten: tuple[tuple[str, str], ...]
    library: Mapping[str, Any]
    with_sample_review: bool
    site_dir: str

    def changes_from(self, other: Layout) -> list[str]:
        """The names of the parts that differ from ``other``'s."""
        return [f.name for f in fields(self) if getattr(self, f.name) != getattr(other, f.name)]


class Unbuilt(Enum):
    """Why there is no finished build to compare a rebuild with: it renders every page."""

    FIRST = "no build of this preview has finished yet"
    INTERRUPTED = "the last build stopped while writing pages"


@dataclass(frozen=True, slots=True)
class Built:
    """The last finished build: its layout, and what each page was rendered from (by source
    URI), with the file it was written to."""

    layout: Layout
    inputs: Mapping[str, tuple[object, str]]


@dataclass(frozen=True, slots=True)
class FullBuild:
    """Render every page, in an emptied site directory."""

    reason: str


@dataclass(frozen=True, slots=True)
class PartialBuild:
    """Render only the pages not in ``unchanged``; ``removed`` are the outputs of pages that
    are gone."""

    unchanged: frozenset[str]
    removed: tuple[str, ...]


Plan = FullBuild | PartialBuild


class CompiledTemplates(BytecodeCache):
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
class PreviewBuild:
    """One preview build: its plan, what the next build compares with once this one has
    finished, and the pages rendered so far."""

    plan: Plan
    layout: Layout
    inputs: dict[str, tuple[object, str]]
    rendered: set[str] = field(default_factory=set)


#: MkDocs warns before every dirty build that navigation may be wrong; with the plugin
#: deciding what is rebuilt it is not, and in strict mode the warning would fail every rebuild.
_DIRTY_WARNING = "A 'dirty' build is being performed"
_BUILD_LOGGER = "mkdocs.commands.build"


class _DirtyWarningFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith(_DIRTY_WARNING)


class Preview:
    """What a live preview remembers from one build to the next.

    Made by the plugin when ``mkdocs serve --dirty`` starts, closed when it stops: while it
    is open, MkDocs' warning about dirty builds is filtered out of its build log.
    """

    def __init__(self) -> None:
        self.templates = CompiledTemplates()
        self.search = PreviewSearch()
        #: Each page's title as its last rendering found it (MkDocs knows the titles of the
        #: pages it does not render again only from the navigation).
        self._titles: dict[str, str] = {}
        self.last: Built | Unbuilt = Unbuilt.FIRST
        self._filter = _DirtyWarningFilter()
        logging.getLogger(_BUILD_LOGGER).addFilter(self._filter)

    def close(self) -> None:
        logging.getLogger(_BUILD_LOGGER).removeFilter(self._filter)

    def plan(
        self, layout: Layout, inputs: dict[str, tuple[object, str]], site_dir: str
    ) -> PreviewBuild:
        """This build's plan; a full one empties the site directory first, a partial one
        removes the output of every page to render (MkDocs renders a page whose output is
        missing) and of every page that is gone."""
        plan = self._decide(layout, inputs, Path(site_dir))
        if isinstance(plan, FullBuild):
            clean_directory(site_dir)
            self.search.forget_all()
        else:
            site = Path(site_dir)
            for uri, (_, output) in inputs.items():
                if uri not in plan.unchanged:
                    (site / output).unlink(missing_ok=True)
            for output in plan.removed:
                _remove_output(site, output)
        return PreviewBuild(plan, layout, inputs)

    def _decide(self, layout: Layout, inputs: dict[str, tuple[object, str]], site: Path) -> Plan:
        last = self.last
        if isinstance(last, Unbuilt):
            return FullBuild(last.value)
        changed = layout.changes_from(last.layout)
        if changed:
            return FullBuild("changed: " + ", ".join(changed))
        unchanged = frozenset(
            uri
            for uri, (source, output) in inputs.items()
            if last.inputs.get(uri, (None, None))[0] == source
            and self.search.knows(uri)
            and (site / output).is_file()
        )
        removed = tuple(output for uri, (_, output) in last.inputs.items() if uri not in inputs)
        return PartialBuild(unchanged, removed)

    def rendered(self, build: PreviewBuild, uri: str, title: str | None) -> None:
        """``build`` has rendered the page ``uri``, whose title is ``title`` (None: none)."""
        build.rendered.add(uri)
        if title is not None:
            self._titles[uri] = title

    def title(self, uri: str) -> str | None:
        """The title the page ``uri`` had when it was last rendered (None: not rendered yet,
        or without a title)."""
        return self._titles.get(uri)

    def finished(self, build: PreviewBuild) -> None:
        self.last = Built(build.layout, build.inputs)

    def failed(self, build: PreviewBuild) -> None:
        """A build failed: if it had started writing pages, the next one renders them all.

        (An invalid library fails before any page is written; strict mode's warnings fail
        the build after every page is written: neither needs it.)
        """
        if build.rendered:
            self.last = Unbuilt.INTERRUPTED


def _remove_output(site: Path, output: str) -> None:
    """Remove a page's output and the folders it leaves empty (a clean build has neither)."""
    path = site / output
    path.unlink(missing_ok=True)
    folder = path.parent
    while folder != site and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent
