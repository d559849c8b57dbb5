"""The Exports page says exactly how ``content_hash`` is computed (issue 31, section 3): its two
programs, taken from ``site/exports.md`` as a reader copies them, reproduce the hash of the
built ``rules.json`` in Python and in a second language, Node, without any rlt-rules code."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest

pytest.register_assert_rewrite("site_fixtures")
pytest_plugins = ["site_fixtures"]

from site_fixtures import ROOT, BuiltSite  # noqa: E402

EXPORTS = ROOT / "site" / "exports.md"


def _program(marker: str) -> str:
    """The fenced program after ``<!-- marker -->`` on the Exports page."""
    text = EXPORTS.read_text(encoding="utf-8")
    found = re.search(rf"<!-- {marker} -->\n```[a-z]+\n(.*?)\n```\n", text, re.DOTALL)
    assert found is not None, f"{EXPORTS}: no program after <!-- {marker} -->"
    return found.group(1)


def _expected(site: BuiltSite) -> str:
    bundle = (site.directory / "rules.json").read_text(encoding="utf-8")
    return re.search(r'"content_hash": "(sha256:[0-9a-f]{64})"', bundle).group(1)


def test_the_text_names_every_choice_the_hash_depends_on() -> None:
    text = EXPORTS.read_text(encoding="utf-8")
    section = text[text.index("### The content hash") : text.index("<!-- content-hash-python")]
    for needed in ("code point order", "`,`", "`:`", "ensure_ascii=False", "UTF-8", "`1.0`"):
        assert needed in section, needed


def test_the_node_program_reproduces_the_hash(built_site: BuiltSite) -> None:
    node = shutil.which("node") or shutil.which("nodejs")
    assert node is not None, "node is needed (Debian's nodejs; ./dev test installs it)"
    # The bundle holds non-ASCII text and numbers like 1.0: the two things naive code gets wrong.
    bundle = (built_site.directory / "rules.json").read_text(encoding="utf-8")
    assert not bundle.isascii() and re.search(r"\b\d+\.0\b", bundle)
    result = subprocess.run(
        [node, "-e", _program("content-hash-node")],
        cwd=built_site.directory,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.split() == ["ok", _expected(built_site)]


def test_the_python_program_reproduces_the_hash(built_site: BuiltSite) -> None:
    result = subprocess.run(
        [sys.executable, "-c", _program("content-hash-python")],
        cwd=built_site.directory,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["ok", _expected(built_site)]


def test_a_changed_rule_changes_what_the_node_program_computes(built_site, tmp_path) -> None:
    """The Node program reads the bundle: an edited record no longer matches its hash."""
    bundle = (built_site.directory / "rules.json").read_text(encoding="utf-8")
    rules = bundle.index('"rules": [')
    edited = bundle[:rules] + bundle[rules:].replace('"title": "', '"title": "é ', 1)
    assert edited != bundle
    (tmp_path / "rules.json").write_text(edited, encoding="utf-8")
    node = shutil.which("node") or shutil.which("nodejs")
    result = subprocess.run(
        [node, "-e", _program("content-hash-node")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1 and result.stdout.startswith("MISMATCH"), result.stdout
