"""The faster paths give the same results as the straightforward ones.

Each optimisation made for the benchmarks (``benchmarks/``) has a test here that compares it
with the plain computation it replaces: orjson against ``json.dumps``, the inert fast path
against the full escaping pass, one lookup table against scanning the library. No timings.
"""

from __future__ import annotations

import gzip
import json
import os
import posixpath
import random
import re
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from mkdocs.exceptions import Abort
from rule_edits import edit

from rlt_rules import Library, load_library
from rlt_rules.cli import main
from rlt_rules.export import sarif
from rlt_rules.files.comments import _scanned as scanned_comments
from rlt_rules.files.comments import _tokenized as tokenized_comments
from rlt_rules.files.comments import comments
from rlt_rules.files.jsonout import canonical, indented
from rlt_rules.library import bundle
from rlt_rules.library.model import OUTPUT_LINE
from rlt_rules.library.pairs import MarkerCache, marked_lines, markers
from rlt_rules.library.validate import DocumentCache
from rlt_rules.project.check import check_project
from rlt_rules.project.remembered import ENTRIES
from rlt_rules.render import sarif as sarif_parts
from rlt_rules.render.code import fenced
from rlt_rules.render.inert import inert_library, inert_markdown, inert_text
from rlt_rules.render.markdown import encode_blocks, join_blocks, list_item
from rlt_rules.render.text import FENCE, expected_output, strip_fences
from rlt_rules.site import markup
from rlt_rules.site.cache import PageCache
from rlt_rules.site.rule_page import rule_page

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
    replaced = sarif_parts.replaced_ids(library)
    for rule in library.rules:
        scanned = sorted(
            (other.id for other in library.rules if other.replaced_by == rule.id),
            key=lambda rule_id: int(rule_id[1:]),
        )
        assert replaced.get(rule.id, []) == scanned
        one = sarif_parts.rule_descriptor(library, rule, None)
        assert one == sarif_parts.rule_descriptor(library, rule, None, replaced)
        assert one.get("deprecatedIds", []) == scanned


def test_the_site_fixture_has_a_replaced_rule() -> None:
    """The test above compares something: one fixture rule is replaced by another."""
    library = load_library(LIBRARIES["site"])
    assert any(sarif_parts.replaced_ids(library).values())


# --- rule pages ---------------------------------------------------------------------------------


def test_library_index_finds_every_rule_and_its_position(library: Library) -> None:
    for position, rule in enumerate(library.rules):
        assert library.rule(rule.id) is rule
        assert library.position(rule.id) == position
    with pytest.raises(KeyError):
        library.rule("R9999")
    edited = replace(library, rules=library.rules[1:])
    assert edited.position(library.rules[1].id) == 0, "a replaced library indexes its own rules"


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
        assert canonical(data) == stdlib.encode("utf-8")


def test_expected_output_skips_code_without_markers() -> None:
    assert expected_output("print(1)\nx = 2\n") == ()
    assert expected_output("print(1)\n#> 1\nprint('#>')  # not at line start\n#>\n") == ("1", "")


TRICKY_OUTPUTS = [
    "#>",
    "#> one\n#>\n#>  two spaces\n#>no space\n",
    "  #> indented\n\t#> tab\r\n\u00a0#> no-break space\n\u2003#> em space",
    "x = 1  #> after code\n#> a #> b\nprint('#>')\n#> last",
    "\n\n#> after blank lines\n   \n#>\r",
]


def test_expected_output_is_what_output_line_matches_line_by_line(library: Library) -> None:
    """``expected_output`` looks from each ``#>``; the plain way matches every line."""

    def line_by_line(code: str) -> tuple[str, ...]:
        found = (OUTPUT_LINE.match(line) for line in code.split("\n"))
        return tuple(match.group("text") or "" for match in found if match is not None)

    codes = [example.code for rule in library.rules for example in rule.examples]
    for code in [*codes, *TRICKY_OUTPUTS]:
        assert expected_output(code) == line_by_line(code), code


def test_markdown_helpers_fast_paths_give_the_full_result(library: Library) -> None:
    """Text without a backtick, line break or fence goes around the regular expressions."""
    texts = texts_of(library) + ["a `b` c", "`` x ```` y", "one\ntwo\n\nthree", "~~~\nx\n~~~"]
    for text in texts:
        runs = [len(run) for run in re.findall(r"`+", text)]
        fence = "`" * max(3, max(runs, default=0) + 1)
        assert fenced(text, "") == f"{fence}\n{text}\n{fence}"
        lines = text.split("\n")
        item = "- " + "\n".join([lines[0], *("  " + line if line else "" for line in lines[1:])])
        assert list_item(text) == item
        kept = "\n".join(line for line in text.split("\n") if not FENCE.match(line))
        assert strip_fences(text) == kept


def test_marker_cache_gives_what_tokenizing_gives(library: Library) -> None:
    cache = MarkerCache()
    for rule in library.rules:
        for example in rule.examples:
            assert cache.markers(example.code) == markers(example.code)
            assert cache.marked_lines(example.code, rule.id) == marked_lines(example.code, rule.id)
            cache.next_generation()
            assert cache.markers(example.code) is cache.markers(example.code)


#: Programs whose comments are easy to get wrong without tokenizing.
TRICKY_PROGRAMS = [
    "x = '# R01: in a string'  # R01: a comment\n",
    'x = """\n# R01: in a docstring\n"""  # R01: after it\n',
    "x = f'{a!r:>10} # R01: in an f-string'  # R01: a comment\n",
    'x = f"{d["k"]} {len(y)}"  # R01: PEP 701\n',
    "x = rb'\\\\' + b'#'  # R01: raw and bytes\n",
    "print(f\"w: {''', '.join(q)}\")  # R01: three quotes open a string in a field\n",
    "if x:\n    a = 1\n  b = 2  # R01: bad dedent\n",
    "x = (1,\n# R01: inside brackets\n",
    "x = 0b12  # R01: bad binary literal\n",
    "x = 1_000_  # R01: bad underscore\n",
    "x = 'never closed  # R01: not a comment\n",
    "x = 1 \\\n  + 2  # R01: continued line\n",
    "\tx = 1  # R01: tab\n",
    "x = 1)  # R01: unmatched\n",
    "x = t'{a}'  # R01: a t-string\n",
    "x = f'{len(a}'  # R01: unclosed in a field\n",
]
#: What random edits insert or put in place of a character.
EDITS = ["'", '"', "'''", "#", "# R01: x", "(", ")", "]", "{", "}", "\\", "\n", " ", "    "]
EDITS += ["\t", "1_", "0x", "f'", 'f"{', "rb'", "\u200b", "\x01", ":", "e", "."]


def test_comments_are_what_tokenize_finds(library: Library) -> None:
    """The scan of :mod:`rlt_rules.files.comments` against tokenize, over the library's examples and
    programs made from them by random edits (a fixed seed: the same programs each run)."""
    codes = [example.code for rule in library.rules for example in rule.examples]
    for code in [*codes, *TRICKY_PROGRAMS]:
        assert comments(code) == tokenized_comments(code), code
    decided = sum(scanned_comments(code) is not None for code in codes)
    assert decided >= 0.9 * len(codes), "the scan leaves most examples to tokenize"
    rng = random.Random(20261203)
    for _ in range(1500):
        characters = list(rng.choice(codes))
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(characters))
            if rng.random() < 0.5:
                characters.insert(at, rng.choice(EDITS))
            else:
                characters[at] = rng.choice(EDITS)
        mutant = "".join(characters)
        assert comments(mutant) == tokenized_comments(mutant), mutant


def test_document_cache_gives_what_a_fresh_check_gives(tmp_path: Path) -> None:
    """Unchanged files are neither parsed, schema-checked, pair-checked nor built again; the
    check and the library equal a fresh check's after each edit."""
    rules = tmp_path / "rules"
    shutil.copytree(LIBRARIES["real"], rules)
    cache = DocumentCache()

    def same() -> None:
        cached, fresh = check_project(rules, cache=cache), check_project(rules)
        assert cached.diagnostics == fresh.diagnostics
        assert cached.library == fresh.library

    same()
    first = check_project(rules, cache=cache).library
    assert first is not None
    edit(rules / "R05.yaml", "statement: |-\n  ", "statement: |-\n  Cached edit. ")
    same()
    edited = check_project(rules, cache=cache).library
    assert edited is not None and edited.rule("R12") is first.rule("R12")  # built once
    edit(rules / "R05.yaml", "# R05:", "# unmarked:")
    same()
    assert check_project(rules, cache=cache).diagnostics  # the lost marker is reported


def test_inert_library_is_what_a_fresh_pass_over_every_field_gives() -> None:
    """``inert_library`` (its rules cached) against the policy applied field by field."""
    for name in ("site", "valid"):
        library = load_library(LIBRARIES[name])
        shown = inert_library(library)
        assert shown.title == inert_text(library.title)
        assert shown.preamble == tuple(inert_markdown(p) for p in library.preamble)
        for before, after in zip(library.rules, shown.rules, strict=True):
            assert after.title == inert_text(before.title)
            assert after.statement == inert_markdown(before.statement)
            assert after.triggers == tuple(
                inert_markdown(t, at_line_start=False) for t in before.triggers
            )
            assert after.impact == inert_markdown(before.impact, at_line_start=False)
            assert [e.explanation for e in after.examples] == [
                inert_markdown(e.explanation) for e in before.examples
            ]
        assert inert_library(library) == shown
    site = load_library(LIBRARIES["site"])  # HTML in titles and statements
    assert inert_library(site) != site


@pytest.mark.parametrize(
    "blocks", [[], [""], ["# Title"], ["# Title — é", "para\ntwo lines", "- a\n- b", "😀"]]
)
@pytest.mark.parametrize("prefix", ["", "---\nname: x\n---\n\n"])
def test_encoded_blocks_are_the_joined_text_encoded(blocks: list[str], prefix: str) -> None:
    assert encode_blocks(blocks, prefix) == (prefix + join_blocks(blocks)).encode("utf-8")


# --- live preview: partial rebuilds equal clean builds -------------------------------------------


class PreviewSession:
    """``mkdocs serve --dirty`` without the server: the same builds, in this process.

    MkDocs' ``serve`` runs ``build(config, dirty=True)`` once per change with a freshly loaded
    configuration and the plugin instances kept; so does this class. MkDocs keeps a plugin
    instance that has ``on_startup`` for the whole process: the session ends it with
    ``on_shutdown``, as ``serve`` does.
    """

    def __init__(self, site_dir: Path) -> None:
        self.site_dir = site_dir

    def __enter__(self) -> PreviewSession:
        self.config().plugins.on_startup(command="serve", dirty=True)
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.config().plugins.on_shutdown()

    def config(self):
        from mkdocs.config import load_config

        return load_config(str(ROOT / "mkdocs.yml"), site_dir=str(self.site_dir))

    def build(self) -> set[str]:
        """Build; return the pages written by this build (not 404.html: MkDocs writes the
        theme's templates every time)."""
        from mkdocs.commands.build import build

        before = {path: path.stat().st_mtime_ns for path in self.site_dir.rglob("*.html")}
        build(self.config(), dirty=True)
        return {
            path.relative_to(self.site_dir).as_posix()
            for path in self.site_dir.rglob("*.html")
            if before.get(path) != path.stat().st_mtime_ns and path.name != "404.html"
        }


def clean_build(site_dir: Path, rules: Path) -> None:
    """A clean build configured as the preview is: without the version selector, which only
    mike's deployments serve (the plugin drops it under ``serve``)."""
    env = dict(os.environ, RLT_RULES_DIR=str(rules), NO_MKDOCS_2_WARNING="1")
    script = (
        "import sys\n"
        "from mkdocs.commands.build import build\n"
        "from mkdocs.config import load_config\n"
        "config = load_config(sys.argv[1], site_dir=sys.argv[2])\n"
        "config.extra.pop('version', None)\n"
        "build(config)\n"
    )
    command = [sys.executable, "-c", script, str(ROOT / "mkdocs.yml")]
    result = subprocess.run([*command, str(site_dir)], env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def site_contents(site_dir: Path) -> dict[str, object]:
    """Every file of a built site, comparable between builds made at different times."""
    contents: dict[str, object] = {}
    for path in sorted(site_dir.rglob("*")):
        if not path.is_file():
            continue
        relative = path.relative_to(site_dir).as_posix()
        if relative.endswith(".gz"):
            contents[relative] = gzip.decompress(path.read_bytes())  # its header has a time
        else:
            contents[relative] = path.read_bytes()
    return contents


def assert_same_site(preview: Path, clean: Path) -> None:
    ours, theirs = site_contents(preview), site_contents(clean)
    assert sorted(ours) == sorted(theirs)
    different = [name for name in ours if ours[name] != theirs[name]]
    assert not different, f"the preview differs from a clean build in {different}"


def test_preview_rebuilds_only_changed_pages_and_equals_a_clean_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = tmp_path / "rules"
    shutil.copytree(LIBRARIES["real"], rules, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setenv("RLT_RULES_DIR", str(rules))
    monkeypatch.setenv("NO_MKDOCS_2_WARNING", "1")
    with PreviewSession(tmp_path / "preview") as session:
        _edit_while_previewing(session, rules, tmp_path)


def _edit_while_previewing(session: PreviewSession, rules: Path, tmp_path: Path) -> None:
    first = session.build()
    assert "rules/R05/index.html" in first and "rules/R12/index.html" in first

    def check(step: str) -> None:
        clean = tmp_path / f"clean-{step}"
        clean_build(clean, rules)
        assert_same_site(session.site_dir, clean)

    # A statement: the rule's page, its category page and its category's lesson show it; the
    # index page does not (its filter reads statements from rules/filter-text.json), nor do
    # hand-written pages.
    edit(rules / "R05.yaml", "statement: |-\n  ", "statement: |-\n  Preview edit one. ")
    rebuilt = session.build()
    category_id = load_library(rules).rule("R05").category
    category = f"categories/{category_id}/index.html"
    assert rebuilt == {"rules/R05/index.html", category, f"learn/{category_id}/index.html"}
    assert "preview edit one" in (session.site_dir / "rules/filter-text.json").read_text()
    check("statement")

    # A title: also the neighbours' reading links, the related rules' lists, the index, the
    # reading path on the home page and the tags page, which lists every rule by title.
    edit(rules / "R05.yaml", "title: ", "title: Renamed, ")
    rebuilt = session.build()
    assert {"rules/R04/index.html", "rules/R06/index.html", "rules/index.html"} <= rebuilt
    assert {"tags/index.html", "index.html"} <= rebuilt
    assert "rules/R12/index.html" not in rebuilt
    check("title")

    # Tags: the rule's page (its chips), the index (its filter) and the tags page.
    edit(rules / "R05.yaml", "tags: [", "tags: [preview-tag, ")
    rebuilt = session.build()
    assert {"rules/R05/index.html", "rules/index.html", "tags/index.html"} <= rebuilt
    assert "rules/R12/index.html" not in rebuilt
    check("tags")

    # A new rule, then that rule gone: its page, its neighbour, its category, the index...
    new_rule = (rules / "R17.yaml").read_text(encoding="utf-8")
    new_rule = new_rule.replace("id: R17", "id: R18").replace("# R17:", "# R18:")
    new_rule = new_rule.replace("since: 1.0.0", "since: next")
    (rules / "R18.yaml").write_text(new_rule, encoding="utf-8")
    rebuilt = session.build()
    assert {"rules/R18/index.html", "rules/R17/index.html", "rules/index.html"} <= rebuilt
    assert "rules/R12/index.html" not in rebuilt
    check("new-rule")
    (rules / "R18.yaml").unlink()
    rebuilt = session.build()
    assert "rules/R17/index.html" in rebuilt and "rules/R12/index.html" not in rebuilt
    assert not (session.site_dir / "rules" / "R18").exists()
    check("rule-gone")

    # An invalid library fails the build before anything is written; fixing it rebuilds
    # only what changed since the last good build.
    saved = (rules / "R07.yaml").read_text(encoding="utf-8")
    (rules / "R07.yaml").write_text(saved.replace("category: ", "category: nowhere-"), "utf-8")
    with pytest.raises(Abort, match="BuildError"):  # the plugin's PluginError
        session.build()
    (rules / "R07.yaml").write_text(saved.replace("impact: |-\n  ", "impact: |-\n  New. "), "utf-8")
    rebuilt = session.build()
    assert "rules/R07/index.html" in rebuilt and "rules/R12/index.html" not in rebuilt
    check("after-error")

    # Nothing changed: no page is rendered.
    assert session.build() == set()
    check("unchanged")


def test_page_links_match_posixpath_relpath() -> None:
    uris = [
        "index.md",
        "tags.md",
        "rules/index.md",
        "rules/R03.md",
        "rules/R1000.md",
        "categories/state-and-lifecycle.md",
        "reference/format.md",
        "a/b/c.md",
        "a/x/y/z.md",
        "a/b.md",
    ]
    for here in uris:
        for there in uris:
            expected = posixpath.relpath(there, posixpath.dirname(here) or ".")
            assert markup.link(here, there) == expected, (here, there)
    assert markup.link("rules/R03.md", "changelog.md", "100") == "../changelog.md#100"


def test_rule_pages_are_reused_only_for_equal_inputs() -> None:
    """A :class:`PageCache` kept across builds gives what a fresh one gives."""
    library = load_library(LIBRARIES["real"])
    cache = PageCache()
    rule = library.rule("R17")
    first = rule_page(library, rule, cache=cache)
    assert first == rule_page(library, rule)
    changed = replace(rule.examples[0], explanation="A different explanation.")
    edited = replace(rule, examples=(changed, *rule.examples[1:]))
    cache.next_generation()
    second = rule_page(library, edited, cache=cache)
    assert "A different explanation." in second and "A different explanation." not in first
    assert second == rule_page(library, edited)
    assert rule_page(library, rule, cache=cache) == first
    # A neighbour's title is part of a page's input.
    renamed = replace(library.rule("R16"), title="A renamed neighbour")
    neighbours = replace(
        library, rules=tuple(renamed if r.id == "R16" else r for r in library.rules)
    )
    assert "A renamed neighbour" in rule_page(neighbours, rule, cache=cache)


@pytest.mark.parametrize("directory_urls", [True, False])
def test_raw_html_links_are_the_urls_mkdocs_writes(directory_urls: bool) -> None:
    """The index page's rows are HTML that MkDocs does not rewrite: their hrefs must be the
    relative URLs MkDocs itself gives the pages."""
    from mkdocs.structure.files import File
    from mkdocs.utils import get_relative_url

    uris = ["index.md", "tags.md", "rules/index.md", "rules/R03.md", "categories/naming.md"]
    uris += ["reference/format.md", "a/b/index.md"]
    for here in uris:
        here_url = File(here, "", "", directory_urls).url
        for there in uris:
            there_url = File(there, "", "", directory_urls).url
            assert markup.page_url(there, directory_urls=directory_urls) == there_url.removeprefix(
                "./"
            ), there
            expected = get_relative_url(there_url, here_url)
            assert markup.href(here, there, directory_urls=directory_urls) == expected, (
                here,
                there,
            )


# --- a lesson's sections, rendered each on its own ------------------------------------------


def _build_in_process(site_dir: Path) -> None:
    """``mkdocs build`` of the repository's site in this process (the library named by
    ``$RLT_RULES_DIR``), so that a test can watch the splice (:mod:`rlt_rules.site.sections`)."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    build(load_config(str(ROOT / "mkdocs.yml"), site_dir=str(site_dir)))


def _lesson_rules_edited(rules: Path) -> None:
    """Statements with what a splice must number and merge across sections: fenced code (line
    ids), headings of their own (the table of contents), links to a page's anchor (absolute:
    validate refuses a relative link in rule text, which the exports could not follow)."""
    block = "\n\n  ### Where it shows\n\n  ```python\n  plan = admit(request)\n  ```\n\n  "
    edit(rules / "R05.yaml", "statement: |-\n  ", f"statement: |-\n  Before.{block}")
    link = (
        "See [the lesson's opening](https://rlt-rules.example/1.0.0/learn/#learn) first."
        "\n\n  ```text\n  out\n  ```"
    )
    edit(rules / "R07.yaml", "statement: |-\n  ", f"statement: |-\n  {link}\n\n  ")


@pytest.mark.parametrize("library_name", ["real", "edited", "site"])
def test_pages_spliced_from_their_sections_equal_pages_rendered_whole(
    library_name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plugin renders each rule's section of a lesson and of its category page, and each
    rule page's examples, on their own (a live preview keeps them) and splices them into the
    page: the site equals one whose pages are rendered whole (the plugin's own fallback, forced
    here), every page and the search index."""
    from rlt_rules.site import sections

    rules = tmp_path / "rules"
    source = LIBRARIES["real" if library_name == "edited" else library_name]
    shutil.copytree(source, rules, ignore=shutil.ignore_patterns("__pycache__"))
    if library_name == "edited":
        _lesson_rules_edited(rules)
    monkeypatch.setenv("RLT_RULES_DIR", str(rules))
    monkeypatch.setenv("NO_MKDOCS_2_WARNING", "1")
    outcomes: list[bool] = []
    splice = sections.splice

    def watched(*args, **kwargs):
        spliced = splice(*args, **kwargs)
        outcomes.append(spliced is not None)
        return spliced

    monkeypatch.setattr(sections, "splice", watched)
    _build_in_process(tmp_path / "spliced")
    monkeypatch.setattr(sections, "splice", lambda *args, **kwargs: None)
    _build_in_process(tmp_path / "whole")
    library = load_library(rules)
    with_examples = sum(1 for rule in library.rules if rule.examples)  # their examples section
    # each lesson, and each category page with rules (a section per rule)
    listing = sum(1 for category in library.categories if library.rules_in(category.id))
    assert outcomes == [True] * (len(library.categories) + listing + with_examples)
    assert_same_site(tmp_path / "spliced", tmp_path / "whole")


def test_sections_that_would_change_each_other_are_rendered_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reference defined in one section and used in another, and a heading id two sections
    share: rendered whole, the page links the reference and makes the second id unique."""
    rules = tmp_path / "rules"
    shutil.copytree(LIBRARIES["real"], rules, ignore=shutil.ignore_patterns("__pycache__"))
    statement = "statement: |-\n  "
    edit(rules / "R05.yaml", statement, f"{statement}[kv]: https://kv.example/\n\n  ")
    edit(rules / "R06.yaml", statement, f"{statement}Read [the pool][kv]. ")
    heading = "statement: |-\n  ### Owner\n\n  "
    edit(rules / "R01.yaml", "statement: |-\n  ", heading)
    edit(rules / "R02.yaml", "statement: |-\n  ", heading)
    monkeypatch.setenv("RLT_RULES_DIR", str(rules))
    monkeypatch.setenv("NO_MKDOCS_2_WARNING", "1")
    _build_in_process(tmp_path / "site")
    library = load_library(rules)
    interfaces = library.rule("R06").category
    lesson = (tmp_path / "site" / "learn" / interfaces / "index.html").read_text("utf-8")
    assert 'Read <a href="https://kv.example/">the pool</a>' in lesson
    state = library.rule("R01").category
    lesson = (tmp_path / "site" / "learn" / state / "index.html").read_text("utf-8")
    assert 'id="owner"' in lesson and 'id="owner_1"' in lesson


def test_pages_keep_the_parts_of_their_latest_use() -> None:
    from rlt_rules.files.memo import ByPage

    made: list[str] = []

    def make(key: str) -> str:
        made.append(key)
        return key.upper()

    memo: ByPage[str, str] = ByPage()
    assert memo.use("a.md", ["x", "y"], make) == ["X", "Y"]
    assert memo.use("b.md", ["x"], make) == ["X"]  # another page makes its own
    assert memo.use("a.md", ["y", "z"], make) == ["Y", "Z"]
    assert made == ["x", "y", "x", "z"]
    assert memo.use("a.md", ["x"], make) == ["X"] and made[-1] == "x"  # "x" was dropped
    assert memo.use("a.md", ["x"], make, reusable=lambda value: False) == ["X"]
    assert made == ["x", "y", "x", "z", "x", "x"] and len(memo) == 2


def test_a_rules_remembered_hash_is_that_of_its_compared_fields(library: Library) -> None:
    """Rules key the site's memos: the hash kept on first use is the one the fields give, and
    equal rules (a source position is not compared) hash alike."""
    from dataclasses import fields

    for rule in library.rules:
        compared = tuple(getattr(rule, f.name) for f in fields(rule) if f.compare)
        assert hash(rule) == hash(compared) == hash(rule)
        moved = replace(rule, source=None)
        assert moved == rule and hash(moved) == hash(rule)
        renamed = replace(rule, title=rule.title + " (renamed)")
        assert renamed != rule and hash(renamed) == hash(
            tuple(getattr(renamed, f.name) for f in fields(renamed) if f.compare)
        )


@pytest.mark.parametrize("output", ["text", "json", "sarif", "findings"])
def test_a_scan_with_the_remembered_library_prints_what_the_checked_one_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, output: str
) -> None:
    """``rlt-rules scan`` reads a rules folder's library from the cache when the folder is
    unchanged (``project/remembered.py``): the first run checks the folder (and writes the
    entry), the second reads the entry; both print the same."""
    library = load_library(ROOT / "rules")
    code = tmp_path / "code"
    code.mkdir()
    for number, example in enumerate(e for rule in library.rules for e in rule.examples):
        (code / f"example_{number:03}.py").write_text(example.code, encoding="utf-8")
    monkeypatch.setenv("RLT_RULES_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    printed = []
    for _ in range(2):
        target = tmp_path / f"scan-{len(printed)}.out"
        argv = ["scan", "code", "--rules", str(ROOT / "rules"), "--format", output]
        assert main([*argv, "-o", str(target)]) == 1
        printed.append(target.read_text(encoding="utf-8"))
        assert len(list((tmp_path / "cache" / ENTRIES).glob("*/*.json"))) == 1
    assert printed[0] == printed[1] and "R10" in printed[0]
