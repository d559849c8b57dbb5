"""A failed export leaves the previous file intact and no temporary file behind."""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from rlt_rules.cli import main
from rlt_rules.files.atomic import write_atomic, write_files_atomic

ROOT = Path(__file__).resolve().parents[1]
VALID = ROOT / "tests/fixtures/valid"


def test_write_atomic_replaces_the_file(tmp_path: Path) -> None:
    target = tmp_path / "rules.json"
    target.write_bytes(b"old\n")
    write_atomic(target, b"new\n")
    assert target.read_bytes() == b"new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rules.json"]


def test_written_file_has_ordinary_permissions(tmp_path: Path) -> None:
    previous = os.umask(0o022)
    try:
        write_atomic(tmp_path / "out.json", b"{}\n")
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "out.json").stat().st_mode) == 0o644


class RendererFailed(Exception):
    pass


def test_renderer_failing_after_writing_began_leaves_old_file(tmp_path: Path) -> None:
    target = tmp_path / "rules.sarif.json"
    target.write_bytes(b"previous export\n")
    began: list[bytes] = []

    def chunks() -> Iterator[bytes]:
        yield b'{"version": "2.1.0",'
        began.append(b"written")
        raise RendererFailed("renderer broke mid-way")

    with pytest.raises(RendererFailed):
        write_atomic(target, chunks())
    assert began, "the renderer did start writing"
    assert target.read_bytes() == b"previous export\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rules.sarif.json"]


def test_failing_rename_leaves_target_and_no_temporary(tmp_path: Path) -> None:
    # A non-empty directory where the file should go: os.replace fails after the write.
    target = tmp_path / "checklist.md"
    target.mkdir()
    (target / "keep.txt").write_text("kept")
    with pytest.raises(OSError):
        write_atomic(target, b"- [ ] item\n")
    assert (target / "keep.txt").read_text() == "kept"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checklist.md"]


def test_write_files_atomic_creates_the_folder(tmp_path: Path) -> None:
    written = write_files_atomic(
        tmp_path / "out", {"llms.txt": b"a\n", "llms-full.txt": b"b\n"}
    ).written
    assert [p.name for p in written] == ["llms.txt", "llms-full.txt"]
    assert (tmp_path / "out/llms-full.txt").read_bytes() == b"b\n"


def test_cli_export_of_an_invalid_library_keeps_the_previous_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = tmp_path / "rules"
    shutil.copytree(VALID, rules)
    out = tmp_path / "rules.json"
    assert main(["export", "--format", "json", "--rules", str(rules), "-o", str(out)]) == 0
    before = out.read_bytes()
    broken = (rules / "R02.yaml").read_text().replace("Impact 02.", "TODO")
    (rules / "R02.yaml").write_text(broken)
    capsys.readouterr()
    assert main(["export", "--format", "json", "--rules", str(rules), "-o", str(out)]) == 1
    assert "R02.yaml" in capsys.readouterr().err
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rules", "rules.json"]
