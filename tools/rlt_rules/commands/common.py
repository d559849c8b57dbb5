"""What every command shares: exit codes, :class:`UsageError` and the ``--rules`` option.

Exit codes: 0 clean, 1 problems found in the input, 2 usage errors. A command raises
:class:`UsageError` for a wrong call; :func:`rlt_rules.cli.main` prints it and exits 2.
"""

from __future__ import annotations

import argparse

from ..project import DEFAULT_RULES_DIR

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2


class UsageError(Exception):
    """A command was called wrongly (missing path, unknown id): exit 2 with this message."""


def add_rules_option(
    parser: argparse.ArgumentParser,
    help: str = f"the rules directory (default: {DEFAULT_RULES_DIR})",
    default: str | None = DEFAULT_RULES_DIR,
) -> None:
    """``--rules DIR``: the rules folder a command reads."""
    parser.add_argument("--rules", metavar="DIR", default=default, help=help)
