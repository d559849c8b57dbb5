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
from pathlib import Path

from .commands import exam as exam_command
from .commands import examples as examples_command
from .commands import export as export_command
from .commands import findings as findings_command
from .commands import mcp as mcp_command
from .commands import release as release_command
from .commands import review as review_command
from .commands import scan as scan_command
from .commands import schema as schema_command
from .commands import site as site_command
from .commands import validate as validate_command
from .commands.common import EXIT_INVALID, EXIT_OK, EXIT_USAGE, UsageError
from .files.atomic import WriteRefused
from .library.model import LibraryError
from .project.discover import version_text

#: Every command group, in the order ``--help`` lists them.
COMMAND_MODULES = (
    validate_command,
    examples_command,
    export_command,
    findings_command,
    review_command,
    mcp_command,
    scan_command,
    exam_command,
    site_command,
    release_command,
    schema_command,
)


def build_parser() -> argparse.ArgumentParser:
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
    for module in COMMAND_MODULES:
        module.add_parser(subparsers)
    return parser


class _Version(argparse.Action):
    """``--version``: found when asked, so ``--help`` never looks for a library."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:  # type: ignore[override]
        print(version_text(Path.cwd()))
        parser.exit()


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
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
