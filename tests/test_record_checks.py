"""Both readers run one list of checks across records: for every check in ``CHECKS``, a rules
folder and the matching bundle (content hash recomputed) that break it are both rejected, at a
position, in the check's one wording."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from rlt_rules import load_library
from rlt_rules.library import bundle
from rlt_rules.library.bundle_load import read_bundle
from rlt_rules.library.record_checks import CHECKS
from rlt_rules.project.check import check_project

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests/fixtures/export/lifecycle"

Library = dict[str, Any]
Rules = list[dict[str, Any]]


def _duplicate_category(library: Library, rules: Rules) -> None:
    library["categories"].append(dict(library["categories"][0]))


def _rename_file(library: Library, rules: Rules) -> None:
    rules[0]["id"] = "R09"


def _repeat_id(library: Library, rules: Rules) -> None:
    rules[3]["id"] = rules[0]["id"]


def _related_to_itself(library: Library, rules: Rules) -> None:
    rules[0]["related"] = [rules[0]["id"]]


def _replaced_by_nothing(library: Library, rules: Rules) -> None:
    rules[1]["replaced_by"] = "R88"


def _unknown_category(library: Library, rules: Rules) -> None:
    rules[0]["category"] = "elsewhere"


def _two_examples_one_name(library: Library, rules: Rules) -> None:
    rules[0]["examples"].append(copy.deepcopy(rules[0]["examples"][0]))


def _two_practice_programs_one_name(library: Library, rules: Rules) -> None:
    program = {
        "name": "elsewhere",
        "explanation": "The marked line breaks the rule.",
        "code": f"print(1)  # {rules[0]['id']}: marked\n#> 1\n",
    }
    rules[0]["practice"] = [program, dict(program)]


def _empty_category(library: Library, rules: Rules) -> None:
    library["categories"].append({**library["categories"][0], "id": "unused", "title": "Unused"})


def _no_detector_beside_detectors(library: Library, rules: Rules) -> None:
    rules[0]["detectors"] = [
        {"id": "returns", "message": "m", "severity": "hint", "rule": {"kind": "return_statement"}}
    ]
    rules[0]["no_detector"] = "No syntax shows it."


#: For each check, how to break it, the message fragment it reports, and the JSON pointer
#: (in the bundle) of the value it points at. A bundle has no file names, so the check that an
#: id matches its file has no bundle case (``None``).
BREAKS: dict[str, tuple[Callable[[Library, Rules], None], str, str | None]] = {
    "unique_categories": (_duplicate_category, "is listed twice", "/library/categories/2/id"),
    "id_matches_file": (_rename_file, "does not match the file name", None),
    "unique_ids": (_repeat_id, "is already used by", "/rules/3/id"),
    "related_rules_exist": (_related_to_itself, "lists the rule itself", "/rules/0/related/0"),
    "replacement_exists": (_replaced_by_nothing, "'R88' does not exist", "/rules/1/replaced_by"),
    "known_category": (_unknown_category, "unknown category 'elsewhere'", "/rules/0/category"),
    "unique_example_names": (_two_examples_one_name, "examples are named", "/rules/0/examples/"),
    "unique_practice_names": (
        _two_practice_programs_one_name,
        "practice programs are named",
        "/rules/0/practice/1/name",
    ),
    "no_empty_category": (_empty_category, "'unused' has no rules", "/library/categories/2/id"),
    "no_detector_without_detectors": (
        _no_detector_beside_detectors,
        "but the rule has detectors",
        "/rules/0/no_detector",
    ),
}


def _literal(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    style = "|" if "\n" in text else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


class _Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True


_Dumper.add_representer(str, _literal)


def _write_folder(folder: Path, library: Library, rules: Rules, names: list[str]) -> None:
    folder.mkdir()
    dump = lambda data: yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True)  # noqa: E731
    (folder / "library.yaml").write_text(dump(library), encoding="utf-8")
    for name, rule in zip(names, rules, strict=True):
        (folder / f"{name}.yaml").write_text(dump(rule), encoding="utf-8")


def _source_records() -> tuple[Library, Rules, list[str]]:
    library = yaml.safe_load((FIXTURE / "library.yaml").read_text(encoding="utf-8"))
    paths = sorted(p for p in FIXTURE.glob("R*.yaml"))
    rules = [yaml.safe_load(p.read_text(encoding="utf-8")) for p in paths]
    return library, rules, [p.stem for p in paths]


def test_the_unbroken_records_pass_both_readers(tmp_path: Path) -> None:
    library, rules, names = _source_records()
    _write_folder(tmp_path / "rules", library, rules, names)
    assert check_project(tmp_path / "rules").diagnostics == ()
    path = tmp_path / "rules.json"
    path.write_bytes(bundle.render(load_library(FIXTURE)))
    assert read_bundle(path).diagnostics == ()


def test_every_check_has_a_case() -> None:
    assert sorted(check.__name__ for check in CHECKS) == sorted(BREAKS)


@pytest.mark.parametrize("check", [check.__name__ for check in CHECKS])
def test_both_readers_reject_what_the_check_forbids(tmp_path: Path, check: str) -> None:
    breaks, fragment, pointer = BREAKS[check]

    library, rules, names = _source_records()
    breaks(library, rules)
    _write_folder(tmp_path / "rules", library, rules, names)
    folder_hits = [
        d for d in check_project(tmp_path / "rules").diagnostics if fragment in d.message
    ]
    assert folder_hits, f"validate accepted a folder that breaks {check}"
    for diagnostic in folder_hits:
        assert Path(diagnostic.path).parent == tmp_path / "rules"
        assert (diagnostic.line, diagnostic.column) != (1, 1), diagnostic  # at the value

    if pointer is None:
        return
    data = json.loads(bundle.render(load_library(FIXTURE)))
    breaks(data["library"], data["rules"])
    data["content_hash"] = bundle.content_hash(data["rules"])
    path = tmp_path / "rules.json"
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    result = read_bundle(path)
    assert result.library is None
    bundle_hits = [d for d in result.diagnostics if fragment in d.message]
    assert bundle_hits, f"read_bundle accepted a bundle that breaks {check}"
    for diagnostic in bundle_hits:
        assert diagnostic.message.startswith(pointer), diagnostic
        assert (diagnostic.line, diagnostic.column) != (1, 1), diagnostic  # at the value
