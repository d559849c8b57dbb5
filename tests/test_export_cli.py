"""``rlt-rules export``, ``show`` and ``list`` through the real command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rlt_rules import load_library
from rlt_rules.cli import main
from rlt_rules.export import render, site_files
from rlt_rules.files.owned import MANIFEST

ROOT = Path(__file__).resolve().parents[1]
VALID = ROOT / "tests/fixtures/valid"
LIFECYCLE = ROOT / "tests/fixtures/export/lifecycle"
SITE_URL = "https://rules.example.org/rlt/1.0/"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("format_name", ["json", "sarif", "checklist"])
def test_export_to_a_file_twice_is_byte_identical(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], format_name: str
) -> None:
    out = tmp_path / "export.out"
    args = ("export", "--format", format_name, "--rules", str(LIFECYCLE), "--site-url", SITE_URL)
    assert run(capsys, *args, "-o", str(out))[0] == 0
    first = out.read_bytes()
    assert run(capsys, *args, "-o", str(out))[0] == 0
    assert out.read_bytes() == first
    (expected,) = render(format_name, load_library(LIFECYCLE), SITE_URL).values()
    assert first == expected


@pytest.mark.parametrize(
    ("format_name", "names"),
    [("skill", ["SKILL.md"]), ("llms", ["llms-full.txt", "llms.txt"])],
)
def test_folder_exports_write_their_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], format_name: str, names: list[str]
) -> None:
    out = tmp_path / "rlt-refactor"
    args = ("export", "--format", format_name, "--rules", str(VALID), "-o", str(out))
    assert run(capsys, *args)[0] == 0
    first = {path.name: path.read_bytes() for path in out.iterdir() if path.name != MANIFEST}
    assert sorted(first) == names
    assert sorted(json.loads((out / MANIFEST).read_text())["files"]) == names
    assert run(capsys, *args)[0] == 0
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.name != MANIFEST} == first
    assert first == render(format_name, load_library(VALID), None)


def test_export_without_output_prints_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "export", "--format", "json", "--rules", str(VALID))
    assert code == 0
    assert out.encode("utf-8") == site_files(load_library(VALID), None)["rules.json"]
    code, out, err = run(capsys, "export", "--format", "llms", "--rules", str(VALID))
    assert code == 0 and out.startswith("# Fixture Library\n") and "llms-full.txt" in err


def test_export_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "export", "--format", "json", "--rules", str(tmp_path / "none"))
    assert code == 2 and "no such rules folder" in err
    code, _, err = run(
        capsys, "export", "--format", "json", "--rules", str(VALID), "-o", str(tmp_path)
    )
    assert code == 2 and "is a folder" in err
    (tmp_path / "file").write_text("x")
    code, _, err = run(
        capsys, "export", "--format", "skill", "--rules", str(VALID), "-o", str(tmp_path / "file")
    )
    assert code == 2 and "writes a folder" in err
    with pytest.raises(SystemExit) as exit_info:
        main(["export", "--format", "pdf", "--rules", str(VALID)])
    assert exit_info.value.code == 2


def test_show_prints_one_rule(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "show", "r01", "--rules", str(LIFECYCLE))
    assert code == 0
    lines = out.split("\n")
    assert lines[0] == "R01 — Give mutable state one authoritative owner"
    assert "Category: State and Ownership (state)" in out
    assert "Status:   active (since 1.0.0)" in out
    sections = [
        line
        for line in lines
        if line in {"Statement", "Example", "Triggers", "Impact", "Correction", "Examples"}
    ]
    assert sections == ["Statement", "Example", "Triggers", "Impact", "Correction", "Examples"]
    assert "Identify who initializes, advances, resets, and releases each state." in out
    assert "a policy owns its fairness counter" in out
    assert "  - Two places reset the same counter, one of them on a path" in out
    assert "State diverges after an abort." in out
    assert "Add an operation on the owner and call it." in out
    assert "  bad   two-writers: Two writers of one counter" in out
    assert "  good  two-writers: One owner advances the counter" in out


def test_show_links_each_trigger_by_its_anchor(capsys: pytest.CaptureFixture[str]) -> None:
    """Every trigger, the impact, the correction and each example end with the versioned
    address of their anchor on the rule page: what a review cites."""
    rule = load_library(LIFECYCLE).rule("R01")
    anchors = rule.anchors()
    code, out, _ = run(capsys, "show", "R01", "--rules", str(LIFECYCLE), "--site-url", SITE_URL)
    assert code == 0
    lines = out.split("\n")
    page = f"{SITE_URL}rules/R01/#"
    for trigger, anchor in zip(rule.triggers, anchors.triggers, strict=True):
        # The link is right under its trigger: the nearest list item above it is the trigger.
        at = lines.index(f"    {page}{anchor}")
        item = next(line for line in reversed(lines[:at]) if line.startswith("  - "))
        assert item.startswith("  - " + " ".join(trigger.split()[:4])), (item, trigger)
    assert [line.strip() for line in lines if "#trigger-" in line] == [
        page + anchor for anchor in anchors.triggers
    ]
    assert f"  {page}{anchors.impact}" in lines and f"  {page}{anchors.correction}" in lines
    assert [line.strip() for line in lines if "#example-" in line] == [
        page + anchor for anchor in anchors.examples
    ]
    # Without a site address: relative to the site root.
    out = run(capsys, "show", "R01", "--rules", str(LIFECYCLE), "--site-url", "")[1]
    assert f"    rules/R01/#{anchors.triggers[0]}" in out.split("\n")


def test_show_keeps_code_lines_verbatim(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "show", "R03", "--rules", str(LIFECYCLE))
    assert code == 0
    assert "      ok = backend.capabilities.supports_packed_prefill" in out
    assert "```" not in out


def test_show_names_deprecation_and_retirement(capsys: pytest.CaptureFixture[str]) -> None:
    assert "replaced by R03" in run(capsys, "show", "R02", "--rules", str(LIFECYCLE))[1]
    out = run(capsys, "show", "R04", "--rules", str(LIFECYCLE))[1]
    assert "Status:   retired" in out and "Capabilities replaced version checks." in out


def test_show_unknown_id_exits_2_with_known_ids(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "show", "R99", "--rules", str(LIFECYCLE))
    assert code == 2 and out == ""
    assert "unknown rule id 'R99'" in err and "R01, R02, R03, R04" in err


def test_list_table_and_filters(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "list", "--rules", str(LIFECYCLE))
    assert code == 0
    lines = out.rstrip("\n").split("\n")
    assert lines[0].split() == ["ID", "STATUS", "CATEGORY", "TITLE"]
    assert [line.split()[0] for line in lines[1:]] == ["R01", "R02", "R03", "R04"]
    assert lines[1].endswith("Give mutable state one authoritative owner")
    out = run(capsys, "list", "--rules", str(LIFECYCLE), "--tag", "kv", "--status", "active")[1]
    assert [line.split()[0] for line in out.strip().split("\n")[1:]] == ["R03"]


def test_list_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "list", "--rules", str(LIFECYCLE), "--category", "state", "--format", "json"
    )
    assert code == 0
    records = json.loads(out)
    assert [record["id"] for record in records] == ["R01", "R02", "R03"]
    assert records[1] == {
        "id": "R02",
        "title": "Keep KV blocks with their owner",
        "category": "state",
        "status": "deprecated",
        "tags": ["kv"],
    }
    assert (
        json.loads(
            run(capsys, "list", "--rules", str(LIFECYCLE), "--tag", "x", "--format", "json")[1]
        )
        == []
    )


def test_list_unknown_category_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "list", "--rules", str(LIFECYCLE), "--category", "nope")
    assert code == 2 and "state, retired-only" in err


def test_installed_command_exports_the_real_library(tmp_path: Path) -> None:
    command = Path(sys.executable).parent / "rlt-rules"
    outputs = []
    for name, seed in (("a", "1"), ("b", "2")):  # different hash seeds: no set-order leaks
        result = subprocess.run(
            [
                str(command),
                "export",
                "--format",
                "sarif",
                "--site-url",
                SITE_URL,
                "-o",
                str(tmp_path / f"{name}.sarif.json"),
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        assert result.returncode == 0, result.stderr
        outputs.append((tmp_path / f"{name}.sarif.json").read_bytes())
    assert outputs[0] == outputs[1]
    assert len(json.loads(outputs[0])["runs"][0]["tool"]["driver"]["rules"]) == 17
