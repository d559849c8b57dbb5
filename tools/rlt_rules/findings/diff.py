"""The change under review: :mod:`rlt_rules.files.diffs`, the one reader of unified diffs, which the
scan's ``--diff`` reads too."""

from __future__ import annotations

from ..files.diffs import Change, ChangedFile, DiffError, FileStatus, Hunk, LineRange, parse_diff

__all__ = ["Change", "ChangedFile", "DiffError", "FileStatus", "Hunk", "LineRange", "parse_diff"]
