"""Exports: each a pure, deterministic function of the typed :class:`~rlt_rules.model.Library`.

Every format renders to ``{relative path: bytes}`` (:data:`FORMATS`); nothing here touches the
file system (:mod:`rlt_rules.atomic` writes rendered files atomically).
``site_files`` is the contract with the site build: the files to publish at the site root.
"""

from __future__ import annotations

from collections.abc import Callable

from .. import bundle
from ..model import Library
from ..schemas import schema_dir
from . import checklist, llms, sarif, skill

Renderer = Callable[[Library, str | None], dict[str, bytes]]

#: Every export format: name -> renderer of ``(library, site_url)`` to files by relative path.
FORMATS: dict[str, Renderer] = {
    "json": lambda library, site_url: bundle.files(library),
    "sarif": sarif.files,
    "skill": lambda library, site_url: skill.files(library),
    "llms": llms.files,
    "checklist": lambda library, site_url: checklist.files(library),
}

#: Where each format's files go in the built site, relative to the site root.
SITE_FOLDERS = {"json": "", "sarif": "", "skill": "skill/", "llms": "", "checklist": ""}

#: The schemas a bundle reader needs, published next to the exports.
PUBLISHED_SCHEMAS = ("bundle.schema.json", "rule.schema.json", "library.schema.json")


def render(format_name: str, library: Library, site_url: str | None) -> dict[str, bytes]:
    """Render one format; raises ``KeyError`` for an unknown format name."""
    return FORMATS[format_name](library, site_url)


def site_files(library: Library, site_url: str | None) -> dict[str, bytes]:
    """Files to publish in the built site, keyed by path relative to the site root.

    ``rules.json``, ``rules.sarif.json``, ``llms.txt``, ``llms-full.txt``, ``checklist.md``,
    ``skill/SKILL.md`` and the JSON schemas under ``schema/``. ``site_url`` is the URL of the
    (versioned) site root; rule pages are at ``<site_url>rules/<id>/``.
    """
    published: dict[str, bytes] = {}
    for name, renderer in FORMATS.items():
        for path, data in renderer(library, site_url).items():
            published[SITE_FOLDERS[name] + path] = data
    for schema_name in PUBLISHED_SCHEMAS:
        published[f"schema/{schema_name}"] = (schema_dir() / schema_name).read_bytes()
    return published
