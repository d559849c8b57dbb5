"""The faster paths give the same results as the straightforward ones.

Each optimisation made for the benchmarks (``benchmarks/``) has a test here that compares it
with the plain computation it replaces: orjson against ``json.dumps``, the inert fast path
against the full escaping pass, one lookup table against scanning the library. No timings.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rlt_rules import Library, load_library
from rlt_rules.export import bundle, inert, sarif
from rlt_rules.export.inert import inert_library, inert_markdown
from rlt_rules.export.jsonout import indented
from rlt_rules.export.markdown import encode_blocks, join_blocks
from rlt_rules.export.text import expected_output
from rlt_rules.releases import History, load_history, rule_history
from rlt_rules.site import pages
from rlt_rules.validate import load_schema

ROOT = Path(__file__).resolve().parents[1]
LIBRARIES = {
    "real": ROOT / "rules",
    "valid": ROOT / "tests" / "fixtures" / "valid",
    # Deprecated and retired rules, HTML in titles and statements.
    "site": ROOT / "tests" / "fixtures" / "site" / "rules",
}


@pytest.fixture(scope="module", params=sorted(LIBRARIES))
def rules_dir(request: pytest.FixtureRequest) -> Path:
    return LIBRARIES[request.param]


@pytest.fixture(scope="module")
def library(rules_dir: Path) -> Library:
    return load_library(rules_dir)


def texts_of(library: Library) -> list[str]:
    """Every text field of the library that the exports and the site make inert."""
    texts = [library.title, library.subtitle, *library.preamble]
    texts += [category.title for category in library.categories]
    for rule in library.rules:
        texts += [rule.title, rule.statement, rule.seed_example, rule.rationale, *rule.triggers]
        texts += [rule.impact, rule.correction, rule.retired_reason or ""]
        for example in rule.examples:
            texts += [example.title, example.explanation, example.code]
    return texts


# --- JSON ---------------------------------------------------------------------------------

TRICKY_STRINGS = [
    'quote " and backslash \\',
    "controls " + "".join(chr(code) for code in range(0x20)) + " del \x7f",
    "line\u2028and paragraph\u2029separators",
    "é — “quoted” 😀 </script> &amp; <b>",
    "",
]


def stdlib_indented(data: object) -> bytes:
    return (json.dumps(data, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def test_indented_json_is_the_standard_librarys_text(library: Library) -> None:
    for data in (
        bundle.bundle_data(library),
        sarif.sarif_log(library, "https://rlt-rules.example/1.0.0/"),
        sarif.sarif_log(library, None),
    ):
        assert indented(data) == stdlib_indented(data)


def test_indented_json_escapes_like_the_standard_library() -> None:
    data = {
        "strings": TRICKY_STRINGS,
        "nested": [[], {}, [1, -2, {"null": None, "true": True, "false": False}]],
        "empty": {},
        TRICKY_STRINGS[0]: TRICKY_STRINGS[1],
    }
    assert indented(data) == stdlib_indented(data)


def test_bundle_and_sarif_files_are_the_standard_librarys_text(library: Library) -> None:
    assert bundle.render(library) == stdlib_indented(bundle.bundle_data(library))
    url = "https://rlt-rules.example/1.0.0/"
    assert sarif.render(library, url) == stdlib_indented(sarif.sarif_log(library, url))


# --- SARIF deprecatedIds ---------------------------------------------------------------------


def test_deprecated_ids_come_from_the_rules_that_name_a_replacement(library: Library) -> None:
    replaced = sarif.replaced_ids(library)
    for rule in library.rules:
        scanned = sorted(
            (other.id for other in library.rules if other.replaced_by == rule.id),
            key=lambda rule_id: int(rule_id[1:]),
        )
        assert replaced.get(rule.id, []) == scanned
        one = sarif.rule_descriptor(library, rule, None)
        assert one == sarif.rule_descriptor(library, rule, None, replaced)
        assert one.get("deprecatedIds", []) == scanned


def test_the_site_fixture_has_a_replaced_rule() -> None:
    """The test above compares something: one fixture rule is replaced by another."""
    library = load_library(LIBRARIES["site"])
    assert any(sarif.replaced_ids(library).values())


# --- rule pages ---------------------------------------------------------------------------------


def test_rule_pages_are_the_same_with_a_shared_index(rules_dir: Path, library: Library) -> None:
    history = load_history(rules_dir)
    index = pages.RuleIndex.of(library)
    for rule in library.rules:
        alone = pages.rule_page(library, rule, rule_history(history, rule.id))
        assert pages.rule_page(library, rule, rule_history(history, rule.id), index) == alone
    by_uri = {page.src_uri: page.markdown for page in generated(library, history)}
    for rule in library.rules:
        assert by_uri[pages.rule_uri(rule.id)] == pages.rule_page(
            library, rule, rule_history(history, rule.id)
        )


def generated(library: Library, history: History) -> tuple[pages.GeneratedPage, ...]:
    return pages.generated_pages(
        library,
        load_schema("rule.schema.json"),
        load_schema("library.schema.json"),
        history=history,
    )


def test_rule_index_finds_every_rule_and_its_position(library: Library) -> None:
    index = pages.RuleIndex.of(library)
    for position, rule in enumerate(library.rules):
        assert index.rule(rule.id) is library.rule(rule.id)
        assert index.positions[rule.id] == position
    with pytest.raises(KeyError):
        index.rule("R9999")


# --- inert fast path ----------------------------------------------------------------------------

#: Appended after a blank line, it sends a text through the full escaping pass; the pass works
#: paragraph by paragraph, so the text's own lines must come out as they went in.
FORCE_FULL_PASS = "\n\n<"


@pytest.mark.parametrize("at_line_start", [True, False])
@pytest.mark.parametrize("attr_lists", [True, False])
def test_text_the_fast_path_returns_as_is_is_what_the_full_pass_returns(
    library: Library, at_line_start: bool, attr_lists: bool
) -> None:
    fast = 0
    for text in texts_of(library):
        result = inert_markdown(text, at_line_start=at_line_start, attr_lists=attr_lists)
        if result != text:
            continue  # escaped: it went through the full pass
        fast += 1
        full = inert_markdown(
            text + FORCE_FULL_PASS, at_line_start=at_line_start, attr_lists=attr_lists
        )
        assert full == text + "\n\n&lt;"
    assert fast, "no text of the library took the fast path: the test compares nothing"


@pytest.mark.parametrize(
    ("text", "inert"),
    [
        ("a <b>bold</b> word", "a &lt;b>bold&lt;/b> word"),
        ("Tom &amp; Jerry", "Tom &amp;amp; Jerry"),
        ("[x](javascript:alert(1))", "[x]&#40;javascript:alert(1))"),
        ("windows\r\nline end", "windows\nline end"),
        ("a\n```\nfence never closed", "a\n&#96;``\nfence never closed"),
        ("|---|---|", "&#124;---&#124;---&#124;"),
    ],
)
def test_text_with_active_markup_still_gets_the_full_pass(text: str, inert: str) -> None:
    assert inert_markdown(text) == inert


def test_canonical_json_is_the_standard_librarys_text(library: Library) -> None:
    rules = [rule.to_dict() for rule in library.rules]
    for data in (rules, {"é": 1, "z": 2, "Z": 3, "a": {"ü": [], "u": {}}, "": TRICKY_STRINGS}):
        stdlib = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        assert bundle.canonical_json(data) == stdlib.encode("utf-8")


def test_expected_output_skips_code_without_markers() -> None:
    assert expected_output("print(1)\nx = 2\n") == ()
    assert expected_output("print(1)\n#> 1\nprint('#>')  # not at line start\n#>\n") == ("1", "")


def test_inert_library_is_made_once_per_library_and_is_what_a_fresh_pass_gives() -> None:
    site = load_library(LIBRARIES["site"])  # HTML in titles and statements
    valid = load_library(LIBRARIES["valid"])
    shown = inert_library(site)
    assert inert_library(site) is shown
    assert shown == inert._inert_library(site) != site
    # Another library is not given the last one's result.
    assert inert_library(valid) == inert._inert_library(valid)
    assert inert_library(site) == shown


@pytest.mark.parametrize(
    "blocks", [[], [""], ["# Title"], ["# Title — é", "para\ntwo lines", "- a\n- b", "😀"]]
)
@pytest.mark.parametrize("prefix", ["", "---\nname: x\n---\n\n"])
def test_encoded_blocks_are_the_joined_text_encoded(blocks: list[str], prefix: str) -> None:
    assert encode_blocks(blocks, prefix) == (prefix + join_blocks(blocks)).encode("utf-8")
