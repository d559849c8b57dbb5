"""Real clients read what the site publishes, offline: sarif-tools, check-jsonschema and Ajv.

Each client runs as a user would run it, in a folder holding the published files
(:func:`rlt_rules.export.site_files`), with every HTTP(S) request sent to a closed port: a
client that tried to download a referenced schema fails the test. sarif-tools and
check-jsonschema come from PyPI (the dev dependencies); ajv-cli and ajv-formats from npm, pinned
in ``tests/clients/package-lock.json`` and installed by ``./dev test``. A missing client fails
its test with the command that installs it; nothing is skipped.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from rlt_rules import load_library
from rlt_rules.export import site_files
from rlt_rules.findings import SAMPLE_DIR, SAMPLE_FINDINGS, load_review
from rlt_rules.findings.sarif import render as render_findings_sarif

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
AJV = ROOT / "tests" / "clients" / "node_modules" / ".bin" / "ajv"
SARIF_SCHEMA = ROOT / "tests" / "data" / "sarif-schema-2.1.0.json"
SITE_URL = "https://rules.example.org/rlt/1.0.0/"
#: Every request through a proxy that refuses connections: a client needing the network fails.
CLOSED = "http://127.0.0.1:9"


def offline_environment() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if "proxy" not in key.lower()}
    env.update(HTTP_PROXY=CLOSED, HTTPS_PROXY=CLOSED, ALL_PROXY=CLOSED, NO_PROXY="")
    env.update(http_proxy=CLOSED, https_proxy=CLOSED, all_proxy=CLOSED, no_proxy="")
    return env


def run_client(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    executable = Path(command[0])
    if not executable.is_file():
        install = (
            "./dev test (npm ci in tests/clients)"
            if executable == AJV
            else "./dev setup (pip install -e '.[dev]')"
        )
        pytest.fail(f"{executable} not found: install the test clients with {install}")
    return subprocess.run(
        command,
        cwd=cwd,
        env=offline_environment(),
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site's exports of ``rules/``, plus the sample review as findings SARIF."""
    folder = tmp_path_factory.mktemp("published")
    library = load_library(ROOT / "rules")
    for relative, data in site_files(library, SITE_URL).items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_bytes(data)
    review, _ = load_review(SAMPLE_DIR / SAMPLE_FINDINGS, library, ROOT)
    (folder / "review.sarif").write_bytes(render_findings_sarif(review, library, SITE_URL))
    return folder


def broken_bundle(published: Path) -> Path:
    data = json.loads((published / "rules.json").read_text(encoding="utf-8"))
    data["rules"][2]["title"] = 5
    target = published.parent / "broken" / "rules.json"
    target.parent.mkdir(exist_ok=True)
    target.write_text(json.dumps(data), encoding="utf-8")
    return target


# --- sarif-tools ---------------------------------------------------------------------------


def test_sarif_tools_reads_the_rule_metadata(published: Path) -> None:
    result = run_client([str(BIN / "sarif"), "info", "rules.sarif.json"], published)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 run" in result.stdout and "Tool: Rlt Refactor" in result.stdout
    assert "0 results" in result.stdout


def test_sarif_tools_reads_a_review(published: Path) -> None:
    result = run_client([str(BIN / "sarif"), "summary", "review.sarif"], published)
    assert result.returncode == 0, result.stdout + result.stderr
    levels = {
        line.split(":")[0]: int(line.split(":")[1])
        for line in result.stdout.splitlines()
        if line.split(":")[0] in ("error", "warning", "note")
    }
    assert levels == {"error": 3, "warning": 2, "note": 1}


# --- check-jsonschema ----------------------------------------------------------------------


def test_check_jsonschema_validates_the_bundle_offline_as_the_exports_page_says(
    published: Path,
) -> None:
    """The exports page's one line, run as written in the folder of the downloaded files."""
    page = (ROOT / "site" / "exports.md").read_text(encoding="utf-8")
    (line,) = [line for line in page.splitlines() if line.startswith("check-jsonschema ")]
    command = shlex.split(line)
    result = run_client([str(BIN / command[0]), "--no-cache", *command[1:]], published)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ok -- validation done" in result.stdout


def test_check_jsonschema_rejects_a_broken_bundle(published: Path) -> None:
    broken = broken_bundle(published)
    schema = published / "schema" / "bundle.schema.json"
    result = run_client(
        [str(BIN / "check-jsonschema"), "--no-cache", "--schemafile", str(schema), str(broken)],
        published,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "$.rules[2].title: 5 is not of type 'string'" in result.stdout


def test_the_repository_schema_validates_a_bundle_offline_from_the_root(published: Path) -> None:
    """One file, one content: ``schema/bundle.schema.json`` in the repository is the
    self-contained schema the site publishes, and works offline from the repository root."""
    assert (ROOT / "schema" / "bundle.schema.json").read_bytes() == (
        published / "schema" / "bundle.schema.json"
    ).read_bytes()
    bundle = published / "rules.json"
    result = run_client(
        [
            str(BIN / "check-jsonschema"),
            "--no-cache",
            "--schemafile",
            "schema/bundle.schema.json",
            str(bundle),
        ],
        ROOT,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ok -- validation done" in result.stdout


def test_the_part_alone_needs_the_network(published: Path) -> None:
    """What generation fixes: the part refers to the others by URL, and offline
    check-jsonschema cannot resolve them."""
    source = ROOT / "schema" / "parts" / "bundle.schema.json"
    result = run_client(
        [str(BIN / "check-jsonschema"), "--no-cache", "--schemafile", str(source), "rules.json"],
        published,
    )
    assert result.returncode != 0
    assert "Unresolvable: https://rlt-rules.example/schema/" in result.stdout + result.stderr


def test_the_generated_schemas_are_up_to_date() -> None:
    """``rlt-rules schema build --check`` passes: a change to a part or to a schema it embeds
    is followed by ``rlt-rules schema build``."""
    result = subprocess.run(
        [str(BIN / "rlt-rules"), "schema", "build", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize("name", ["rules.sarif.json", "review.sarif"])
def test_check_jsonschema_validates_the_sarif_logs(published: Path, name: str) -> None:
    result = run_client(
        [str(BIN / "check-jsonschema"), "--schemafile", str(SARIF_SCHEMA), name], published
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_check_jsonschema_validates_the_sample_review(published: Path) -> None:
    """A review written in YAML, against the published findings schema."""
    schema = published / "schema" / "findings.schema.json"
    sample = SAMPLE_DIR / SAMPLE_FINDINGS
    result = run_client(
        [str(BIN / "check-jsonschema"), "--schemafile", str(schema), str(sample)], published
    )
    assert result.returncode == 0, result.stdout + result.stderr


# --- Ajv -----------------------------------------------------------------------------------


def ajv(schema: Path, data: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_client(
        [str(AJV), "validate", "--spec=draft2020", "-c", "ajv-formats", "--all-errors"]
        + ["--errors=text", "-s", str(schema), "-d", str(data)],
        cwd,
    )


def test_ajv_validates_the_bundle_offline(published: Path) -> None:
    result = ajv(Path("schema/bundle.schema.json"), Path("rules.json"), published)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "rules.json valid" in result.stdout + result.stderr


def test_ajv_rejects_a_broken_bundle(published: Path) -> None:
    broken = broken_bundle(published)
    result = ajv(published / "schema" / "bundle.schema.json", broken, published)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "data/rules/2/title must be string" in result.stdout + result.stderr
