"""The exports are published in a real MkDocs build, and the exports page's links resolve."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rlt_rules import load_library
from rlt_rules.export import site_files

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site_dir = tmp_path_factory.mktemp("site")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, result.stderr
    return site_dir


def test_every_export_is_published_at_the_site_root(built_site: Path) -> None:
    expected = site_files(load_library(ROOT / "rules"), None)
    for relative in expected:
        assert (built_site / relative).is_file(), f"{relative} missing from the built site"
    # Independent of the site URL the build passes, so byte-comparable here.
    for relative in ("rules.json", "checklist.md", "skill/SKILL.md", "llms-full.txt"):
        assert (built_site / relative).read_bytes() == expected[relative], relative


def test_exports_page_links_resolve(built_site: Path) -> None:
    page = built_site / "exports" / "index.html"
    assert page.is_file()
    html = page.read_text(encoding="utf-8")
    targets = set(re.findall(r'href="(\.\./[^"#]+)"', html))
    published = {f"../{relative}" for relative in site_files(load_library(ROOT / "rules"), None)}
    assert published <= targets, f"the page does not link {sorted(published - targets)}"
    for target in published:
        assert (page.parent / target).resolve().is_file(), f"broken link {target}"
