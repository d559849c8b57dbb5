"""The distribution's name and version: ``pyproject.toml`` owns the version, read from it when
the package runs from its checkout (an editable install, the wheel's build hook), else from
:data:`PACKAGED_VERSION`, which the wheel's build hook (``hatch_build.py``) writes beside the
bundled library. Neither asks :mod:`importlib.metadata`, whose import and search of the
installed distributions took a tenth of a second of every command's start."""

from __future__ import annotations

import tomllib
from pathlib import Path

NAME = "rlt-rules"
#: Where a wheel carries its version, inside the ``rlt_rules`` package.
PACKAGED_VERSION = Path("library") / "VERSION"


def _version() -> str:
    package = Path(__file__).resolve().parents[1]  # tools/rlt_rules (this is facts/)
    try:
        text = (package.parents[1] / "pyproject.toml").read_text(encoding="utf-8")
        project = tomllib.loads(text).get("project", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        project = {}  # installed: no checkout around the package
    if project.get("name") == NAME and isinstance(project.get("version"), str):
        return project["version"]
    try:
        return (package / PACKAGED_VERSION).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return "unknown"


#: The ``rlt-rules`` version, as ``pyproject.toml`` sets it.
VERSION = _version()
