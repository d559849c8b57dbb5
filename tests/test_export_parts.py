"""The exports made from kept per-rule pieces are the exports made whole, byte for byte.

:class:`~rlt_rules.render.parts.RuleParts` keeps each rule's pieces across a live preview's
builds; ``rules.json`` and the SARIF log are joined from JSON fragments; the site plugin
leaves an export file alone when it would write the same bytes again
(:class:`~rlt_rules.files.atomic.LastWritten`). Each is compared here with the plain computation.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import replace
from pathlib import Path

import orjson
import pytest

from rlt_rules import Library, load_library
from rlt_rules.export import site_files
from rlt_rules.files.atomic import LastWritten
from rlt_rules.files.jsonout import (
    canonical,
    canonical_array_digest,
    element_separator,
    indented,
    indented_array,
    indented_fragment,
    indented_members,
)
from rlt_rules.library import bundle
from rlt_rules.library.model import Category, Status
from rlt_rules.render.parts import RuleParts

ROOT = Path(__file__).resolve().parents[1]
LIBRARIES = {
    "real": ROOT / "rules",
    "hostile": ROOT / "tests" / "fixtures" / "hostile" / "rules",
    # Deprecated and retired rules, HTML in titles and statements.
    "site": ROOT / "tests" / "fixtures" / "site" / "rules",
}
SITE_URL = "https://rlt-rules.example/1.0.0/"


@pytest.fixture(scope="module", params=sorted(LIBRARIES))
def library(request: pytest.FixtureRequest) -> Library:
    return load_library(LIBRARIES[request.param])


# --- JSON from fragments -------------------------------------------------------------------

SAMPLES: list[object] = [
    [],
    {},
    [[]],
    [{}],
    'é — “quoted” 😀 </script>\n\t\\ " \u2028 \x00',
    [1, -2, 3.5, True, False, None, "", [], {}],
    {"a": {"b": [1, {"c": [], "d": {"e": "line\nbreak"}}]}, "f": []},
    [{"x": [[1], [2, [3, {}]]]}, "y", ["z", {"w": "\n"}]],
]


@pytest.mark.parametrize("depth", [0, 1, 2, 5])
@pytest.mark.parametrize("sample", SAMPLES, ids=range(len(SAMPLES)))
def test_an_arrays_elements_shifted_to_their_depth_are_the_array_orjson_writes(
    sample: object, depth: int
) -> None:
    """orjson's indented array is each element's indented text with every line shifted:
    wrapped ``depth`` levels deep in arrays, spliced in at that depth, in runs of any size."""
    elements = [sample, sample, [sample], {"k": sample}]
    document: object = elements
    for _ in range(depth):
        document = [document]
    fragments = [indented_fragment(element, depth + 1) for element in elements]
    runs = [element_separator(depth).join(fragments[:2]), b"", fragments[2], fragments[3]]
    spliced: object = indented_array(runs, depth).fragment()
    for _ in range(depth):
        spliced = [spliced]
    assert indented(spliced) == indented(document)
    empty: object = indented_array([b"", b""], depth).fragment()
    for _ in range(depth):
        empty = [empty]
    assert b"[]" in indented(empty)


@pytest.mark.parametrize("sample", SAMPLES, ids=range(len(SAMPLES)))
def test_members_joined_by_hand_are_the_object_orjson_writes(sample: object) -> None:
    members = [("a", sample), ('é\n"', [sample, sample]), ("c", {"d": sample})]
    expected = indented(dict(members))
    by_hand = [(key, value) for key, value in members]
    by_hand[1] = (
        members[1][0],
        indented_array([indented_fragment(sample, 2), indented_fragment(sample, 2)], 1),
    )
    assert indented_members(by_hand) == expected
    assert indented_members([]) == indented({})


def test_the_hash_of_a_list_from_its_elements_is_that_of_its_canonical_json() -> None:
    for sample in SAMPLES:
        elements = [sample, {"b": 1, "a": [sample]}]
        expected = hashlib.sha256(canonical(elements)).hexdigest()
        assert canonical_array_digest(canonical(item) for item in elements) == expected
    assert canonical_array_digest([]) == hashlib.sha256(b"[]").hexdigest()


def test_the_bundle_joined_from_rule_fragments_is_the_bundle(library: Library) -> None:
    fragments = [bundle.rule_fragments(rule) for rule in library.rules]
    assert bundle.assemble(library, fragments) == bundle.render(library)
    # A rule without examples adds no outputs; a library without rules has empty arrays.
    bare = replace(library, rules=(replace(library.rules[0], examples=()), *library.rules[1:]))
    assert bundle.assemble(bare, [bundle.rule_fragments(r) for r in bare.rules]) == (
        bundle.render(bare)
    )
    empty = replace(library, rules=())
    assert bundle.assemble(empty, []) == bundle.render(empty)
    assert orjson.loads(bundle.render(empty))["rules"] == []


# --- the exports through kept parts ------------------------------------------------------


def _assert_same(library: Library, parts: RuleParts, site_url: str | None) -> None:
    """The exports through ``parts`` are the exports made afresh, every file."""
    parts.next_generation()  # as the plugin does once per build
    kept = site_files(library, site_url, parts)
    fresh = site_files(library, site_url)
    assert kept.keys() == fresh.keys()
    for path, data in fresh.items():
        assert kept[path] == data, path


def _edited(library: Library) -> list[tuple[str, Library]]:
    """The library after each edit a preview sees, in turn."""
    first, second = library.rules[0], library.rules[1]
    steps: list[tuple[str, Library]] = []

    def step(name: str, rules: tuple, **changes: object) -> None:
        current = steps[-1][1] if steps else library
        steps.append((name, replace(current, rules=rules, **changes)))

    step(
        "statement",
        (
            replace(first, statement="Edited <b>statement</b>. " + first.statement),
            *library.rules[1:],
        ),
    )
    current = steps[-1][1]
    step(
        "title", (replace(current.rules[0], title="Renamed & <i>retitled</i>"), *current.rules[1:])
    )
    current = steps[-1][1]
    # The second rule is replaced by the first: the first rule's SARIF descriptor (its record
    # unchanged) gains deprecatedIds, read from the library.
    deprecated = replace(current.rules[1], status=Status.DEPRECATED, replaced_by=first.id)
    step("replaced", (current.rules[0], deprecated, *current.rules[2:]))
    current = steps[-1][1]
    renamed = tuple(
        replace(category, title=category.title + " (renamed)") for category in current.categories
    )
    step("category title", current.rules, categories=renamed)
    current = steps[-1][1]
    step("rule removed", (current.rules[0], *current.rules[2:]))
    step("rule added", (current.rules[0], second, *current.rules[2:]))
    return steps


@pytest.mark.parametrize("site_url", [SITE_URL, None])
def test_exports_through_kept_parts_are_the_fresh_exports(
    library: Library, site_url: str | None
) -> None:
    parts = RuleParts()
    _assert_same(library, parts, site_url)  # fresh
    _assert_same(library, parts, site_url)  # warm: every piece kept
    for _name, edited in _edited(library):
        _assert_same(edited, parts, site_url)
    # Another site URL: the links in the pieces are not the old ones.
    _assert_same(library, parts, "https://elsewhere.example/2.0.0/")


def test_kept_parts_forget_what_two_builds_did_not_ask_for(library: Library) -> None:
    parts = RuleParts()
    for _ in range(3):
        parts.next_generation()
        site_files(library, SITE_URL, parts)
    steady = parts.kept()
    assert steady > 0
    smaller = replace(library, rules=library.rules[:1])
    for _ in range(2):
        parts.next_generation()
        site_files(smaller, SITE_URL, parts)
    assert parts.kept() < steady
    for _ in range(2):
        parts.next_generation()
        site_files(library, SITE_URL, parts)
    assert parts.kept() == steady


def test_a_fresh_rule_parts_is_truthy() -> None:
    """``site_files`` takes ``parts or InertRules()``: an empty one must still be used."""
    assert RuleParts()


# --- writing ---------------------------------------------------------------------------


def test_a_file_written_again_with_the_same_bytes_is_left_alone(tmp_path: Path) -> None:
    written = LastWritten()
    target = tmp_path / "rules.json"
    assert written.write(target, b"one\n")
    before = target.stat()
    assert not written.write(target, b"one\n")  # the same bytes: left alone
    assert target.stat().st_mtime_ns == before.st_mtime_ns
    assert target.stat().st_ino == before.st_ino
    assert written.write(target, b"two\n")  # other bytes
    assert target.read_bytes() == b"two\n"


@pytest.mark.parametrize("change", ["removed", "rewritten", "touched", "replaced"])
def test_a_file_changed_since_it_was_written_is_written_again(tmp_path: Path, change: str) -> None:
    written = LastWritten()
    target = tmp_path / "llms.txt"
    assert written.write(target, b"same\n")
    stat = target.stat()
    if change == "removed":
        target.unlink()
    elif change == "rewritten":  # same size, other bytes, written in place
        target.write_bytes(b"SAME\n")
        os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1))
    elif change == "touched":
        os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000))
    else:  # another file put in its place
        other = tmp_path / "other"
        other.write_bytes(b"same\n")
        os.replace(other, target)
    assert written.write(target, b"same\n")
    assert target.read_bytes() == b"same\n"
    assert not written.write(target, b"same\n")


def test_written_paths_not_in_the_latest_build_are_forgotten(tmp_path: Path) -> None:
    written = LastWritten()
    kept, dropped = tmp_path / "a", tmp_path / "b"
    written.write(kept, b"a")
    written.write(dropped, b"b")
    written.forget_others([kept])
    assert not written.write(kept, b"a")
    assert written.write(dropped, b"b")  # not known any more: written


def test_category_is_part_of_a_descriptors_key(library: Library) -> None:
    """A category renamed changes the descriptors of its rules, which did not change."""
    parts = RuleParts()
    parts.next_generation()
    before = site_files(library, SITE_URL, parts)["rules.sarif.json"]
    renamed = tuple(
        Category(category.id, category.title + " renamed", category.what_goes_wrong)
        for category in library.categories
    )
    parts.next_generation()
    after = site_files(replace(library, categories=renamed), SITE_URL, parts)
    assert after["rules.sarif.json"] != before
    assert b" renamed" in after["rules.sarif.json"]
