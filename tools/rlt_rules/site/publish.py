"""Build, serve and deploy the site: MkDocs and mike run for a validated library, with a Python
API (``rlt-rules site`` only parses its arguments and calls these).

The plugin learns which library to build from one channel, ``$RLT_RULES_DIR``
(:data:`rlt_rules.site.RULES_DIR_ENV`): :func:`build_site` sets it around MkDocs in this
process; :func:`serve_site` and :func:`deploy_site` give it to their ``mkdocs``/``mike``
children. A build is written into a staging folder beside the target and swapped in only when
it succeeds (:func:`build_site`), never over a folder it did not build
(:mod:`.site_folder`); what killed builds leave behind the next one removes
(:func:`recover_interrupted_build`). A child gets SIGKILL when this process dies (Linux) and
this process's SIGTERM is passed on to it (:func:`run_child`).
"""

from __future__ import annotations

import ctypes
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..facts.addresses import placeholder_host
from ..files.atomic import current_umask, process_running
from ..files.errors import InputError
from ..library.model import LibraryError
from . import RULES_DIR_ENV
from .site_folder import SiteFolderRefused, record_site, refuse_foreign, refuse_sources

LATEST_ALIAS = "latest"


class SiteError(InputError):
    """The site cannot be built, served or deployed as asked (the message says what to do)."""


@dataclass(frozen=True, slots=True)
class Finished:
    """How a build, a serve or a deploy ended: ``ok``, and for a build the site's folder."""

    ok: bool
    site_dir: Path | None = None


# --- build ------------------------------------------------------------------------------------


def build_site(
    config_file: Path, rules_dir: Path, *, site_dir: Path | None, strict: bool
) -> Finished:
    """Build the site of ``rules_dir`` with MkDocs in this process (its log on stderr, its
    steps and strict mode those of ``mkdocs build``) into a fresh folder beside the target
    (``site_dir``, else ``mkdocs.yml``'s), swapped in only on success: MkDocs writes the whole
    site before ``strict`` aborts, so a failed or killed build leaves the previous site as it
    was. A killed build cannot remove its staging folder: the next build does. The target is
    checked first, and again before the swap (:mod:`.site_folder`): one holding the project,
    its docs or its rules, or a non-empty folder that is not an unchanged site rlt-rules built,
    raises :class:`SiteError` and nothing is deleted. The site gets its record and the mode the
    umask gives.

    The plugin validates the library, once: an invalid one raises :class:`LibraryError` (every
    problem at its path, line and column) before a page is written."""
    target = site_target(config_file, site_dir)
    recover_interrupted_build(target)  # may put back the previous site: checked with it
    _check_site_folder(target, config_file, rules_dir)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=_work_prefix(target, "building")))
    try:
        with _rules_dir_set(rules_dir):
            ok = _mkdocs_build(config_file, staging, strict=strict)
        if ok:
            record_site(staging)
            staging.chmod(0o777 & ~current_umask())  # mkdtemp made it 0700
            _check_site_folder(target, config_file, rules_dir)  # nobody wrote into it since
            _swap_in(staging, target)
        return Finished(ok, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _check_site_folder(target: Path, config_file: Path, rules_dir: Path) -> None:
    """:class:`SiteError` for a site folder a build must not replace (:mod:`.site_folder`):
    one holding the project, its docs or its rules, or a non-empty folder that is not a site
    rlt-rules built."""
    settings = _settings(config_file)
    project = config_file.resolve().parent
    sources = {
        "project": project,
        "docs": project / str(settings.get("docs_dir", "docs")),
        "rules": rules_dir,
    }
    try:
        refuse_sources(target, sources)
        refuse_foreign(target)
    except SiteFolderRefused as error:
        raise SiteError(str(error)) from None


@contextmanager
def _rules_dir_set(rules_dir: Path) -> Iterator[None]:
    """``$RLT_RULES_DIR`` names ``rules_dir`` while the block runs, then is as it was."""
    previous = os.environ.get(RULES_DIR_ENV)
    os.environ[RULES_DIR_ENV] = str(rules_dir.resolve())
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(RULES_DIR_ENV, None)
        else:
            os.environ[RULES_DIR_ENV] = previous


def _mkdocs_build(config_file: Path, site_dir: Path, *, strict: bool) -> bool:
    """``mkdocs build`` in this process: one process, not two (Python's start-up and the
    imports are paid once). False when MkDocs reports an error (it has shown it); the plugin's
    :class:`LibraryError` is raised as it is, for the command line to print."""
    # mkdocs is an optional dependency (the "site" extra): imported only to build the site.
    from mkdocs.__main__ import ColorFormatter  # its command line's log format

    # (the same optional dependency)
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    logger = logging.getLogger("mkdocs")
    handler = logging.StreamHandler()
    handler.setFormatter(ColorFormatter())
    handler.addFilter(_not_an_invalid_library)
    level, propagate = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    try:
        config = load_config(
            str(config_file), site_dir=str(site_dir), strict=True if strict else None
        )
        if "rlt-rules" not in config.plugins:
            raise SiteError(f"{config_file}: plugins must list rlt-rules")
        config.plugins.on_startup(command="build", dirty=False)
        try:
            build(config)
        finally:
            config.plugins.on_shutdown()
    except MkDocsException as error:  # BuildError, ConfigurationError, strict mode's Abort
        invalid = _invalid_library(error)
        if invalid is not None:
            raise invalid from None
        error.show()
        return False
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        logger.propagate = propagate
    return True


def _invalid_library(error: BaseException | None) -> LibraryError | None:
    """The plugin's :class:`LibraryError` behind an error MkDocs raised (its ``Abort`` is raised
    while handling the plugin's ``PluginError``, which is raised from the LibraryError)."""
    seen = 0
    while error is not None and seen < 8:
        if isinstance(error, LibraryError):
            return error
        error, seen = error.__cause__ or error.__context__, seen + 1
    return None


def _not_an_invalid_library(record: logging.LogRecord) -> bool:
    """Drop the error MkDocs logs while it handles the plugin's invalid-library error: the
    command line prints those problems itself, once (:func:`_invalid_library`)."""
    return record.levelno < logging.ERROR or _invalid_library(sys.exc_info()[1]) is None


def placeholder_warning(config_file: Path) -> str | None:
    """The warning for a site built or deployed while ``site_url`` in ``config_file`` is still
    a placeholder (a reserved host that never resolves:
    :func:`~rlt_rules.facts.addresses.placeholder_host`), at the setting's line; None when the
    address is real or unset."""
    site_url = _settings(config_file).get("site_url")
    host = placeholder_host(site_url) if isinstance(site_url, str) else None
    if host is None:
        return None
    text = config_file.read_text(encoding="utf-8")
    found = re.search(r"^site_url\s*:", text, re.MULTILINE)
    line = text.count("\n", 0, found.start()) + 1 if found else 1
    return (
        f"{config_file}:{line}: warning: site_url is the placeholder {site_url} ({host} never "
        "resolves): every published link to the site (the rule pages' Copy link and Copy "
        "citation, SARIF's helpUri, the exports' rule links) points nowhere. Set the team's "
        f"address as site_url in {config_file} (site_url: https://rules.example.com/, or "
        "site_url: !ENV [RLT_SITE_URL, https://…/]) and build again"
    )


def site_target(config_file: Path, site_dir: Path | None) -> Path:
    """Where a build goes: ``site_dir``, else ``mkdocs.yml``'s (:func:`configured_site_dir`)."""
    return site_dir.resolve() if site_dir is not None else configured_site_dir(config_file)


def configured_site_dir(config: Path) -> Path:
    """``site_dir`` from mkdocs.yml (MkDocs' default ``site``), relative to the file."""
    settings = _settings(config)
    return (config.resolve().parent / str(settings.get("site_dir", "site"))).resolve()


def _settings(config: Path) -> dict[str, object]:
    """mkdocs.yml's top-level settings, as MkDocs reads them (``!ENV`` tags included)."""
    # mkdocs is an optional dependency (the "site" extra): imported only to build the site.
    from mkdocs.utils.yaml import yaml_load

    with config.open("rb") as handle:
        settings = yaml_load(handle) or {}
    return settings if isinstance(settings, dict) else {}


def _swap_in(built: Path, target: Path) -> None:
    """Replace ``target`` with ``built``: two renames, the old site deleted afterwards."""
    if not target.exists():
        os.replace(built, target)
        return
    retired = Path(tempfile.mkdtemp(dir=target.parent, prefix=_work_prefix(target, "old")))
    os.replace(target, retired / target.name)
    os.replace(built, target)
    shutil.rmtree(retired, ignore_errors=True)


def _work_prefix(target: Path, kind: str) -> str:
    """``.site.building-<pid>-``: beside the target, naming the build that owns it."""
    return f".{target.name}.{kind}-{os.getpid()}-"


def recover_interrupted_build(target: Path) -> None:
    """Remove what killed builds of ``target`` left beside it (their process is gone).

    A build killed between the two renames of :func:`_swap_in` leaves no site, the previous
    one set aside in its ``.old-`` folder: it is put back first.
    """
    if not target.parent.is_dir():
        return
    pattern = re.compile(rf"\.{re.escape(target.name)}\.(?P<kind>building|old)-(?P<pid>[0-9]+)-.+")
    for entry in sorted(target.parent.iterdir()):
        found = pattern.fullmatch(entry.name)
        if found is None or not entry.is_dir() or process_running(int(found.group("pid"))):
            continue
        retired = entry / target.name
        if found.group("kind") == "old" and retired.is_dir() and not target.exists():
            os.replace(retired, target)
        shutil.rmtree(entry, ignore_errors=True)


# --- serve and deploy -----------------------------------------------------------------------


def serve_site(config_file: Path, rules_dir: Path, *, dev_addr: str) -> Finished:
    """``mkdocs serve --dirty`` of ``rules_dir`` until it stops (the plugin then re-renders
    only the pages an edit changed)."""
    command = _mkdocs("serve", "--dirty", "--config-file", str(config_file), "--dev-addr", dev_addr)
    return Finished(run_child(command, child_environment(rules_dir)))


def deploy_site(
    config_file: Path, rules_dir: Path, version: str, *, push: bool, alias_type: str | None
) -> Finished:
    """Deploy ``rules_dir``'s site with mike as ``version``, move :data:`LATEST_ALIAS` to it and
    make it mike's default."""
    env, mike = child_environment(rules_dir), _mike()
    common = ["--config-file", str(config_file)] + (["--push"] if push else [])
    deploy = [mike, "deploy", *common, "--update-aliases"]
    if alias_type:
        deploy += ["--alias-type", alias_type]
    if not run_child([*deploy, version, LATEST_ALIAS], env):
        return Finished(False)
    return Finished(run_child([mike, "set-default", *common, LATEST_ALIAS], env))


def child_environment(rules_dir: Path) -> dict[str, str]:
    """The environment of a ``mkdocs``/``mike`` child: its plugin builds ``rules_dir``."""
    env = dict(os.environ)
    env[RULES_DIR_ENV] = str(rules_dir.resolve())
    env.setdefault("NO_MKDOCS_2_WARNING", "1")
    # mike runs `mkdocs` from PATH: make it this environment's.
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def run_child(command: Sequence[str], env: dict[str, str]) -> bool:
    """Run a child to completion (True: it exited 0); a SIGTERM to this process is passed on
    to it."""
    child = subprocess.Popen(list(command), env=env, preexec_fn=_exit_with_parent(os.getpid()))
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: child.terminate())
    try:
        returncode = child.wait()
    except KeyboardInterrupt:  # the child, in the same process group, got the SIGINT too
        child.wait()
        raise
    finally:
        signal.signal(signal.SIGTERM, previous)
    return returncode == 0


def _exit_with_parent(parent: int):
    """A ``preexec_fn`` that makes the child get SIGKILL when this process dies (Linux).

    Killed with SIGKILL, this process cannot stop its MkDocs child, which would go on writing
    into a staging folder the next build removes. Elsewhere there is no such hook: None.
    """
    if not sys.platform.startswith("linux"):
        return None

    def arrange() -> None:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:  # the parent died before prctl took effect
            os._exit(1)

    return arrange


#: prctl option: the signal a child gets when its parent dies (linux/prctl.h).
_PR_SET_PDEATHSIG = 1


def _mkdocs(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "mkdocs", *arguments]


def _mike() -> str:
    beside = Path(sys.executable).parent / "mike"
    found = str(beside) if beside.is_file() else shutil.which("mike")
    if found is None:
        raise SiteError("mike is not installed; run ./dev setup")
    return found
