"""Every mention of an example pair's name in the site's prose links to the pair (issue 31,
section 3): lesson 4's "(see `worker-result-after-resume`)" goes to R17's pair, on every page,
and the link is built from the library's names, not from the page's markup."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from rlt_rules.library.pairs import pairs_of
from rlt_rules.site.example_links import ExampleTarget, link_example_names

pytest.register_assert_rewrite("site_fixtures")
pytest_plugins = ["site_fixtures"]

from site_fixtures import BuiltSite  # noqa: E402

_LINKED = re.compile(r'<a href="([^"]*)"><code>([a-z0-9-]+)</code></a>')
_ID = re.compile(r'\bid="([^"]+)"')
#: Places where a code span is not prose: links, code blocks, headings, the navigation.
_NOT_PROSE = re.compile(r"<(a|pre|h[1-6]|nav)\b.*?</\1>", re.DOTALL)


def _article(page: str) -> str:
    return page[page.index("<article") : page.index("</article>")]


def _pages(site: BuiltSite) -> list[Path]:
    return sorted(site.directory.rglob("*.html"))


def test_lesson_mention_links_to_the_pair_on_its_rule_page(built_site: BuiltSite) -> None:
    category = next(
        category
        for category in built_site.library.categories
        if any(
            "`worker-result-after-resume`" in example.explanation
            for rule in built_site.library.rules
            if rule.category == category.id
            for example in rule.examples
        )
    )
    lesson = (built_site.directory / "learn" / category.id / "index.html").read_text()
    assert (
        '(see <a href="../../rules/R17/#worker-result-after-resume">'
        "<code>worker-result-after-resume</code></a>)"
    ) in lesson
    rule_page = (built_site.directory / "rules" / "R17" / "index.html").read_text()
    assert (
        '<a href="#worker-result-after-resume"><code>worker-result-after-resume</code></a>'
        in rule_page
    )


def test_every_mention_of_a_pair_name_is_a_link_that_resolves(built_site: BuiltSite) -> None:
    names = {pair.name for rule in built_site.library.rules for pair in pairs_of(rule)}
    linked = 0
    for path in _pages(built_site):
        page = path.read_text(encoding="utf-8")
        if "<article" not in page:
            continue
        article = _article(page)
        prose = _NOT_PROSE.sub("", article)
        plain = [name for name in re.findall(r"<code>([a-z0-9-]+)</code>", prose) if name in names]
        assert not plain, f"{path}: example names in prose without a link: {plain}"
        for url, name in _LINKED.findall(article):
            if name not in names:
                continue
            linked += 1
            target_page, _, anchor = html.unescape(url).partition("#")
            target = (path.parent / target_page / "index.html") if target_page else path
            ids = _ID.findall(target.resolve().read_text(encoding="utf-8"))
            assert anchor in ids, f"{path}: {url} points at no id"
    assert linked >= 3  # R17's page, its lesson, the authoring guide


def test_links_come_from_the_library_not_the_page() -> None:
    targets = {"stale-step": (ExampleTarget("R03", "stale-step"),)}
    page = (
        "<p>see <code>stale-step</code> and <code>other-name</code></p>"
        '<pre><code>stale-step</code></pre><h2 id="x"><code>stale-step</code></h2>'
        '<p><a href="https://example.org/"><code>stale-step</code></a></p>'
    )
    out = link_example_names(page, "learn/one.md", targets)
    assert out.count('<a href="../../rules/R03/#stale-step">') == 1
    assert "<code>other-name</code></p>" in out
    assert '<pre><code>stale-step</code></pre><h2 id="x"><code>stale-step</code></h2>' in out
    # Without directory URLs, and on the rule's own page.
    flat = link_example_names(page, "learn/one.md", targets, directory_urls=False)
    assert '<a href="../rules/R03.html#stale-step">' in flat
    own = link_example_names(page, "rules/R03.md", targets)
    assert '<a href="#stale-step"><code>stale-step</code></a>' in own


def test_a_name_two_rules_share_links_only_on_their_pages() -> None:
    targets = {"reuse": (ExampleTarget("R03", "reuse"), ExampleTarget("R04", "reuse"))}
    page = "<p><code>reuse</code></p>"
    assert link_example_names(page, "learn/one.md", targets) == page
    assert '<a href="#reuse">' in link_example_names(page, "rules/R04.md", targets)
