"""The distribution's name and version: ``pyproject.toml`` owns the version, read here through
the installed metadata (:mod:`importlib.metadata`), or from ``pyproject.toml`` itself when the
package runs from a checkout without being installed (the wheel's build hook does)."""

from __future__ import annotations

import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

NAME = "rlt-rules"


def _version() -> str:
    try:
        return version(NAME)
    except PackageNotFoundError:
        pyproject = Path(__file__).resolve().parents[3] / "pyproject.toml"
        return tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["version"]


#: The ``rlt-rules`` version, as ``pyproject.toml`` sets it.
VERSION = _version()
