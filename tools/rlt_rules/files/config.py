"""``[tool.rlt-rules]``: the reviewed repository's settings, from the nearest ``pyproject.toml``.

As Ruff does, the nearest ``pyproject.toml`` (from the current folder up) that has the table
is the one read; a ``pyproject.toml`` without it is passed over. Keys (Ruff's names where they
overlap):

- ``select``, ``ignore``: rule ids (``R07``) or detector ids (``R10-hasattr-guard``): which
  detectors ``scan`` runs;
- ``exclude``: globs (Git's wildcards, relative to the ``pyproject.toml``'s folder) of files
  ``scan`` never reads, named files included (pre-commit names each staged file);
- ``per-file-ignores``: a table of glob -> rule or detector ids ignored in those files;
- ``preview``: ``scan --preview`` by default;
- ``library``: the rules folder or ``rules.json`` bundle to use, relative to that folder;
- ``site-url``: the published site's root for links to rule pages (``--site-url``).

Command-line options override them. An unknown key or a wrong type is a :class:`ConfigError`
naming the file, line and column: ``tomllib`` keeps no positions, so the key is found in the
text (:func:`key_position`), and its table's header when the key is not on a line of its own.
So is a value no scan could use: a glob that can match nothing (``!``, ``[z-a]``, an empty
one), a ``site-url`` that is not an http(s) address safe to link from
(:mod:`rlt_rules.files.weburl`), a ``file-timeout`` outside its :mod:`~rlt_rules.files.bounds`, a
NUL byte in a path; and a ``pyproject.toml`` on the way up that cannot be read or is not UTF-8 (TOML
is UTF-8): it may hold the table, so a parent folder's is never used in its place.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .bounds import FILE_SECONDS, OutOfBounds
from .errors import InputError
from .globs import Glob, GlobError
from .weburl import url_problem

FILE_NAME = "pyproject.toml"
TABLE = ("tool", "rlt-rules")
KEYS = (
    "select",
    "ignore",
    "exclude",
    "per-file-ignores",
    "preview",
    "library",
    "site-url",
    "file-timeout",
)

_TOML_POSITION = re.compile(r"\(at line (\d+), column (\d+)\)")
_HEADER = re.compile(r"^\s*\[\[?(?P<key>[^\]]+)\]\]?\s*(#.*)?$")
_KEY = re.compile(
    r"""^\s*(?P<key>(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')"""
    r"""(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*'))*)\s*="""
)


class ConfigError(InputError):
    """A ``[tool.rlt-rules]`` problem, at its file, line and column."""

    def __init__(self, path: Path, line: int, column: int, message: str) -> None:
        super().__init__(f"{path}:{line}:{column}: {message}")
        self.path = path
        self.line = line
        self.column = column
        self.message = message


@dataclass(frozen=True, slots=True)
class RepoConfig:
    """The settings of ``[tool.rlt-rules]``; the defaults when ``path`` is None (none found).

    ``library`` is resolved against the ``pyproject.toml``'s folder (``root``); ``select`` is
    None when not set (every detector).
    """

    path: Path | None = None
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    per_file_ignores: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    preview: bool | None = None
    library: Path | None = None
    site_url: str | None = None
    #: Seconds one file's matching may take (``scan --file-timeout``); None: the default.
    file_timeout: float | None = None
    text: str = ""

    @property
    def root(self) -> Path | None:
        """The folder the globs and ``library`` are relative to."""
        return self.path.parent if self.path is not None else None

    def position(self, *keys: str) -> tuple[int, int]:
        """Where ``[tool.rlt-rules]``'s key path ``keys`` is written (1-based line, column)."""
        return key_position(self.text, (*TABLE, *keys))

    def error(self, message: str, *keys: str) -> ConfigError:
        """A problem with the value of ``keys``, at its position."""
        assert self.path is not None
        return ConfigError(self.path, *self.position(*keys), message)


def find_config(start: Path) -> Path | None:
    """The nearest ``pyproject.toml`` at or above ``start`` holding ``[tool.rlt-rules]``;
    :class:`ConfigError` at one on the way that cannot be read, is not UTF-8, or may hold the
    table and is not valid TOML."""
    for folder in (start, *start.parents):
        candidate = folder / FILE_NAME
        if candidate.is_file() and _table(candidate, _text(candidate)) is not None:
            return candidate
    return None


def _text(path: Path) -> str:
    """The text of the ``pyproject.toml`` at ``path``; :class:`ConfigError` when it cannot be
    read or is not UTF-8, at the first byte that is not."""
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise ConfigError(path, 1, 1, f"cannot be read: {error.strerror or error}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        column = len(raw[raw.rfind(b"\n", 0, error.start) + 1 : error.start].decode()) + 1
        raise ConfigError(
            path,
            line,
            column,
            f"not UTF-8 (byte 0x{raw[error.start]:02x}): TOML files are UTF-8, so it cannot "
            "be read; save it as UTF-8",
        ) from None


def _table(path: Path, text: str) -> Any:
    """The value of ``[tool.rlt-rules]`` in ``text``, None when there is none."""
    # Parse only a file that may hold the table: a broken pyproject.toml of another tool
    # elsewhere up the tree is not ours to report.
    if "rlt-rules" not in text:
        return None
    tool = _parse(path, text).get("tool")
    if tool is not None and not isinstance(tool, dict):
        raise ConfigError(
            path,
            *key_position(text, ("tool",)),
            _expected("tool", "a table ([tool.NAME] sections)", tool),
        )
    return (tool or {}).get("rlt-rules")


def read_config(start: Path) -> RepoConfig:
    """The settings of the nearest ``[tool.rlt-rules]`` (:func:`find_config`), checked."""
    start = start.absolute()
    try:
        path = find_config(start)
    except ConfigError as error:
        shown = _shown(error.path, start)
        raise ConfigError(shown, error.line, error.column, error.message) from None
    if path is None:
        return RepoConfig()
    return parse_config(_shown(path, start), _text(path))


def _shown(path: Path, start: Path) -> Path:
    """``path`` as the user would name it: relative to where they stand when it is below."""
    return path.relative_to(start) if path.is_relative_to(start) else path


def parse_config(path: Path, text: str) -> RepoConfig:
    """``[tool.rlt-rules]`` of ``text`` (the file ``path``); :class:`ConfigError` when a key
    is unknown, of the wrong type, or holds a value no scan can use."""
    table = _table(path, text)
    table = {} if table is None else table
    empty = RepoConfig(path=path, text=text)
    if not isinstance(table, dict):
        raise ConfigError(path, *key_position(text, TABLE), "[tool.rlt-rules] must be a table")
    for key in table:
        if key not in KEYS:
            raise empty.error(f"unknown key '{key}'; known keys: {', '.join(KEYS)}", key)
    select = _ids(empty, table, "select") if "select" in table else None
    per_file: dict[str, tuple[str, ...]] = {}
    ignores = table.get("per-file-ignores", {})
    if not isinstance(ignores, dict):
        raise empty.error(
            _expected("per-file-ignores", "a table of glob = [ids]", ignores), "per-file-ignores"
        )
    for glob in ignores:
        per_file[glob] = _ids(empty, ignores, glob, ("per-file-ignores", glob))
        _check_glob(empty, glob, ("per-file-ignores", glob))
    exclude = _ids(empty, table, "exclude")
    for glob in exclude:
        _check_glob(empty, glob, ("exclude",))
    preview = table.get("preview")
    if preview is not None and not isinstance(preview, bool):
        raise empty.error(_expected("preview", "true or false", preview), "preview")
    library = _string(empty, table, "library")
    if library is not None and "\0" in library:
        raise empty.error(f"library holds a NUL byte: no path does, got {library!r}", "library")
    site_url = _string(empty, table, "site-url")
    problem = url_problem(site_url) if site_url else None
    if problem is not None:
        raise empty.error(f"site-url {problem}, got {site_url!r}", "site-url")
    file_timeout = table.get("file-timeout")
    if file_timeout is not None:
        try:
            FILE_SECONDS.check(file_timeout)
        except OutOfBounds as error:
            raise empty.error(f"file-timeout {error}", "file-timeout") from None
    return RepoConfig(
        path=path,
        select=select,
        ignore=_ids(empty, table, "ignore"),
        exclude=exclude,
        per_file_ignores=per_file,
        preview=preview,
        library=(path.parent / library) if library else None,
        site_url=site_url,
        file_timeout=float(file_timeout) if file_timeout is not None else None,
        text=text,
    )


def _parse(path: Path, text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        found = _TOML_POSITION.search(str(error))
        line, column = (int(found[1]), int(found[2])) if found else (1, 1)
        if "(at end of document)" in str(error):
            line, column = text.count("\n") + 1, len(text.rsplit("\n", 1)[-1]) + 1
        message = _TOML_POSITION.sub("", str(error)).replace("(at end of document)", "")
        message = message.strip()
        raise ConfigError(path, line, column, f"not valid TOML: {message}") from None


def _expected(key: str, expected: str, value: Any) -> str:
    return f"{key} must be {expected}, got {type(value).__name__} {value!r}"


def _ids(
    config: RepoConfig, table: dict[str, Any], key: str, keys: tuple[str, ...] | None = None
) -> tuple[str, ...]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise config.error(_expected(key, "a list of strings", value), *(keys or (key,)))
    return tuple(value)


def _check_glob(config: RepoConfig, glob: str, keys: tuple[str, ...]) -> None:
    """A glob of ``exclude`` or ``per-file-ignores`` that can match a file."""
    try:
        compiled = Glob.compile(glob)
    except GlobError as error:
        raise config.error(f"{keys[0]}: {error}", *keys) from None
    if compiled is None:
        raise config.error(
            f"{keys[0]}: pattern {glob!r} matches nothing (empty, '/', or a '#' comment): "
            "remove it or write the files it is for",
            *keys,
        )
    if not compiled.include and keys[0] == "per-file-ignores":
        raise config.error(
            f"per-file-ignores: pattern {glob!r} only re-includes ('!'), so it matches no "
            "file on its own: write the files the ids are ignored in",
            *keys,
        )


def _string(config: RepoConfig, table: dict[str, Any], key: str) -> str | None:
    value = table.get(key)
    if value is not None and not isinstance(value, str):
        raise config.error(_expected(key, "a string", value), key)
    return value


def key_position(text: str, keys: tuple[str, ...]) -> tuple[int, int]:
    """Where the key path ``keys`` is written in the TOML ``text``: the key's line and column,
    else the deepest table header or key of its path found (a key inside an inline table is
    at its table's key), else 1:1. Lines inside multi-line strings are not read as keys."""
    best = (1, 1)
    best_depth = 0
    table: tuple[str, ...] = ()
    in_string: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if in_string is not None:
            if line.count(in_string) % 2 == 1:
                in_string = None
            continue
        header = _HEADER.match(line)
        found: tuple[str, ...] | None = None
        if header is not None:
            table = _dotted(header["key"]) or table
            found = table
        else:
            key = _KEY.match(line)
            if key is not None:
                found = (*table, *(_dotted(key["key"]) or ()))
                rest = line[key.end() :]
                for quote in ('"""', "'''"):
                    if rest.count(quote) % 2 == 1:
                        in_string = quote
        if found is None:
            continue
        depth = _common(found, keys)
        if depth == len(found) and depth > best_depth:
            best, best_depth = (number, len(line) - len(line.lstrip()) + 1), depth
            if depth == len(keys):
                return best
    return best


def _dotted(key: str) -> tuple[str, ...] | None:
    """A dotted key's parts, as TOML reads them."""
    try:
        data: Any = tomllib.loads(f"{key} = 0")
    except tomllib.TOMLDecodeError:
        return None
    parts: list[str] = []
    while isinstance(data, dict) and len(data) == 1:
        ((name, data),) = data.items()
        parts.append(name)
    return tuple(parts)


def _common(found: tuple[str, ...], keys: tuple[str, ...]) -> int:
    depth = 0
    for mine, theirs in zip(found, keys, strict=False):
        if mine != theirs:
            break
        depth += 1
    return depth
