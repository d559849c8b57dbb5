"""Where the library is published, set in one place: ``site_url`` and ``repo_url`` in
``mkdocs.yml``.

MkDocs reads them for the site (page URLs, edit links); :func:`project_addresses` reads the same
file for everything else: the exports ``rlt-rules export`` writes, ``rlt-rules findings`` and
``rlt-rules review-context``. The file is the project's: ``mkdocs.yml`` beside the rules folder,
as ``releases/`` is. A rule's page is ``<site_url><library version>/rules/R03/``, where mike
publishes that version (:func:`versioned_site_url`), so an export written from the command line
links the same pages as the copy the site publishes.

``site_url: !ENV [RLT_SITE_URL, "https://…/"]`` takes the address from the environment, as
MkDocs does; other tags MkDocs knows (``!!python/name:…``) are read as nothing.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import yaml

from ..files.errors import InputError
from ..files.weburl import url_problem

CONFIG_NAME = "mkdocs.yml"


class AddressError(InputError):
    """``mkdocs.yml`` cannot be read, or an address in it is not a URL."""


@dataclass(frozen=True, slots=True)
class Addresses:
    """The published site's root (unversioned) and the repository's address, if set."""

    site_url: str | None
    repo_url: str | None

    def pages(self, version: str) -> str | None:
        """The root of ``version``'s pages (``https://…/1.0.0/``), or None when unset."""
        return versioned_site_url(self.site_url, version)


def versioned_site_url(site_url: str | None, version: str) -> str | None:
    """``https://site/`` and ``1.0.0`` -> ``https://site/1.0.0/``, the root mike publishes."""
    if not site_url:
        return None
    return f"{site_url.rstrip('/')}/{version}/"


#: Domains reserved so they never resolve (RFC 2606): ``mkdocs.yml``'s placeholder
#: ``https://rlt-rules.example/`` is one, and every link under it is dead for a reader.
_RESERVED = ("example", "invalid", "test", "example.com", "example.net", "example.org")


def placeholder_host(url: str | None) -> str | None:
    """The host of ``url`` when it is a reserved, never-resolving name; else None."""
    host = (urlsplit(url).hostname or "") if url else ""
    if any(host == name or host.endswith(f".{name}") for name in _RESERVED):
        return host
    return None


def config_path(rules_dir: str | Path) -> Path:
    """The project's ``mkdocs.yml``: beside the rules folder."""
    return Path(os.path.normpath(Path(rules_dir).resolve() / os.pardir / CONFIG_NAME))


def project_addresses(rules_dir: str | Path) -> Addresses:
    """The addresses ``mkdocs.yml`` beside ``rules_dir`` sets; none without that file."""
    path = config_path(rules_dir)
    if not path.is_file():
        return Addresses(None, None)
    return read_addresses(path)


def read_addresses(path: Path) -> Addresses:
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_ConfigLoader)
    except (OSError, UnicodeDecodeError) as error:
        raise AddressError(f"{path}: cannot be read: {error}") from error
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(path)
        raise AddressError(f"{where}: not valid YAML: {error}") from error
    if not isinstance(data, dict):
        return Addresses(None, None)
    return Addresses(_url(data, "site_url", path), _url(data, "repo_url", path))


def _url(data: dict, key: str, path: Path) -> str | None:
    value = data.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise AddressError(f"{path}: {key} must be an http(s) URL, got {value!r}")
    problem = url_problem(value)
    if problem is not None:
        raise AddressError(f"{path}: {key} {problem}, got {value!r}")
    return value


class _ConfigLoader(yaml.SafeLoader):
    """Safe loading of an MkDocs configuration: ``!ENV`` resolved, other tags read as None."""


def _environment(loader: yaml.SafeLoader, node: yaml.Node) -> object:
    """MkDocs' ``!ENV VAR`` / ``!ENV [VAR, OTHER, default]``: the first variable set, else the
    last item when it is not a variable name's only option."""
    if isinstance(node, yaml.ScalarNode):
        return os.environ.get(loader.construct_scalar(node))
    items = loader.construct_sequence(node) if isinstance(node, yaml.SequenceNode) else []
    names, default = (items[:-1], items[-1]) if len(items) > 1 else (items, None)
    for name in names:
        if isinstance(name, str) and name in os.environ:
            return os.environ[name]
    return default


_ConfigLoader.add_constructor("!ENV", _environment)
_ConfigLoader.add_multi_constructor("!", lambda loader, suffix, node: None)
_ConfigLoader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)
