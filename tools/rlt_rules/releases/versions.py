"""Library versions (``MAJOR.MINOR.PATCH``) and the kinds of release between two of them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import IntEnum

#: What ``since`` says of a rule no release has published yet.
NEXT = "next"
_VERSION = re.compile(r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$")


@dataclass(frozen=True, slots=True, order=True)
class Version:
    """A library version, ``MAJOR.MINOR.PATCH`` (no pre-release part)."""

    major: int
    minor: int
    patch: int

    @classmethod
    def parse(cls, text: str) -> Version | None:
        """The version ``text`` names, or None when it is not ``MAJOR.MINOR.PATCH``."""
        match = _VERSION.match(text) if isinstance(text, str) else None
        return cls(*(int(part) for part in match.groups())) if match else None

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}"


class Bump(IntEnum):
    """How big a release is, or must be: ordered, so ``max`` gives the one required."""

    NONE = 0
    PATCH = 1
    MINOR = 2
    MAJOR = 3

    def __str__(self) -> str:
        return self.name.lower()


def bump_between(old: Version, new: Version) -> Bump:
    """The kind of release going from ``old`` to ``new`` is (NONE when ``new`` is not later)."""
    if new <= old:
        return Bump.NONE
    if new.major > old.major:
        return Bump.MAJOR
    if new.minor > old.minor:
        return Bump.MINOR
    return Bump.PATCH


def version_key(version: str) -> Version:
    """Sort key of a version string: its :class:`Version` (0.0.0 when it is not one)."""
    return Version.parse(version) or Version(0, 0, 0)
