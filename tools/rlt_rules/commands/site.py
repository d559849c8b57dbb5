"""``rlt-rules site build|serve|deploy``: the reference site, through MkDocs and mike.

Each subcommand validates the library first (so an invalid library exits 1 with every problem
as path:line:column, before MkDocs starts). ``build`` then runs MkDocs in this process and hands
the site plugin the library it loaded (:meth:`rlt_rules.site.plugin.RulesPlugin.hand_over`);
``serve`` and ``deploy`` run ``mkdocs``/``mike`` from this Python environment as children, with
``RLT_RULES_DIR`` naming the rules directory for the plugin.
"""

from __future__ import annotations

import argparse
import ctypes
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from ..atomic import process_running
from ..project import DEFAULT_RULES_DIR, ProjectCheck, load_validated
from ..site import RULES_DIR_ENV
from ..validate import DocumentCache
from .common import EXIT_INVALID, EXIT_OK, UsageError, add_rules_option

DEFAULT_CONFIG = "mkdocs.yml"
DEFAULT_DEV_ADDR = "127.0.0.1:8000"
LATEST_ALIAS = "latest"


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "site",
        help="build, serve or deploy the reference site",
        description="Build, preview or publish the reference site. Rule pages, the rule index, "
        "category pages and the format reference are generated from the rule library.",
    )
    actions = parser.add_subparsers(dest="site_command", metavar="ACTION", required=True)

    build = actions.add_parser(
        "build",
        help="build the site into build/site (or --site-dir)",
        description="Build the site. mkdocs.yml sets strict: true, so a warning (a broken "
        "link, say) fails the build; --strict states it on the command line too.",
    )
    _common_options(build)
    build.add_argument("--strict", action="store_true", help="abort on any MkDocs warning")
    build.add_argument("--site-dir", metavar="DIR", help="output directory (default: mkdocs.yml's)")
    build.set_defaults(handler=run_build)

    serve = actions.add_parser(
        "serve",
        help="build and serve the site with live reload",
        description="Build the site and serve it with live reload: editing a file under the "
        "rules directory or site/ rebuilds it and refreshes the browser.",
    )
    _common_options(serve)
    serve.add_argument(
        "--dev-addr",
        default=DEFAULT_DEV_ADDR,
        metavar="HOST:PORT",
        help=f"address to serve on (default: {DEFAULT_DEV_ADDR})",
    )
    serve.set_defaults(handler=run_serve)

    deploy = actions.add_parser(
        "deploy",
        help="publish the library's version with mike (alias latest, set as default)",
        description="Deploy the site with mike as the library's version (library.yaml's "
        f"'version'), move the alias '{LATEST_ALIAS}' to it and make '{LATEST_ALIAS}' the "
        "default. Commits to the gh-pages branch of the current git repository.",
    )
    _common_options(deploy)
    deploy.add_argument("--push", action="store_true", help="push gh-pages to the remote")
    deploy.add_argument(
        "--alias-type",
        choices=("symlink", "copy", "redirect"),
        help="how mike stores the alias (mike's default: symlink)",
    )
    deploy.set_defaults(handler=run_deploy)


def _common_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-f",
        "--config-file",
        default=DEFAULT_CONFIG,
        metavar="FILE",
        help=f"MkDocs configuration (default: {DEFAULT_CONFIG})",
    )
    add_rules_option(
        parser,
        help=f"rules directory (default: {DEFAULT_RULES_DIR}/ next to the configuration)",
        default=None,
    )


def _prepare(
    args: argparse.Namespace, cache: DocumentCache | None = None
) -> tuple[Path, ProjectCheck]:
    """Check the configuration and load (validate) the library."""
    config = Path(args.config_file)
    if not config.is_file():
        raise UsageError(f"{config}: no such file (run from the repository root, or pass -f)")
    rules_dir = Path(args.rules) if args.rules else config.resolve().parent / DEFAULT_RULES_DIR
    if not rules_dir.is_dir():
        raise UsageError(f"{rules_dir}: no such directory")
    return config, load_validated(rules_dir, cache)  # LibraryError: the CLI prints each problem


def _child_environment(loaded: ProjectCheck) -> dict[str, str]:
    """The environment of a ``mkdocs``/``mike`` child: the hook builds ``loaded.rules_dir``."""
    env = dict(os.environ)
    env[RULES_DIR_ENV] = str(loaded.rules_dir)
    env.setdefault("NO_MKDOCS_2_WARNING", "1")
    # mike runs `mkdocs` from PATH: make it this environment's.
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def _run(command: list[str], env: dict[str, str]) -> int:
    """Run a child to completion; a SIGTERM to this process is passed on to it."""
    child = subprocess.Popen(command, env=env, preexec_fn=_exit_with_parent(os.getpid()))
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: child.terminate())
    try:
        returncode = child.wait()
    except KeyboardInterrupt:  # the child, in the same process group, got the SIGINT too
        child.wait()
        raise
    finally:
        signal.signal(signal.SIGTERM, previous)
    return EXIT_OK if returncode == 0 else EXIT_INVALID


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
        raise UsageError("mike is not installed; run ./dev setup")
    return found


def run_build(args: argparse.Namespace) -> int:
    """Build into a fresh directory beside the target, and swap it in only on success.

    MkDocs writes the whole site before ``--strict`` aborts, so building in place would leave
    a site with broken links behind; a failed or killed build here leaves the previous site
    untouched. A killed build cannot remove its staging folder: the next build does.
    """
    if Path(args.config_file).is_file():  # first, so a failing build still restores a site
        recover_interrupted_build(_build_target(args, Path(args.config_file)))
    documents = DocumentCache()  # the plugin reads the examples' markers found here
    config, loaded = _prepare(args, documents)
    target = _build_target(args, config)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=_work_prefix(target, "building")))
    try:
        status = _mkdocs_build(
            config, staging, strict=args.strict, loaded=loaded, documents=documents
        )
        if status == EXIT_OK:
            _swap_in(staging, target)
            print(f"site built in {target}")
        return status
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _mkdocs_build(
    config_file: Path,
    site_dir: Path,
    *,
    strict: bool,
    loaded: ProjectCheck,
    documents: DocumentCache,
) -> int:
    """``mkdocs build`` in this process, its rlt-rules plugin handed the library loaded here.

    One process, not two: Python's start-up, the imports and loading the library are paid once.
    The steps, messages, strict mode and exit status are those of ``mkdocs build``.
    """
    # mkdocs is an optional dependency (the "site" extra): imported only by the site commands.
    from mkdocs.__main__ import ColorFormatter  # its command line's log format

    # (the same optional dependency)
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    # The site package needs mkdocs (optional dependency): imported only here.
    from ..site.plugin import RulesPlugin

    logger = logging.getLogger("mkdocs")
    handler = logging.StreamHandler()
    handler.setFormatter(ColorFormatter())
    level, propagate = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    try:
        try:
            config = load_config(
                str(config_file), site_dir=str(site_dir), strict=True if strict else None
            )
            plugin = next((p for p in config.plugins.values() if isinstance(p, RulesPlugin)), None)
            if plugin is None:
                raise UsageError(f"{config_file}: plugins must list rlt-rules")
            config.plugins.on_startup(command="build", dirty=False)
            try:
                plugin.hand_over(loaded, documents)
                build(config)
            finally:
                config.plugins.on_shutdown()
        except MkDocsException as error:  # BuildError, ConfigurationError, strict mode's Abort
            error.show()
            return EXIT_INVALID
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        logger.propagate = propagate
    return EXIT_OK


def _build_target(args: argparse.Namespace, config: Path) -> Path:
    return Path(args.site_dir).resolve() if args.site_dir else _configured_site_dir(config)


def _configured_site_dir(config: Path) -> Path:
    """``site_dir`` from mkdocs.yml (MkDocs' default ``site``), relative to the file."""
    # mkdocs is an optional dependency (the "site" extra): imported only by the site commands.
    from mkdocs.utils.yaml import yaml_load

    with config.open("rb") as handle:
        settings = yaml_load(handle) or {}
    return (config.resolve().parent / str(settings.get("site_dir", "site"))).resolve()


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


def run_serve(args: argparse.Namespace) -> int:
    config, loaded = _prepare(args)
    return _run(
        # --dirty: the site hook then re-renders only the pages an edit changed.
        _mkdocs("serve", "--dirty", "--config-file", str(config), "--dev-addr", args.dev_addr),
        _child_environment(loaded),
    )


def run_deploy(args: argparse.Namespace) -> int:
    config, loaded = _prepare(args)
    env, version = _child_environment(loaded), loaded.library.version
    mike = _mike()
    common = ["--config-file", str(config)] + (["--push"] if args.push else [])
    deploy = [mike, "deploy", *common, "--update-aliases"]
    if args.alias_type:
        deploy += ["--alias-type", args.alias_type]
    status = _run([*deploy, version, LATEST_ALIAS], env)
    if status != EXIT_OK:
        return status
    status = _run([mike, "set-default", *common, LATEST_ALIAS], env)
    if status == EXIT_OK:
        print(f"deployed {version} as {LATEST_ALIAS} (default)")
    return status
