"""A rules folder's checked library remembered by content (``project/remembered.py``, what
``rlt-rules scan`` reads a folder with): the same library and the same scan as the plain
check, every change to what the check reads checks again, a bad entry is ignored, and an
invalid folder is never remembered. (``tests/test_performance_paths.py`` compares the scans.)"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from rlt_rules import Library, LibraryError, load_library
from rlt_rules.files.cache import CACHE_DIR_ENV, cache_folder
from rlt_rules.project.remembered import ENTRIES, content_key, load_remembered

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def rules(tmp_path: Path) -> Path:
    """A copy of the real rules folder and its releases."""
    shutil.copytree(ROOT / "rules", tmp_path / "rules")
    shutil.copytree(ROOT / "releases", tmp_path / "releases")
    return tmp_path / "rules"


def entries(cache: Path) -> list[Path]:
    return sorted((cache / ENTRIES).glob("*/*.json"))


def test_a_remembered_library_equals_the_checked_one(rules: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    plain = load_library(rules)
    first = load_remembered(rules, cache)
    (entry,) = entries(cache)
    second = load_remembered(rules, cache)
    assert first == plain and second == plain
    assert [rule.source for rule in first.rules] == [rule.source for rule in plain.rules]
    assert {rule.source.path for rule in second.rules if rule.source} == {str(entry)}


def test_without_a_cache_the_entry_is_in_the_user_cache_folder(
    rules: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The default is :func:`~rlt_rules.files.cache.cache_folder`: ``$RLT_RULES_CACHE_DIR``,
    else ``$XDG_CACHE_HOME/rlt-rules``, else ``~/.cache/rlt-rules``."""
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "moved"))
    assert cache_folder() == tmp_path / "moved"
    assert load_remembered(rules) == load_library(rules)
    assert len(entries(tmp_path / "moved")) == 1
    monkeypatch.delenv(CACHE_DIR_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_folder() == tmp_path / "xdg" / "rlt-rules"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_folder() == tmp_path / "home" / ".cache" / "rlt-rules"


@pytest.mark.parametrize("where", ["rule", "library", "release", "new rule file"])
def test_any_change_to_what_the_check_reads_checks_again(
    rules: Path, tmp_path: Path, where: str
) -> None:
    cache = tmp_path / "cache"
    load_remembered(rules, cache)
    before = content_key(rules)
    if where == "rule":
        path = rules / "R01.yaml"
        path.write_text(path.read_text().replace("title: ", "title: Changed: ", 1))
    elif where == "library":
        path = rules / "library.yaml"
        path.write_text(path.read_text() + "\n")
    elif where == "release":
        (rules.parent / "releases" / "9.9.9.json").write_text("{}")
    else:
        (rules / "R99.yaml").write_text("id: R99\n")
    assert content_key(rules) != before
    try:
        plain: Library | LibraryError = load_library(rules)
    except LibraryError as error:
        plain = error
    if isinstance(plain, LibraryError):
        with pytest.raises(LibraryError) as raised:
            load_remembered(rules, cache)
        assert raised.value.diagnostics == plain.diagnostics
    else:
        assert load_remembered(rules, cache) == plain
        remembered = load_remembered(rules, cache)
        assert remembered == plain
        assert remembered.rules[0].title.startswith("Changed: ") == (where == "rule")
    assert len(entries(cache)) == 1  # one entry per folder, the newest


def test_an_invalid_folder_is_never_remembered(rules: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    (rules / "R99.yaml").write_text("id: R99\n")
    for _ in range(2):
        with pytest.raises(LibraryError):
            load_remembered(rules, cache)
    assert entries(cache) == []


@pytest.mark.parametrize("damage", [b"", b"{not json", b'{"library": {}, "rules": []}'])
def test_a_corrupt_entry_is_checked_again_and_replaced(
    rules: Path, tmp_path: Path, damage: bytes
) -> None:
    cache = tmp_path / "cache"
    plain = load_library(rules)
    load_remembered(rules, cache)
    (entry,) = entries(cache)
    good = entry.read_bytes()
    entry.write_bytes(damage)
    assert load_remembered(rules, cache) == plain
    assert entry.read_bytes() == good


def test_an_unwritable_cache_only_means_checking_again(rules: Path, tmp_path: Path) -> None:
    blocked = tmp_path / "cache"
    blocked.write_text("a file where the cache folder would be")
    assert load_remembered(rules, blocked) == load_library(rules)


def test_a_folder_with_a_link_is_checked_every_time(rules: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    outside = tmp_path / "R01.yaml"
    (rules / "R01.yaml").rename(outside)
    os.symlink(outside, rules / "R01.yaml")
    assert content_key(rules) is None
    with pytest.raises(LibraryError) as raised:  # a link out of the folder is a problem
        load_remembered(rules, cache)
    assert "outside the rules directory" in str(raised.value.diagnostics)
    assert entries(cache) == []


def test_an_edited_module_of_this_package_is_a_new_key(
    rules: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A check edited in a checkout, the version unchanged, never reads an old entry."""
    package = tmp_path / "package"
    shutil.copytree(ROOT / "tools" / "rlt_rules" / "project", package / "project")
    monkeypatch.setattr("rlt_rules.project.remembered.PACKAGE", package)
    before = content_key(rules)
    module = package / "project" / "check.py"
    module.write_text(module.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert before is not None and content_key(rules) not in (None, before)
