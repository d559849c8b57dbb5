"""Which files of a folder rlt-rules may replace: those it wrote, unchanged since.

An export into a folder (``export --format reviewers -o .``, ``llms``, ``skill``, ``ast-grep``)
goes where people keep their own files: ``AGENTS.md``, ``.coderabbit.yaml``. Each export records
what it wrote, by content hash, in the folder's manifest (:data:`MANIFEST`); the next export
replaces a file only when it still holds what was recorded (or already holds the new bytes).
A file written by hand, or edited since, is refused by name unless the caller forces it: no
header or comment inside a file decides that, since anyone can copy one.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from .atomic import (
    FolderWrite,
    WriteRefused,
    content_digest,
    digest,
    remove_stale,
    write_files_atomic,
)
from .reading import JsonRefused, ReadRefused, parse_json, read_regular

#: The record of what rlt-rules wrote in a folder, beside the files.
MANIFEST = ".rlt-rules-manifest.json"
#: A manifest holds a line per file (about 100 bytes): larger is not one rlt-rules wrote.
MAX_MANIFEST_BYTES = 4 * 1024 * 1024


def recorded(directory: Path) -> dict[str, str]:
    """The manifest's record of ``directory``: file name -> content hash (empty without one, or
    when it is JSON of another shape: then no file counts as rlt-rules' own).

    It is read as any input is: a regular file (a FIFO or a device is refused, never read),
    at most :data:`MAX_MANIFEST_BYTES`, its JSON nested at most 100 deep; a manifest that is
    not one is a :class:`WriteRefused` naming it, at the line and column at fault."""
    path = Path(directory) / MANIFEST
    if not os.path.lexists(path):
        return {}
    fix = (
        "it records what rlt-rules wrote in this folder: repair it, or delete it and give "
        "--force to replace the files it recorded"
    )
    try:
        raw = read_regular(path, limit=MAX_MANIFEST_BYTES)
        data = parse_json(raw.decode("utf-8"))
    except ReadRefused as error:
        raise WriteRefused(f"{path}: {error}; {fix}") from None
    except UnicodeDecodeError as error:
        raise WriteRefused(f"{path}: not UTF-8 (byte {error.start + 1}); {fix}") from None
    except JsonRefused as error:
        raise WriteRefused(f"{path}:{error.line}:{error.column}: {error.message}; {fix}") from None
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


def write_owned_folder(directory: Path, files: Mapping[str, bytes], *, force: bool) -> FolderWrite:
    """Write ``files`` into ``directory`` as one set, recorded in its manifest: a set a killed
    export was committing is finished first (a file changed since it was planned is kept and
    reported in :attr:`FolderWrite.kept`); then every target is judged on the finished folder
    (:func:`plan_replacements`: :class:`WriteRefused` names files written by hand unless
    ``force``)."""
    directory = Path(directory)
    kept = remove_stale(directory)
    expected = plan_replacements(directory, files, force=force)
    recorded_files = with_manifest(directory, files)
    expected[MANIFEST] = content_digest(directory / MANIFEST)
    result = write_files_atomic(directory, recorded_files, expected=expected)
    return FolderWrite(result.written, [*kept, *result.kept])


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
