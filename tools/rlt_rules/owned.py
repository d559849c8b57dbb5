"""Which files of a folder rlt-rules may replace: those it wrote, unchanged since.

An export into a folder (``export --format reviewers -o .``, ``llms``, ``skill``, ``ast-grep``)
goes where people keep their own files: ``AGENTS.md``, ``.coderabbit.yaml``. Each export records
what it wrote, by content hash, in the folder's manifest (:data:`MANIFEST`); the next export
replaces a file only when it still holds what was recorded (or already holds the new bytes).
A file written by hand, or edited since, is refused by name unless the caller forces it: no
header or comment inside a file decides that, since anyone can copy one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path

from .atomic import WriteRefused, content_digest

#: The record of what rlt-rules wrote in a folder, beside the files.
MANIFEST = ".rlt-rules-manifest.json"


def digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def recorded(directory: Path) -> dict[str, str]:
    """The manifest's record of ``directory``: file name -> content hash (empty without one, or
    when it cannot be read as a manifest: then no file counts as rlt-rules' own)."""
    try:
        data = json.loads((Path(directory) / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, dict):
        return {}
    return {name: value for name, value in files.items() if isinstance(value, str)}


def plan_replacements(
    directory: Path, files: Mapping[str, bytes], *, force: bool
) -> dict[str, str | None]:
    """Each target's content hash now, once every target is known to be replaceable:
    absent, already holding the new bytes, or holding what the manifest records rlt-rules
    wrote. Otherwise :class:`WriteRefused` names every file written or edited by hand (unless
    ``force``)."""
    directory = Path(directory)
    record = recorded(directory)
    current = {name: content_digest(directory / name) for name in files}
    theirs = [
        name
        for name, data in files.items()
        if name != MANIFEST
        and current[name] is not None
        and current[name] not in (digest(data), record.get(name))
    ]
    if theirs and not force:
        raise WriteRefused(
            f"{directory}: would replace files rlt-rules did not write, or that were edited "
            f"since: {', '.join(theirs)}; merge them by hand, write the export to another "
            "folder, or give --force to replace them"
        )
    return current


def with_manifest(directory: Path, files: Mapping[str, bytes]) -> dict[str, bytes]:
    """``files`` and the folder's manifest updated to record them (entries of other exports
    into the same folder kept)."""
    record = recorded(directory)
    record.update({name: digest(data) for name, data in files.items()})
    manifest = {
        "generator": "rlt-rules",
        "about": "What rlt-rules wrote here, by content hash: it replaces only these, unchanged.",
        "files": dict(sorted(record.items())),
    }
    text = json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
    return {**files, MANIFEST: text.encode("utf-8")}
