"""Fixtures for the site tests, shared by ``test_site.py`` and ``test_browser.py``.

Loaded with ``pytest_plugins = ["site_fixtures"]`` so each session-scoped fixture runs once per
session whichever module uses it. The site is built through the real command
(``rlt-rules site build --strict``) from the real ``rules/``; set ``RLT_SITE_TEST_RULES`` to
another rules directory to run the same tests against it while ``rules/`` does not validate.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from rlt_rules import Library, load_library

ROOT = Path(__file__).resolve().parents[1]
FIXTURE_RULES = ROOT / "tests" / "fixtures" / "site" / "rules"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: How long a browser check waits for the page (search worker, tab switch) before failing:
#: generous, since the suite runs under load (a loaded 2-core machine took over 5 s).
WAIT_MS = 60_000


@dataclass(frozen=True)
class BuiltSite:
    """A site built by ``rlt-rules site build``, with the library it was built from."""

    directory: Path
    library: Library
    output: str


def run_cli(*arguments: str, cwd: Path = ROOT, env: dict[str, str] | None = None, umask: int = -1):
    """Run ``rlt-rules`` in a subprocess of this interpreter, as a user would (with ``umask``
    when one is given)."""
    environment = dict(os.environ if env is None else env)
    environment.pop("RLT_RULES_DIR", None)
    environment["NO_MKDOCS_2_WARNING"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "rlt_rules", *arguments],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
        umask=umask,
    )


def build_site(rules_dir: Path, site_dir: Path) -> BuiltSite:
    result = run_cli(
        "site", "build", "--strict", "--rules", str(rules_dir), "--site-dir", str(site_dir)
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"rlt-rules site build --strict failed:\n{output}"
    return BuiltSite(site_dir, load_library(rules_dir), output)


def make_project(destination: Path, rules_dir: Path) -> Path:
    """A copy of what a site build reads: mkdocs.yml, site/, a rules directory, and the theme
    overrides mkdocs.yml names (the plugin itself is the installed package's)."""
    destination.mkdir(parents=True, exist_ok=True)
    shutil.copy2(ROOT / "mkdocs.yml", destination / "mkdocs.yml")
    shutil.copytree(ROOT / "site", destination / "site")
    overrides = Path("tools") / "rlt_rules" / "site" / "overrides"
    shutil.copytree(ROOT / overrides, destination / overrides)
    shutil.copytree(rules_dir, destination / "rules")
    return destination


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def serve_directory(directory: Path) -> Iterator[str]:
    """Serve ``directory`` over http on 127.0.0.1 (search needs http, not file://)."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture(scope="session")
def site_rules_dir() -> Path:
    return Path(os.environ.get("RLT_SITE_TEST_RULES", ROOT / "rules")).resolve()


@pytest.fixture(scope="session")
def built_site(site_rules_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    """The site of the library under test, built once per session."""
    return build_site(site_rules_dir, tmp_path_factory.mktemp("site") / "out")


@pytest.fixture(scope="session")
def fixture_site(tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    """The site of ``tests/fixtures/site/rules``: deprecated, retired and HTML-laden rules."""
    return build_site(FIXTURE_RULES, tmp_path_factory.mktemp("fixture-site") / "out")


@pytest.fixture(scope="session")
def site_url(built_site: BuiltSite) -> Iterator[str]:
    with serve_directory(built_site.directory) as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    """Debian's chromium through playwright. Missing chromium fails the test, never skips it."""
    if not CHROMIUM.is_file():
        pytest.fail(
            f"{CHROMIUM} not found: the browser tests need Debian's chromium "
            "(`./dev test` installs it, or run `apt-get install -y chromium`)"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture
def page(browser):
    """A fresh page; JavaScript errors on it fail the test."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    new_page = context.new_page()
    new_page.set_default_timeout(WAIT_MS)
    errors: list[str] = []
    new_page.on("pageerror", lambda error: errors.append(str(error)))
    yield new_page
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
