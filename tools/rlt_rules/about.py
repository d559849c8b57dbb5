"""The distribution's name and version: ``pyproject.toml`` owns the version, read here through
the installed metadata (:mod:`importlib.metadata`)."""

from __future__ import annotations

from importlib.metadata import version

NAME = "rlt-rules"
#: The installed ``rlt-rules`` version, as ``pyproject.toml`` sets it.
VERSION = version(NAME)
