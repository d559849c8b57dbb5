"""``site build --site-dir``: the folder a build replaces is one it may delete.

A build swaps a whole folder in for its target, so the target is refused when it is or holds
the project, its docs or its rules, and when it is a non-empty folder that is not a site
rlt-rules built and nobody changed since (its record, ``.rlt-rules-site.json``). Refused means
exit 2, the reason on stderr, and every file where it was. A built site gets the modes the
umask gives. Builds run in a child process (the umask is the process's) on a small project.
"""

from __future__ import annotations

import hashlib
import os
import stat
import threading
from pathlib import Path

import pytest

pytest.register_assert_rewrite("site_fixtures")
pytest_plugins = ["site_fixtures"]

from site_fixtures import FIXTURE_RULES, make_project, run_cli  # noqa: E402

from rlt_rules.site.site_folder import (  # noqa: E402
    SITE_RECORD,
    SiteFolderRefused,
    record_site,
    refuse_foreign,
)


def snapshot(folder: Path) -> dict[str, str]:
    """Every path under ``folder`` and what it holds (a file's hash, a folder's mark)."""
    found = {}
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder).as_posix()
        found[relative] = (
            "folder" if path.is_dir() else hashlib.sha256(path.read_bytes()).hexdigest()
        )
    return found


def site_build(project: Path, site_dir: Path | str, *, umask: int = -1):
    return run_cli("site", "build", "--site-dir", str(site_dir), cwd=project, umask=umask)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A small project in ``parent/``, with a file of someone's beside it."""
    built = make_project(tmp_path / "parent" / "project", FIXTURE_RULES)
    (tmp_path / "parent" / "beside.txt").write_text("someone's notes\n", encoding="utf-8")
    return built


@pytest.mark.parametrize(
    ("site_dir", "reason"),
    [
        ("..", "holds the project"),
        (".", "is the project"),
        ("site", "is the docs"),
        ("site/built", "is inside the docs"),
        ("rules", "is the rules"),
        ("rules/built", "is inside the rules"),
    ],
)
def test_a_site_folder_holding_the_sources_is_refused_and_nothing_is_deleted(
    project: Path, site_dir: str, reason: str
) -> None:
    parent = project.parent
    before = snapshot(parent)
    result = site_build(project, site_dir)
    assert result.returncode == 2, result.stdout + result.stderr
    target = (project / site_dir).resolve()
    assert f"rlt-rules site: error: {target}: {reason} " in result.stderr
    assert "site built" not in result.stdout and "Traceback" not in result.stderr
    assert snapshot(parent) == before


def test_a_non_empty_folder_that_is_not_a_built_site_is_refused_and_kept(
    project: Path, tmp_path: Path
) -> None:
    foreign = tmp_path / "photos"
    (foreign / "2024").mkdir(parents=True)
    (foreign / "2024" / "beach.jpg").write_bytes(b"\xff\xd8 a photo")
    (foreign / "index.html").write_text("<p>my own page</p>\n", encoding="utf-8")
    before = snapshot(foreign)
    result = site_build(project, foreign)
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"{foreign}: is not empty and is not a site rlt-rules built" in result.stderr
    assert snapshot(foreign) == before

    plain = tmp_path / "a-file"
    plain.write_text("not a folder\n", encoding="utf-8")
    result = site_build(project, plain)
    assert result.returncode == 2 and f"{plain}: is not a folder" in result.stderr
    assert plain.read_text(encoding="utf-8") == "not a folder\n"


def test_a_previous_build_is_replaced_and_a_changed_one_is_refused(
    project: Path, tmp_path: Path
) -> None:
    site = tmp_path / "empty"
    site.mkdir()  # an empty folder is taken
    first = site_build(project, site)
    assert first.returncode == 0, first.stdout + first.stderr
    assert (site / SITE_RECORD).is_file() and (site / "index.html").is_file()
    (project / "site" / "index.md").write_text("# A new home page\n", encoding="utf-8")
    second = site_build(project, site)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "A new home page" in (site / "index.html").read_text(encoding="utf-8")

    (site / "rules" / "notes.txt").write_text("mine\n", encoding="utf-8")
    with (site / "index.html").open("a", encoding="utf-8") as page:
        page.write("<!-- edited by hand -->\n")
    before = snapshot(site)
    refused = site_build(project, site)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "holds files the last build did not write, or that changed since: " in refused.stderr
    assert "index.html, rules/notes.txt;" in refused.stderr
    assert snapshot(site) == before


@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_a_built_site_has_the_modes_the_umask_gives(
    project: Path, tmp_path: Path, umask: int
) -> None:
    site = tmp_path / "site"
    result = site_build(project, site, umask=umask)
    assert result.returncode == 0, result.stdout + result.stderr
    paths = [site, *site.rglob("*")]
    assert sum(path.is_file() for path in paths) > 20
    wrong = {}
    for path in paths:
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode != (0o777 if path.is_dir() else 0o666) & ~umask:
            wrong[path.relative_to(tmp_path).as_posix()] = oct(mode)
    assert wrong == {}, f"umask {umask:03o}: folders {0o777 & ~umask:o}, files {0o666 & ~umask:o}"


# --- the record, without MkDocs ----------------------------------------------------------------


def test_the_record_admits_only_what_it_lists_unchanged(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "a").mkdir(parents=True)
    (site / "a" / "page.html").write_text("<p>page</p>\n", encoding="utf-8")
    (site / "index.html").write_text("<p>home</p>\n", encoding="utf-8")
    record_site(site)
    refuse_foreign(site)  # as built: replaceable

    (site / "a" / "more").symlink_to(site / "a")
    with pytest.raises(SiteFolderRefused, match=r"since: a/more;"):
        refuse_foreign(site)
    (site / "a" / "more").unlink()

    (site / "index.html").unlink()
    os.mkfifo(site / "index.html")  # recorded name, now a FIFO: refused, never read
    with pytest.raises(SiteFolderRefused, match=r"since: index.html;"):
        refuse_foreign(site)
    (site / "index.html").unlink()


def test_a_record_that_is_a_fifo_or_deep_json_is_no_record(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<p>home</p>\n", encoding="utf-8")
    os.mkfifo(site / SITE_RECORD)
    finished = threading.Event()
    errors: list[str] = []

    def judge() -> None:
        try:
            refuse_foreign(site)
        except SiteFolderRefused as error:
            errors.append(str(error))
        finished.set()

    threading.Thread(target=judge, daemon=True).start()
    assert finished.wait(60), "reading a FIFO record blocked"
    assert errors and f"(it has no {SITE_RECORD})" in errors[0]

    (site / SITE_RECORD).unlink()
    (site / SITE_RECORD).write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(SiteFolderRefused, match=r"it has no \.rlt-rules-site\.json"):
        refuse_foreign(site)
