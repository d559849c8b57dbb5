"""The CI page (``site/ci.md``), run as written: its GitHub Actions step and its GitLab job's
script, on a temporary repository whose pull request (two commits) adds one hint, print what
the page says and write the SARIF it describes.

The ``pip install`` lines are not run: this environment has rlt-rules already, and
``tests/test_install.py`` installs the wheel in a fresh environment.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "site" / "ci.md"
SITE_URL = "https://rlt-rules.example/1.0.0/"
RUNNER = textwrap.dedent(
    """\
    class Runner:
        def __init__(self, cache):
            self.cache = cache

        def step(self):
            self.cache.clear()
    """
)


def git(repo: Path, *args: str) -> str:
    command = ["git", "-c", "user.name=Test", "-c", "user.email=test@example.org", *args]
    return subprocess.run(command, cwd=repo, capture_output=True, text=True, check=True).stdout


def blocks(language: str) -> list[str]:
    page = PAGE.read_text(encoding="utf-8")
    return re.findall(rf"^```{language}\n(.*?)^```", page, re.S | re.M)


@pytest.fixture
def pull_request(tmp_path: Path) -> Path:
    """``main`` with the runner, then a branch whose second commit adds a hasattr guard;
    ``origin/main`` is where the branch started, with one more commit on it since."""
    repo = tmp_path / "engine"
    (repo / "engine").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / "pyproject.toml").write_text(
        f'[tool.rlt-rules]\nsite-url = "{SITE_URL}"\n', encoding="utf-8"
    )
    (repo / "engine" / "runner.py").write_text(RUNNER, encoding="utf-8")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "runner")
    git(repo, "checkout", "-qb", "feature")
    guarded = RUNNER.replace(
        "        self.cache.clear()\n",
        '        if hasattr(self, "cache"):\n            self.cache.clear()\n',
    )
    (repo / "engine" / "runner.py").write_text(guarded, encoding="utf-8")
    git(repo, "commit", "-qam", "guard the cache")
    git(repo, "checkout", "-q", "main")
    (repo / "README").write_text("landed on main meanwhile\n", encoding="utf-8")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "other work")
    git(repo, "update-ref", "refs/remotes/origin/main", "main")
    git(repo, "checkout", "-q", "feature")
    return repo


def run_script(script: str, repo: Path, **variables: str) -> subprocess.CompletedProcess[str]:
    """``script`` as the CI runs it (bash, stopping at the first failing command), with this
    environment's rlt-rules first on PATH; stderr and stdout in one log, as a job's."""
    env = {**os.environ, **variables}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    lines = [line for line in script.splitlines() if not line.startswith("pip install")]
    return subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", "\n".join(lines)],
        cwd=repo,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        check=False,
        timeout=300,
    )


def expected_log() -> str:
    (log,) = [block for block in blocks("text") if block.startswith("rlt-rules scan:")]
    return log


def check_sarif(path: Path) -> None:
    log = json.loads(path.read_text(encoding="utf-8"))
    assert log["version"] == "2.1.0"
    (run,) = log["runs"]
    (result,) = run["results"]
    assert result["ruleId"].startswith("R10-")  # one descriptor per detector
    assert result["ruleId"] in {rule["id"] for rule in run["tool"]["driver"]["rules"]}
    region = result["locations"][0]["physicalLocation"]["region"]
    uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert (uri, region["startLine"]) == ("engine/runner.py", 6)


def test_the_github_actions_step_runs_as_the_page_says(pull_request: Path) -> None:
    (workflow,) = [yaml.safe_load(block) for block in blocks("yaml") if "runs-on" in block]
    steps = workflow["jobs"]["hints"]["steps"]
    (step,) = [step for step in steps if step.get("name", "").startswith("Hints")]
    assert workflow[True] == "pull_request"  # YAML 1.1 reads the key `on` as true
    script = step["run"].replace("${{ github.base_ref }}", "main")
    result = run_script(script, pull_request)
    assert result.returncode == 0, result.stdout
    assert result.stdout == expected_log()
    check_sarif(pull_request / "rlt-rules.sarif")
    (upload,) = [step for step in steps if "upload-sarif" in step.get("uses", "")]
    assert upload["with"]["sarif_file"] == "rlt-rules.sarif"
    # Against the merge base: main's later commit is not part of the change.
    assert "README" not in (pull_request / "change.diff").read_text(encoding="utf-8")


def test_the_gitlab_job_runs_as_the_page_says(pull_request: Path) -> None:
    (config,) = [yaml.safe_load(block) for block in blocks("yaml") if "script:" in block]
    job = config["rlt-rules"]
    base = git(pull_request, "merge-base", "origin/main", "HEAD").strip()
    result = run_script("\n".join(job["script"]), pull_request, CI_MERGE_REQUEST_DIFF_BASE_SHA=base)
    assert result.returncode in job["allow_failure"]["exit_codes"]
    assert result.stdout == expected_log()
    check_sarif(pull_request / "rlt-rules.sarif")
    assert job["artifacts"]["paths"] == ["rlt-rules.sarif"]


def test_without_hints_both_pass(pull_request: Path) -> None:
    git(pull_request, "checkout", "-q", "main")
    (workflow,) = [yaml.safe_load(block) for block in blocks("yaml") if "runs-on" in block]
    (step,) = [
        s for s in workflow["jobs"]["hints"]["steps"] if s.get("name", "").startswith("Hints")
    ]
    script = step["run"].replace("${{ github.base_ref }}", "main")
    result = run_script(script, pull_request)
    assert result.returncode == 0, result.stdout
    assert "0 hint(s)" in result.stdout
