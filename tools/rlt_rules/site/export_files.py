"""The exports in the built site: every file :func:`rlt_rules.export.site_files` renders and
the tags' ``tags.json``, written under ``site_dir`` (the plugin's ``on_post_build``, or its
export thread in a live preview)."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from mkdocs.exceptions import PluginError

from ..export import site_files
from ..files.atomic import LastWritten
from ..library.model import Library
from ..render.inert import InertRules
from .tags import TAGS_EXPORT, TagIndex


def publish_exports(
    library: Library,
    tags: TagIndex,
    site_dir: Path,
    site_url: str | None,
    *,
    directory_urls: bool,
    written: LastWritten,
    parts: InertRules | None = None,
) -> int:
    """Write the exports and ``tags.json`` under ``site_dir``, each file replaced atomically;
    the number of files. ``site_url`` is this version's root as mike publishes it
    (``<site_url><library version>/``); ``written`` remembers what the last build wrote;
    ``parts``: the rules' pieces kept from the builds before, if any (same bytes)."""
    published = site_files(library, site_url, parts)
    published[TAGS_EXPORT] = tags.export(library, directory_urls=directory_urls)
    targets = [site_dir / _safe_relative(relative) for relative in published]
    for target, data in zip(targets, published.values(), strict=True):
        target.parent.mkdir(parents=True, exist_ok=True)
        # MkDocs writes the site's pages without syncing them to disk; so do exports here.
        # A file still as this plugin last wrote it, with the same bytes, is left alone.
        written.write(target, data, durable=False)
    written.forget_others(targets)
    return len(published)


def _safe_relative(relative: str) -> Path:
    path = PurePosixPath(relative)
    if path.is_absolute() or ".." in path.parts or not path.parts:
        raise PluginError(f"export file {relative!r} would be written outside the site")
    return Path(*path.parts)
