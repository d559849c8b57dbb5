"""The distribution's name and version: ``pyproject.toml`` owns the version, read from it when
the package runs from its checkout (an editable install, the wheel's build hook), else through
the installed metadata (:mod:`importlib.metadata`: a tenth of a second of every command's
start, which the checkout does not pay)."""

from __future__ import annotations

import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

NAME = "rlt-rules"


def _version() -> str:
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    try:
        project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        project = {}  # installed: no checkout around the package
    if project.get("name") == NAME and isinstance(project.get("version"), str):
        return project["version"]
    try:
        return version(NAME)
    except PackageNotFoundError:
        return "unknown"


#: The ``rlt-rules`` version, as ``pyproject.toml`` sets it.
VERSION = _version()
