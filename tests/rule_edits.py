"""Helpers shared by the tests that mutate a copied rules directory and expect it rejected."""

from __future__ import annotations

from pathlib import Path

from rlt_rules.project.check import check_project


def edit(path: Path, old: str, new: str) -> None:
    """Replace the first ``old`` in ``path`` with ``new``; fail if the fixture lacks ``old``."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"fixture text {old!r} not found in {path.name}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def problems(rules: Path) -> list[str]:
    """Every diagnostic of a rules directory that must fail validation, as printed."""
    result = check_project(rules, "rules")
    assert result.library is None, "expected the library to be rejected"
    return [str(diagnostic) for diagnostic in result.diagnostics]
