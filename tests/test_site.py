"""The reference site without a browser: strict builds, one page per rule, escaping, failures."""

from __future__ import annotations

import dataclasses
import html
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from html.parser import HTMLParser
from pathlib import Path

import pytest

from rlt_rules import load_library
from rlt_rules.export import site_files
from rlt_rules.library.model import Status
from rlt_rules.library.pairs import pairs_of
from rlt_rules.library.schemas import load_schema
from rlt_rules.project.check import load_validated
from rlt_rules.render.links import suppression_url
from rlt_rules.render.text import expected_output
from rlt_rules.scan.render import SUPPRESSION_DESCRIPTORS
from rlt_rules.site.examples_section import differing_lines, shown_marked_lines, split_output
from rlt_rules.site.idle import IdleCollector
from rlt_rules.site.markup import md_text, rule_label
from rlt_rules.site.serve import ChangeObserver, Watcher, watch_quickly

# The shared fixtures are a plugin (one session build for both site test modules); register it
# for assertion rewriting before importing its helpers here.
pytest.register_assert_rewrite("site_fixtures")
pytest_plugins = ["site_fixtures"]

from site_fixtures import (  # noqa: E402
    FIXTURE_RULES,
    ROOT,
    BuiltSite,
    free_port,
    make_project,
    run_cli,
)


def read(site: BuiltSite, relative: str) -> str:
    return (site.directory / relative).read_text(encoding="utf-8")


# --- builds -------------------------------------------------------------------------------


def test_strict_build_of_the_library_is_clean(built_site: BuiltSite) -> None:
    assert (built_site.directory / "index.html").is_file()
    warnings = [line for line in built_site.output.splitlines() if "WARNING" in line]
    assert not warnings, warnings


def test_mkdocs_yml_keeps_strict_mode_for_mike() -> None:
    """mike's build runs `mkdocs build` without --strict: the config must ask for it."""
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert re.search(r"^strict: true$", text, re.MULTILINE)
    assert re.search(r"^site_dir: build/site$", text, re.MULTILINE)
    assert re.search(r"^\s+provider: mike$", text, re.MULTILINE)


@pytest.mark.parametrize(
    ("page_name", "content", "expected"),
    [
        ("broken.md", "# Broken\n\nSee [a page that is not there](missing.md).\n", "missing.md"),
        ("marker.md", "# Marker\n\n<!-- rlt:no-such-marker -->\n", "no-such-marker"),
    ],
    ids=["broken-link", "unknown-marker"],
)
def test_strict_build_fails_on_a_warning(
    tmp_path: Path, page_name: str, content: str, expected: str
) -> None:
    project = make_project(tmp_path / "project", FIXTURE_RULES)
    (project / "site" / page_name).write_text(content, encoding="utf-8")
    result = run_cli("site", "build", "--strict", cwd=project)
    assert result.returncode == 1
    output = result.stdout + result.stderr
    assert expected in output
    assert "Aborted" in output
    assert not (project / "build" / "site").exists(), "a failed build must not leave a site"


def test_a_trigger_that_holds_a_list_fails_a_strict_build(tmp_path: Path) -> None:
    """Each trigger becomes a search entry at its anchor by pairing the section's list items
    with the triggers; a list inside a trigger breaks the pairing, and the build says so."""
    project = make_project(tmp_path / "project", FIXTURE_RULES)
    path = project / "rules" / "R04.yaml"
    trigger = "    A snapshot method mutates `running` or `waiting`.\n"
    text = path.read_text(encoding="utf-8")
    assert trigger in text
    listed = trigger + "\n    - `running`\n    - `waiting`\n"
    path.write_text(text.replace(trigger, listed), "utf-8")
    result = run_cli("site", "build", "--strict", cwd=project)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert re.search(r"rules/R04/#when-it-applies holds \d+ list items for 1 triggers", output)
    assert "write each trigger as one paragraph" in output
    assert not (project / "build" / "site").exists(), "a failed build must not leave a site"


def test_invalid_library_stops_the_build_with_positions(tmp_path: Path) -> None:
    rules = tmp_path / "rules"
    shutil.copytree(FIXTURE_RULES, rules)
    text = (rules / "R04.yaml").read_text(encoding="utf-8")
    (rules / "R04.yaml").write_text(text.replace("status: active", "status: maybe"), "utf-8")
    site_dir = tmp_path / "out"
    result = run_cli("site", "build", "--rules", str(rules), "--site-dir", str(site_dir))
    assert result.returncode == 1
    line = text.splitlines().index("status: active") + 1
    assert re.search(rf"R04\.yaml:{line}:9: .*status", result.stderr), result.stderr
    assert not site_dir.exists()


def test_site_build_validates_the_library_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command leaves the check to the plugin: one validation per build, and an invalid
    library still reported by the command line, each problem once, with no site written."""
    from rlt_rules import cli
    from rlt_rules.project import check as project

    checked: list[Path] = []
    check_records = project.check_records

    def counted(root: Path, *args, **kwargs):
        checked.append(Path(root))
        return check_records(root, *args, **kwargs)

    monkeypatch.setattr(project, "check_records", counted)
    built = make_project(tmp_path / "project", FIXTURE_RULES)
    monkeypatch.chdir(built)
    assert cli.main(["site", "build", "--site-dir", str(tmp_path / "site")]) == 0
    assert [path.resolve() for path in checked] == [(built / "rules").resolve()]

    checked.clear()
    rule = built / "rules" / "R04.yaml"
    rule.write_text(rule.read_text("utf-8").replace("status: active", "status: maybe"), "utf-8")
    capsys.readouterr()
    assert cli.main(["site", "build", "--site-dir", str(tmp_path / "other")]) == 1
    err = capsys.readouterr().err
    assert len(checked) == 1
    assert err.count("R04.yaml:") == 1 and "status must be one of" in err
    assert err.rstrip().endswith("rlt-rules site: the library is invalid; run `rlt-rules validate`")
    assert "Aborted" not in err and not (tmp_path / "other").exists()


def test_plugin_reports_an_invalid_library_when_mkdocs_runs_directly(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project", FIXTURE_RULES)
    (project / "rules" / "R09.yaml").unlink()  # R09 is gone: nothing else refers to it
    (project / "rules" / "R17.yaml").write_text("id: R17\n", encoding="utf-8")
    env = {key: value for key, value in os.environ.items() if key != "RLT_RULES_DIR"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode != 0
    assert re.search(r"R17\.yaml:\d+:\d+: ", result.stderr), result.stderr
    assert not (project / "build" / "site" / "index.html").exists()


def test_site_command_without_mkdocs_yml_is_a_usage_error(tmp_path: Path) -> None:
    result = run_cli("site", "build", cwd=tmp_path)
    assert result.returncode == 2
    assert "mkdocs.yml: no such file" in result.stderr


# --- pages --------------------------------------------------------------------------------


def test_every_rule_has_a_page_linked_from_the_index_and_its_category(
    built_site: BuiltSite,
) -> None:
    library = built_site.library
    pages = sorted(p.parent.name for p in (built_site.directory / "rules").glob("R*/index.html"))
    assert pages == sorted(rule.id for rule in library.rules)
    index = read(built_site, "rules/index.html")
    for position, rule in enumerate(library.rules):
        page = read(built_site, f"rules/{rule.id}/index.html")
        assert f"{rule.id} — {html.escape(rule.title, quote=False)}" in page
        reading = page[page.index('class="rlt-reading"') :]
        if position > 0:  # a newcomer can read the rules in order, page after page
            assert f'href="../{library.rules[position - 1].id}/"' in reading
        if position + 1 < len(library.rules):
            assert f'href="../{library.rules[position + 1].id}/"' in reading
        assert f'href="{rule.id}/"' in index
        category = read(built_site, f"categories/{rule.category}/index.html")
        assert f'href="../../rules/{rule.id}/"' in category


def test_rule_pages_stay_out_of_the_navigation(built_site: BuiltSite) -> None:
    """Every page embeds the nav: with rule pages in it, output would grow quadratically."""
    home = read(built_site, "index.html")
    nav = home[home.index("md-nav--primary") : home.index("md-sidebar--secondary")]
    assert "rules/R01/" not in nav
    for category in built_site.library.categories:
        assert f"categories/{category.id}/" in nav


def test_rule_page_holds_every_field_of_the_model(built_site: BuiltSite) -> None:
    rule = built_site.library.rule("R17")
    page = read(built_site, "rules/R17/index.html")
    text = _text(page)
    for heading in ("When it applies", "Impact", "Correction", "Rationale"):
        assert f">{heading}<" in page
    assert _text_of_markdown(rule.statement) in text
    assert _text_of_markdown(rule.impact) in text
    category = built_site.library.category(rule.category)
    assert html.escape(category.title, quote=False) in page
    assert f"{rule.status}" in text and rule.since in text
    for tag in rule.tags:
        assert f">{tag}<" in page
    for related in rule.related:
        assert f'href="../{related}/"' in page
    assert rule.search_terms
    for term in rule.search_terms:  # plain text, in the page's first search entry
        assert term in text, term
    for example in rule.examples:
        assert html.escape(example.title, quote=False) in page
        for line in expected_output(example.code):  # what CI checks the program prints
            assert html.escape(line, quote=False) in page
    assert "#&gt;" not in page  # the expected output is shown as output, not as comments
    assert 'href="https://git.example/rlt-rules/edit/main/rules/R17.yaml"' in page


def test_rule_page_opens_with_the_statement_and_one_line_of_facts(built_site: BuiltSite) -> None:
    """The statement comes first (and so leads the page's search preview); category, status
    and the release that added the rule follow on one line, said once."""
    library = built_site.library
    search = json.loads(read(built_site, "search/search_index.json"))
    previews = {doc["location"]: doc["text"] for doc in search["docs"]}
    for rule in library.rules:
        page = read(built_site, f"rules/{rule.id}/index.html")
        article = page[page.index("</h1>") : page.index('id="when-it-applies"')]
        if rule.status is Status.ACTIVE:
            first = re.search(r"<p>(.*?)</p>", article, re.S)
            assert first and _text(first.group(1)).startswith(_first_words(rule.statement)), rule.id
        facts = re.findall(r'<p class="rlt-facts">(.*?)</p>', article, re.S)
        assert len(facts) == 1, rule.id
        line = _text(facts[0])
        category = library.category(rule.category)
        assert f"Category: {category.title} · Status: {rule.status} · Added in: " in line, line
        assert "Since" not in article and "Id:" not in article
        assert article.index(_escaped_first_words(rule.statement)) < article.index("rlt-facts")
        preview = _text(previews[f"rules/{rule.id}/"])
        assert preview.startswith(_first_words(rule.statement)), (rule.id, preview[:80])


def test_each_pair_shows_marked_lines_changed_output_and_its_diff(built_site: BuiltSite) -> None:
    """Every pair of every rule: bad and good with their marked lines highlighted, outputs with
    the lines that differ highlighted, then the diff from the bad program to the good one."""
    checked = 0
    for rule in built_site.library.rules:
        page = read(built_site, f"rules/{rule.id}/index.html")
        blocks = _example_blocks(page)
        for pair in pairs_of(rule):
            bad_output, good_output = (
                expected_output(pair.bad.code),
                expected_output(pair.good.code),
            )
            bad_changed, good_changed = differing_lines(bad_output, good_output)
            for example, changed in ((pair.bad, bad_changed), (pair.good, good_changed)):
                block = blocks[f"{example.kind}-{example.name}"]
                assert "rlt-example--paired" in block.classes, (rule.id, example.name)
                program, output = split_output(example.code)
                program_lines = program.split("\n")
                marked = shown_marked_lines(example.code, rule.id)
                assert marked, f"{rule.id} {example.kind} {example.name}: no marked line shown"
                assert block.highlighted[0] == [program_lines[n - 1] for n in marked]
                if output:
                    assert block.highlighted[1] == [output.split("\n")[n - 1] for n in changed]
            diff = _diff_block(page, pair.name)
            removed, added = pair.changed_lines()
            assert diff.count('<span class="gd">') == removed, (rule.id, pair.name)
            assert diff.count('<span class="gi">') == added, (rule.id, pair.name)
            assert "What the correction changes" in diff
            shown = html.unescape(re.sub(r"<[^>]+>", "", diff.split("<code>", 1)[1]))
            # (Markdown empties a blank context line and drops the block's trailing ones.)
            expected = "\n".join(line.rstrip() for line in pair.diff()).rstrip("\n")
            assert shown.rstrip("\n") == expected, (rule.id, pair.name)
            checked += 1
    assert checked, "no rule of the library has a pair"


def test_marked_and_changed_lines_map_to_the_shown_program() -> None:
    code = "x = 1\nprint(x)  # R03: first\n#> 1\n# R03: a block\ny = 2\nprint(y)\n#> 2\n\n"
    # Lines 2, 4, 5 and 6 of the code; without the "#>" lines they are 2, 3, 4 and 5.
    assert shown_marked_lines(code, "R03") == (2, 3, 4, 5)
    assert shown_marked_lines(code, "R04") == ()
    assert differing_lines(("a", "b", "c"), ("a", "x", "c", "d")) == ((2,), (2, 4))
    assert differing_lines(("a",), ("a",)) == ((), ())


def test_home_page_has_the_preamble_and_a_reading_path(built_site: BuiltSite) -> None:
    library = built_site.library
    home = read(built_site, "index.html")
    text = _text(home)
    for paragraph in library.preamble:
        assert _text_of_markdown(paragraph) in text
    positions = [home.index(f'href="categories/{c.id}/"') for c in library.categories]
    assert positions == sorted(positions), "categories out of reading order"
    for rule in library.rules:
        assert f'href="rules/{rule.id}/"' in home
    assert "rlt:" not in home


def test_format_reference_lists_every_schema_field(built_site: BuiltSite) -> None:
    page = read(built_site, "reference/format/index.html")
    rule_schema = load_schema("rule.schema.json")
    library_schema = load_schema("library.schema.json")
    fields = [
        *rule_schema["properties"].items(),
        *rule_schema["$defs"]["example"]["properties"].items(),
        *rule_schema["$defs"]["practiceProgram"]["properties"].items(),
        *library_schema["properties"].items(),
        *library_schema["properties"]["categories"]["items"]["properties"].items(),
    ]
    for name, prop in fields:
        assert f"<code>{name}</code>" in page
        assert html.escape(prop["title"], quote=False) in page
        assert _text_of_markdown(prop["description"])[:40] in _text(page)


def test_exports_are_published_at_the_site_root(built_site: BuiltSite) -> None:
    expected = site_files(built_site.library, None)
    assert expected
    for relative in expected:
        assert (built_site.directory / relative).is_file(), relative
    leftovers = [p.name for p in built_site.directory.rglob(".*.tmp")]
    assert not leftovers


def test_scans_suppression_reports_link_a_section_of_the_site(built_site: BuiltSite) -> None:
    """SARIF's ``helpUri`` of ``suppression-without-reason`` and ``unused-suppression`` (as
    Ruff's RUF100 has one) is a section of the built site, its anchor the report's name."""
    for name in SUPPRESSION_DESCRIPTORS:
        page, anchor = suppression_url("https://x.example/1.0.0/", name).split("#")
        built = read(built_site, page.removeprefix("https://x.example/1.0.0/") + "index.html")
        assert f'id="{anchor}"' in built, name
        assert anchor == name


def test_search_index_holds_ids_titles_statements_and_examples(built_site: BuiltSite) -> None:
    index = json.loads(read(built_site, "search/search_index.json"))
    by_location = {}
    for doc in index["docs"]:
        page = doc["location"].split("#")[0]
        by_location.setdefault(page, []).append(doc["title"] + " " + doc["text"])
    for rule in built_site.library.rules:
        content = " ".join(by_location[f"rules/{rule.id}/"])
        assert rule.id in content
        assert _text_of_markdown(rule.statement)[:40] in _text(content)


def test_a_rule_pages_first_search_entry_holds_its_triggers_and_correction(
    built_site: BuiltSite,
) -> None:
    """Search ranks a page's first entry above its sections: a rule's own words are there,
    and its search terms. Not its rationale, which names the neighbouring rules' shapes."""
    index = json.loads(read(built_site, "search/search_index.json"))
    text = {doc["location"]: doc["text"] for doc in index["docs"]}
    for rule in built_site.library.rules:
        first = text[f"rules/{rule.id}/"]
        for section in ("impact", "correction"):
            assert text[f"rules/{rule.id}/#{section}"] in first, (rule.id, section)
        assert text[f"rules/{rule.id}/#rationale"] not in first, rule.id
        for trigger in rule.anchors().triggers:
            assert text[f"rules/{rule.id}/#{trigger}"] in first, (rule.id, trigger)
        assert _first_words(rule.triggers[-1], 3) in _text(first), rule.id
        for term in rule.search_terms:
            assert term in html.unescape(first), (rule.id, term)


def test_each_trigger_is_a_search_entry_at_its_anchor(built_site: BuiltSite) -> None:
    """A search for what the code does lands on the trigger to cite: "When it applies" is one
    entry per trigger, at the trigger's anchor on the page, holding that trigger's text."""
    index = json.loads(read(built_site, "search/search_index.json"))
    entries = {doc["location"]: doc for doc in index["docs"]}
    for rule in built_site.library.rules:
        page = read(built_site, f"rules/{rule.id}/index.html")
        assert f"rules/{rule.id}/#when-it-applies" not in entries, rule.id
        for anchor, trigger in zip(rule.anchors().triggers, rule.triggers, strict=True):
            assert f'id="{anchor}"' in page, (rule.id, anchor)
            entry = entries[f"rules/{rule.id}/#{anchor}"]
            assert entry["title"] == "When it applies"
            assert _text(entry["text"]).startswith(_first_words(trigger, 3)), (rule.id, anchor)


def test_search_weighs_code_below_prose(built_site: BuiltSite) -> None:
    """Every code block is in its entry's ``code`` field, not its ``text`` (what results show),
    and the index weighs code words below prose: the examples' shared toy engine does not
    decide which rule a query about engine pieces finds first."""
    index = json.loads(read(built_site, "search/search_index.json"))
    fields = index["config"]["fields"]
    assert fields["code"]["boost"] < fields["text"]["boost"]
    assert not [doc["location"] for doc in index["docs"] if "<pre" in doc["text"]]
    code: dict[str, str] = {}
    for doc in index["docs"]:
        page = doc["location"].split("#")[0]
        code[page] = code.get(page, "") + doc.get("code", "")
    for rule in built_site.library.rules:
        for example in rule.examples:
            program = [line for line in example.code.splitlines() if "#>" not in line]
            line = max(program, key=len)  # a line of the program, searchable
            assert html.escape(line.strip(), quote=False) in code[f"rules/{rule.id}/"], (
                rule.id,
                example.name,
            )


# --- the fixture library: escaping, deprecated and retired rules ---------------------------


def test_plain_text_fields_are_escaped_everywhere(fixture_site: BuiltSite) -> None:
    rule = fixture_site.library.rule("R22")
    assert "<script>" in rule.title  # the fixture really holds markup
    raw = ["<script>alert(", "<img src=x", "<em>& Runtime", "<em>example</em>"]
    for path in fixture_site.directory.rglob("*"):
        if path.suffix not in {".html", ".json"} or path.name.startswith("rules."):
            continue  # the exports carry the titles as data; the pages must not run them
        content = path.read_text(encoding="utf-8")
        for snippet in raw:
            assert snippet not in content, f"{path.relative_to(fixture_site.directory)}: {snippet}"
    page = read(fixture_site, "rules/R22/index.html")
    escaped_title = html.escape(rule.title, quote=False)
    assert f"{rule.id} — {escaped_title}" in page.replace("&#34;", '"').replace("&quot;", '"')
    assert "&lt;script&gt;alert(" in re.search(r"<title>(.*?)</title>", page).group(1)
    assert "&lt;img src=x onerror=" in page
    # The statement is Markdown, so its emphasis renders.
    assert "<strong>escaped</strong>" in page


def test_deprecated_rule_says_so_first_and_links_its_replacement(
    fixture_site: BuiltSite,
) -> None:
    rule = fixture_site.library.rule("R20")
    page = read(fixture_site, "rules/R20/index.html")
    notice = page.index("admonition warning")
    statement = page.index(_escaped_first_words(rule.statement))
    assert page.index("</h1>") < notice < statement
    assert "Deprecated" in page[notice : notice + 300]
    assert 'href="../R17/"' in page[notice:statement]


def test_retired_rule_says_so_first_with_its_reason(fixture_site: BuiltSite) -> None:
    rule = fixture_site.library.rule("R21")
    page = read(fixture_site, "rules/R21/index.html")
    notice = page.index("admonition danger")
    statement = page.index(_escaped_first_words(rule.statement))
    assert page.index("</h1>") < notice < statement
    assert rule.retired_reason is not None
    assert rule.retired_reason in page[notice:statement]


def test_index_rows_carry_the_filter_data(fixture_site: BuiltSite) -> None:
    index = read(fixture_site, "rules/index.html")
    for rule in fixture_site.library.rules:
        row = re.search(rf'<tr [^>]*data-rule="{rule.id}"[^>]*>', index)
        assert row, rule.id
        assert f'data-category="{rule.category}"' in row.group(0)
        assert f'data-status="{rule.status}"' in row.group(0)
        assert f'data-tags="{" ".join(rule.tags)}"' in row.group(0)
    assert 'data-rlt-text="filter-text.json"' in index
    assert "rlt-html:" not in index  # the table replaced its marker
    # Rows repeat the rule pages' titles: search leaves the index page out.
    search = json.loads(read(fixture_site, "search/search_index.json"))
    assert not [doc for doc in search["docs"] if doc["location"].startswith("rules/#")]
    assert "rules/" not in {doc["location"] for doc in search["docs"]}
    # What typed words match: id, title, category, tags and statement, as lower-case words.
    texts = json.loads(read(fixture_site, "rules/filter-text.json"))
    assert sorted(texts) == sorted(rule.id for rule in fixture_site.library.rules)
    rule = fixture_site.library.rule("R22")
    category = fixture_site.library.category(rule.category)
    for part in (rule.id, rule.title, category.title, *rule.tags, rule.statement.split()[-1]):
        assert " ".join(part.lower().split()) in texts["R22"], part


# --- pure helpers -------------------------------------------------------------------------


def test_split_output_separates_program_and_printed_lines() -> None:
    code = 'for n in range(2):\n    print(n)\n    #> 0\n    #> 1\nprint("#>")\n#>  spaced\n'
    program, output = split_output(code)
    assert program == 'for n in range(2):\n    print(n)\nprint("#>")'
    assert output == "0\n1\n spaced"
    # "#>" glued to text is a comment, not output: CI (pytest-examples) does not check it.
    assert split_output("print(1)\n#>1\n#> 1") == ("print(1)\n#>1", "1")
    assert expected_output("print(1)\n#>1\n#> 1") == ("1",)


def test_md_text_renders_plain_text_literally() -> None:
    import markdown

    text = 'a <b>x</b> & *y* _z_ [l](u) `c` # | \\ "q"'
    rendered = markdown.markdown(md_text(text), extensions=["tables"])
    assert html.unescape(re.sub(r"</?p>", "", rendered)) == text


def test_rule_label_escapes_the_title() -> None:
    library = load_library(FIXTURE_RULES)
    assert "&lt;script&gt;" in rule_label(library.rule("R22"))


# --- serve ----------------------------------------------------------------------------------


def test_serve_rebuilds_when_a_rule_file_changes(tmp_path: Path) -> None:
    """And only then: each build reads every rule file, which must not start another."""
    project = make_project(tmp_path / "project", FIXTURE_RULES)
    address = f"127.0.0.1:{free_port()}"
    process = subprocess.Popen(
        [sys.executable, "-m", "rlt_rules", "site", "serve", "--dev-addr", address],
        cwd=project,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = f"http://{address}/rules/R04/"
        assert "Keep policy decisions separate" in _wait_for(url, "Keep policy", process)
        rule_file = project / "rules" / "R04.yaml"
        text = rule_file.read_text(encoding="utf-8")
        rule_file.write_text(
            text.replace("title: Keep policy", "title: Freshly edited, keep policy"), "utf-8"
        )
        assert "Freshly edited" in _wait_for(url, "Freshly edited", process)
        time.sleep(2.0)  # long enough for a rebuild the last one's reading would start
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=30)
    assert "Serving on" in stderr.replace("\n", " ")
    assert stderr.count("Detected file changes") == 1, stderr


@pytest.mark.parametrize("watcher", list(Watcher))
def test_serve_moves_what_mkdocs_watches_to_the_chosen_watcher(
    tmp_path: Path, watcher: Watcher
) -> None:
    """The plugin's ``on_serve``: MkDocs' folders and the rules folder, to the operating
    system's reports or to polling every 0.1 s."""
    from mkdocs.config import load_config
    from mkdocs.livereload import LiveReloadServer
    from watchdog.observers.polling import PollingObserver

    config = load_config(str(ROOT / "mkdocs.yml"))
    server = LiveReloadServer(lambda: None, "127.0.0.1", free_port(), str(tmp_path))
    server.watch(config.docs_dir)  # what `mkdocs serve` watches before its plugins' on_serve
    server.watch(config.config_file_path)
    mkdocs_observer = server.observer
    rules = str(tmp_path / "rules")
    (tmp_path / "rules").mkdir()
    watch_quickly(server, config, [rules], watcher=watcher, poll_interval=0.1, build_delay=0.05)
    assert server.observer is not mkdocs_observer and not mkdocs_observer.emitters
    assert server.build_delay == 0.05
    if watcher is Watcher.POLLING:
        assert isinstance(server.observer, PollingObserver) and server.observer.timeout == 0.1
    else:
        assert isinstance(server.observer, ChangeObserver)
    watched = {emitter.watch.path for emitter in server.observer.emitters}
    # (watchdog watches a file through its folder)
    assert watched == {config.docs_dir, str(Path(config.config_file_path).parent), rules}


def test_the_native_watcher_reports_changes_and_not_reading(tmp_path: Path) -> None:
    """A rule written, replaced (as editors save) or removed is a change; a rule read by a
    build is not."""
    from watchdog.events import FileSystemEvent, FileSystemEventHandler

    rule = tmp_path / "R01.yaml"
    rule.write_text("id: R01\n", encoding="utf-8")
    seen: list[FileSystemEvent] = []

    class Collect(FileSystemEventHandler):
        def on_any_event(self, event: FileSystemEvent) -> None:
            if not event.is_directory:
                seen.append(event)

    marks = iter(range(1_000))

    def events_after(action) -> list[str]:
        """The kinds of event ``action`` caused: a marker file written after it is reported
        after them (inotify keeps order), so waiting for the marker waits for them, however
        loaded the machine is."""
        seen.clear()
        action()
        marker = tmp_path / f"marker-{next(marks)}"
        marker.write_text("", encoding="utf-8")
        deadline = time.monotonic() + 60
        while not any(event.src_path == str(marker) for event in seen):
            assert time.monotonic() < deadline, "the watcher never reported the marker file"
            time.sleep(0.01)
        return sorted(
            {
                type(event).__name__
                for event in seen
                if not Path(event.src_path).name.startswith("marker-")
            }
        )

    def replace() -> None:
        (tmp_path / ".R01.yaml.swp").write_text("id: R01\ntitle: b\n", encoding="utf-8")
        os.replace(tmp_path / ".R01.yaml.swp", rule)

    observer = ChangeObserver()
    observer.schedule(Collect(), str(tmp_path), recursive=True)
    observer.start()
    try:
        assert events_after(rule.read_bytes) == []
        assert "FileModifiedEvent" in events_after(lambda: rule.write_text("a", "utf-8"))
        assert "FileMovedEvent" in events_after(replace)
        assert events_after(rule.read_text) == []
        assert events_after(rule.unlink) == ["FileDeletedEvent"]
    finally:
        observer.stop()
        observer.join()


def test_a_watch_the_operating_system_refuses_says_what_to_do(tmp_path: Path) -> None:
    from mkdocs.exceptions import PluginError
    from watchdog.events import FileSystemEventHandler

    gone = tmp_path / "rules"
    gone.mkdir()
    observer = ChangeObserver()
    observer.schedule(FileSystemEventHandler(), str(gone), recursive=True)
    gone.rmdir()
    with pytest.raises(PluginError, match=r"would not watch .*rules.* set `watcher: polling`"):
        observer.start()
    observer.stop()


class _HandTimers:
    """Delayed actions the test runs itself: no thread, no sleep, the same under any load."""

    def __init__(self) -> None:
        self.pending: list[_HandTimer] = []

    def __call__(self, delay: float, action) -> _HandTimer:
        timer = _HandTimer(action)
        self.pending.append(timer)
        return timer

    def fire_all(self) -> int:
        due, self.pending = self.pending, []
        fired = 0
        for timer in due:
            if not timer.cancelled:
                timer.action()
                fired += 1
        return fired


class _HandTimer:
    def __init__(self, action) -> None:
        self.action = action
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


def test_the_preview_collects_garbage_after_a_rebuild_not_during_it() -> None:
    """The first build collects as usual and schedules nothing; later ones run with
    collection off; a collection follows each when its delay is up, unless the next build has
    started."""
    import gc

    collections: list[int] = []

    def count(phase: str, info: dict) -> None:
        if phase == "stop":
            collections.append(info["generation"])

    assert gc.isenabled()
    timers = _HandTimers()
    collector = IdleCollector(delay=0.05, schedule=timers)
    gc.callbacks.append(count)
    try:
        collector.build_started()
        assert gc.isenabled()  # the first build
        collections.clear()
        collector.build_ended()
        assert timers.fire_all() == 0  # nothing scheduled after the first build
        assert 2 not in collections and gc.isenabled()
        collector.build_started()
        assert not gc.isenabled()
        collections.clear()
        collector.build_ended()
        collector.build_started()  # before the collection was due: it is called off
        assert timers.fire_all() == 0
        assert 2 not in collections and not gc.isenabled()
        collector.build_ended()
        assert len(timers.pending) == 1
        assert timers.fire_all() == 1
        assert 2 in collections and gc.isenabled()
        collector.build_started()
        assert not gc.isenabled()
    finally:
        collector.close()
        gc.callbacks.remove(count)
    assert gc.isenabled()


def test_a_collection_due_while_a_build_runs_waits_for_the_build() -> None:
    """A timer that fires anyway (cancel raced it) finds a build running and does nothing."""
    import gc

    timers = _HandTimers()
    collector = IdleCollector(delay=0.05, schedule=timers)
    try:
        collector.build_started()
        collector.build_ended()
        collector.build_started()
        collector.build_ended()
        (due,) = timers.pending
        collector.build_started()
        due.action()  # as if the thread had already started when cancel came
        assert not gc.isenabled()
    finally:
        collector.close()
    assert gc.isenabled()


def test_the_default_schedule_is_a_daemon_timer_that_can_be_called_off() -> None:
    from rlt_rules.site.idle import start_daemon_timer

    ran = threading.Event()
    timer = start_daemon_timer(0.01, ran.set)
    assert timer.daemon
    assert ran.wait(timeout=60)
    never = threading.Event()
    called_off = start_daemon_timer(3600, never.set)
    called_off.cancel()
    called_off.join(timeout=60)
    assert not called_off.is_alive() and not never.is_set()


def _wait_for(url: str, wanted: str, process: subprocess.Popen, limit: float = 60.0) -> str:
    deadline = time.monotonic() + limit
    body = ""
    while time.monotonic() < deadline:
        assert process.poll() is None, f"rlt-rules site serve exited: {process.stderr.read()}"
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                body = response.read().decode("utf-8")
            if wanted in body:
                return body
        except (urllib.error.URLError, ConnectionError):
            pass
        time.sleep(0.2)
    raise AssertionError(f"{url} never showed {wanted!r}")


def _text(page_html: str) -> str:
    """Visible text, roughly: tags dropped, entities decoded, whitespace collapsed."""
    inline = re.sub(r"</?(code|em|strong|a|span)\b[^>]*>", "", page_html)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", inline)).split())


def _text_of_markdown(markdown_text: str) -> str:
    """A Markdown field's words as they read on the page (code marks and emphasis dropped)."""
    return " ".join(re.sub(r"[`*]", "", markdown_text).split())


def _first_words(markdown_text: str, count: int = 6) -> str:
    return " ".join(_text_of_markdown(markdown_text).split()[:count])


def _escaped_first_words(markdown_text: str) -> str:
    """The statement's opening words as they appear in the page's HTML source (before any
    Markdown markup: the words up to the first code span, emphasis or link)."""
    opening = re.split(r"[`*_\[<&]", markdown_text, maxsplit=1)[0]
    return " ".join(opening.split()[:4])


@dataclasses.dataclass
class _Block:
    classes: str
    #: The highlighted lines of the block's program and of its output, as text.
    highlighted: tuple[list[str], list[str]]


class _ExampleBlocks(HTMLParser):
    """Each example ``div`` of a page: its classes and the text of its highlighted lines, in
    its program (the first code block) and its output (the code block in ``rlt-output``)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: dict[str, _Block] = {}
        self._stack: list[str] = []
        self._example: tuple[str, int] | None = None
        self._code = -1  # which code block of the example: 0 program, 1 output
        self._in_hll = 0
        self._line: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        classes = (values.get("class") or "").split()
        if tag not in ("br", "input", "img"):
            self._stack.append(tag)
        if "rlt-example" in classes and values.get("data-example"):
            key = values["data-example"] or ""
            self.blocks[key] = _Block(" ".join(classes), ([], []))
            self._example = (key, len(self._stack))
            self._code = -1
        elif self._example and tag == "code" and self._stack[-2:-1] == ["pre"]:
            self._code += 1
        elif self._example and "hll" in classes:
            self._in_hll = len(self._stack)
            self._line = []

    def handle_endtag(self, tag: str) -> None:
        depth = len(self._stack)
        if self._in_hll and depth == self._in_hll:
            key = self._example[0] if self._example else ""
            self.blocks[key].highlighted[min(self._code, 1)].append("".join(self._line))
            self._in_hll = 0
        if self._example and depth == self._example[1]:
            self._example = None
        if self._stack:
            self._stack.pop()

    def handle_data(self, data: str) -> None:
        if self._in_hll:
            self._line.append(data.rstrip("\n"))


def _example_blocks(page_html: str) -> dict[str, _Block]:
    parser = _ExampleBlocks()
    parser.feed(page_html)
    parser.close()
    return parser.blocks


def _diff_block(page_html: str, name: str) -> str:
    start = page_html.index(f'<div class="rlt-diff" data-pair="{html.escape(name)}">')
    return page_html[start : page_html.index("</code></pre></div>", start) + len("</code>")]


def test_changelog_lists_the_first_release_and_rule_pages_link_it(built_site: BuiltSite) -> None:
    changelog = _text(read(built_site, "changelog/index.html"))
    assert "1.0.0" in changelog and "First release: 17 rules." in changelog
    for rule in built_site.library.rules:
        assert f"{rule.id} — " in changelog
    page = read(built_site, "rules/R05/index.html")
    assert 'Added in:</strong> <a href="../../changelog/#100">1.0.0</a>' in page


def test_sample_review_page_is_in_the_library_site(built_site: BuiltSite) -> None:
    page = read(built_site, "review-example/index.html")
    assert "What a review with these rules looks like" in page
    for rule_id in ("R03", "R07", "R17"):
        assert f'href="../rules/{rule_id}/"' in page


def test_sample_review_page_stays_out_of_other_libraries(fixture_site: BuiltSite) -> None:
    assert not (fixture_site.directory / "review-example").exists()


def test_exports_link_this_versions_pages(built_site: BuiltSite) -> None:
    sarif = json.loads(read(built_site, "rules.sarif.json"))
    version = built_site.library.version
    help_uris = [rule["helpUri"] for rule in sarif["runs"][0]["tool"]["driver"]["rules"]]
    assert help_uris[0] == f"https://rlt-rules.example/{version}/rules/R01/"


def test_site_build_names_its_rules_to_the_plugin_by_rlt_rules_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``site build --rules DIR`` validates DIR, then runs MkDocs in the same process with
    ``$RLT_RULES_DIR`` (the plugin's one channel) naming DIR while it runs, and as it was after."""
    from rlt_rules import cli

    project = make_project(tmp_path / "project", FIXTURE_RULES)
    other = tmp_path / "other" / "rules"
    shutil.copytree(project / "rules", other)
    first = load_validated(other).library.rules[0]
    rule_file = other / Path(first.source.path).name
    text = rule_file.read_text(encoding="utf-8")
    rule_file.write_text(
        re.sub(r"(?m)^title: ", "title: A title of the other folder, ", text, count=1),
        encoding="utf-8",
    )
    monkeypatch.chdir(project)
    monkeypatch.setenv("RLT_RULES_DIR", str(project / "rules"))

    def built_title(site_dir: Path) -> str:
        page = (site_dir / "rules" / first.id / "index.html").read_text(encoding="utf-8")
        return re.search(r"<h1[^>]*>(.*?)</h1>", page, re.S).group(1)

    site_dir = tmp_path / "built"
    assert cli.main(["site", "build", "--rules", str(other), "--site-dir", str(site_dir)]) == 0
    assert "A title of the other folder" in built_title(site_dir)
    assert os.environ["RLT_RULES_DIR"] == str(project / "rules")
