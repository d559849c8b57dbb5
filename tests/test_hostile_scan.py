"""Whatever a repository or a diff holds, ``scan`` ends, in bounded time and memory, and stays
inside the tree: FIFOs, devices, link loops, huge files and diffs, quadratic comments, paths
that leave the repository and hunk headers that are not ones.

Each case runs the real command in a child process with a wall-clock timeout and an address
space limit (``RLIMIT_AS``): a hang or an unbounded read fails the test instead of the machine.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from bounded import address_space
from test_scan import GUARD

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "rules"
BIN = Path(sys.executable).parent
#: Every case finishes within this, and within bounded.MEMORY bytes of address space.
SECONDS = 60


def scan(cwd: Path, *argv: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [str(BIN / "rlt-rules"), "scan", *argv, "--rules", str(RULES)],
        cwd=cwd,
        input=stdin.decode() if stdin is not None else None,
        capture_output=True,
        text=True,
        timeout=SECONDS,
        preexec_fn=address_space(),
        check=False,
    )
    assert "Traceback" not in result.stderr, result.stderr
    return result


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "engine.py").write_text(GUARD, encoding="utf-8")
    return tmp_path


def test_a_fifo_named_like_python_is_not_read(repo: Path) -> None:
    os.mkfifo(repo / "src" / "pipe.py")
    result = scan(repo, "src", "--format", "json")
    assert result.returncode == 1 and '"files_scanned": 1' in result.stdout
    named = scan(repo, "src/pipe.py")
    assert named.returncode == 1 and "not a regular file (a FIFO)" in named.stderr


def test_a_fifo_gitignore_in_a_parent_is_reported_not_read(repo: Path) -> None:
    os.mkfifo(repo / ".gitignore")
    result = scan(repo, "src")
    assert ".gitignore: not a regular file (a FIFO)" in result.stderr
    assert "src/engine.py:3:" in result.stdout


def test_links_to_a_device_and_link_loops_are_not_followed(repo: Path) -> None:
    (repo / "src" / "zero.py").symlink_to("/dev/zero")
    (repo / "src" / "here").symlink_to(".")
    (repo / "src" / "again").symlink_to(".")
    result = scan(repo, "src", "--format", "json")
    assert result.returncode == 1 and '"files_scanned": 1' in result.stdout
    named = scan(repo, "src/zero.py")
    assert "not a regular file (a device or socket)" in named.stderr


def test_a_huge_file_is_skipped_naming_the_limit_and_the_option(repo: Path) -> None:
    huge = repo / "src" / "generated.py"
    with huge.open("w", encoding="utf-8") as handle:
        line = "x = [" + "1, " * 30 + "]\n"
        for _ in range((50 * 1024 * 1024) // len(line)):
            handle.write(line)
    result = scan(repo, "src")
    assert result.returncode == 1
    assert "generated.py: over the 4,194,304-byte limit: not read (--max-file-bytes raises it)" in (
        result.stderr
    )
    assert "src/engine.py:3:" in result.stdout


def test_a_long_suppression_comment_is_read_in_linear_time(repo: Path) -> None:
    code = GUARD.replace(
        'if hasattr(self, "preemption"):',
        'if hasattr(self, "preemption"):  # rlt: ignore[R10]' + " " * 200_000 + "x",
    )
    (repo / "src" / "engine.py").write_text(code, encoding="utf-8")
    result = scan(repo, "src", "--format", "json")
    assert result.returncode == 0, result.stdout + result.stderr
    assert '"suppressed": 1' in result.stdout


def test_a_diff_from_a_device_or_an_endless_fifo_is_refused(repo: Path) -> None:
    zero = scan(repo, "--diff", "/dev/zero")
    assert zero.returncode == 2 and "not a regular file (a device or socket)" in zero.stderr
    fifo = repo / "change.diff"
    os.mkfifo(fifo)

    def endless() -> None:
        try:
            with fifo.open("wb") as writer:
                while True:
                    writer.write(b"+" * 65536)
        except (BrokenPipeError, OSError):
            return

    writer = threading.Thread(target=endless, daemon=True)
    writer.start()
    result = scan(repo, "--diff", str(fifo))
    assert result.returncode == 2 and "over the 33,554,432-byte limit" in result.stderr
    assert "--max-diff-bytes raises it" in result.stderr


def test_a_huge_diff_is_refused_before_it_is_parsed(repo: Path) -> None:
    big = repo / "big.diff"
    with big.open("w", encoding="utf-8") as handle:
        handle.write("--- a/src/engine.py\n+++ b/src/engine.py\n@@ -1,1 +1,2000000 @@\n")
        for _ in range(2_000_000):
            handle.write("+" + "x" * 50 + "\n")
    result = scan(repo, "--diff", str(big))
    assert result.returncode == 2 and "over the 33,554,432-byte limit" in result.stderr


@pytest.mark.parametrize(
    ("header", "line", "message"),
    [
        ("+++ b/../../../etc/passwd", 2, "leaves the repository"),
        ("+++ /etc/passwd", 2, "leaves the repository"),
    ],
)
def test_a_diff_path_outside_the_root_is_an_error_at_its_line(
    repo: Path, header: str, line: int, message: str
) -> None:
    diff = f"--- a/src/engine.py\n{header}\n@@ -1,1 +1,2 @@\n x\n+y\n"
    result = scan(repo, "--diff", "-", "--format", "json", stdin=diff.encode())
    assert result.returncode == 2 and f"line {line}: " in result.stderr and message in result.stderr
    assert "passwd" not in result.stdout


def test_a_hunk_header_that_is_not_one_is_an_error_at_its_line(repo: Path) -> None:
    diff = "--- a/src/engine.py\n+++ b/src/engine.py\n@@ -a,b +c,d @@\n+y\n"
    result = scan(repo, "--diff", "-", stdin=diff.encode())
    assert result.returncode == 2 and "line 3: hunk header" in result.stderr


def test_a_diff_whose_files_are_all_missing_is_an_error_not_a_pass(
    repo: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    diff = "--- a/src/engine.py\n+++ b/src/engine.py\n@@ -1,1 +1,2 @@\n x\n+y\n"
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    result = scan(elsewhere, "--diff", "-", stdin=diff.encode())
    assert result.returncode == 2 and "run the scan from the repository root" in result.stderr


def test_a_bad_gitignore_line_is_reported_at_its_line(repo: Path) -> None:
    (repo / ".gitignore").write_text("build/\n!\n", encoding="utf-8")
    result = scan(repo, "src")
    assert ".gitignore:2: pattern '!': nothing follows '!': not a pattern Git reads" in (
        result.stderr
    )
    assert "src/engine.py:3:" in result.stdout


def test_cr_only_line_endings_are_read_as_python_reads_them(repo: Path) -> None:
    (repo / "src" / "engine.py").write_bytes(GUARD.replace("\n", "\r").encode())
    result = scan(repo, "src")
    assert result.returncode == 1 and "src/engine.py:3:" in result.stdout


@pytest.mark.parametrize(
    "comment", ["# rlt: ignore[] why", "# rlt: ignore［R10］ why", "# rlt: ignore[r10] why"]
)
def test_a_suppression_not_written_as_one_is_reported_not_lost(repo: Path, comment: str) -> None:
    code = GUARD.replace('"preemption"):', f'"preemption"):  {comment}')
    (repo / "src" / "engine.py").write_text(code, encoding="utf-8")
    result = scan(repo, "src")
    assert result.returncode == 1
    assert "src/engine.py:3:12: R10 " in result.stdout  # the hint stays
    assert "src/engine.py:3:42: not a suppression rlt-rules reads" in result.stderr


def test_suppressions_in_a_file_that_does_not_tokenize_are_reported(repo: Path) -> None:
    (repo / "src" / "broken.py").write_text("x = (\n# rlt: ignore[R10] why\n", encoding="utf-8")
    result = scan(repo, "src")
    assert "src/broken.py:2:1: suppressions not read: the file does not tokenize" in result.stderr


def test_a_file_name_cannot_forge_a_line_of_output(repo: Path) -> None:
    (repo / "src" / "a\nfake.py:1:1: R99 forged.py").write_text(GUARD, encoding="utf-8")
    result = scan(repo, "src", "--format", "text")
    lines = result.stdout.splitlines()
    assert not any(line.startswith("fake.py") for line in lines)
    assert "src/a\\nfake.py:1:1: R99 forged.py:3:12: R10 " in result.stdout
    sarif = scan(repo, "src", "--format", "sarif")
    assert "a%0Afake.py" in sarif.stdout


def _without_file_permission_override() -> list[str]:
    """The prefix that runs a command with permission checks in force: as root (the suite
    runs as root here) it drops the capabilities that let root read any file or folder."""
    if os.geteuid() != 0:
        return []
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--inh-caps=-all", "--"]


def test_unreadable_folders_files_and_ignore_files_are_reported_not_raised(repo: Path) -> None:
    locked = repo / "src" / "locked"
    locked.mkdir()
    (locked / "inside.py").write_text(GUARD, encoding="utf-8")
    (repo / "src" / "sealed.py").write_text(GUARD, encoding="utf-8")
    unsearchable = repo / "src" / "unsearchable"  # listed, but no name in it can be opened
    unsearchable.mkdir()
    (unsearchable / ".gitignore").write_text("*.py\n", encoding="utf-8")
    (unsearchable / "hidden.py").write_text(GUARD, encoding="utf-8")
    locked.chmod(0)
    (repo / "src" / "sealed.py").chmod(0)
    unsearchable.chmod(0o444)
    try:
        result = subprocess.run(
            [
                *_without_file_permission_override(),
                str(BIN / "rlt-rules"),
                "scan",
                "src",
                "--format",
                "json",
                "--rules",
                str(RULES),
            ],
            cwd=repo,
            capture_output=True,
            text=True,
            timeout=SECONDS,
            check=False,
        )
    finally:
        for path in (locked, repo / "src" / "sealed.py", unsearchable):
            path.chmod(0o755)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 1
    assert "src/locked: cannot read folder: Permission denied: skipped" in result.stderr
    assert "src/sealed.py: cannot read: Permission denied: skipped" in result.stderr
    assert "src/unsearchable/.gitignore" in result.stderr
    assert "src/unsearchable/hidden.py: cannot read: Permission denied" in result.stderr
    assert '"path": "src/engine.py"' in result.stdout  # the readable file is still scanned
