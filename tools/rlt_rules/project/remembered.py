"""A rules folder's checked library remembered by content, for ``rlt-rules scan``: loading and
checking the folder costs about a tenth of a second, reading the same library back from its
bundle a third of that.

The key is the sha256 of every file the check reads (``library.yaml`` and the rule files, the
``releases/*.json`` beside the folder, the JSON Schemas) and of this package's own modules (a
check edited in a checkout, version unchanged, is a new key), with this package's version and
ast-grep-py's build. An entry is written only for a folder that passed every check, as the
``rules.json`` bundle of its library (:mod:`rlt_rules.library.bundle`), atomically, one per
folder (a newer one replaces it); it is read back with the bundle reader's own checks, so an
entry that is unreadable, corrupt or not a valid bundle is checked again from the folder.
A folder holding anything but regular files (a link, a FIFO) is always checked.

A remembered library equals the checked one, but its rules' ``source`` name the entry, not
the rule files (as a bundle's do): only a command that never shows a rule's file uses it.
"""

from __future__ import annotations

import hashlib
import json
import stat
from pathlib import Path

from ..facts.about import VERSION
from ..files.atomic import write_atomic
from ..files.cache import cache_folder
from ..library.bundle import render
from ..library.bundle_load import read_bundle
from ..library.detector_cost import matcher_build
from ..library.model import Library
from ..library.schemas import schema_dir
from ..releases import releases_dir
from .check import load_library

#: This package's folder, whose modules are part of the key (about 6 ms to read them all).
PACKAGE = Path(__file__).resolve().parents[1]
#: The entries' folder inside the cache folder (:func:`~rlt_rules.files.cache.cache_folder`).
ENTRIES = "checked-libraries"


def load_remembered(rules_dir: Path, cache: Path | None = None) -> Library:
    """The library of ``rules_dir``, as :func:`~rlt_rules.project.check.load_library` gives it
    (its :class:`~rlt_rules.library.model.LibraryError` included), read from the entry in
    ``cache`` (default: the user's cache folder) when the folder's files are unchanged."""
    folder = (cache if cache is not None else cache_folder()) / ENTRIES
    key = content_key(rules_dir)
    if key is None:
        return load_library(rules_dir)
    entry = folder / hashlib.sha256(str(rules_dir.resolve()).encode()).hexdigest()[:32]
    remembered = read_bundle(entry / f"{key}.json").library
    if remembered is not None:
        return remembered
    library = load_library(rules_dir)
    if content_key(rules_dir) == key:  # not edited while it was checked
        _remember(entry, key, render(library))
    return library


def content_key(rules_dir: Path) -> str | None:
    """The digest of what checking ``rules_dir`` reads; None when the folder holds anything
    but regular files there (checked every time)."""
    digest = hashlib.sha256(json.dumps([VERSION, matcher_build()]).encode())
    read = {
        "rules": sorted(rules_dir.glob("*.yaml")),
        "releases": sorted(releases_dir(rules_dir).glob("*.json")),
        "schema": sorted(schema_dir().glob("*.json")),
        "package": sorted(PACKAGE.rglob("*.py")),
    }
    for group, paths in read.items():
        for path in paths:
            content = _regular_bytes(path)
            if content is None:
                return None
            name = path.relative_to(PACKAGE).as_posix() if group == "package" else path.name
            digest.update(f"\0{group}/{name}\0{len(content)}\0".encode())
            digest.update(content)
    return digest.hexdigest()


def _regular_bytes(path: Path) -> bytes | None:
    try:
        if not stat.S_ISREG(path.lstat().st_mode):
            return None
        return path.read_bytes()
    except OSError:
        return None


def _remember(entry: Path, key: str, bundle: bytes) -> None:
    """Write the entry and drop the folder's older ones; a cache that cannot be written only
    means checking again next time."""
    try:
        entry.mkdir(parents=True, exist_ok=True)
        write_atomic(entry / f"{key}.json", bundle, durable=False)
        for old in entry.glob("*.json"):
            if old.name != f"{key}.json":
                old.unlink(missing_ok=True)
    except OSError:
        return
