"""``rlt-rules site build|serve|deploy``: the reference site, through MkDocs and mike.

``build`` and ``deploy`` warn once when ``mkdocs.yml``'s ``site_url`` is still a placeholder
(:func:`~rlt_rules.site.publish.placeholder_warning`). Each subcommand calls
:mod:`rlt_rules.site.publish`, which runs MkDocs (``build``: in this
process) or ``mkdocs``/``mike`` (``serve``, ``deploy``) with ``$RLT_RULES_DIR`` naming the
rules directory for the plugin. An invalid library exits 1 with every problem as
path:line:column before a page is written: ``build`` leaves the check to the plugin (one
validation in one process; MkDocs prints the plugin's error), ``serve`` and ``deploy`` validate
first, since their MkDocs runs in a child process (and ``deploy`` needs the library's version).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..project.check import DEFAULT_RULES_DIR, ProjectCheck, load_validated
from ..site.publish import (
    LATEST_ALIAS,
    Finished,
    SiteError,
    build_site,
    deploy_site,
    placeholder_warning,
    recover_interrupted_build,
    serve_site,
    site_target,
)
from .common import EXIT_INVALID, EXIT_OK, UsageError, add_rules_option

DEFAULT_CONFIG = "mkdocs.yml"
DEFAULT_DEV_ADDR = "127.0.0.1:8000"


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


def _paths(args: argparse.Namespace) -> tuple[Path, Path]:
    """The configuration file and the rules directory, both checked to exist."""
    config = Path(args.config_file)
    if not config.is_file():
        raise UsageError(f"{config}: no such file (run from the repository root, or pass -f)")
    rules_dir = Path(args.rules) if args.rules else config.resolve().parent / DEFAULT_RULES_DIR
    if not rules_dir.is_dir():
        raise UsageError(f"{rules_dir}: no such directory")
    return config, rules_dir


def _prepare(args: argparse.Namespace) -> tuple[Path, ProjectCheck]:
    """Check the configuration and load (validate) the library."""
    config, rules_dir = _paths(args)
    return config, load_validated(rules_dir)  # LibraryError: the CLI prints each problem


def _warn_placeholder(config: Path) -> None:
    """Say once, before a build others will read, that ``site_url`` is still a placeholder."""
    warning = placeholder_warning(config)
    if warning is not None:
        print(warning, file=sys.stderr)


def _status(finished: Finished) -> int:
    return EXIT_OK if finished.ok else EXIT_INVALID


def run_build(args: argparse.Namespace) -> int:
    site_dir = Path(args.site_dir) if args.site_dir else None
    if Path(args.config_file).is_file():  # first, so a failing build still restores a site
        recover_interrupted_build(site_target(Path(args.config_file), site_dir))
    config, rules_dir = _paths(args)
    _warn_placeholder(config)
    try:
        finished = build_site(config, rules_dir, site_dir=site_dir, strict=args.strict)
    except SiteError as error:
        raise UsageError(str(error)) from error
    if finished.ok:
        print(f"site built in {finished.site_dir}")
    return _status(finished)


def run_serve(args: argparse.Namespace) -> int:
    config, loaded = _prepare(args)
    return _status(serve_site(config, loaded.rules_dir, dev_addr=args.dev_addr))


def run_deploy(args: argparse.Namespace) -> int:
    config, loaded = _prepare(args)
    version = loaded.library.version
    _warn_placeholder(config)  # once: mike's builds of the site say nothing of it
    try:
        finished = deploy_site(
            config, loaded.rules_dir, version, push=args.push, alias_type=args.alias_type
        )
    except SiteError as error:
        raise UsageError(str(error)) from error
    if finished.ok:
        print(f"deployed {version} as {LATEST_ALIAS} (default)")
    return _status(finished)
