"""Exports: each a pure, deterministic function of the typed
:class:`~rlt_rules.library.model.Library`.

Every format renders to ``{relative path: bytes}``; :data:`FORMATS` is the one table of them
(name, renderer, folder on the site, whether ``-o`` names a folder). Nothing here touches the
file system (:mod:`rlt_rules.files.atomic` writes rendered files atomically). ``site_files`` is the
contract with the site build: the files to publish at the site root.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..library import bundle
from ..library.model import Library
from ..library.schemas import schema_dir
from ..render.inert import InertRules
from . import astgrep, checklist, llms, reviewers, sarif, skill

#: ``render(library, site_url, **options)``: the options a format names in ``options``.
Renderer = Callable[..., dict[str, bytes]]


@dataclass(frozen=True, slots=True)
class ExportFormat:
    """One export format.

    ``render(library, site_url)`` gives its files by relative path; ``site_folder`` is where
    they go in the built site, relative to its root (``""`` or ``"skill/"``), or None for an
    export the site does not publish; ``writes_folder`` says that ``rlt-rules export -o PATH``
    names a folder (several files, or a file whose name matters) rather than the one file to
    write. ``options`` names the keyword arguments ``render`` takes besides those two
    (``apply_to`` for ``reviewers``, ``preview`` for ``ast-grep``; ``inert``, an
    :class:`~rlt_rules.render.inert.InertRules` shared by the formats one run renders, which
    makes each rule inert once and hands out each format's per-rule pieces, for every format
    the site publishes); the site publishes every format with its defaults.
    """

    name: str
    render: Renderer
    site_folder: str | None = ""
    writes_folder: bool = False
    options: tuple[str, ...] = ()


#: Every export format, by name, in the order ``--help`` and the site list them.
FORMATS: dict[str, ExportFormat] = {
    entry.name: entry
    for entry in (
        ExportFormat(
            "json",
            lambda library, site_url, inert=None: _bundle(library, inert),
            options=("inert",),
        ),
        ExportFormat("sarif", sarif.files, options=("inert",)),
        ExportFormat(
            "skill",
            lambda library, site_url, inert=None: skill.files(library, inert),
            "skill/",
            writes_folder=True,
            options=("inert",),
        ),
        ExportFormat("llms", llms.files, writes_folder=True, options=("inert",)),
        ExportFormat(
            "checklist",
            lambda library, site_url, inert=None: checklist.files(library, inert),
            options=("inert",),
        ),
        ExportFormat(
            "reviewers",
            reviewers.files,
            "reviewers/",
            writes_folder=True,
            options=("apply_to", "inert"),
        ),
        # Not on the site: a repository vendors it with `export -o`, and choosing its test
        # cases runs the detectors over the examples (seconds at thousands of rules).
        ExportFormat("ast-grep", astgrep.files, None, writes_folder=True, options=("preview",)),
    )
}

#: The schemas published next to the exports: the bundle's (self-contained: generated with the
#: rule and library schemas embedded, see :func:`rlt_rules.library.schemas.generated_schemas`), the
#: record formats, and the format review findings are written in.
PUBLISHED_SCHEMAS = (
    "bundle.schema.json",
    "rule.schema.json",
    "library.schema.json",
    "findings.schema.json",
)


def render(
    format_name: str, library: Library, site_url: str | None, **options: object
) -> dict[str, bytes]:
    """Render one format; raises ``KeyError`` for an unknown format name and ``TypeError``
    for an option the format does not take."""
    entry = FORMATS[format_name]
    unknown = set(options) - set(entry.options)
    if unknown:
        raise TypeError(f"export format {format_name} takes no {', '.join(sorted(unknown))}")
    return entry.render(library, site_url, **options)


def _bundle(library: Library, inert: InertRules | None) -> dict[str, bytes]:
    """``rules.json`` joined from each rule's fragments (:func:`bundle.assemble`), kept by
    ``inert`` by the rule (a rule's fragments are made from it alone)."""
    known = inert or InertRules()
    fragments = [
        known.part(("rules.json", rule), lambda rule=rule: bundle.rule_fragments(rule))
        for rule in library.rules
    ]
    return {bundle.FILE_NAME: bundle.assemble(library, fragments)}


def site_files(
    library: Library, site_url: str | None, parts: InertRules | None = None
) -> dict[str, bytes]:
    """Files to publish in the built site, keyed by path relative to the site root.

    ``rules.json``, ``rules.sarif.json``, ``llms.txt``, ``llms-full.txt``, ``checklist.md``,
    ``skill/SKILL.md``, the AI reviewers' tree under ``reviewers/`` and the JSON schemas under
    ``schema/`` (every format but ``ast-grep``). ``site_url`` is the URL of the (versioned)
    site root; rule pages are at ``<site_url>rules/<id>/``. ``parts``: the rules made inert
    and each format's per-rule pieces, shared by every format; a
    :class:`~rlt_rules.render.parts.RuleParts` its owner keeps across builds (a live preview)
    remembers them, so an unchanged rule's pieces are not made again. By default they are made
    for this call alone. The files are the same either way.
    """
    published: dict[str, bytes] = {}
    inert = parts or InertRules()  # each rule made inert once for every format that prints it
    for entry in FORMATS.values():
        if entry.site_folder is None:
            continue
        options = {"inert": inert} if "inert" in entry.options else {}
        for path, data in entry.render(library, site_url, **options).items():
            published[entry.site_folder + path] = data
    for schema_name in PUBLISHED_SCHEMAS:
        # The files of schema/ as they are: the bundle's is generated self-contained there.
        published[f"schema/{schema_name}"] = (schema_dir() / schema_name).read_bytes()
    return published
