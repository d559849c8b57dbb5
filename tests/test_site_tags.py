"""The plugin's tags, titles and output paths are MkDocs' and Material's own.

The tags page, the tag chips and ``tags.json`` come from the model, where Material's tags
plugin collected them from rendered pages: a build of the same pages with Material's plugin
must give the same markup. Titles and output paths the plugin works out without MkDocs must be
the ones MkDocs gives.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from mkdocs.config import load_config
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from rlt_rules import load_library
from rlt_rules.releases import load_history
from rlt_rules.site.assembly import write_markdown_site
from rlt_rules.site.markup import output_path, page_title
from rlt_rules.site.nav import add_categories_to_nav
from rlt_rules.site.pages import SiteInput
from rlt_rules.site.rule_page import rule_page

pytest.register_assert_rewrite("site_fixtures")
pytest_plugins = ["site_fixtures"]

from site_fixtures import FIXTURE_RULES, ROOT, BuiltSite  # noqa: E402

LIBRARIES = [ROOT / "rules", FIXTURE_RULES, ROOT / "tests" / "fixtures" / "hostile" / "rules"]


@pytest.mark.parametrize("directory_urls", [True, False])
def test_output_paths_are_the_files_mkdocs_writes(directory_urls: bool) -> None:
    uris = ["index.md", "tags.md", "rules/index.md", "rules/R03.md", "categories/naming.md"]
    uris += ["reference/format.md", "a/b/index.md", "changelog.md"]
    for uri in uris:
        assert (
            output_path(uri, directory_urls=directory_urls)
            == File(uri, "", "", directory_urls).dest_uri
        )


@pytest.mark.parametrize("rules_dir", LIBRARIES, ids=["real", "site", "hostile"])
def test_page_titles_are_the_titles_mkdocs_gives_rule_pages(rules_dir: Path) -> None:
    """The tags listing and ``tags.json`` name rule pages by :func:`page_title`; MkDocs takes a
    page's title from its rendered heading (HTML in titles included: the hostile fixture)."""
    config = load_config(str(ROOT / "mkdocs.yml"))
    library = load_library(rules_dir)
    for rule in library.rules:
        file = File(f"rules/{rule.id}.md", None, config.site_dir, config.use_directory_urls)
        file.content_string = rule_page(library, rule)
        page = Page(None, file, config)
        page.read_source(config)
        page.render(config, Files([file]))
        assert page.title == page_title(rule), rule.id


def _with_materials_tags_plugin(rules: Path, project: Path) -> Path:
    """The site's pages written out as Markdown, built by MkDocs with Material's tags plugin
    where the site has the rlt-rules plugin; returns the built site."""
    library = load_library(rules)
    docs = project / "docs"
    site = SiteInput(library, load_history(rules))
    generated = write_markdown_site(
        site, ROOT / "site", docs, tags_marker="<!-- material/tags -->"
    ).pages
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    config["plugins"] = ["search", "tags"]
    config["docs_dir"] = str(docs)
    config["site_dir"] = str(project / "site")
    config["theme"]["custom_dir"] = str(ROOT / config["theme"]["custom_dir"])
    config["not_in_nav"] = "\n".join(f"/{page.src_uri}" for page in generated if not page.in_nav)
    add_categories_to_nav(config["nav"], library)
    (project / "mkdocs.yml").write_text(yaml.safe_dump(config, sort_keys=False), "utf-8")
    env = {key: value for key, value in os.environ.items() if key != "RLT_RULES_DIR"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(project / "mkdocs.yml")],
        env=dict(env, NO_MKDOCS_2_WARNING="1"),
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return project / "site"


def _chips(page_html: str) -> str | None:
    found = re.search(r'<nav class="md-tags".*?</nav>', page_html, re.S)
    return found.group(0) if found else None


def test_tags_are_what_materials_tags_plugin_makes(fixture_site: BuiltSite, tmp_path: Path) -> None:
    """The tags page, every rule page's chips, ``tags.json`` and the tags page's search
    entries (none), byte for byte (the fixture has deprecated and retired rules and HTML in
    titles)."""
    material = _with_materials_tags_plugin(FIXTURE_RULES, tmp_path / "material")
    ours = fixture_site.directory
    assert (ours / "tags/index.html").read_bytes() == (material / "tags/index.html").read_bytes()
    assert (ours / "tags.json").read_bytes() == (material / "tags.json").read_bytes()
    chips = 0
    for rule in fixture_site.library.rules:
        page = f"rules/{rule.id}/index.html"
        theirs = _chips((material / page).read_text(encoding="utf-8"))
        assert _chips((ours / page).read_text(encoding="utf-8")) == theirs, rule.id
        chips += theirs is not None
    assert chips, "no rule page of the fixture has tags: the test compares nothing"

    def tags_entries(site: Path) -> list[dict]:
        index = json.loads((site / "search/search_index.json").read_bytes())
        return [entry for entry in index["docs"] if entry["location"].startswith("tags/")]

    # site/tags.md leaves the listing out of search (it repeats the rule pages' titles): in
    # both builds.
    assert tags_entries(ours) == tags_entries(material) == []
