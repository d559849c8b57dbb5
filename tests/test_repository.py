"""What is committed works on any machine: no link that leaves the repository."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _committed_links(root: Path) -> dict[str, str]:
    """Each committed symbolic link (git mode 120000) and the target it stores."""
    listing = subprocess.run(
        ["git", "ls-files", "-s", "-z"], cwd=root, capture_output=True, check=False
    )
    if listing.returncode != 0:
        pytest.skip(f"not a git checkout: {listing.stderr.decode(errors='replace').strip()}")
    links: dict[str, str] = {}
    for entry in listing.stdout.split(b"\0"):
        if not entry.startswith(b"120000 "):
            continue
        meta, _, path = entry.partition(b"\t")
        blob = meta.split()[1].decode()
        target = subprocess.run(
            ["git", "cat-file", "blob", blob], cwd=root, capture_output=True, check=True
        ).stdout
        links[path.decode()] = target.decode(errors="replace")
    return links


def _leaves(root: Path, link: str, target: str) -> bool:
    if os.path.isabs(target):
        return True
    resolved = os.path.normpath(os.path.join(root, os.path.dirname(link), target))
    return os.path.commonpath([resolved, str(root)]) != str(root)


def test_no_committed_link_points_outside_the_repository() -> None:
    leaving = {
        link: target
        for link, target in _committed_links(ROOT).items()
        if _leaves(ROOT, link, target)
    }
    assert not leaving, f"committed links that dangle on another machine: {leaving}"


def test_the_check_sees_a_link_that_leaves(tmp_path: Path) -> None:
    """The check above can fail: a repository with such a link is caught."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "inside.txt").write_text("x", encoding="utf-8")
    (tmp_path / ".venv-main").symlink_to("/work/somewhere/.venv")
    (tmp_path / "up").symlink_to("../../elsewhere")
    (tmp_path / "fine").symlink_to("inside.txt")
    subprocess.run(["git", "add", "-A"], cwd=tmp_path, check=True)
    links = _committed_links(tmp_path)
    assert set(links) == {".venv-main", "up", "fine"}
    assert {link for link, target in links.items() if _leaves(tmp_path, link, target)} == {
        ".venv-main",
        "up",
    }
