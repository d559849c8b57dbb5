"""The published addresses come from one place, ``mkdocs.yml``: the site, every export and
``findings`` use them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rlt_rules import load_library
from rlt_rules.cli import main
from rlt_rules.export import FORMATS, site_files
from rlt_rules.facts.addresses import (
    AddressError,
    Addresses,
    config_path,
    project_addresses,
    read_addresses,
)
from rlt_rules.files.owned import MANIFEST

pytest.register_assert_rewrite("site_fixtures")
pytest_plugins = ["site_fixtures"]

from site_fixtures import BuiltSite, make_project, run_cli  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SITE = "https://rules.team.test/rlt/"
REPO = "https://code.team.test/rlt-rules/"


def _config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "mkdocs.yml"
    path.write_text(text, encoding="utf-8")
    return path


def test_read_addresses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _config(tmp_path, f"site_name: x\nsite_url: {SITE}\nrepo_url: {REPO}\n")
    assert read_addresses(path) == Addresses(SITE, REPO)
    assert read_addresses(path).pages("1.2.0") == f"{SITE}1.2.0/"
    path = _config(
        tmp_path,
        "site_url: !ENV [RLT_TEST_SITE, 'https://fallback.test/']\n"
        "markdown_extensions:\n  - pymdownx.emoji:\n      emoji_index: !!python/name:x.y\n",
    )
    assert read_addresses(path) == Addresses("https://fallback.test/", None)
    monkeypatch.setenv("RLT_TEST_SITE", SITE)
    assert read_addresses(path).site_url == SITE
    assert read_addresses(_config(tmp_path, "site_name: x\n")) == Addresses(None, None)


def test_a_bad_configuration_is_an_error_at_its_position(tmp_path: Path) -> None:
    with pytest.raises(AddressError, match=r"mkdocs.yml:2:\d+: not valid YAML"):
        read_addresses(_config(tmp_path, "site_url: x\n  bad: [\n"))
    with pytest.raises(AddressError, match="site_url must be an http"):
        read_addresses(_config(tmp_path, "site_url: rlt-rules.example\n"))


def test_the_project_configuration_is_beside_the_rules_folder(tmp_path: Path) -> None:
    assert config_path(ROOT / "rules") == ROOT / "mkdocs.yml"
    assert project_addresses(tmp_path / "rules") == Addresses(None, None)
    repo = project_addresses(ROOT / "rules")
    assert repo.site_url and repo.repo_url  # the placeholders until the site is published


def test_commands_default_to_the_configured_address(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--site-url`` overrides for one run; ``''`` asks for relative links."""
    version = load_library(ROOT / "rules").version
    configured = project_addresses(ROOT / "rules").pages(version)
    outputs = {}
    for name, extra in (
        ("default", []),
        ("given", ["--site-url", configured]),
        ("none", ["--site-url", ""]),
    ):
        out = tmp_path / f"{name}.sarif.json"
        argv = ["export", "--format", "sarif", "--rules", str(ROOT / "rules"), "-o", str(out)]
        assert main(argv + extra) == 0
        outputs[name] = out.read_bytes()
    capsys.readouterr()
    assert outputs["default"] == outputs["given"]
    assert f'"helpUri": "{configured}rules/R01/"'.encode() in outputs["default"]
    assert b"helpUri" not in outputs["none"]
    code = main(["findings", "markdown", str(ROOT / "samples/review/findings.yaml")])
    assert code == 0
    assert f"]({configured}rules/R03/)" in capsys.readouterr().out


def test_one_configuration_sets_the_addresses_of_the_site_the_exports_and_findings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A project whose mkdocs.yml names other addresses: the site's pages and edit links, the
    exports it publishes, the exports the command line writes there and rendered findings all
    use them, and the placeholder host is left only in the schemas' ``$id`` (format names)."""
    project = make_project(tmp_path / "project", ROOT / "tests" / "fixtures" / "site" / "rules")
    config = project / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    text = re.sub(r"(?m)^site_url: .*$", f"site_url: {SITE}", text)
    text = re.sub(r"(?m)^repo_url: .*$", f"repo_url: {REPO}", text)
    config.write_text(text, encoding="utf-8")
    result = run_cli("site", "build", "--site-dir", str(tmp_path / "site"), cwd=project)
    assert result.returncode == 0, result.stdout + result.stderr
    built = BuiltSite(tmp_path / "site", load_library(project / "rules"), result.stderr)
    pages = f"{SITE}{built.library.version}/"

    published = {
        relative: (built.directory / relative).read_bytes()
        for relative in site_files(built.library, None)
    }
    monkeypatch.chdir(project)  # the commands' default: rules/ here, beside mkdocs.yml
    for name, entry in FORMATS.items():
        if entry.site_folder is None:  # not published (ast-grep): nothing to compare with
            continue
        out = tmp_path / "cli" / name
        out.parent.mkdir(exist_ok=True)
        assert main(["export", "--format", name, "-o", str(out)]) == 0
        written = (
            {
                str(p.relative_to(out)): p.read_bytes()
                for p in out.rglob("*")
                if p.is_file() and p.name != MANIFEST  # the folder's record, not an export
            }
            if entry.writes_folder
            else {next(iter(entry.render(built.library, None))): out.read_bytes()}
        )
        for relative, data in written.items():
            assert published[entry.site_folder + relative] == data, (name, relative)

    sarif = published["rules.sarif.json"].decode()
    assert f'"helpUri": "{pages}rules/R04/"' in sarif
    assert f"]({pages}rules/R04/)" in published["llms.txt"].decode()
    for relative, data in published.items():
        hosts = re.findall(r"https://rlt-rules\.example/[^\s\"')]*", data.decode())
        assert all(url.startswith("https://rlt-rules.example/schema/") for url in hosts), relative

    rule_page = (built.directory / "rules" / "R17" / "index.html").read_text(encoding="utf-8")
    assert f'href="{REPO}edit/main/rules/R17.yaml"' in rule_page
    assert f'<link rel="canonical" href="{SITE}rules/R17/"' in rule_page

    review = tmp_path / "review.yaml"
    review.write_text(
        f"library_version: {built.library.version}\nfindings:\n  - rule: R04\n"
        "    location: {path: a.py, start_line: 1, end_line: 1}\n"
        "    trigger: t\n    impact: i\n    correction: c\n",
        encoding="utf-8",
    )
    capsys.readouterr()
    assert main(["findings", "markdown", str(review)]) == 0
    assert f"]({pages}rules/R04/)" in capsys.readouterr().out
