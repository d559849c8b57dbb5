"""The Learn path without a browser: practice items from the practice bank and the pairs,
lessons, pages and nav."""

from __future__ import annotations

import dataclasses
import html
import json
import re
from collections import Counter

import pytest
from pygments.token import STANDARD_TYPES

from rlt_rules import load_library
from rlt_rules.library.model import Status
from rlt_rules.library.pairs import marked_lines, pairs_of
from rlt_rules.render.text import expected_output
from rlt_rules.site import learn
from rlt_rules.site.practice import (
    CHOICES,
    RULE_ID_WORD,
    practice_items,
    shown_program,
    taught_rules,
    text_segments,
)

pytest.register_assert_rewrite("site_fixtures")
pytest_plugins = ["site_fixtures"]

from site_fixtures import ROOT, BuiltSite  # noqa: E402

RULES = ROOT / "rules"
#: A marker or any "# R<digits>" comment.
MARKER_TEXT = re.compile(r"#\s*R\d")


@pytest.fixture(scope="module")
def library():
    return load_library(RULES)


def read(site: BuiltSite, relative: str) -> str:
    return (site.directory / relative).read_text(encoding="utf-8")


# --- items ----------------------------------------------------------------------------------


def test_every_pair_and_every_bank_program_yields_exactly_one_item(library) -> None:
    items = practice_items(library)
    expected = Counter((rule.id, pair.name) for rule in library.rules for pair in pairs_of(rule))
    paired = [item for item in items if item.pair is not None]
    assert Counter((item.rule.id, item.pair.name) for item in paired) == expected
    # At least the 27 pairs of 1.0.0; pairs are added, never removed.
    assert len(paired) == sum(expected.values()) >= 27
    bank = [item for item in items if item.from_bank]
    assert [(item.rule.id, item.source) for item in bank] == [
        (rule.id, program) for rule in library.rules for program in rule.practice
    ]
    assert len(items) == len(paired) + len(bank)
    assert len({item.key for item in items}) == len(items)
    # Every rule of the real library is active, so every pair and bank program is practised.
    assert all(rule.status is Status.ACTIVE for rule in library.rules)


def test_the_bank_holds_two_programs_per_rule_and_comes_first(library) -> None:
    """Practice tests transfer: every taught rule has at least two bank programs, none of them
    an example's code, and the bank's items precede every pair's."""
    items = practice_items(library)
    per_rule = Counter(item.rule.id for item in items if item.from_bank)
    assert all(per_rule[rule.id] >= 2 for rule in taught_rules(library)), per_rule
    assert sum(per_rule.values()) >= 34
    bank_flags = [item.from_bank for item in items]
    assert bank_flags == sorted(bank_flags, reverse=True)
    example_code = {example.code for rule in library.rules for example in rule.examples}
    for item in items:
        if item.from_bank:
            assert item.code not in example_code, item.key
            assert len(item.code.rstrip("\n").split("\n")) <= 100, (item.rule.id, item.source)


def test_no_item_shows_its_rule(library) -> None:
    """The shown program names no rule, carries no marker, no output and no explanation."""
    for item in practice_items(library):
        code = item.shown.code
        where = f"{item.rule.id} {item.source.name}"
        explanation = item.pair.bad.explanation if item.pair else item.source.explanation
        assert item.rule.id not in code, where
        assert not MARKER_TEXT.search(code), where
        assert not RULE_ID_WORD.search(code), where
        assert "#>" not in code, where
        assert explanation not in code, where
        assert code == code.rstrip() and code.strip()


def test_shown_program_keeps_the_lines_and_maps_the_marked_ones(library) -> None:
    """Every line of the program but the markers is shown, in order; the lines the rule's
    markers cover are the same lines in the shown program."""
    for item in practice_items(library):
        where = (item.rule.id, item.source.name)
        original = item.code.split("\n")
        shown = item.shown.code.split("\n")
        kept = iter(shown)
        for line in original:
            if line.lstrip().startswith("#") or not line.strip():
                continue  # comment lines may go (markers and their continuations)
            visible = re.sub(r"\s+# R\d+:.*$", "", line)
            assert visible in kept, (*where, line)
        covered = [original[n - 1] for n in sorted(marked_lines(item.code, item.rule.id))]
        highlighted = [shown[n - 1] for n in item.shown.marked]
        expected = [
            re.sub(r"\s+# R\d+:.*$", "", line)
            for line in covered
            if not line.lstrip().startswith("#")
        ]
        assert highlighted == expected, where
        assert item.shown.marked, where


def test_stripping_markers_comments_and_ids_that_name_a_rule() -> None:
    code = "\n".join(
        [
            "import re  # unrelated comment",
            "",
            "",
            "def check_r03(limit: int) -> int:",
            "    # R03: the marker's sentence",
            "    # goes on here.",
            "    selected = set()",
            "    selected.add(limit)",
            "",
            "    total = limit + 1  # R03: inline marker",
            "    note = '# R03: in a string, not a comment'  # see R05 for contrast",
            "    return total",
            "",
            "",
            'print(check_r03(2), "ERR01")',
            "#> 3 ERR01",
            "",
        ]
    )
    shown = shown_program(code, "R03")
    assert shown.code.split("\n") == [
        "import re  # unrelated comment",
        "",
        "",
        "def check_rule(limit: int) -> int:",
        "    selected = set()",
        "    selected.add(limit)",
        "",
        "    total = limit + 1",
        "    note = '# rule: in a string, not a comment'",
        "    return total",
        "",
        "",
        'print(check_rule(2), "ERR01")',
    ]
    # The block under the marker (2 lines) and the inline-marked line.
    assert shown.marked == (5, 6, 8)


def test_choices_offer_the_rule_and_three_others_one_of_its_category(library) -> None:
    taught = {rule.id: rule for rule in taught_rules(library)}
    for item in practice_items(library):
        choices = item.choices
        assert len(choices) == CHOICES == len(set(choices)), choices
        assert choices.count(item.rule.id) == 1
        assert all(choice in taught for choice in choices)
        same = [
            c for c in choices if c != item.rule.id and taught[c].category == item.rule.category
        ]
        assert same, (item.rule.id, item.source.name, choices)
    # Built from the item alone: the same every build, and not always in the same place.
    assert [item.choices for item in practice_items(library)] == [
        item.choices for item in practice_items(load_library(RULES))
    ]
    places = Counter(item.choices.index(item.rule.id) for item in practice_items(library))
    assert len(places) > 1


def test_choices_in_a_small_library_and_a_large_one(library) -> None:
    """Fewer than four taught rules: every one of them; 3,400 rules: still four."""
    small = load_library(ROOT / "tests" / "fixtures" / "hostile" / "rules")
    for item in practice_items(small):
        assert sorted(item.choices) == sorted(rule.id for rule in taught_rules(small))
    copies = [
        dataclasses.replace(rule, id=f"R{copy * 17 + rule.number:04d}", related=())
        for copy in range(200)
        for rule in library.rules
    ]
    large = dataclasses.replace(library, rules=tuple(copies))
    items = practice_items(large)
    per_copy = sum(len(pairs_of(rule)) + len(rule.practice) for rule in library.rules)
    assert len(items) == 200 * per_copy
    for item in items:
        assert len(set(item.choices)) == CHOICES and item.rule.id in item.choices
        assert any(
            large.rule(c).category == item.rule.category for c in item.choices if c != item.rule.id
        )


def test_explanation_segments_keep_code_spans_apart() -> None:
    assert text_segments("Use `a < b` and ``x`y`` here.") == [
        ["text", "Use "],
        ["code", "a < b"],
        ["text", " and "],
        ["code", "x`y"],
        ["text", " here."],
    ]
    assert text_segments("no code") == [["text", "no code"]]
    assert text_segments("an ` unpaired tick") == [["text", "an ` unpaired tick"]]


# --- the built site -------------------------------------------------------------------------


def test_items_json_is_inert_and_complete(built_site: BuiltSite) -> None:
    library = built_site.library
    items = {item.key: item for item in practice_items(library)}
    seen = set()
    for category in library.categories:
        text = read(built_site, learn.items_uri(category.id))
        assert not set("<>&") & set(text), category.id
        data = json.loads(text)
        assert data["library"] == library.version
        for entry in data["items"]:
            item = items[entry["key"]]
            assert item.rule.category == category.id
            assert entry["code"] == item.shown.code
            # Highlighted at build time by Pygments: the tokens give back the code exactly.
            shown = ["".join(text for _, text in line) for line in entry["lines"]]
            assert shown == item.shown.code.removesuffix("\n").split("\n")
            kinds = {kind for line in entry["lines"] for kind, _ in line}
            assert {"k", "n"} <= kinds <= set(STANDARD_TYPES.values())
            assert entry["answer"] == item.rule.id
            assert entry["bank"] is item.from_bank
            if item.from_bank:  # no title, no good program: the explanation says the correction
                assert (entry["title"], entry["good_title"], entry["diff"]) == ([], None, "")
                assert entry["explanation"] == text_segments(item.source.explanation)
            else:
                assert entry["diff"] == "\n".join(item.pair.diff())
            assert [c["id"] for c in entry["choices"]] == list(item.choices)
            assert entry["marked"] == list(item.shown.marked)
            # The rule page, relative to the JSON file.
            target = (built_site.directory / "learn" / "practice" / entry["url"]).resolve()
            assert target == (built_site.directory / "rules" / item.rule.id).resolve()
            assert (target / "index.html").is_file()
            seen.add(entry["key"])
    assert seen == set(items)


def test_practice_json_offers_the_bank_first(built_site: BuiltSite) -> None:
    """Each category's file lists its rules' bank programs before any pair's bad program."""
    library = built_site.library
    items = {item.key: item for item in practice_items(library)}
    for category in library.categories:
        entries = json.loads(read(built_site, learn.items_uri(category.id)))["items"]
        flags = [entry["bank"] for entry in entries]
        assert flags == sorted(flags, reverse=True), category.id
        rules = {rule.id for rule in taught_rules(library) if rule.category == category.id}
        banked = Counter(items[entry["key"]].rule.id for entry in entries if entry["bank"])
        assert set(banked) == rules and min(banked.values()) >= 2, category.id


def test_bank_programs_appear_nowhere_else_on_the_site(built_site: BuiltSite) -> None:
    """A bank program's code and explanation are in the practice files only: no rule page,
    lesson or other page shows them, and search does not index them."""
    bank = [item for item in practice_items(built_site.library) if item.from_bank]
    # The program's longest line, and the start of its explanation, as a page's text has them.
    needles = [
        (max(item.shown.code.split("\n"), key=len).strip(), item.source.explanation[:60])
        for item in bank
    ]
    pages = sorted(built_site.directory.rglob("*.html"))
    assert len(pages) > 40
    for path in [*pages, built_site.directory / "search" / "search_index.json"]:
        text = html.unescape(re.sub(r"<[^>]+>", "", path.read_text(encoding="utf-8")))
        if path.suffix == ".json":
            text = json.loads(path.read_text(encoding="utf-8"))
            text = " ".join(doc["text"] for doc in text["docs"])
        for line, explanation in needles:
            assert line not in text, (path, line)
            assert explanation not in text, (path, explanation)


def test_learn_section_is_in_the_nav_in_library_order(built_site: BuiltSite) -> None:
    library = built_site.library
    home = read(built_site, "index.html")
    nav = home[home.index("md-nav--primary") : home.index("md-sidebar--secondary")]
    # Each lesson, then its practice; the practice of every rule after the last.
    positions = []
    for category in library.categories:
        positions += [
            nav.index(f'href="learn/{category.id}/"'),
            nav.index(f'href="learn/practice/{category.id}/"'),
        ]
    assert positions == sorted(positions)
    assert nav.index('href="learn/"') < positions[0]
    assert positions[-1] < nav.index('href="learn/practice/"') < nav.index('href="rules/"')
    for number, category in enumerate(library.categories, start=1):
        assert f"{number}. {category.title}" in nav
        assert f"Practice: {category.title}" in nav


def _footer_next(page: str) -> str:
    """The href of the footer's "Next" link."""
    found = re.search(r'<a href="([^"]*)" class="md-footer__link md-footer__link--next"', page)
    assert found is not None, "no footer Next link"
    return found.group(1)


def test_footer_next_goes_lesson_then_practice_then_next_lesson(built_site: BuiltSite) -> None:
    categories = built_site.library.categories
    for position, category in enumerate(categories):
        lesson = read(built_site, f"learn/{category.id}/index.html")
        assert _footer_next(lesson) == f"../practice/{category.id}/"
        practice = read(built_site, f"learn/practice/{category.id}/index.html")
        following = (
            f"../../{categories[position + 1].id}/" if position + 1 < len(categories) else "../"
        )
        assert _footer_next(practice) == following


def test_engine_page_is_linked_from_the_overview_and_names_every_owner(
    built_site: BuiltSite,
) -> None:
    overview = read(built_site, "learn/index.html")
    assert 'href="engine/"' in overview
    engine = read(built_site, "learn/engine/index.html")
    for component in (
        "SchedulePolicy",
        "Scheduler",
        "KVManager",
        "PreemptionManager",
        "ModelRunner",
    ):
        assert f"<code>{component}</code>" in engine, component


def test_home_page_reading_path_points_to_learn(built_site: BuiltSite) -> None:
    home = read(built_site, "index.html")
    path = home[home.index('id="reading-path-for-a-new-team-member"') :]
    assert 'href="learn/"' in path[:2000]
    assert "builds on the one before" not in home


def test_each_lesson_works_one_pair_per_rule(built_site: BuiltSite) -> None:
    library = built_site.library
    categories = library.categories
    for position, category in enumerate(categories):
        page = read(built_site, f"learn/{category.id}/index.html")
        assert f"Lesson {position + 1}: {category.title}" in page
        assert "What goes wrong" in page
        assert category.what_goes_wrong.split("`")[0][:60] in page
        rules = [rule for rule in taught_rules(library) if rule.category == category.id]
        assert page.count('class="rlt-worked"') == len(rules)
        for rule in rules:
            pair = pairs_of(rule)[0]
            assert f'data-pair="{pair.name}"' in page
            assert f'href="../../rules/{rule.id}/"' in page
            # The diff and both outputs.
            block = page[page.index(f'data-pair="{pair.name}"') :]
            block = block[
                : block.index('class="rlt-worked"') if 'class="rlt-worked"' in block else None
            ]
            assert "What the correction changes: bad → good" in block
            assert "Bad program prints" in block and "Good program prints" in block
            for line in (*expected_output(pair.bad.code), *expected_output(pair.good.code)):
                assert _escaped(line) in block
        # The end: its practice, then the next lesson (or every rule's practice).
        end = page[page.index('class="rlt-reading rlt-next"') :]
        assert f'href="../practice/{category.id}/"' in end
        if position + 1 < len(categories):
            assert f'href="../{categories[position + 1].id}/"' in end
        else:
            assert 'href="../practice/"' in end


def test_practice_pages_name_their_items_and_reveal_nothing(built_site: BuiltSite) -> None:
    library = built_site.library
    items = practice_items(library)
    for category in library.categories:
        page = read(built_site, f"learn/practice/{category.id}/index.html")
        assert f'data-rlt-items="../{category.id}.json"' in page
        for item in items:
            explanation = item.pair.bad.explanation if item.pair else item.source.explanation
            assert explanation[:40] not in page
            assert _escaped(item.shown.code.split("\n")[-1]) not in page
    every = read(built_site, "learn/practice/index.html")
    files = " ".join(f"{c.id}.json" for c in library.categories)
    assert f'data-rlt-items="{files}"' in every
    assert f"{len(items)} programs" in every


def test_lessons_of_a_library_with_retired_and_deprecated_rules(fixture_site: BuiltSite) -> None:
    """Only active rules are taught and practised; the others are named in their lesson."""
    library = fixture_site.library
    taught = {rule.id for rule in taught_rules(library)}
    assert taught == {rule.id for rule in library.rules if rule.status is Status.ACTIVE}
    assert {item.rule.id for item in practice_items(library)} <= taught
    page = read(fixture_site, "learn/lifecycle-and-runtime-semantics/index.html")
    assert "not taught here" in page
    assert 'href="../../rules/R20/"' in page and "(deprecated)" in page
    assert 'href="../../rules/R21/"' in page and "(retired)" in page
    assert "&lt;em&gt;&amp; Runtime&lt;/em&gt;" in page  # the category title stays text


def _escaped(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def test_search_finds_what_goes_wrong_on_the_overview_not_the_lessons(
    built_site: BuiltSite,
) -> None:
    """Lessons repeat their rules' pages: search leaves them out and finds the overview."""
    index = json.loads(read(built_site, "search/search_index.json"))
    locations = {doc["location"].split("#")[0] for doc in index["docs"]}
    overview = " ".join(doc["text"] for doc in index["docs"] if doc["location"] == "learn/")
    for category in built_site.library.categories:
        assert f"learn/{category.id}/" not in locations
        assert f"learn/practice/{category.id}/" not in locations
        assert category.what_goes_wrong.split("`")[0] in overview
