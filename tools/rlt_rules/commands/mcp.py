"""``rlt-rules mcp [--repo DIR]``: serve the library to agents as a read-only MCP server over
stdio (:mod:`rlt_rules.mcp_server`). A client (Claude Code's ``.mcp.json``, Cursor, VS Code)
starts it in the reviewed repository; stdout is the protocol's, so nothing else is printed
there. Exit 1 when the library is invalid, 2 on usage errors.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..model import Library
from ..project import load_library
from .common import EXIT_OK, UsageError, add_rules_option, add_site_url_option, site_url_for


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "mcp",
        help="serve the library to agents as an MCP server over stdio (read-only)",
        description="Serve the library over stdio as a read-only MCP server: tools to list, "
        "read and search rules, get the review context of a change, check a findings answer "
        "and scan code; each rule's page as a resource (rlt://rules/R03); a prompt that starts "
        "a review. Paths and diffs are the repository's at --repo (default: the current "
        "folder). Exit 1 when the library is invalid, 2 on usage errors.",
    )
    parser.add_argument(
        "--repo",
        metavar="DIR",
        default=".",
        help="the reviewed repository: paths, findings and `git diff` are relative to it "
        "(default: the current folder)",
    )
    add_rules_option(parser)
    add_site_url_option(parser)
    parser.set_defaults(handler=run)


def _library(args: argparse.Namespace) -> Library:
    """The library the server serves, found as the other commands find it."""
    if not Path(args.rules).is_dir():
        raise UsageError(f"{args.rules}: no such directory (give the rules folder with --rules)")
    return load_library(args.rules)


def run(args: argparse.Namespace) -> int:
    root = Path(args.repo)
    if not root.is_dir():
        raise UsageError(f"{args.repo}: no such directory (--repo)")
    library = _library(args)
    # The MCP SDK takes a second or more to import (pydantic, anyio, starlette): optional for
    # every other command, so only `rlt-rules mcp` loads it.
    from ..mcp_server import serve

    serve(library, site_url_for(args.site_url, args.rules, library.version), root)
    return EXIT_OK
