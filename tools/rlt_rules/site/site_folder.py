"""Which folder a site build may replace: one that holds none of the project's sources, and is
new, empty, or a site rlt-rules built and nobody changed since.

A build swaps a whole folder in for the target (:func:`rlt_rules.site.publish.build_site`), so
the target is everything it deletes. A folder holding the project, its docs or its rules is
refused (:func:`refuse_sources`), as MkDocs refuses a ``docs_dir`` inside ``site_dir``. A
non-empty folder is replaced only when its record (:data:`SITE_RECORD`, written by
:func:`record_site` into every site rlt-rules builds) lists each of its files with the content
it has now, as the exports' manifest does (:mod:`rlt_rules.files.owned`): a file added or edited
since the build, or a folder that was never a built site, is refused by name
(:func:`refuse_foreign`).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Mapping
from pathlib import Path

from ..files.errors import InputError

#: The record a build writes into the site's root: each file's path and content hash.
SITE_RECORD = ".rlt-rules-site.json"
#: A record larger than this is not one rlt-rules wrote (about 100 bytes per file).
_RECORD_LIMIT = 32 * 1024 * 1024
#: How many foreign files an error names before counting the rest.
_NAMED = 5


class SiteFolderRefused(InputError):
    """A site folder a build must not replace; ``str()`` names it and says what to do."""


def refuse_sources(target: Path, sources: Mapping[str, Path]) -> None:
    """Refuse a ``target`` that is, or contains, one of ``sources`` (what -> folder), or lies
    inside the docs or the rules: replacing it would delete them."""
    for what, folder in sources.items():
        folder = folder.resolve()
        if folder == target or folder.is_relative_to(target):
            holds = "is" if folder == target else "holds"
            raise SiteFolderRefused(
                f"{target}: {holds} the {what} ({folder}), and a build replaces the whole site "
                "folder: give a folder of its own, such as build/site in the project"
            )
        if what != "project" and target.is_relative_to(folder):
            raise SiteFolderRefused(
                f"{target}: is inside the {what} ({folder}): give a site folder outside it, "
                "such as build/site in the project"
            )


def refuse_foreign(target: Path) -> None:
    """Refuse to replace ``target`` unless it is absent, an empty folder, or a site whose
    record lists every file it holds, unchanged."""
    if not os.path.lexists(target):
        return
    if target.is_symlink() or not target.is_dir():
        raise SiteFolderRefused(f"{target}: is not a folder; give a folder for the site")
    with os.scandir(target) as entries:
        if next(entries, None) is None:
            return
    record = _read_record(target / SITE_RECORD)
    if record is None:
        raise SiteFolderRefused(
            f"{target}: is not empty and is not a site rlt-rules built (it has no "
            f"{SITE_RECORD}), and a build replaces the whole folder: give a new or empty "
            "folder, or remove this one yourself if it holds nothing you need"
        )
    foreign = _foreign_files(target, record)
    if foreign:
        named = ", ".join(foreign[:_NAMED])
        more = f" and {len(foreign) - _NAMED} more" if len(foreign) > _NAMED else ""
        raise SiteFolderRefused(
            f"{target}: holds files the last build did not write, or that changed since: "
            f"{named}{more}; a build replaces the whole folder: move them out, or give "
            "another folder"
        )


def record_site(site: Path) -> None:
    """Write :data:`SITE_RECORD` into a freshly built ``site``: every file, by content hash."""
    files = {
        relative: _file_digest(site / relative)
        for relative in _walk(site)
        if relative != SITE_RECORD
    }
    record = {
        "generator": "rlt-rules",
        "about": "The site rlt-rules built here, by content hash: the next build replaces "
        "this folder only while it holds these files, unchanged.",
        "files": dict(sorted(files.items())),
    }
    text = json.dumps(record, indent=1, ensure_ascii=False) + "\n"
    (site / SITE_RECORD).write_text(text, encoding="utf-8")


def _read_record(path: Path) -> dict[str, str] | None:
    """The record's files (path -> hash), or None when ``path`` is not a record rlt-rules
    could have written (missing, not a regular file, too large, not its JSON)."""
    try:
        status = path.lstat()
        if not stat.S_ISREG(status.st_mode) or status.st_size > _RECORD_LIMIT:
            return None
        data = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return None
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, dict) or data.get("generator") != "rlt-rules":
        return None
    return {name: value for name, value in files.items() if isinstance(value, str)}


def _foreign_files(site: Path, record: Mapping[str, str]) -> list[str]:
    """The paths under ``site`` its record does not list as they are now (links and other
    non-files included), in walking order."""
    foreign = []
    for relative in _walk(site, links=True):
        if relative == SITE_RECORD:
            continue
        path = site / relative
        expected = record.get(relative)
        if expected is None or path.is_symlink() or _file_digest(path) != expected:
            foreign.append(relative)
    return foreign


def _walk(root: Path, *, links: bool = False) -> list[str]:
    """Every file under ``root`` as a ``/``-separated relative path, sorted; links are not
    followed (with ``links``, a link to a folder is listed as a file)."""
    found = []
    for folder, folders, files in os.walk(root):
        base = Path(folder).relative_to(root)
        if links:
            files = files + [name for name in folders if Path(folder, name).is_symlink()]
        found += [(base / name).as_posix() for name in files]
    return sorted(found)


def _file_digest(path: Path) -> str | None:
    """``sha256:<hex>`` of a regular file's bytes, read in chunks; None for anything else."""
    try:
        if not stat.S_ISREG(path.lstat().st_mode):  # a FIFO would block the read
            return None
        with path.open("rb") as handle:
            hashed = hashlib.file_digest(handle, "sha256")
    except OSError:
        return None
    return f"sha256:{hashed.hexdigest()}"
