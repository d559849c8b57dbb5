"""Finding a rule by what the code does: the committed reviewers' queries
(``tests/data/search_queries.yaml``, written from the seed by someone who did not write the rule
pages) through Material's own search, in Chromium, on the built site.

Every query goes to the search worker the page itself starts (the script named in the page's
``__config``, fed the page's ``search/search_index.json``, with the messages Material's search
box sends); one query is also typed into the search box, and its first result must be the
worker's. A result's rule is the ``/rules/RNN/`` page it belongs to; any other page first is a
miss. The test prints top-1 and top-3 for the dev and held-out queries and every miss.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

pytest.register_assert_rewrite("site_fixtures")
pytest_plugins = ["site_fixtures"]

from search_queries import BLIND_SETS, Query, load_queries, score  # noqa: E402

pytestmark = pytest.mark.browser

#: The issue's targets over the whole set (issue 31 §1): both reached in session 11 (90/98 =
#: 0.918 and 98/98, benchmarks/README.md); the report below says by how much.
TOP_1, TOP_3 = 0.9, 0.98
#: What the site reaches today, over the whole set: a change that finds fewer fails here. Raise
#: it with the figures; lower it never.
FLOOR_TOP_1, FLOOR_TOP_3 = 0.9, 0.98
#: The same for each blind set (search_queries.py), never tuned to, one query below today's
#: figures (46/51 and 50/51; 44/51 and 50/51): an edit of a rule's text moves a set by a query
#: through word weights alone, and these sets guard against a search that fits the tuned set.
BLIND_FLOORS = {"fresh (blind)": (0.88, 0.96), "fresh 2 (blind)": (0.84, 0.96)}

#: Runs ``queries`` through the page's own search worker; for each, the pages of its result
#: groups in order (Material shows one group per page, best first).
RUN_QUERIES = """async (queries) => {
  const config = JSON.parse(document.getElementById("__config").textContent);
  const base = new URL(config.base + "/", location.href);
  const index = await (await fetch(new URL("search/search_index.json", base))).json();
  const worker = new Worker(new URL(config.search, base));
  const ask = message => new Promise((resolve, reject) => {
    worker.onmessage = event => resolve(event.data);
    worker.onerror = event => reject(new Error(event.message));
    worker.postMessage(message);
  });
  const setup = {config: index.config, docs: index.docs, options: {suggest: false}};
  if ((await ask({type: 0, data: setup})).type !== 1) throw new Error("search not ready");
  const pages = [];
  for (const query of queries) {
    const result = await ask({type: 2, data: query});
    pages.push(result.data.items.map(group => group[0].location.split("#")[0]));
  }
  worker.terminate();
  return pages;
}"""


def rule_of(location: str) -> str:
    """The rule whose page ``location`` is, else the location itself (a miss)."""
    found = re.fullmatch(r"rules/(R\d+)/", location)
    return found.group(1) if found else f"/{location}"


def test_the_query_set_is_large_and_names_existing_rules(built_site) -> None:
    queries = load_queries()
    rules = {rule.id for rule in built_site.library.rules}
    assert len(queries) >= 60
    assert {query.rule for query in queries} <= rules
    assert any(query.held_out for query in queries) and not all(q.held_out for q in queries)
    for path in BLIND_SETS.values():
        blind = load_queries(path)
        assert len(blind) >= 3 * len(rules) and {query.rule for query in blind} == rules, path


def _label(label: str):
    return lambda query: label


def _ranked(page: Page, queries: list[Query]) -> list[tuple[Query, list[str]]]:
    results = page.evaluate(RUN_QUERIES, [query.text for query in queries])
    return [
        (query, [rule_of(location) for location in pages])
        for query, pages in zip(queries, results, strict=True)
    ]


def _misses(ranked: list[tuple[Query, list[str]]], label) -> list[str]:
    return [
        f"  {query.rule} {label(query)} {query.text!r}: {rules[:3]}"
        for query, rules in ranked
        if rules[:1] != [query.rule]
    ]


def test_reviewers_queries_find_their_rule(page: Page, site_url: str) -> None:
    queries = load_queries()
    page.goto(site_url)
    ranked = _ranked(page, queries)

    # The worker answers as the search box does: type one query, compare the first result.
    typed = queries[0].text
    first = page.evaluate(RUN_QUERIES, [typed])[0][0]
    page.locator("label.md-search__icon, input.md-search__input").first.click()
    page.locator("input.md-search__input").press_sequentially(typed)
    link = page.locator("li.md-search-result__item a.md-search-result__link").first
    expect(link).to_have_attribute("href", re.compile(re.escape(first) + "([?#].*)?$"))

    whole = score(ranked)
    dev = score([pair for pair in ranked if not pair[0].held_out])
    held_out = score([pair for pair in ranked if pair[0].held_out])
    blind = {label: _ranked(page, load_queries(path)) for label, path in BLIND_SETS.items()}
    blind_scores = {label: score(ranked) for label, ranked in blind.items()}
    reached = whole.top_1 >= TOP_1 and whole.top_3 >= TOP_3
    report = "\n".join(
        [f"all: {whole}", f"dev: {dev}", f"held-out: {held_out}"]
        + [f"{label}: {found}" for label, found in blind_scores.items()]
        + [f"targets {TOP_1} / {TOP_3}: {'reached' if reached else 'not reached'}"]
        + ["not first:"]
        + _misses(ranked, lambda query: "held-out" if query.held_out else "dev")
        + [miss for label, pairs in blind.items() for miss in _misses(pairs, _label(label))]
    )
    print(report)
    assert whole.top_1 >= FLOOR_TOP_1 and whole.top_3 >= FLOOR_TOP_3, report
    for label, found in blind_scores.items():
        floor_1, floor_3 = BLIND_FLOORS[label]
        assert found.top_1 >= floor_1 and found.top_3 >= floor_3, report


#: Code a reviewer pastes, and the words it must search: lunr's query syntax in it (``-1``
#: "without 1", quotes "required", ``a:b`` a field, ``^``/``~`` boost and blur, ``+``/``*``)
#: is read as plain text by the page's search (site/js/search-worker.js).
PASTED = {
    "returns -1 when nothing fits": "returns 1 when nothing fits",
    'getattr(self, "kv", None)': "getattr self kv None",
    "-1": "1",
    "x[i] = foo() + a.b": "x i foo a b",
    "ratio: 0.9 ~ total^2 * count": "ratio 0.9 total 2 count",
    "-> list[int]": "list int",
}


def test_pasted_code_searches_its_words(page: Page, site_url: str) -> None:
    page.goto(site_url)
    pasted = page.evaluate(RUN_QUERIES, list(PASTED))
    plain = page.evaluate(RUN_QUERIES, list(PASTED.values()))
    for query, found, expected in zip(PASTED, pasted, plain, strict=True):
        assert expected, f"{PASTED[query]!r} finds nothing"
        assert found == expected, f"{query!r}: {found[:3]} against {expected[:3]}"
    # Typed into the search box, as a reviewer pastes it.
    page.locator("label.md-search__icon, input.md-search__input").first.click()
    page.locator("input.md-search__input").press_sequentially('getattr(self, "kv", None)')
    link = page.locator("li.md-search-result__item a.md-search-result__link").first
    expect(link).to_have_attribute("href", re.compile(re.escape(plain[1][0]) + "([?#].*)?$"))


def test_a_word_finds_its_inflections_and_a_word_being_typed_its_completions(
    page: Page, site_url: str
) -> None:
    """The index holds stems, and a query word the index knows is searched as its stem
    (site/js/search-worker.js): "blocks counted" searches what "block count" does. A word the
    index does not know, one still being typed, is the start of a word: "hasat" finds hasattr,
    and the box offers to complete it with a word as a title spells it."""
    page.goto(site_url)
    inflected, stems, typing, typed = page.evaluate(
        RUN_QUERIES, ["free blocks counted", "free block count", "hasat", "hasattr"]
    )
    assert stems, "free block count finds nothing"
    assert inflected == stems
    assert typed[:1] == ["rules/R10/"] and typing[:1] == typed[:1], (typing[:3], typed[:3])
    # The search box completes a word being typed as the titles spell it, not as a stem
    # ("polici"): R04's title says "policy".
    page.locator("label.md-search__icon, input.md-search__input").first.click()
    page.locator("input.md-search__input").press_sequentially("polic")
    expect(page.locator(".md-search__suggest")).to_have_text("policy")


def test_a_search_lands_on_the_trigger_it_matches(page: Page, site_url: str, built_site) -> None:
    """Each trigger is its own search entry, at its anchor: a reviewer who types what the code
    does gets a result that shows the trigger's words, unfolded (not under "N more on this
    page"), and opens the rule page at the trigger to cite."""
    rule = built_site.library.rule("R10")
    anchor, trigger = rule.anchors().triggers[-1], rule.triggers[-1]
    words = " ".join(re.sub(r"[`*]", "", trigger).split()[:8])
    page.goto(site_url)
    page.locator("label.md-search__icon, input.md-search__input").first.click()
    page.locator("input.md-search__input").press_sequentially(words)
    result = page.locator("li.md-search-result__item").filter(
        has=page.locator(f'a[href$="#{anchor}"]')  # Material puts ?h=… before the #
    )
    expect(result).to_have_count(1)
    link = result.locator(f'a[href$="#{anchor}"]')
    assert "/rules/R10/" in (link.get_attribute("href") or "")
    expect(link).to_be_visible()
    expect(result.locator("a").nth(1)).to_have_attribute("href", re.compile(rf"#{anchor}$"))
    expect(link).to_contain_text(words.split()[-1])
    link.click()
    expect(page).to_have_url(re.compile(rf"/rules/R10/(\?[^#]*)?#{anchor}$"))
    expect(page.locator(f"#{anchor}")).to_be_in_viewport()


# --- the rules index filter ------------------------------------------------------------------


def _filtered(page: Page, words: str) -> list[str]:
    expect(page.locator("form[data-rlt-filter][data-rlt-text-ready]")).to_have_count(1)
    page.fill("input[name=filter]", words)
    return page.locator("[data-rlt-index] tbody tr[data-rule]:visible").evaluate_all(
        "rows => rows.map(row => row.dataset.rule)"
    )


def test_index_filter_matches_a_rules_triggers(page: Page, site_url: str, built_site) -> None:
    """``hasattr`` is in R10's triggers, not in its row, title or statement."""
    rule = built_site.library.rule("R10")
    assert any("hasattr" in trigger for trigger in rule.triggers)
    assert "hasattr" not in f"{rule.title} {rule.statement} {' '.join(rule.tags)}".lower()
    page.goto(f"{site_url}rules/")
    assert "R10" in _filtered(page, "hasattr")
    expect(page).to_have_url(f"{site_url}rules/?filter=hasattr")
    expect(page.locator("[data-rlt-site-search]")).to_be_hidden()


def test_index_filter_offers_the_site_search_when_nothing_matches(
    page: Page, site_url: str
) -> None:
    words = "zeppelin marmalade"  # in no rule
    page.goto(f"{site_url}rules/")
    assert _filtered(page, words) == []
    offer = page.locator("[data-rlt-empty] a[data-rlt-site-search]")
    expect(offer).to_be_visible()
    expect(offer).to_contain_text(words)
    address = offer.get_attribute("href")
    assert address == "../?q=zeppelin%20marmalade", address
    offer.click()  # Material's search opens here, with the words, and runs them
    box = page.locator("input.md-search__input")
    expect(box).to_be_visible()
    expect(box).to_have_value(words)
    expect(page.locator(".md-search-result__meta")).to_contain_text("matching")
    # The link itself (opened in a new tab, shared) is Material's search deep link.
    page.goto(f"{site_url}rules/{address}")
    expect(page.locator("input.md-search__input")).to_have_value(words)
    expect(page.locator(".md-search-result__meta")).to_be_visible()


def test_an_old_rules_q_link_opens_the_site_search(page: Page, site_url: str) -> None:
    """``?q=`` is Material's search deep link on every page; the filter keeps out of its way."""
    page.goto(f"{site_url}rules/?q=hasattr")
    expect(page.locator("input.md-search__input")).to_have_value("hasattr")
    first = page.locator("li.md-search-result__item a.md-search-result__link").first
    expect(first).to_have_attribute("href", re.compile(r"(^|/)rules/R10/"))
    expect(page.locator("input[name=filter]")).to_have_value("")
