"""Where the engine's code lives: the wheel, installed offline into a fresh virtual environment,
runs in another Git repository with the library inside the package; and the pre-commit hook,
run by the real ``pre-commit try-repo`` against this checkout.

Offline: pip reads only the folder :mod:`wheelhouse` fills (this checkout's wheel and its
requirements repacked from this environment), with no index, no configuration files and every
proxy closed.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import shlex
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from wheelhouse import ROOT, build_wheel, make_wheelhouse, offline_environment

from rlt_rules import load_library
from rlt_rules.facts import mcp_names
from rlt_rules.library.bundle import render

RUNNER_BEFORE = textwrap.dedent(
    """\
    class Runner:
        def __init__(self, cache):
            self.cache = cache

        def step(self):
            self.cache.clear()
    """
)
#: Line 6 guards on an attribute __init__ always sets: R10's detector points at it.
RUNNER_AFTER = RUNNER_BEFORE.replace(
    "        self.cache.clear()\n",
    '        if hasattr(self, "cache"):\n            self.cache.clear()\n',
)
CLEAN = "def add(a: int, b: int) -> int:\n    return a + b\n"
ANSWER = textwrap.dedent(
    """\
    library_version: 1.0.0
    findings:
      - rule: R10
        location:
          path: engine/runner.py
          start_line: 6
          end_line: 7
        trigger: |-
          `step()` guards on `hasattr(self, "cache")`, which `__init__` always sets.
        impact: |-
          A runner built without a cache skips the clear silently instead of failing.
        correction: |-
          Call `self.cache.clear()` directly and make tests supply a cache.
    """
)


def git(repo: Path, *args: str) -> str:
    result = subprocess.run(
        ["git", "-c", "user.name=Test", "-c", "user.email=test@example.org", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_wheelhouse(tmp_path_factory.mktemp("wheels"))


@pytest.fixture(scope="module")
def venv(wheels: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with rlt-rules installed from the wheel, offline."""
    folder = tmp_path_factory.mktemp("venv") / "env"
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True, timeout=120)
    pip = [str(folder / "bin" / "python"), "-m", "pip", "install", "--quiet", "rlt-rules"]
    result = subprocess.run(
        pip, env=offline_environment(wheels), capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return folder


@pytest.fixture
def engine_repo(tmp_path: Path) -> Path:
    """A Git repository outside the checkout with two commits: the second adds a hint."""
    repo = tmp_path / "engine-repo"
    (repo / "engine").mkdir(parents=True)
    git(repo, "init", "-q")
    (repo / "engine" / "runner.py").write_text(RUNNER_BEFORE, encoding="utf-8")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "runner")
    (repo / "engine" / "runner.py").write_text(RUNNER_AFTER, encoding="utf-8")
    git(repo, "commit", "-qam", "guard")
    (repo / "change.diff").write_text(git(repo, "diff", "HEAD~1"), encoding="utf-8")
    return repo


def installed_env(venv: Path) -> dict[str, str]:
    """This environment with the installed venv's ``bin`` first, and nothing that points the
    installed package back at this checkout (``VIRTUAL_ENV``, ``PYTHONPATH``)."""
    hidden = {"VIRTUAL_ENV", "PYTHONPATH"}
    env = {key: value for key, value in os.environ.items() if key not in hidden}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return env


def run_installed(venv: Path, repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = installed_env(venv)
    return subprocess.run(
        [str(venv / "bin" / "rlt-rules"), *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_the_wheel_carries_the_library_it_was_built_from(wheels: Path) -> None:
    (wheel,) = wheels.glob("rlt_rules-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        bundle = archive.read("rlt_rules/library/rules.json")
    assert bundle == render(load_library(ROOT / "rules"))
    assert {"rlt_rules/schema/rule.schema.json", "rlt_rules/library/mkdocs.yml"} <= names


def test_a_wheel_of_an_invalid_library_is_not_built(tmp_path: Path) -> None:
    """The build hook checks the library: the build fails with the problem at its position."""
    source = tmp_path / "source"
    shutil.copytree(
        ROOT,
        source,
        ignore=shutil.ignore_patterns(".venv", ".git", "build", "node_modules", "__pycache__"),
    )
    rule = source / "rules" / "R03.yaml"
    rule.write_text(
        rule.read_text(encoding="utf-8").replace("status: active", "status: no"),
        encoding="utf-8",
    )
    with pytest.raises(RuntimeError) as failed:
        build_wheel(source, tmp_path / "out")
    assert "the library is invalid; the wheel is not built" in str(failed.value)
    assert "R03.yaml:" in str(failed.value)


def test_the_installed_wheel_works_in_another_repository(venv: Path, engine_repo: Path) -> None:
    version = run_installed(venv, engine_repo, "--version")
    site = venv / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    bundle = site / "rlt_rules" / "library" / "rules.json"
    assert version.stdout.splitlines() == [
        "rlt-rules 0.1.0",
        f"library: Rlt Refactor 1.0.0, from the library inside the rlt-rules package ({bundle})",
    ]

    scan = run_installed(venv, engine_repo, "scan", "engine")
    assert scan.returncode == 1
    assert scan.stdout.startswith("engine/runner.py:6:12: R10 Guards on an attribute of self")

    show = run_installed(venv, engine_repo, "show", "R03")
    assert show.returncode == 0 and show.stdout.startswith("R03 — ")

    context = run_installed(venv, engine_repo, "review-context", "--diff", "change.diff")
    assert context.returncode == 0, context.stderr
    assert (
        f"Library: Rlt Refactor 1.0.0, from the library inside the rlt-rules package ({bundle})."
        in context.stdout
    )
    assert "- R10 `engine/runner.py:6`: Guards on an attribute of self" in context.stdout
    check = "rlt-rules findings check ANSWER.yaml --repo . --diff change.diff"
    assert f"`{check}`" in context.stdout

    (engine_repo / "ANSWER.yaml").write_text(ANSWER, encoding="utf-8")
    checked = run_installed(venv, engine_repo, *shlex.split(check)[1:])
    assert (checked.returncode, checked.stdout) == (0, "ok: 1 finding(s), 0 warning(s)\n")


def test_the_check_command_in_the_context_carries_a_library_named_on_the_command_line(
    venv: Path, engine_repo: Path
) -> None:
    """With --rules the check command the document prints names the same library, and runs."""
    exported = run_installed(venv, engine_repo, "export", "--format", "json", "-o", "lib.json")
    assert exported.returncode == 0, exported.stderr
    (engine_repo / "rules").mkdir()  # a rules/ folder without library.yaml is not a library
    context = run_installed(
        venv, engine_repo, "review-context", "--rules", "lib.json", "--diff", "change.diff"
    )
    assert "Library: Rlt Refactor 1.0.0, from bundle lib.json (--rules)." in context.stdout
    check = "rlt-rules findings check ANSWER.yaml --rules lib.json --repo . --diff change.diff"
    assert f"`{check}`" in context.stdout
    (engine_repo / "ANSWER.yaml").write_text(ANSWER, encoding="utf-8")
    checked = run_installed(venv, engine_repo, *shlex.split(check)[1:])
    assert checked.returncode == 0, checked.stderr


def test_the_installed_wheel_reads_the_repositorys_configuration(
    venv: Path, engine_repo: Path
) -> None:
    pyproject = engine_repo / "pyproject.toml"
    pyproject.write_text('[tool.rlt-rules]\nignore = ["R10"]\n', encoding="utf-8")
    scan = run_installed(venv, engine_repo, "scan", "engine")
    assert (scan.returncode, scan.stdout) == (0, "")
    pyproject.write_text('[project]\nname = "engine"\n\n[tool.rlt-rules]\nselekt = ["R10"]\n')
    scan = run_installed(venv, engine_repo, "scan", "engine")
    assert scan.returncode == 2
    assert "pyproject.toml:5:1: unknown key 'selekt'" in scan.stderr


# --- pre-commit ------------------------------------------------------------------------------


def pre_commit(repo: Path, wheels: Path, home: Path) -> subprocess.CompletedProcess[str]:
    """``pre-commit try-repo`` of this checkout's ``rlt-rules-scan`` on ``repo``'s staged files."""
    env = offline_environment(wheels)
    env.pop("PYTHONPATH", None)  # the hook's own environment, not this checkout, runs
    env["PRE_COMMIT_HOME"] = str(home)
    return subprocess.run(
        [str(Path(sys.executable).parent / "pre-commit"), "try-repo", str(ROOT), "rlt-rules-scan"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )


def test_the_pre_commit_hook_fails_on_a_hint_and_passes_clean_code(
    wheels: Path, tmp_path: Path
) -> None:
    hooks = git(ROOT, "ls-files", ".pre-commit-hooks.yaml")
    if not hooks.strip():
        pytest.fail(".pre-commit-hooks.yaml is not committed: pre-commit reads the committed tree")
    repo = tmp_path / "repo"
    (repo / "engine").mkdir(parents=True)
    git(repo, "init", "-q")
    (repo / "engine" / "runner.py").write_text(RUNNER_AFTER, encoding="utf-8")
    (repo / "notes.txt").write_text('hasattr(self, "cache")\n', encoding="utf-8")
    git(repo, "add", ".")
    failed = pre_commit(repo, wheels, tmp_path / "home")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "rlt-rules scan" in failed.stdout and "Failed" in failed.stdout
    assert "engine/runner.py:6:12: R10 Guards on an attribute of self" in failed.stdout
    assert "notes.txt" not in failed.stdout  # types_or: [python, pyi]

    (repo / "engine" / "runner.py").write_text(CLEAN, encoding="utf-8")
    git(repo, "add", ".")
    passed = pre_commit(repo, wheels, tmp_path / "home")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "rlt-rules scan" in passed.stdout and "Passed" in passed.stdout


#: Staged names a hook that passes file names as options would read as options: ``-o`` would
#: overwrite ``important.py``, ``-rf`` and ``--help`` would end the run, ``--rules=`` would read
#: the library from ``X.py``.
OPTION_NAMES = ("-oimportant.py", "-rf.py", "--help.py", "--rules=X.py")


def test_the_pre_commit_hook_takes_no_option_from_a_file_name(wheels: Path, tmp_path: Path) -> None:
    """Every staged name is a file to scan, whatever it starts with; stubs are scanned too."""
    repo = tmp_path / "repo"
    (repo / "engine").mkdir(parents=True)
    git(repo, "init", "-q")
    for name in OPTION_NAMES:
        (repo / name).write_text(RUNNER_AFTER, encoding="utf-8")
    (repo / "important.py").write_text(CLEAN, encoding="utf-8")
    (repo / "X.py").write_text("library: not one\n", encoding="utf-8")
    (repo / "engine" / "runner.pyi").write_text(RUNNER_AFTER, encoding="utf-8")
    git(repo, "add", ".")
    result = pre_commit(repo, wheels, tmp_path / "home")
    output = result.stdout + result.stderr
    assert result.returncode == 1 and "- exit code: 1\n" in result.stdout, output
    assert "usage:" not in output and "error:" not in output, output
    for name in (*OPTION_NAMES, "engine/runner.pyi"):
        assert f"\n{name}:6:12: R10 Guards on an attribute of self" in result.stdout, output
    assert (repo / "important.py").read_text(encoding="utf-8") == CLEAN


async def _installed_server(venv: Path, repo: Path) -> tuple[list[str], str, str]:
    """Tool names, R03's statement and the review context, from the installed server."""
    env = installed_env(venv)
    params = StdioServerParameters(
        command=str(venv / "bin" / "rlt-rules"), args=["mcp"], cwd=str(repo), env=env
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = sorted(tool.name for tool in (await session.list_tools()).tools)
        rule = await session.call_tool(mcp_names.GET_RULE, {"rule_id": "R03"})
        diff = (repo / "change.diff").read_text(encoding="utf-8")
        context = await session.call_tool(mcp_names.REVIEW_CONTEXT, {"diff": diff})
    assert not rule.is_error and not context.is_error
    return tools, rule.content[0].text, context.content[0].text


def test_the_installed_mcp_server_serves_the_packaged_library(
    venv: Path, engine_repo: Path
) -> None:
    """`rlt-rules mcp` from the installed wheel, started in another repository with no
    `--rules`, serves the library inside the package, through the SDK's own client."""
    # In a thread of its own: a browser test may leave an event loop running in this one.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        tools, rule, context = pool.submit(
            asyncio.run, _installed_server(venv, engine_repo)
        ).result()
    assert mcp_names.CHECK_FINDINGS in tools and mcp_names.SCAN_CODE in tools
    assert "R03" in rule
    assert "Library: Rlt Refactor 1.0.0, from the library inside the rlt-rules package" in context
    assert "engine/runner.py" in context
