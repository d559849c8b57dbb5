"""``rlt-rules mcp [--repo DIR]``: serve the library to agents as a read-only MCP server over
stdio (:mod:`rlt_rules.mcp_server`). A client (Claude Code's ``.mcp.json``, Cursor, VS Code)
starts it in the reviewed repository; stdout is the protocol's, so nothing else is printed
there. Exit 1 when the library is invalid, 2 on usage errors.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from ..facts.mcp_names import CALL_TIMEOUT
from ..files.config import ConfigError
from ..project.discover import DiscoveryError, Workspace, open_workspace
from .common import EXIT_OK, UsageError, add_library_option, add_site_url_option, site_url_of

#: The largest ``--call-timeout``, in seconds: a day.
MAX_CALL_TIMEOUT = 86_400.0


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
    parser.add_argument(
        "--call-timeout",
        metavar="SECONDS",
        default=None,
        help="stop a tool call that runs longer, answering an error that names this limit "
        f"(default: {CALL_TIMEOUT:g})",
    )
    add_library_option(parser)
    add_site_url_option(parser)
    parser.set_defaults(handler=run)


def _call_timeout(given: str | None) -> float:
    if given is None:
        return CALL_TIMEOUT
    try:
        seconds = float(given)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or not 0 < seconds <= MAX_CALL_TIMEOUT:
        raise UsageError(
            f"--call-timeout {given}: give a number of seconds above 0, at most "
            f"{MAX_CALL_TIMEOUT:g}"
        )
    return seconds


def _workspace(args: argparse.Namespace, root: Path) -> Workspace:
    """The library the server serves, found as the other commands find it, from the reviewed
    repository (its ``[tool.rlt-rules]``, else ``rules/``, else the library in the package)."""
    try:
        return open_workspace(args.rules, root.resolve())
    except (ConfigError, DiscoveryError) as error:
        raise UsageError(str(error)) from None


def run(args: argparse.Namespace) -> int:
    call_timeout = _call_timeout(args.call_timeout)
    root = Path(args.repo)
    if not root.is_dir():
        raise UsageError(f"{args.repo}: no such directory (--repo)")
    found = _workspace(args, root)
    # The MCP SDK takes a second or more to import (pydantic, anyio, starlette): optional for
    # every other command, so only `rlt-rules mcp` loads it.
    from ..mcp_server import serve

    serve(found, site_url_of(found, args.site_url), root, call_timeout=call_timeout)
    return EXIT_OK
