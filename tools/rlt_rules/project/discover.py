"""Which library a command reads, found in one order by every command that reads rules.

1. ``--rules PATH``: a rules folder (``library.yaml`` and ``R*.yaml``) or a ``rules.json``
   bundle;
2. ``library`` in the reviewed repository's ``[tool.rlt-rules]`` (:mod:`rlt_rules.files.config`);
3. a ``rules/`` folder with ``library.yaml`` in the current folder (the library's own
   checkout);
4. the library inside the package: the bundle the wheel was built with
   (``rlt_rules/library/rules.json``, written and checked by ``hatch_build.py``), or, in an
   editable install, the checkout's ``rules/`` beside the package.

:class:`Found` says where the library came from, for ``--version``, the first lines of
``review-context`` and the command an agent runs next (:meth:`LibrarySource.option`).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from ..facts.about import NAME, VERSION
from ..facts.addresses import AddressError, project_addresses
from ..files.config import ConfigError, RepoConfig, read_config
from ..files.errors import InputError
from ..files.weburl import url_problem
from ..library.bundle import render
from ..library.bundle_load import load_bundle, read_bundle
from ..library.model import Library, LibraryError
from .check import DEFAULT_RULES_DIR, load_library
from .remembered import load_remembered

#: Where the wheel carries its library, inside the ``rlt_rules`` package.
PACKAGED = Path("library") / "rules.json"
_PACKAGE = Path(__file__).resolve().parents[1]


class DiscoveryError(InputError):
    """No library where one was asked for, or none at all: the message says what to do."""


class Origin(StrEnum):
    """How a library was found, in the order they are tried."""

    OPTION = "--rules"
    CONFIG = "[tool.rlt-rules] library"
    CURRENT = "current folder"
    PACKAGE = "package"


@dataclass(frozen=True, slots=True)
class LibrarySource:
    """A library's place: a rules folder or a bundle file, and how it was found. ``given`` is
    the path as written (on the command line or in the configuration)."""

    origin: Origin
    path: Path
    given: str

    @property
    def is_bundle(self) -> bool:
        return self.path.is_file()

    def describe(self) -> str:
        """``rules/ in the current folder``, ``… inside the rlt-rules package`` and so on."""
        kind = "bundle" if self.is_bundle else "folder"
        if self.origin is Origin.OPTION:
            return f"{kind} {self.given} (--rules)"
        if self.origin is Origin.CONFIG:
            return f"{kind} {self.given} ([tool.rlt-rules] library)"
        if self.origin is Origin.CURRENT:
            return f"{self.given}/ in the current folder"
        return f"the library inside the rlt-rules package ({self.path})"

    def option(self) -> str | None:
        """The ``--rules`` option that finds this library again from the same folder; None
        when it is found without one."""
        if self.origin is Origin.OPTION:
            return f"--rules {shlex.quote(self.given)}"
        return None

    def load(self, *, remembered: bool = False) -> Library:
        """The typed library; :class:`LibraryError` with every problem when it is invalid.
        ``remembered``: a folder's library read back from the cache when its files are
        unchanged (:mod:`.remembered`: its rules' ``source`` name the cache entry)."""
        if self.is_bundle:
            return load_bundle(self.path)
        return load_remembered(self.path) if remembered else load_library(self.path)


@dataclass(frozen=True, slots=True)
class Found:
    """A library and where it came from."""

    library: Library
    source: LibrarySource

    def describe(self) -> str:
        """``Rlt Refactor 1.0.0, from …``."""
        return f"{self.library.title} {self.library.version}, from {self.source.describe()}"


@dataclass(frozen=True, slots=True)
class Workspace:
    """What a command that reads rules works with: the reviewed repository's settings and
    the library they lead to."""

    config: RepoConfig
    found: Found

    @property
    def library(self) -> Library:
        return self.found.library

    @property
    def source(self) -> LibrarySource:
        return self.found.source

    def site_url(self, given: str | None) -> str | None:
        """The site root for links: ``--site-url`` as given (``""``: none), else
        ``[tool.rlt-rules] site-url``, else the ``mkdocs.yml`` beside the library's folder or
        bundle (the package carries one) plus the library version;
        :class:`~rlt_rules.facts.addresses.AddressError` when that file is broken or ``given`` is
        not an address to link from (:mod:`rlt_rules.files.weburl`)."""
        if given is not None:
            problem = url_problem(given) if given else None
            if problem is not None:
                raise AddressError(f"--site-url {problem}, got {given!r}")
            return given or None
        if self.config.site_url is not None:
            return self.config.site_url or None
        return project_addresses(self.source.path).pages(self.library.version)


def open_workspace(given: str | None, cwd: Path, *, remembered: bool = False) -> Workspace:
    """The settings of the nearest ``[tool.rlt-rules]`` and the library they and ``--rules``
    lead to (``remembered``: see :meth:`LibrarySource.load`). Raises
    :class:`~rlt_rules.files.config.ConfigError`, :class:`DiscoveryError` or
    :class:`LibraryError`."""
    config = read_config(cwd)
    return Workspace(config, find_library(given, config.library, cwd, remembered=remembered))


def version_text(cwd: Path) -> str:
    """``rlt-rules --version``: this program's version and the library it would read here."""
    try:
        library = open_workspace(None, cwd).found.describe()
    except (ConfigError, DiscoveryError) as error:
        library = f"none: {error}"
    except LibraryError as error:
        library = f"invalid ({len(error.diagnostics)} problem(s): run `rlt-rules validate`)"
    return f"{NAME} {VERSION}\nlibrary: {library}"


def locate(given: str | None, configured: Path | None, cwd: Path) -> LibrarySource:
    """The first library in the order above. ``given``: ``--rules``; ``configured``:
    ``[tool.rlt-rules] library``, resolved."""
    if given is not None:
        return _checked(Origin.OPTION, cwd / given, given, "--rules")
    if configured is not None:
        return _checked(Origin.CONFIG, configured, str(configured), "[tool.rlt-rules] library")
    current = cwd / DEFAULT_RULES_DIR
    if (current / "library.yaml").is_file():
        return LibrarySource(Origin.CURRENT, current, DEFAULT_RULES_DIR)
    packaged = packaged_library()
    if packaged is None:
        raise DiscoveryError(
            "no library found: give a rules folder or rules.json with --rules, or set "
            "library in [tool.rlt-rules]; this rlt-rules was installed without its library"
        )
    return LibrarySource(Origin.PACKAGE, packaged, str(packaged))


def find_library(
    given: str | None, configured: Path | None, cwd: Path, *, remembered: bool = False
) -> Found:
    """The library :func:`locate` finds, loaded and checked."""
    source = locate(given, configured, cwd)
    return Found(source.load(remembered=remembered), source)


def packaged_library() -> Path | None:
    """The bundle inside the installed package, else (an editable install) the checkout's
    ``rules/`` beside the package; None when neither is there."""
    bundle = _PACKAGE / PACKAGED
    if bundle.is_file():
        return bundle
    checkout = _PACKAGE.parents[1] / DEFAULT_RULES_DIR
    if (checkout / "library.yaml").is_file():
        return checkout
    return None


def _checked(origin: Origin, path: Path, given: str, where: str) -> LibrarySource:
    if path.is_file() or (path / "library.yaml").is_file():
        return LibrarySource(origin, path, given)
    if path.is_dir():
        raise DiscoveryError(f"{given}: no library.yaml in this folder ({where})")
    raise DiscoveryError(f"{given}: no such rules folder or rules.json bundle ({where})")


def build_bundle(rules_dir: Path, output: Path) -> None:
    """Write the bundle of ``rules_dir`` to ``output`` and read it back: the wheel's library.
    :class:`LibraryError` with every problem when the rules or the bundle are invalid."""
    output.write_bytes(render(load_library(rules_dir)))
    checked = read_bundle(output)
    if checked.library is None:
        raise LibraryError(checked.diagnostics)
