"""The ``rlt-rules`` command line: argument parsing and the one place that decides exit codes.

Each command group lives in its own module under :mod:`rlt_rules.commands` and exposes
``add_parser(subparsers)``, setting ``handler`` to a function ``(args) -> int``.
Exit codes (:mod:`rlt_rules.commands.common`): 0 clean, 1 problems found in the input, 2 usage
errors.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import import_module
from pathlib import Path

from .commands.common import EXIT_INVALID, EXIT_OK, EXIT_USAGE, UsageError
from .files.atomic import WriteRefused
from .library.model import LibraryError
from .project.discover import version_text

#: Every command, in the order ``--help`` lists them, and its module under
#: :mod:`rlt_rules.commands` (a module may add several). A command imports only its own module
#: (as pip's command table does): ``rlt-rules scan`` starts without the site builder, the exam
#: or the MCP server. ``--help``, a misspelt command and ``--version`` import them all.
COMMANDS = {
    "validate": "validate",
    "examples": "examples",
    "export": "export",
    "show": "export",
    "list": "export",
    "findings": "findings",
    "review-context": "review",
    "mcp": "mcp",
    "scan": "scan",
    "exam": "exam",
    "site": "site",
    "release": "release",
    "new": "release",
    "diff": "release",
    "schema": "schema",
}


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser for ``argv``: with its command's subparser only when ``argv`` starts with
    a command's name, else with every command's."""
    parser = argparse.ArgumentParser(
        prog="rlt-rules",
        description="Validate, list, export and publish the Rlt Refactor rule library.",
    )
    parser.add_argument(
        "--version",
        action=_Version,
        nargs=0,
        help="print rlt-rules' version and the library it reads here, and where it came from",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    words = sys.argv[1:] if argv is None else argv
    named = COMMANDS.get(words[0]) if words else None
    wanted = [named] if named is not None else dict.fromkeys(COMMANDS.values())
    for module in wanted:
        import_module(f"{__package__}.commands.{module}").add_parser(subparsers)
    return parser


class _Version(argparse.Action):
    """``--version``: found when asked, so ``--help`` never looks for a library."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:  # type: ignore[override]
        print(version_text(Path.cwd()))
        parser.exit()


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
    except (UsageError, WriteRefused) as error:
        print(f"rlt-rules {args.command}: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except LibraryError as error:
        for diagnostic in error.diagnostics:
            print(diagnostic, file=sys.stderr)
        print(
            f"rlt-rules {args.command}: the library is invalid; run `rlt-rules validate`",
            file=sys.stderr,
        )
        return EXIT_INVALID
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK
