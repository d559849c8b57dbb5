"""A build or an export killed with SIGKILL leaves the previous output intact.

Real processes, really killed, each paused at a chosen step until the kill (no timing
guesses): ``rlt-rules site build`` on a 300-rule library as MkDocs, in its process, opens the
new site's 20th page; ``rlt-rules export`` at a chosen step of the write (a patched
``os.fsync`` or ``os.replace``).
What "intact" means:

* the site folder, and a single exported file, are byte for byte the previous ones;
* a folder export (llms: two files; skill) is one set: killed while writing, every old file is
  as it was; killed during its commit (the final renames), each file is complete and the next
  write into that folder finishes the commit before anything else, so no mix stays behind;
* what the killed process left (staging folders, temporary files) does not break the next run,
  which removes it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from rlt_rules import load_library
from rlt_rules.export import render
from rlt_rules.files.owned import MANIFEST
from rlt_rules.site.site_folder import record_site

pytest.register_assert_rewrite("site_fixtures")
pytest_plugins = ["site_fixtures"]

from site_fixtures import FIXTURE_RULES, ROOT, run_cli  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
from synth import write_library  # noqa: E402

VALID = ROOT / "tests" / "fixtures" / "valid"


def tree_digest(root: Path) -> str:
    """One hash over every path and file content under ``root``."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        digest.update(str(path.relative_to(root)).encode() + b"\0")
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


def wait_for[T](probe: Callable[[], T | None], timeout: float, what: str) -> T:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = probe()
        if found:
            return found
        time.sleep(0.02)
    pytest.fail(f"timed out after {timeout} s waiting for {what}")


def cli_env() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "RLT_RULES_DIR"}
    env["NO_MKDOCS_2_WARNING"] = "1"
    return env


def dead_pid() -> int:
    """The id of a process that has exited."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def leftovers(directory: Path) -> list[str]:
    """Hidden entries a write left behind (the folder's manifest is a record, not a leftover)."""
    return sorted(
        path.name
        for path in directory.iterdir()
        if path.name.startswith(".") and path.name != MANIFEST
    )


# --- site build ------------------------------------------------------------------------------


#: Runs ``rlt-rules ARGUMENTS`` with MkDocs pausing (marker written, then sleeping) as it opens
#: the 20th page of the new site for writing: killed there, the build is mid-write, always.
PAUSING_SITE_BUILD = """
import builtins, os, sys, time
from pathlib import Path

marker = Path(sys.argv[1])
real_open = builtins.open
pages = 0

def pausing_open(file, mode="r", *args, **kwargs):
    global pages
    name = str(file)
    if "w" in mode and ".building-" in name and name.endswith("index.html"):
        pages += 1
        if pages == 20:
            marker.write_text(str(os.getpid()))
            time.sleep(600)
    return real_open(file, mode, *args, **kwargs)

builtins.open = pausing_open
from rlt_rules.cli import main
sys.exit(main(sys.argv[2:]))
"""


def test_killed_site_build_leaves_the_previous_site(tmp_path: Path) -> None:
    rules = write_library(tmp_path / "rules", 300)
    out = tmp_path / "out"
    first = run_cli("site", "build", "--rules", str(rules), "--site-dir", str(out))
    assert first.returncode == 0, first.stdout + first.stderr
    before = tree_digest(out)

    marker = tmp_path / "paused"
    arguments = ["site", "build", "--rules", str(rules), "--site-dir", str(out)]
    build = subprocess.Popen(
        [sys.executable, "-c", PAUSING_SITE_BUILD, str(marker), *arguments],
        env=cli_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for(lambda: marker.exists() or build.poll() is not None, 600, "MkDocs mid-write")
        assert build.poll() is None, build.stderr.read().decode() if build.stderr else ""
        build.send_signal(signal.SIGKILL)
    finally:
        build.wait()
        if build.stderr:
            build.stderr.close()
    assert build.returncode == -signal.SIGKILL
    staging = [path for path in tmp_path.glob(".out.building-*") if any(path.iterdir())]

    assert tree_digest(out) == before
    assert len(staging) == 1, "the killed build could not remove its staging folder"

    # The next build works and removes what the killed one left.
    again = run_cli("site", "build", "--rules", str(FIXTURE_RULES), "--site-dir", str(out))
    assert again.returncode == 0, again.stdout + again.stderr
    assert (out / "rules" / "R04" / "index.html").is_file()
    assert leftovers(tmp_path) == []


def test_site_set_aside_by_a_killed_swap_is_put_back(tmp_path: Path) -> None:
    """Killed between the swap's two renames, a build leaves no site: the next run restores it,
    even when that run fails; a staging folder of a build still running is left alone."""
    out = tmp_path / "out"
    retired = tmp_path / f".out.old-{dead_pid()}-abc123" / "out"
    retired.mkdir(parents=True)
    (retired / "index.html").write_text("previous site", encoding="utf-8")
    record_site(retired)  # a site rlt-rules built, which the next build may replace
    running = tmp_path / f".out.building-{os.getpid()}-def456"
    running.mkdir()
    rules = tmp_path / "rules"
    shutil.copytree(FIXTURE_RULES, rules)
    (rules / "R04.yaml").write_text("id: R04\n", encoding="utf-8")  # invalid: the build fails

    result = run_cli("site", "build", "--rules", str(rules), "--site-dir", str(out))
    assert result.returncode == 1
    assert (out / "index.html").read_text(encoding="utf-8") == "previous site"
    assert leftovers(tmp_path) == [running.name]


# --- exports ---------------------------------------------------------------------------------

#: Runs ``rlt-rules`` with ``os.<step>`` pausing (marker written, then sleeping) on call N.
PAUSING_CHILD = """
import os, sys, time
from pathlib import Path

step, call, marker = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
real = getattr(os, step)
calls = 0

def pausing(*args, **kwargs):
    global calls
    calls += 1
    if calls == call:
        marker.write_text(str(os.getpid()))
        time.sleep(600)
    return real(*args, **kwargs)

setattr(os, step, pausing)
from rlt_rules.cli import main
sys.exit(main(sys.argv[4:]))
"""


def export_killed_at(step: str, call: int, arguments: list[str], tmp_path: Path) -> None:
    """Run ``rlt-rules ARGUMENTS``, paused at the ``call``-th ``os.<step>``, then SIGKILL it."""
    marker = tmp_path / "paused"
    child = subprocess.Popen(
        [sys.executable, "-c", PAUSING_CHILD, step, str(call), str(marker), *arguments],
        env=cli_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for(lambda: marker.exists() or child.poll() is not None, 300, f"os.{step} #{call}")
        assert child.poll() is None, child.stderr.read().decode() if child.stderr else ""
        child.send_signal(signal.SIGKILL)
    finally:
        child.wait()
        if child.stderr:
            child.stderr.close()
    assert child.returncode == -signal.SIGKILL
    marker.unlink()


@pytest.fixture
def two_libraries(tmp_path: Path) -> tuple[Path, Path]:
    """The valid fixture (the previous export) and an edited copy (the interrupted one)."""
    edited = tmp_path / "edited"
    shutil.copytree(VALID, edited)
    library_file = edited / "library.yaml"
    text = library_file.read_text(encoding="utf-8")
    library_file.write_text(text.replace("Fixture Library", "Edited Library"), encoding="utf-8")
    return VALID, edited


def expected(format_name: str, rules: Path) -> dict[str, bytes]:
    return render(format_name, load_library(rules), None)


def test_killed_file_export_leaves_the_previous_file(
    tmp_path: Path, two_libraries: tuple[Path, Path]
) -> None:
    old, new = two_libraries
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    target = out_dir / "rules.json"
    arguments = ["export", "--format", "json", "-o", str(target)]
    assert run_cli(*arguments, "--rules", str(old)).returncode == 0
    previous = target.read_bytes()

    for step in ("fsync", "replace"):  # the new bytes written; then complete, not yet renamed
        export_killed_at(step, 1, [*arguments, "--rules", str(new)], tmp_path)
        assert target.read_bytes() == previous
        assert [name for name in leftovers(out_dir) if name.endswith(".tmp")], step

    result = run_cli(*arguments, "--rules", str(new))
    assert result.returncode == 0, result.stderr
    assert target.read_bytes() == expected("json", new)["rules.json"] != previous
    assert leftovers(out_dir) == []


@pytest.mark.parametrize("format_name", ["llms", "skill"])
def test_killed_folder_export_while_writing_leaves_every_old_file(
    tmp_path: Path, two_libraries: tuple[Path, Path], format_name: str
) -> None:
    old, new = two_libraries
    out_dir = tmp_path / "out"
    arguments = ["export", "--format", format_name, "-o", str(out_dir)]
    assert run_cli(*arguments, "--rules", str(old)).returncode == 0
    previous = tree_digest(out_dir)

    # Paused once the first new file is written in full: the last fsync before the renames.
    last_file = len(expected(format_name, new))
    for call in sorted({1, last_file}):
        export_killed_at("fsync", call, [*arguments, "--rules", str(new)], tmp_path)
        staged = [path for path in out_dir.iterdir() if path.name.startswith(".rlt-export.")]
        assert len(staged) == 1 and any(staged[0].iterdir()), "the new files were being written"
        shutil.rmtree(staged[0])  # (only to compare the folder: the next run would remove it)
        assert tree_digest(out_dir) == previous

    export_killed_at("fsync", 1, [*arguments, "--rules", str(new)], tmp_path)
    result = run_cli(*arguments, "--rules", str(new))
    assert result.returncode == 0, result.stderr
    for name, data in expected(format_name, new).items():
        assert (out_dir / name).read_bytes() == data
    assert leftovers(out_dir) == []


def test_folder_export_killed_during_its_commit_is_finished_by_the_next_write(
    tmp_path: Path, two_libraries: tuple[Path, Path]
) -> None:
    """Killed between the renames of llms.txt and llms-full.txt: the next export into the
    folder (here another format) completes that set before writing its own."""
    old, new = two_libraries
    out_dir = tmp_path / "out"
    arguments = ["export", "--format", "llms", "-o", str(out_dir)]
    assert run_cli(*arguments, "--rules", str(old)).returncode == 0
    before = {name: (out_dir / name).read_bytes() for name in expected("llms", old)}
    after = expected("llms", new)
    assert all(before[name] != after[name] for name in after)

    export_killed_at("replace", 2, [*arguments, "--rules", str(new)], tmp_path)
    now = {name: (out_dir / name).read_bytes() for name in after}
    assert sorted(name for name in now if now[name] == after[name]) == ["llms-full.txt"]
    assert sorted(name for name in now if now[name] == before[name]) == ["llms.txt"]

    skill = run_cli("export", "--format", "skill", "-o", str(out_dir), "--rules", str(old))
    assert skill.returncode == 0, skill.stderr
    for name, data in after.items():
        assert (out_dir / name).read_bytes() == data, name
    assert leftovers(out_dir) == []


def test_a_killed_commit_finished_later_keeps_a_file_written_in_between(
    tmp_path: Path, two_libraries: tuple[Path, Path]
) -> None:
    """The reviewers' tree killed after its second rename; someone then writes AGENTS.md by
    hand; the next export into the folder (another format) finishes the killed set but keeps
    that AGENTS.md, and says so."""
    _, new = two_libraries
    out_dir = tmp_path / "repo"
    out_dir.mkdir()
    arguments = ["export", "--format", "reviewers", "-o", str(out_dir), "--rules", str(new)]
    export_killed_at("replace", 2, arguments, tmp_path)
    assert not (out_dir / "AGENTS.md").exists(), "AGENTS.md is renamed after the dot-folders"
    (out_dir / "AGENTS.md").write_text("# Ours, written by hand\n", encoding="utf-8")

    result = run_cli("export", "--format", "llms", "-o", str(out_dir), "--rules", str(new))
    assert result.returncode == 0, result.stderr
    assert (out_dir / "AGENTS.md").read_text(encoding="utf-8") == "# Ours, written by hand\n"
    assert f"kept {out_dir / 'AGENTS.md'}" in result.stderr
    finished = expected("reviewers", new)
    for name, data in finished.items():
        if name != "AGENTS.md":
            assert (out_dir / name).read_bytes() == data, name
    tops = {name.split("/", 1)[0] for name in finished if name.startswith(".")}
    assert leftovers(out_dir) == sorted(tops)  # the tree's own folders, no staging left
