"""Every export: valid against its schema, deterministic, complete, and published by site_files."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml
from referencing import Registry, Resource

import rlt_rules
from rlt_rules import Library, Status, load_bundle, load_library
from rlt_rules.export import (
    FORMATS,
    checklist,
    llms,
    render,
    reviewers,
    sarif,
    site_files,
    skill,
)
from rlt_rules.library import bundle
from rlt_rules.render import sarif as render_sarif
from rlt_rules.render.inert import inert_library
from rlt_rules.render.text import expected_output, seed_text, strip_fences

ROOT = Path(__file__).resolve().parents[1]
SCHEMA_DIR = ROOT / "schema"
SITE_URL = "https://rules.example.org/rlt/1.0/"
SITE_FIXTURE = ROOT / "tests/fixtures/site/rules"
LIBRARIES = {
    "valid": ROOT / "tests/fixtures/valid",
    "lifecycle": ROOT / "tests/fixtures/export/lifecycle",
    "rules": ROOT / "rules",
}


@pytest.fixture(scope="module", params=list(LIBRARIES))
def library(request: pytest.FixtureRequest) -> Library:
    return load_library(LIBRARIES[request.param])


@pytest.fixture(scope="module")
def lifecycle() -> Library:
    return load_library(LIBRARIES["lifecycle"])


def _schema(name: str) -> dict:
    return json.loads((SCHEMA_DIR / name).read_text(encoding="utf-8"))


def bundle_validator() -> jsonschema.Draft202012Validator:
    """Built here from the schema files, independently of the loader's own validator."""
    registry = Registry().with_resources(
        (schema["$id"], Resource.from_contents(schema))
        for schema in (_schema("rule.schema.json"), _schema("library.schema.json"))
    )
    schema = _schema("bundle.schema.json")
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, registry=registry)


def sarif_validator() -> jsonschema.protocols.Validator:
    """The official SARIF 2.1.0 schema, with the validator class its ``$schema`` names."""
    schema = json.loads((ROOT / "tests/data/sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    assert "uri" in cls.FORMAT_CHECKER.checkers, "install rfc3986-validator (dev dependency)"
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def _errors(validator: jsonschema.protocols.Validator, instance: object) -> list[str]:
    return [f"{error.json_path}: {error.message}" for error in validator.iter_errors(instance)]


# --- determinism and publishing ------------------------------------------------------------


@pytest.mark.parametrize("name", list(LIBRARIES))
def test_every_format_is_byte_identical_across_processes(name: str, tmp_path: Path) -> None:
    """Two fresh processes (no cache shared with each other or with this one) write the same
    bytes, and so does this process."""
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from rlt_rules import load_library\n"
        "from rlt_rules.export import site_files\n"
        "out = Path(sys.argv[2])\n"
        "for path, data in site_files(load_library(sys.argv[1]), sys.argv[3]).items():\n"
        "    (out / path).parent.mkdir(parents=True, exist_ok=True)\n"
        "    (out / path).write_bytes(data)\n"
    )
    runs = []
    for run in ("first", "second"):
        out = tmp_path / run
        out.mkdir()
        subprocess.run(
            [sys.executable, "-c", script, str(LIBRARIES[name]), str(out), SITE_URL], check=True
        )
        files = (path for path in out.rglob("*") if path.is_file())
        runs.append({str(path.relative_to(out)): path.read_bytes() for path in files})
    assert runs[0] == runs[1]
    assert runs[0] == site_files(load_library(LIBRARIES[name]), SITE_URL)
    for data in runs[0].values():
        assert data.endswith(b"\n") and data.decode("utf-8")


def test_site_files_publishes_every_format_in_its_site_folder(library: Library) -> None:
    files = site_files(library, SITE_URL)
    expected = {
        "rules.json",
        "rules.sarif.json",
        "llms.txt",
        "llms-full.txt",
        "checklist.md",
        "skill/SKILL.md",
        "schema/bundle.schema.json",
        "schema/rule.schema.json",
        "schema/library.schema.json",
        "schema/findings.schema.json",
        *(f"reviewers/{path}" for path in reviewers.files(library, SITE_URL)),
    }
    assert set(files) == expected
    for entry in FORMATS.values():
        if entry.site_folder is None:  # ast-grep: written by `export -o` only
            continue
        for path, data in render(entry.name, library, SITE_URL).items():
            assert files[entry.site_folder + path] == data, path
    assert json.loads(files["schema/bundle.schema.json"])["$id"] == bundle.SCHEMA_ID


def test_markdown_exports_print_the_inert_library_and_data_exports_the_text_as_is() -> None:
    """On text whose escaping differs (HTML in titles and statements), the Markdown exports
    are the renderers applied to the inert library, and the data exports keep every byte."""
    library = load_library(SITE_FIXTURE)
    shown = inert_library(library)
    assert shown != library, "the fixture's text must differ once made inert"
    files = site_files(library, SITE_URL)
    markdown_exports = {
        "skill/SKILL.md": skill.render,
        "checklist.md": checklist.render,
        "llms-full.txt": llms.render_full,
        "llms.txt": lambda lib: llms.render_index(lib, SITE_URL),
    }
    for path, renderer in markdown_exports.items():
        assert files[path] == renderer(shown), path
        assert files[path] != renderer(library), f"{path}: the raw text would be the same"
        assert b"<script>" not in files[path] and b"<img" not in files[path], path
    assert load_bundle_bytes(files["rules.json"], library)
    sarif_rules = json.loads(files["rules.sarif.json"])["runs"][0]["tool"]["driver"]["rules"]
    assert [d["shortDescription"]["text"] for d in sarif_rules] == [r.title for r in library.rules]


def load_bundle_bytes(data: bytes, library: Library) -> bool:
    """Whether ``data`` is the bundle of exactly ``library`` (text kept byte for byte)."""
    return json.loads(data)["rules"] == [rule.to_dict() for rule in library.rules]


# --- rules.json ----------------------------------------------------------------------------


def test_bundle_schema_describes_every_property() -> None:
    schema = _schema("bundle.schema.json")
    assert schema["$id"] == bundle.SCHEMA_ID
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"

    def walk(node: dict, where: str) -> None:
        if node.get("type") == "object" or "properties" in node:
            assert node.get("additionalProperties") is False, f"{where} allows unknown fields"
        for name, child in node.get("properties", {}).items():
            assert child.get("title") and child.get("description"), f"{where}.{name}"
            walk(child, f"{where}.{name}")
        if isinstance(node.get("items"), dict):
            walk(node["items"], f"{where}[]")

    walk(schema, "bundle")


def test_the_published_bundle_schema_embeds_what_it_refers_to() -> None:
    """2020-12 bundling: the rule and library schemas under ``$defs`` with their ``$id``, every
    reference resolvable inside the document; the other published schemas are the files."""
    files = site_files(load_library(LIBRARIES["valid"]), None)
    published = json.loads(files["schema/bundle.schema.json"])
    source = _schema("bundle.schema.json")
    embedded = {name: _schema(name) for name in ("rule.schema.json", "library.schema.json")}
    assert published == {**source, "$defs": embedded}
    ids = {source["$id"], *(schema["$id"] for schema in embedded.values())}
    refs = re.findall(r'"\$ref":\s*"([^"#][^"]*)"', files["schema/bundle.schema.json"].decode())
    assert refs and set(refs) <= ids
    for name in ("rule.schema.json", "library.schema.json", "findings.schema.json"):
        assert files[f"schema/{name}"] == (SCHEMA_DIR / name).read_bytes()


def test_bundle_validates_against_its_schema(library: Library) -> None:
    data = json.loads(bundle.render(library))
    assert _errors(bundle_validator(), data) == []


def test_bundle_schema_rejects_what_it_should(lifecycle: Library) -> None:
    data = json.loads(bundle.render(lifecycle))
    data["rules"][0]["examples"][0]["surprise"] = True
    data["content_hash"] = "md5:abc"
    del data["generator"]["version"]
    errors = _errors(bundle_validator(), data)
    assert any("$.rules[0].examples[0]" in e and "surprise" in e for e in errors), errors
    assert any("content_hash" in e for e in errors), errors
    assert any("'version' is a required property" in e for e in errors), errors


def test_bundle_holds_every_field_the_version_and_a_content_hash(library: Library) -> None:
    data = json.loads(bundle.render(library))
    assert data["$schema"] == "https://rlt-rules.example/schema/bundle.schema.json"
    assert data["generator"] == {"name": "rlt-rules", "version": rlt_rules.__version__}
    assert data["library"] == library.metadata_dict()
    assert data["rules"] == [rule.to_dict() for rule in library.rules]
    canonical = json.dumps(data["rules"], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    digest = hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    assert data["content_hash"] == f"sha256:{digest}"
    examples = [(r.id, e) for r in library.rules for e in r.examples]
    assert len(data["example_outputs"]) == len(examples)
    for entry, (rule_id, example) in zip(data["example_outputs"], examples, strict=True):
        assert (entry["rule"], entry["kind"], entry["name"]) == (
            rule_id,
            str(example.kind),
            example.name,
        )
        assert entry["output"] == list(expected_output(example.code))


def test_expected_output_is_the_text_of_the_marker_lines(lifecycle: Library) -> None:
    good = lifecycle.rule("R01").examples[1]
    assert expected_output(good.code) == ("1", "done ok")
    assert expected_output("print('')\n#>\n    #> indented\nx = 1  # #> not a marker\n") == (
        "",
        "indented",
    )


def test_content_hash_changes_with_the_rules(lifecycle: Library) -> None:
    data = json.loads(bundle.render(lifecycle))
    changed = json.loads(json.dumps(data["rules"]))
    changed[0]["impact"] += " Also."
    assert bundle.content_hash(changed) != data["content_hash"]


def test_bundle_round_trips_byte_for_byte(library: Library, tmp_path: Path) -> None:
    path = tmp_path / "rules.json"
    path.write_bytes(bundle.render(library))
    loaded = load_bundle(path)
    assert loaded == library
    assert bundle.render(loaded) == path.read_bytes()
    assert site_files(loaded, SITE_URL) == site_files(library, SITE_URL)


# --- rules.sarif.json ----------------------------------------------------------------------


def test_sarif_validates_against_the_official_schema(library: Library) -> None:
    log = json.loads(sarif.render(library, SITE_URL))
    assert _errors(sarif_validator(), log) == []
    without_url = json.loads(sarif.render(library, None))
    assert _errors(sarif_validator(), without_url) == []
    assert "informationUri" not in without_url["runs"][0]["tool"]["driver"]


def test_sarif_schema_check_can_fail(lifecycle: Library) -> None:
    log = json.loads(sarif.render(lifecycle, SITE_URL))
    descriptor = log["runs"][0]["tool"]["driver"]["rules"][0]
    descriptor["shortDescription"] = "not a message object"
    descriptor["helpUri"] = "rules/R01/"  # relative: SARIF wants an absolute URI here
    errors = _errors(sarif_validator(), log)
    assert any("shortDescription" in error for error in errors), errors
    assert any("helpUri" in error and "uri" in error for error in errors), errors


def test_sarif_driver_and_descriptors(library: Library) -> None:
    log = json.loads(sarif.render(library, SITE_URL))
    assert log["version"] == "2.1.0" and len(log["runs"]) == 1
    run = log["runs"][0]
    assert run["results"] == []  # rule metadata only; sarif-tools needs the empty list
    driver = run["tool"]["driver"]
    assert driver["name"] == library.title
    assert driver["version"] == library.version
    assert driver["informationUri"] == SITE_URL
    assert [d["id"] for d in driver["rules"]] == [rule.id for rule in library.rules]
    for descriptor, rule in zip(driver["rules"], library.rules, strict=True):
        assert re.fullmatch(r"[A-Z][A-Za-z0-9]*", descriptor["name"])
        assert descriptor["helpUri"] == f"{SITE_URL}rules/{rule.id}/"
        assert descriptor["shortDescription"]["text"] == rule.title
        assert descriptor["fullDescription"]["markdown"] == rule.statement
        assert rule.statement.split(". ")[0] in descriptor["help"]["text"]
        assert "```" not in descriptor["help"]["text"]
        for trigger in rule.triggers:
            assert trigger.split("\n")[0] in descriptor["help"]["markdown"]
        assert descriptor["properties"]["tags"][0] == rule.category
        assert set(rule.tags) <= set(descriptor["properties"]["tags"])
        # A result can cite a trigger: the rule page plus the anchor the page gives it.
        anchors = descriptor["properties"]["anchors"]
        assert anchors == rule.anchors().to_dict()
        assert len(anchors["triggers"]) == len(rule.triggers) == len(set(anchors["triggers"]))


def test_sarif_names_deprecation_and_retirement(lifecycle: Library) -> None:
    descriptors = {d["id"]: d for d in render_sarif.rule_descriptors(lifecycle, SITE_URL)}
    assert descriptors["R01"]["name"] == "GiveMutableStateOneAuthoritativeOwner"
    assert descriptors["R03"]["name"] == "SeparateLogicalKVResourcesFromDeviceOperations"
    assert descriptors["R03"]["deprecatedIds"] == ["R02"]
    assert "deprecatedIds" not in descriptors["R01"]
    assert descriptors["R02"]["properties"]["status"] == "deprecated"
    assert descriptors["R02"]["properties"]["replacedBy"] == "R03"
    assert descriptors["R04"]["defaultConfiguration"] == {"enabled": False}
    assert "defaultConfiguration" not in descriptors["R01"]


def test_pascal_case() -> None:
    assert render_sarif.pascal_case("Give mutable state one authoritative owner") == (
        "GiveMutableStateOneAuthoritativeOwner"
    )
    assert render_sarif.pascal_case(
        "Make arguments, units, side effects, and failure outcomes explicit"
    ) == ("MakeArgumentsUnitsSideEffectsAndFailureOutcomesExplicit")


# --- SKILL.md and the seed text --------------------------------------------------------------


def _front_matter(text: str) -> tuple[dict, str]:
    assert text.startswith("---\n")
    head, body = text[4:].split("\n---\n", 1)
    return yaml.safe_load(head), body


def test_skill_front_matter_follows_the_agent_skills_format(library: Library) -> None:
    meta, body = _front_matter(skill.render(library).decode("utf-8"))
    assert set(meta) == {"name", "description"}
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", meta["name"]) and len(meta["name"]) <= 64
    assert 0 < len(meta["description"]) <= 1024
    assert "Use when" in meta["description"]
    assert body.lstrip().startswith(f"# {library.title}\n")


def test_skill_name_of_the_real_library() -> None:
    meta, _ = _front_matter(skill.render(load_library(LIBRARIES["rules"])).decode("utf-8"))
    assert meta["name"] == "rlt-refactor"


def _assert_lines_in_order(source: str, text: str) -> None:
    """Every non-blank line of ``source`` occurs in ``text``, each after the one before."""
    cursor = 0
    for number, line in enumerate(source.split("\n"), start=1):
        if not line.strip():
            continue
        found = text.find(line, cursor)
        assert found >= 0, f"line {number} missing or out of order: {line!r}"
        cursor = found + len(line)


def test_seed_text_reproduces_the_seed_byte_for_byte() -> None:
    seed = (ROOT / "tests/data/seed.txt").read_bytes()
    assert seed_text(load_library(LIBRARIES["rules"])).encode("utf-8") == seed


def test_skill_holds_every_sentence_of_the_seed_in_order() -> None:
    seed = (ROOT / "tests/data/seed.txt").read_text(encoding="utf-8")
    _, body = _front_matter(skill.render(load_library(LIBRARIES["rules"])).decode("utf-8"))
    _assert_lines_in_order(seed, strip_fences(body))


def test_skill_holds_every_rule_in_seed_order(library: Library) -> None:
    _, body = _front_matter(skill.render(library).decode("utf-8"))
    _assert_lines_in_order(seed_text(library), strip_fences(body))
    for rule in library.rules:
        for trigger in rule.triggers:
            assert trigger.split("\n")[0] in body


def test_the_order_check_detects_a_lost_or_moved_sentence() -> None:
    with pytest.raises(AssertionError, match="missing or out of order"):
        _assert_lines_in_order("first\nsecond", "second then first")


# --- llms.txt, llms-full.txt ---------------------------------------------------------------

LINK = re.compile(r"- \[(?P<name>[^\]]+)\]\((?P<url>[^)\s]+)\)(?:: (?P<notes>.+))?")


def test_llms_txt_follows_the_convention(library: Library) -> None:
    text = llms.render_index(library, SITE_URL).decode("utf-8")
    blocks = text.rstrip("\n").split("\n\n")
    assert blocks[0] == f"# {library.title}"
    assert blocks[1].startswith("> ") and "\n" not in blocks[1]
    assert text.count("\n# ") == 0, "only one H1"
    sections = re.findall(r"^## (.+)$", text, flags=re.MULTILINE)
    assert sections == [c.title for c in library.categories] + ["Optional"]
    links = [LINK.fullmatch(line) for line in text.split("\n") if line.startswith("- ")]
    assert all(links), "every list line is a [name](url): notes link"
    urls = [link["url"] for link in links]
    for rule in library.rules:
        assert f"{SITE_URL}rules/{rule.id}/" in urls
    for name in ("llms-full.txt", "rules.json", "rules.sarif.json", "checklist.md"):
        assert f"{SITE_URL}{name}" in urls
    assert f"{SITE_URL}skill/SKILL.md" in urls
    assert all(link["notes"] for link in links)


def test_llms_txt_without_site_url_links_relative_to_the_root(lifecycle: Library) -> None:
    text = llms.render_index(lifecycle, None).decode("utf-8")
    assert "](rules/R01/)" in text and "](llms-full.txt)" in text


def test_llms_full_holds_the_full_text(library: Library) -> None:
    text = llms.render_full(library).decode("utf-8")
    assert text.startswith(f"# {library.title}\n\n> ")
    _assert_lines_in_order(seed_text(library), strip_fences(text))
    for rule in library.rules:
        for field in (rule.rationale, rule.impact, rule.correction, *rule.triggers):
            assert field.split("\n")[0] in text
        for example in rule.examples:
            assert example.code.rstrip("\n") in text
            assert example.title in text


# --- checklist.md --------------------------------------------------------------------------


def test_checklist_lists_every_trigger_by_category(library: Library) -> None:
    text = checklist.render(library).decode("utf-8")
    items = [line for line in text.split("\n") if line.startswith("- [ ] ")]
    live = [rule for rule in library.rules if rule.status is not Status.RETIRED]
    assert len(items) == sum(len(rule.triggers) for rule in live)
    sections = re.split(r"^## ", text, flags=re.MULTILINE)[1:]
    by_title = {section.split("\n", 1)[0]: section for section in sections}
    for rule in live:
        section = by_title[library.category(rule.category).title]
        assert f"**{rule.id} — {rule.title}" in section
        for trigger in rule.triggers:
            assert f"- [ ] {trigger.split(chr(10))[0]}" in section


def test_checklist_leaves_out_retired_rules_and_marks_deprecated(lifecycle: Library) -> None:
    text = checklist.render(lifecycle).decode("utf-8")
    assert "R04" not in text and "Retired Things" not in text
    assert "**R02 — Keep KV blocks with their owner (deprecated: see R03)**" in text
    assert "- [ ] Two places reset the same counter,\n      one of them" in text
