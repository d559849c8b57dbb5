"""``load_bundle``: a bundle comes back as the same Library; bad bundles name path:line:column."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rlt_rules import Diagnostic, LibraryError, load_bundle, load_library
from rlt_rules.library import bundle
from rlt_rules.library.bundle_load import json_pointer, read_bundle

ROOT = Path(__file__).resolve().parents[1]
LIFECYCLE = ROOT / "tests/fixtures/export/lifecycle"


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    return json.loads(bundle.render(load_library(LIFECYCLE)))


def write(tmp_path: Path, data: dict[str, Any]) -> tuple[Path, str]:
    text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    path = tmp_path / "rules.json"
    path.write_text(text, encoding="utf-8")
    return path, text


def position_of(text: str, needle: str) -> tuple[int, int]:
    """1-based line and column where ``needle`` first occurs."""
    offset = text.index(needle)
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1


def diagnostics(path: Path) -> tuple[Diagnostic, ...]:
    with pytest.raises(LibraryError) as error:
        load_bundle(path)
    assert error.value.diagnostics == read_bundle(path).diagnostics
    return error.value.diagnostics


def test_a_clean_bundle_loads(tmp_path: Path, data: dict[str, Any]) -> None:
    path, _ = write(tmp_path, data)
    assert load_bundle(path) == load_library(LIFECYCLE)
    assert read_bundle(path).diagnostics == ()


def test_json_syntax_error_names_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "rules.json"
    path.write_text('{\n  "rules": [\n    1,,\n  ]\n}\n')
    (diagnostic,) = diagnostics(path)
    assert (diagnostic.path, diagnostic.line, diagnostic.column) == (str(path), 3, 7)
    assert "JSON syntax error" in diagnostic.message
    assert str(diagnostic).startswith(f"{path}:3:7: ")


def test_schema_error_points_at_the_value(tmp_path: Path, data: dict[str, Any]) -> None:
    broken = json.loads(json.dumps(data))
    broken["rules"][2]["title"] = 5
    path, text = write(tmp_path, broken)
    (diagnostic,) = diagnostics(path)
    line, column = position_of(text, '"title": 5')
    assert (diagnostic.line, diagnostic.column) == (line, column + len('"title": '))
    assert diagnostic.message == "/rules/2/title: must be a string, got integer 5"


def test_unknown_field_points_at_the_key(tmp_path: Path, data: dict[str, Any]) -> None:
    broken = json.loads(json.dumps(data))
    broken["rules"][0]["examples"][1]["colour"] = "red"
    path, text = write(tmp_path, broken)
    (diagnostic,) = diagnostics(path)
    assert diagnostic.message.startswith("/rules/0/examples/1/colour: unknown field 'colour'")
    assert (diagnostic.line, diagnostic.column) == position_of(text, '"colour"')


def test_every_problem_is_reported_at_once(tmp_path: Path, data: dict[str, Any]) -> None:
    broken = json.loads(json.dumps(data))
    broken["library"]["version"] = "1.0"
    broken["rules"][1]["status"] = "gone"
    broken["rules"][3]["impact"] = "TODO"
    del broken["rules"][0]["triggers"]
    path, _ = write(tmp_path, broken)
    pointers = [d.message.split(":", 1)[0] for d in diagnostics(path)]
    assert pointers == ["/library/version", "/rules/0", "/rules/1/status", "/rules/3/impact"]


def test_duplicate_keys_are_rejected(tmp_path: Path, data: dict[str, Any]) -> None:
    path, text = write(tmp_path, data)
    duplicated = text.replace('"version": "2.0.0",', '"version": "2.0.0",\n    "version": "9.9.9",')
    path.write_text(duplicated)
    (diagnostic,) = diagnostics(path)
    assert diagnostic.message.startswith("/library/version: duplicate key")
    assert (diagnostic.line, diagnostic.column) == position_of(duplicated, '"version": "9.9.9"')


def test_changed_rules_do_not_match_the_hash(tmp_path: Path, data: dict[str, Any]) -> None:
    broken = json.loads(json.dumps(data))
    broken["rules"][0]["impact"] = "Something else."
    path, text = write(tmp_path, broken)
    (diagnostic,) = diagnostics(path)
    assert diagnostic.message.startswith("/content_hash: does not match the rules")
    assert diagnostic.line == position_of(text, '"content_hash"')[0]


def test_example_outputs_must_match_the_code(tmp_path: Path, data: dict[str, Any]) -> None:
    broken = json.loads(json.dumps(data))
    broken["example_outputs"][1]["output"] = ["2"]
    path, _ = write(tmp_path, broken)
    (diagnostic,) = diagnostics(path)
    assert diagnostic.message.startswith("/example_outputs: does not match")


def test_anchors_must_match_the_rules(tmp_path: Path, data: dict[str, Any]) -> None:
    rules = load_library(LIFECYCLE).rules
    assert data["anchors"] == [{"rule": r.id, **r.anchors().to_dict()} for r in rules]
    broken = json.loads(json.dumps(data))
    right = broken["anchors"][1]["triggers"][0]
    broken["anchors"][1]["triggers"][0] = "trigger-made-up-abc123"
    path, text = write(tmp_path, broken)
    (diagnostic,) = diagnostics(path)
    assert diagnostic.message == (
        f'/anchors/1/triggers/0: does not match the anchor the rules give (expected "{right}"): '
        "an anchor is made from its item's text; export the bundle again"
    )
    line, column = position_of(text, '"trigger-made-up-abc123"')
    assert (diagnostic.line, diagnostic.column) == (line, column)
    broken["anchors"].pop()
    path, _ = write(tmp_path, broken)
    (diagnostic,) = diagnostics(path)
    assert diagnostic.message.startswith(
        f"/anchors: does not match the anchor the rules give (expected {len(rules)} entries)"
    )


def test_a_bundle_written_before_anchors_loads(tmp_path: Path, data: dict[str, Any]) -> None:
    older = {key: value for key, value in data.items() if key != "anchors"}
    path, _ = write(tmp_path, older)
    assert load_bundle(path) == load_library(LIFECYCLE)


def test_references_must_exist(tmp_path: Path, data: dict[str, Any]) -> None:
    broken = json.loads(json.dumps(data))
    broken["rules"][0]["category"] = "elsewhere"
    broken["rules"][0]["related"] = ["R77"]
    broken["rules"][1]["replaced_by"] = "R88"
    broken["rules"][3]["id"] = "R01"
    broken["content_hash"] = bundle.content_hash(broken["rules"])
    path, _ = write(tmp_path, broken)
    messages = [d.message for d in diagnostics(path)]
    assert messages[0].startswith("/rules/0/category: unknown category 'elsewhere'")
    assert messages[1].startswith("/rules/0/related/0: related rule 'R77' does not exist")
    assert messages[2] == "/rules/1/replaced_by: replaced_by rule 'R88' does not exist"
    assert messages[3] == (
        "/rules/3/id: id 'R01' is already used by /rules/0: ids are unique and never reused"
    )


def test_unreadable_and_undecodable_files(tmp_path: Path) -> None:
    (missing,) = diagnostics(tmp_path / "absent.json")
    assert (missing.line, missing.column) == (1, 1) and "cannot read file" in missing.message
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{\n  "title": "caf\xe9"\n}\n')
    (undecodable,) = diagnostics(path)
    assert (undecodable.line, undecodable.column) == (2, 16)
    assert "not UTF-8" in undecodable.message


def test_top_level_must_be_the_bundle(tmp_path: Path) -> None:
    path = tmp_path / "rules.json"
    path.write_text("[]\n")
    (diagnostic,) = diagnostics(path)
    assert (diagnostic.line, diagnostic.column) == (1, 1)
    assert diagnostic.message == "/: must be an object, got an array"


def test_long_values_are_not_quoted_whole(tmp_path: Path, data: dict[str, Any]) -> None:
    broken = json.loads(json.dumps(data))
    broken["rules"] = {"R01": broken["rules"][0]}
    broken["library"]["subtitle"] = ""
    path, _ = write(tmp_path, broken)
    messages = [d.message for d in diagnostics(path)]
    assert "/rules: must be an array, got an object" in messages
    assert all(len(message) <= 240 + len("/library/subtitle: ") for message in messages)


def test_json_pointer_escapes() -> None:
    assert json_pointer(("rules", 2, "a/b~c")) == "/rules/2/a~1b~0c"
    assert json_pointer(()) == "/"
