"""The exports page of the built site links every published export, and each link resolves.

Uses the session's site build (``site_fixtures.built_site``, shared with ``test_site.py``), which
also checks that every export is published at the site root.
"""

from __future__ import annotations

import re

import pytest

from rlt_rules.export import site_files

pytest.register_assert_rewrite("site_fixtures")
pytest_plugins = ["site_fixtures"]

from site_fixtures import BuiltSite  # noqa: E402


def test_exports_page_links_resolve(built_site: BuiltSite) -> None:
    page = built_site.directory / "exports" / "index.html"
    assert page.is_file()
    html = page.read_text(encoding="utf-8")
    targets = set(re.findall(r'href="(\.\./[^"#]+)"', html))
    published = {f"../{relative}" for relative in site_files(built_site.library, None)}
    assert published <= targets, f"the page does not link {sorted(published - targets)}"
    for target in published:
        assert (page.parent / target).resolve().is_file(), f"broken link {target}"


def test_published_exports_are_the_rendered_bytes(built_site: BuiltSite) -> None:
    """The files the site build writes are what ``site_files`` renders (those that do not
    depend on the site URL the build passes)."""
    expected = site_files(built_site.library, None)
    for relative in ("rules.json", "checklist.md", "skill/SKILL.md", "llms-full.txt"):
        assert (built_site.directory / relative).read_bytes() == expected[relative], relative
