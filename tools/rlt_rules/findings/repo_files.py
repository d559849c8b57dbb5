"""The reviewed repository's files as ``findings check --repo`` reads them: confined to the
repository, each read once."""

from __future__ import annotations

from pathlib import Path

from ..files.reading import MAX_FILE_BYTES, ReadRefused, read_regular


class RepoFiles:
    """The reviewed repository's text files, read once each, confined to the repository, each
    as ``scan`` reads one: a regular file of at most
    :data:`~rlt_rules.files.reading.MAX_FILE_BYTES`."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._cache: dict[str, tuple[tuple[str, ...] | None, str | None]] = {}

    def lines(self, relative: str) -> tuple[tuple[str, ...] | None, str | None]:
        """The file's lines (without line ends), or ``None`` and what is wrong with the path."""
        if relative not in self._cache:
            self._cache[relative] = self._read(relative)
        return self._cache[relative]

    def _read(self, relative: str) -> tuple[tuple[str, ...] | None, str | None]:
        target = (self.root / relative).resolve()
        if not target.is_relative_to(self.root):
            return None, f"path '{relative}' leads outside the repository"
        if not target.exists():
            return None, f"path '{relative}' does not exist in the repository"
        if not target.is_file():
            return None, f"path '{relative}' is not a file"
        try:
            raw = read_regular(target, limit=MAX_FILE_BYTES)
        except ReadRefused as error:
            return None, f"path '{relative}': {error}; findings point at source files"
        if b"\0" in raw:
            return None, f"path '{relative}' is a binary file: findings point at text"
        text = raw.decode("utf-8", errors="replace")
        parts = text.split("\n")
        if parts[-1] == "":
            parts.pop()
        return tuple(part.removesuffix("\r") for part in parts), None
