"""Release history: stable ids enforced by validate, release, new and diff.

The fixture ``tests/fixtures/release-history/project`` is a library with a two-release history made
by the tools themselves: 1.0.0 published R01-R03; 2.0.0 retired R02, deprecated R03 in favour
of R04, added R04 and edited R01. Each test works on a copy.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from rule_edits import edit, problems

import rlt_rules
from rlt_rules.cli import main
from rlt_rules.commands.scaffold import scaffold_rule
from rlt_rules.export.changelog import changelog_markdown
from rlt_rules.library.bundle import render
from rlt_rules.library.load import load_yaml
from rlt_rules.library.model import Status
from rlt_rules.project.check import check_project
from rlt_rules.releases import (
    Bump,
    ChangeKind,
    History,
    Release,
    RuleHistory,
    Version,
    bump_between,
    compare,
    load_history,
    next_rule_id,
    plan_release,
    read_history,
    rule_history,
)

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ROOT / "tests" / "fixtures" / "release-history" / "project"
RESTORE = "restore rules/{id}.yaml (as released in releases/{last}.json)"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the fixture project; the working directory, so paths read ``rules/...``."""
    target = tmp_path / "project"
    shutil.copytree(PROJECT, target)
    monkeypatch.chdir(target)
    return target


def add_rule(rules: Path, rule_id: str, title: str, statement: str) -> Path:
    """A complete unreleased rule, written like R04 with its own id, title and statement."""
    text = (rules / "R04.yaml").read_text(encoding="utf-8")
    for old, new in (
        ("id: R04", f"id: {rule_id}"),
        ("title: Fixture rule 04", f"title: {title}"),
        ("Statement of rule 04 with the word watermark.", statement),
        ("since: 2.0.0", "since: next"),
    ):
        assert old in text
        text = text.replace(old, new, 1)
    text = text.replace("# R04:", f"# {rule_id}:")  # the examples mark lines of their own rule
    path = rules / f"{rule_id}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


# --- the fixture history ---------------------------------------------------------------------


def test_fixture_history_is_consistent(project: Path):
    result = check_project(project / "rules", "rules")
    assert [str(d) for d in result.diagnostics] == []
    history = load_history(project / "rules")
    assert [release.version for release in history.releases] == ["1.0.0", "2.0.0"]
    assert [rule.id for rule in history.releases[0].library.rules] == ["R01", "R02", "R03"]
    # A release file is a bundle: it loads with the bundle reader and equals the working copy.
    assert rlt_rules.load_bundle(project / "releases" / "2.0.0.json") == result.library
    assert {rule.id: rule.since for rule in result.library.rules} == {
        "R01": "1.0.0",
        "R02": "1.0.0",
        "R03": "1.0.0",
        "R04": "2.0.0",
    }


def test_rules_folder_without_releases_has_no_history(tmp_path: Path):
    shutil.copytree(PROJECT / "rules", tmp_path / "rules")
    assert read_history(tmp_path / "rules").history == History()
    edit(tmp_path / "rules" / "R01.yaml", "since: 1.0.0", "since: next")
    assert check_project(tmp_path / "rules").ok


# --- validate: each violation at its position -------------------------------------------------


def test_deleting_a_released_rule_names_it_and_its_releases(project: Path):
    (project / "rules" / "R03.yaml").unlink()
    assert problems(project / "rules") == [
        "rules/library.yaml:3:1: R03 ('Fixture rule 03') was published in 1.0.0, 2.0.0 and "
        "rules/R03.yaml is missing: a released id never disappears; "
        + RESTORE.format(id="R03", last="2.0.0")
        + " and retire it with status: retired and retired_reason"
    ]


def test_deleting_a_retired_rule_is_reported_too(project: Path):
    (project / "rules" / "R02.yaml").unlink()
    [message] = problems(project / "rules")
    assert message.startswith("rules/library.yaml:3:1: R02 ('Fixture rule 02') was published in")


def test_reusing_a_retired_id_for_a_new_rule(project: Path):
    path = project / "rules" / "R02.yaml"
    path.unlink()
    add_rule(project / "rules", "R02", "A brand new rule", "Something else entirely.")
    edit(path, "since: next", "since: 1.0.0")
    assert problems(project / "rules") == [
        "rules/R02.yaml:2:5: R02 is reused for a different rule: neither its title nor its "
        "statement matches R02 as published in 1.0.0, 2.0.0 ('Fixture rule 02'); a released id "
        "is never reused: restore R02 as released (releases/2.0.0.json; retire it if it no "
        "longer applies) and add this rule under a new id with `rlt-rules new`",
        "rules/R02.yaml:5:9: R02 was retired in 2.0.0 and is now active: a retired rule stays "
        "retired and its id stays reserved; set status: retired, and add a new rule with "
        "`rlt-rules new` instead",
    ]


def test_reusing_an_active_id_is_rejected_but_rewording_is_not(project: Path):
    rule = project / "rules" / "R01.yaml"
    edit(rule, "title: Fixture rule 01", "title: Something unrelated")
    assert check_project(project / "rules", "rules").ok, "a new title alone is an edit"
    edit(rule, "Statement of rule 01 with the word watermark.", "A different rule.")
    [message] = problems(project / "rules")
    assert message.startswith("rules/R01.yaml:1:5: R01 is reused for a different rule:")


def test_deprecating_without_replaced_by(project: Path):
    edit(project / "rules" / "R04.yaml", "status: active", "status: deprecated")
    assert problems(project / "rules") == [
        "rules/R04.yaml:2:1: missing required field 'replaced_by' "
        "(a deprecated rule must name the rule that replaces it)"
    ]


def test_bringing_back_a_retired_rule(project: Path):
    rule = project / "rules" / "R02.yaml"
    edit(rule, "status: retired", "status: active")
    edit(rule, "retired_reason: |-\n  Folded into R01: the two rules described one contract.\n", "")
    assert problems(project / "rules") == [
        "rules/R02.yaml:4:9: R02 was retired in 2.0.0 and is now active: a retired rule stays "
        "retired and its id stays reserved; set status: retired, and add a new rule with "
        "`rlt-rules new` instead"
    ]


def test_since_must_match_the_history(project: Path):
    rules = project / "rules"
    add_rule(rules, "R05", "Fixture rule 05", "Statement 05.")
    edit(rules / "R01.yaml", "since: 1.0.0", "since: next")
    edit(rules / "R04.yaml", "since: 2.0.0", "since: 1.0.0")
    edit(rules / "R05.yaml", "since: next", "since: 2.0.0")
    assert problems(rules) == [
        "rules/R01.yaml:5:8: since: next, but R01 was already published in 1.0.0: "
        "write since: 1.0.0",
        "rules/R04.yaml:6:8: since 1.0.0 does not match the release history: R04 was first "
        "published in 2.0.0 (releases/2.0.0.json); write since: 2.0.0",
        "rules/R05.yaml:6:8: since 2.0.0: R05 is in no release yet (latest: 2.0.0); write "
        "since: next, which `rlt-rules release` replaces with the version that first "
        "publishes it",
    ]


def test_unreleased_rule_may_name_the_announced_version(project: Path):
    """What an interrupted release leaves: library.yaml and since both say the new version."""
    rules = project / "rules"
    add_rule(rules, "R05", "Fixture rule 05", "Statement 05.")
    edit(rules / "R05.yaml", "since: next", "since: 2.1.0")
    assert problems(rules)[0].startswith("rules/R05.yaml:6:8: since 2.1.0: R05 is in no release")
    edit(rules / "library.yaml", "version: 2.0.0", "version: 2.1.0")
    assert check_project(rules, "rules").ok


def test_library_version_older_than_latest_release(project: Path):
    edit(project / "rules" / "library.yaml", "version: 2.0.0", "version: 1.9.0")
    assert problems(project / "rules") == [
        "rules/library.yaml:3:10: version 1.9.0 is older than the latest release 2.0.0 "
        "(releases/2.0.0.json): the library's version only moves forward; `rlt-rules release` "
        "sets it"
    ]


def test_release_files_are_checked(project: Path):
    releases = project / "releases"
    (releases / "latest.json").write_bytes((releases / "2.0.0.json").read_bytes())
    (releases / "2.5.0.json").write_bytes((releases / "2.0.0.json").read_bytes())
    lines = (releases / "2.0.0.json").read_text().splitlines()
    version_line = next(
        n for n, line in enumerate(lines, 1) if line.strip() == '"version": "2.0.0",'
    )
    assert problems(project / "rules") == [
        f"releases/2.5.0.json:{version_line}:5: /library/version is 2.0.0 but the file is "
        "named 2.5.0.json: a release file is named after the version it released",
        "releases/latest.json:1:1: latest.json is not named after a version: a release file is "
        "releases/MAJOR.MINOR.PATCH.json, written by `rlt-rules release`",
    ]


def test_a_later_release_must_keep_every_id(project: Path):
    released = load_history(project / "rules").latest
    assert released is not None
    library = released.library
    shrunk = replace(
        library, version="3.0.0", rules=tuple(r for r in library.rules if r.id != "R02")
    )
    (project / "releases" / "3.0.0.json").write_bytes(render(shrunk))
    assert problems(project / "rules") == [
        "releases/3.0.0.json:1:1: R02 ('Fixture rule 02') is in release 2.0.0 but not in "
        "3.0.0: a released id never disappears from later releases"
    ]


def test_a_corrupt_release_file_is_reported_at_its_position(project: Path):
    path = project / "releases" / "1.0.0.json"
    edit(path, '"title": "Fixture rule 01"', '"title": "Fixture rule 01 edited later"')
    found = problems(project / "rules")
    assert len(found) == 1
    assert found[0].startswith("releases/1.0.0.json:")
    assert "/content_hash: does not match the rules" in found[0]


# --- release -----------------------------------------------------------------------------------


def test_release_too_small_is_refused_and_writes_nothing(project: Path, capsys):
    add_rule(project / "rules", "R05", "Fixture rule 05", "Statement 05.")
    edit(project / "rules" / "R01.yaml", "Rationale 01.", "Rationale 01, reworded.")
    before = snapshot(project)
    assert main(["release", "2.0.1"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "rlt-rules release: refused to release 2.0.1:",
        "- 2.0.1 is a patch release after 2.0.0, but the changes require a minor release "
        "(at least 2.1.0):",
        "  R05: new rule (a new rule is a minor release)",
    ]
    assert snapshot(project) == before


def test_release_lists_every_change_above_the_given_level(project: Path, capsys):
    rules = project / "rules"
    edit(rules / "R04.yaml", "category: interfaces", "category: state")
    add_rule(rules, "R05", "Fixture rule 05", "Statement 05.")
    assert main(["release", "2.0.1"]) == 1
    assert capsys.readouterr().err.splitlines()[1:] == [
        "- 2.0.1 is a patch release after 2.0.0, but the changes require a major release "
        "(at least 3.0.0):",
        "  R04: category changed from interfaces to state (a change of meaning is a major release)",
        "  R05: new rule (a new rule is a minor release)",
    ]


def test_retirement_needs_a_major_release(project: Path, capsys):
    rule = project / "rules" / "R04.yaml"
    edit(rule, "status: active", "status: retired\nretired_reason: No longer applies.")
    edit(
        project / "rules" / "R03.yaml",
        "status: deprecated\nreplaced_by: R04\n",
        "status: retired\nretired_reason: Gone.\n",
    )
    assert main(["release", "2.1.0"]) == 1
    err = capsys.readouterr().err
    assert "require a major release (at least 3.0.0)" in err
    assert "R03: retired (a retirement is a major release)" in err
    assert "R04: retired (a retirement is a major release)" in err
    assert main(["release", "3.0.0"]) == 0
    assert load_history(project / "rules").latest.library.rule("R04").status is Status.RETIRED


def test_declared_meaning_change_needs_a_major_release(project: Path, capsys):
    edit(project / "rules" / "R01.yaml", "Impact 01.", "Impact 01, now broader.")
    assert main(["release", "2.0.1", "--meaning-changed", "R01"]) == 1
    assert (
        "  R01: meaning changed, as declared with --meaning-changed (a major release); "
        "reworded: impact (an edit is a patch release)" in capsys.readouterr().err
    )
    assert main(["release", "2.0.1", "--meaning-changed", "R09"]) == 1
    assert "--meaning-changed R09: not in the latest release 2.0.0" in capsys.readouterr().err
    assert main(["release", "2.0.1"]) == 0


def test_release_refuses_old_repeated_or_empty_versions(project: Path, capsys):
    assert main(["release", "2.0.0"]) == 1
    assert "2.0.0 is already released (2.0.0.json exists)" in capsys.readouterr().err
    assert main(["release", "1.5.0"]) == 1
    err = capsys.readouterr().err
    assert "1.5.0 is not later than the latest release 2.0.0" in err
    assert main(["release", "2.0.1"]) == 1
    assert "nothing changed since 2.0.0: there is nothing to release" in capsys.readouterr().err
    assert main(["release", "2.1"]) == 2
    assert "'2.1' is not a version" in capsys.readouterr().err


def test_release_refuses_an_invalid_library(project: Path, capsys):
    (project / "rules" / "R03.yaml").unlink()
    assert main(["release", "3.0.0"]) == 1
    assert "R03 ('Fixture rule 03') was published in" in capsys.readouterr().err
    assert not (project / "releases" / "3.0.0.json").exists()


def test_release_replaces_since_next_and_sets_the_version(project: Path, capsys):
    rules = project / "rules"
    new_rule = add_rule(rules, "R05", "Fixture rule 05", "Statement 05.")
    edit(new_rule, "since: next", 'since: "next"  # set by release')
    before = {path.name: path.read_text() for path in rules.glob("*.yaml")}
    assert main(["release", "2.1.0"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == [
        "updated rules/library.yaml",
        "updated rules/R05.yaml",
        "wrote releases/2.1.0.json",
        "released 2.1.0: a minor-level change set after 2.0.0 (1 rule change(s))",
    ]
    after = {path.name: path.read_text() for path in rules.glob("*.yaml")}
    # Only the one value changed in each edited file; everything else byte for byte.
    assert after["R05.yaml"] == before["R05.yaml"].replace('"next"', "2.1.0")
    assert after["library.yaml"] == before["library.yaml"].replace("2.0.0", "2.1.0")
    assert {
        name: text for name, text in after.items() if name not in ("R05.yaml", "library.yaml")
    } == {name: text for name, text in before.items() if name not in ("R05.yaml", "library.yaml")}
    working = rlt_rules.load_library(rules)
    assert rlt_rules.load_bundle(project / "releases" / "2.1.0.json") == working
    assert working.rule("R05").since == "2.1.0"
    assert check_project(rules, "rules").ok
    assert not list((project / "releases").glob(".*")), "no temporary file left behind"


def test_release_keeps_crlf_line_endings(project: Path):
    rules = project / "rules"
    path = add_rule(rules, "R05", "Fixture rule 05", "Statement 05.")
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    assert main(["release", "2.1.0"]) == 0
    data = path.read_bytes()
    assert b"\r\nsince: 2.1.0\r\n" in data
    assert data.count(b"\n") == data.count(b"\r\n")


def test_an_interrupted_release_can_be_run_again(project: Path):
    rules = project / "rules"
    add_rule(rules, "R05", "Fixture rule 05", "Statement 05.")
    library = rlt_rules.load_library(rules)
    outcome = plan_release(rules, library, load_history(rules), "2.1.0", set())
    assert outcome.plan is not None and outcome.refusals == ()
    for file_edit in outcome.plan.edits:  # the edits landed, the bundle did not
        file_edit.path.write_text(file_edit.text, encoding="utf-8")
    assert check_project(rules, "rules").ok
    assert main(["release", "2.1.0"]) == 0
    assert rlt_rules.load_bundle(project / "releases" / "2.1.0.json") == rlt_rules.load_library(
        rules
    )


def test_first_release_of_a_library_without_history(tmp_path: Path, monkeypatch, capsys):
    shutil.copytree(ROOT / "tests" / "fixtures" / "valid", tmp_path / "rules")
    monkeypatch.chdir(tmp_path)
    edit(tmp_path / "rules" / "R05.yaml", "since: 1.0.0", "since: 0.9.0")
    assert main(["release", "1.0.0"]) == 1
    assert (
        "- R05 says since: 0.9.0, but 1.0.0 is the first release to publish it: write since: next"
        in capsys.readouterr().err
    )
    edit(tmp_path / "rules" / "R05.yaml", "since: 0.9.0", "since: next")
    assert main(["release", "1.0.0"]) == 0
    assert "released 1.0.0: the first release, 3 rules" in capsys.readouterr().out
    library = rlt_rules.load_library(tmp_path / "rules")
    assert library.version == "1.0.0"
    assert {rule.since for rule in library.rules} == {"1.0.0"}


# --- version policy ---------------------------------------------------------------------------


def test_version_parsing_and_bumps():
    assert Version.parse("1.10.0") == Version(1, 10, 0)
    assert Version.parse("1.10.0") > Version.parse("1.9.9")
    assert [Version.parse(text) for text in ("1.0", "01.0.0", "1.0.0-rc1", "next")] == [None] * 4
    assert bump_between(Version(1, 2, 3), Version(2, 0, 0)) is Bump.MAJOR
    assert bump_between(Version(1, 2, 3), Version(1, 3, 0)) is Bump.MINOR
    assert bump_between(Version(1, 2, 3), Version(1, 2, 4)) is Bump.PATCH
    assert bump_between(Version(1, 2, 3), Version(1, 2, 3)) is Bump.NONE


@pytest.mark.parametrize(
    ("change", "kind", "bump"),
    [
        (lambda r: replace(r, title="Reworded"), ChangeKind.CHANGED, Bump.PATCH),
        (lambda r: replace(r, statement="Reworded."), ChangeKind.CHANGED, Bump.PATCH),
        (lambda r: replace(r, tags=("other",)), ChangeKind.CHANGED, Bump.PATCH),
        (lambda r: replace(r, examples=r.examples[:1]), ChangeKind.CHANGED, Bump.PATCH),
        (lambda r: replace(r, category="state"), ChangeKind.CHANGED, Bump.MAJOR),
        (
            lambda r: replace(r, status=Status.DEPRECATED, replaced_by="R01"),
            ChangeKind.DEPRECATED,
            Bump.MINOR,
        ),
        (
            lambda r: replace(r, status=Status.RETIRED, retired_reason="Gone."),
            ChangeKind.RETIRED,
            Bump.MAJOR,
        ),
    ],
)
def test_policy_for_each_kind_of_rule_change(change, kind, bump):
    old = rlt_rules.load_library(PROJECT / "rules")
    new = replace(old, rules=tuple(change(r) if r.id == "R04" else r for r in old.rules))
    diff = compare(old, new)
    [rule_change] = diff.rules
    assert (rule_change.rule_id, rule_change.kind, rule_change.bump) == ("R04", kind, bump)
    assert diff.required_bump is bump


def test_policy_for_added_rules_and_library_changes():
    library = rlt_rules.load_library(PROJECT / "rules")
    fewer = replace(library, rules=library.rules[:-1])
    assert compare(fewer, library).required_bump is Bump.MINOR
    assert compare(library, fewer).of_kind(ChangeKind.REMOVED)[0].bump is Bump.MAJOR
    assert compare(library, replace(library, preamble=("Other.",))).required_bump is Bump.PATCH
    assert compare(library, replace(library, categories=library.categories[:1])).required_bump is (
        Bump.MAJOR
    )
    assert compare(replace(library, categories=library.categories[:1]), library).required_bump is (
        Bump.MINOR
    )
    assert compare(library, replace(library, version="9.9.9")).rules == ()
    first = library.categories[0]
    explained = replace(
        library,
        categories=(replace(first, what_goes_wrong="Two owners."), *library.categories[1:]),
    )
    [added] = compare(library, explained).library
    assert (added.bump, added.reason) == (
        Bump.PATCH,
        f"category {first.id}: what goes wrong added (an edit is a patch release)",
    )


# --- new ---------------------------------------------------------------------------------------


def test_new_scaffolds_the_next_id_and_validate_rejects_it_until_filled(project: Path, capsys):
    assert main(["new", "--category", "state", "--title", "Keep ids stable"]) == 0
    assert capsys.readouterr().out == (
        "wrote rules/R05.yaml: fill in every TODO, then run `rlt-rules validate`\n"
    )
    text = (project / "rules" / "R05.yaml").read_text()
    assert text.startswith("# yaml-language-server: $schema=../schema/rule.schema.json\nid: R05\n")
    assert "title: Keep ids stable\ncategory: state\nstatus: active\nsince: next\n" in text
    found = problems(project / "rules")
    assert all(line.startswith("rules/R05.yaml:") for line in found)
    assert (
        "rules/R05.yaml:10:3: statement is still a placeholder ('TODO: the rule, as a'): "
        "write it" in found
    )
    assert (
        "rules/R05.yaml:29:7: example 'first-case' has no '# R05:' marker: mark the lines "
        "that break the rule with a comment such as '# R05: <why>'" in found
    )
    assert len(found) == 14


def test_new_never_reuses_a_retired_id(project: Path, capsys):
    """R05 is added in 2.1.0 and retired in 3.0.0, then its file is deleted: new says R06."""
    rules = project / "rules"
    add_rule(rules, "R05", "Fixture rule 05", "Statement 05.")
    assert main(["release", "2.1.0"]) == 0
    edit(rules / "R05.yaml", "status: active", "status: retired\nretired_reason: Gone.")
    assert main(["release", "3.0.0"]) == 0
    (rules / "R05.yaml").unlink()
    capsys.readouterr()
    assert next_rule_id(rules, load_history(rules)) == "R06"
    assert main(["new", "--category", "state", "--title", "Another rule"]) == 0
    assert capsys.readouterr().out.startswith("wrote rules/R06.yaml")
    # Writing R05 by hand instead is the reuse validate rejects.
    (rules / "R06.yaml").unlink()
    add_rule(rules, "R05", "Another rule", "A different statement.")
    assert problems(rules) == [
        "rules/R05.yaml:2:5: R05 is reused for a different rule: neither its title nor its "
        "statement matches R05 as published in 2.1.0, 3.0.0 ('Fixture rule 05'); a released id "
        "is never reused: restore R05 as released (releases/3.0.0.json; retire it if it no "
        "longer applies) and add this rule under a new id with `rlt-rules new`",
        "rules/R05.yaml:5:9: R05 was retired in 3.0.0 and is now active: a retired rule stays "
        "retired and its id stays reserved; set status: retired, and add a new rule with "
        "`rlt-rules new` instead",
        "rules/R05.yaml:6:8: since: next, but R05 was already published in 2.1.0: "
        "write since: 2.1.0",
    ]


def test_new_refuses_an_unknown_category(project: Path, capsys):
    assert main(["new", "--category", "misc", "--title", "X"]) == 2
    assert capsys.readouterr().err == (
        "rlt-rules new: error: unknown category 'misc'; known categories: state, interfaces\n"
    )
    assert not (project / "rules" / "R05.yaml").exists()


def test_new_works_while_another_new_rule_is_unfinished(project: Path, capsys):
    assert main(["new", "--category", "state", "--title", "First"]) == 0
    assert main(["new", "--category", "interfaces", "--title", "Second"]) == 0
    assert capsys.readouterr().out.splitlines()[1].startswith("wrote rules/R06.yaml")


@pytest.mark.parametrize(
    "title",
    ["yes", "1.5", "Use: a colon", "A # not a comment", '"Quoted"', "Ends with colon:", "[x]"],
)
def test_scaffold_titles_read_back_unchanged(tmp_path: Path, title: str):
    path = tmp_path / "R07.yaml"
    path.write_text(scaffold_rule("R07", "state", title), encoding="utf-8")
    loaded = load_yaml(path)
    assert loaded.document is not None
    assert loaded.document.data["title"] == title


# --- diff and changelog ------------------------------------------------------------------------


def test_diff_markdown_between_versions(project: Path, capsys):
    assert main(["diff", "1.0.0", "2.0.0"]) == 0
    assert capsys.readouterr().out == (
        "# Changes from 1.0.0 to 2.0.0\n\n"
        "Requires at least a major release.\n\n"
        "## Added\n\n- R04 — Fixture rule 04\n\n"
        "## Changed\n\n- R01 — Fixture rule 01 — changed: related\n\n"
        "## Deprecated\n\n- R03 — Fixture rule 03 (replaced by R04)\n\n"
        "## Retired\n\n"
        "- R02 — Fixture rule 02: Folded into R01: the two rules described one contract.\n"
    )


def test_diff_json_between_bundle_files_and_a_folder(project: Path, capsys):
    edit(project / "rules" / "R04.yaml", "Impact 04.", "Impact 04, reworded.")
    assert main(["diff", "releases/2.0.0.json", "rules", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["old"] == "2.0.0"
    assert data["new"] == "rules (working copy of 2.0.0)"
    assert data["required_bump"] == "patch"
    assert data["changed"] == [
        {
            "id": "R04",
            "title": "Fixture rule 04",
            "fields": ["impact"],
            "bump": "patch",
            "reason": "reworded: impact (an edit is a patch release)",
        }
    ]
    assert data["added"] == data["deprecated"] == data["retired"] == data["removed"] == []


def test_diff_of_an_unknown_version(project: Path, capsys):
    assert main(["diff", "1.0.0", "4.0.0"]) == 2
    assert "4.0.0: not a released version (released: 1.0.0, 2.0.0)" in capsys.readouterr().err


def test_changelog_lists_releases_newest_first(project: Path):
    page = changelog_markdown(load_history(project / "rules"))
    assert page.index("## 2.0.0") < page.index("## 1.0.0")
    newest = page[page.index("## 2.0.0") : page.index("## 1.0.0")]
    assert "A major release after 1.0.0." in newest
    assert "### Added\n\n- [R04 — Fixture rule 04](rules/R04.md)\n" in newest
    assert "### Deprecated\n\n- [R03 — Fixture rule 03](rules/R03.md) (replaced by R04)\n" in newest
    assert "### Retired\n\n- [R02 — Fixture rule 02](rules/R02.md): Folded into R01" in newest
    oldest = page[page.index("## 1.0.0") :]
    assert oldest.startswith("## 1.0.0\n\nFirst release: 3 rules.\n\n### Added\n\n")
    assert oldest.count("](rules/R0") == 3
    assert changelog_markdown(History()).endswith("No release yet.\n")


def test_rule_history_for_rule_pages(project: Path):
    history = load_history(project / "rules")
    assert rule_history(history, "R01") == RuleHistory("R01", "1.0.0", ("2.0.0",))
    assert rule_history(history, "R04") == RuleHistory("R04", "2.0.0", ())
    assert rule_history(history, "R09") == RuleHistory("R09", None, ())
    only_first = History((Release("1.0.0", history.releases[0].library),))
    assert rule_history(only_first, "R02") == RuleHistory("R02", "1.0.0", ())


# --- the real library ----------------------------------------------------------------------------


def test_real_library_is_released_as_1_0_0():
    history = load_history(ROOT / "rules")
    assert [release.version for release in history.releases][0] == "1.0.0"
    first = history.releases[0].library
    assert [rule.id for rule in first.rules] == [f"R{n:02d}" for n in range(1, 18)]
    working = rlt_rules.load_library(ROOT / "rules")
    assert {rule.id: rule.since for rule in working.rules} == {
        f"R{n:02d}": "1.0.0" for n in range(1, 18)
    }
    assert next_rule_id(ROOT / "rules", history) == "R18"
    assert "## 1.0.0\n\nFirst release: 17 rules." in changelog_markdown(history)


def test_removing_a_real_rule_fails_validation(tmp_path: Path, monkeypatch, capsys):
    shutil.copytree(ROOT / "rules", tmp_path / "rules")
    shutil.copytree(ROOT / "releases", tmp_path / "releases")
    (tmp_path / "rules" / "R05.yaml").unlink()
    monkeypatch.chdir(tmp_path)
    assert main(["validate", "rules"]) == 1
    out = capsys.readouterr().out
    assert (
        "rules/library.yaml:4:1: R05 ('Use named contracts for related data') was published in "
        "1.0.0 and rules/R05.yaml is missing" in out
    )
