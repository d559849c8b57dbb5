"""What every command shares: exit codes, :class:`UsageError`, the ``--rules`` option (a rules
folder for the authoring commands; for the commands that read the library wherever it is, the
library as :mod:`rlt_rules.project.discover` finds it), the site address (``--site-url``, else
``[tool.rlt-rules] site-url``, else ``mkdocs.yml``'s: :mod:`rlt_rules.facts.addresses`) and reading
the diff of the change under review (``--diff``).

Exit codes: 0 clean, 1 problems found in the input, 2 usage errors. A command raises
:class:`UsageError` for a wrong call; :func:`rlt_rules.cli.main` prints it and exits 2.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from ..facts.addresses import AddressError
from ..files.bounds import Bound, OutOfBounds
from ..files.config import ConfigError
from ..files.diffs import Change, parse_diff
from ..files.errors import InputError
from ..files.reading import MAX_DIFF_BYTES, ReadRefused, read_diff
from ..project.check import DEFAULT_RULES_DIR
from ..project.discover import DiscoveryError, Workspace, open_workspace

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2


class UsageError(InputError):
    """A command was called wrongly (missing path, unknown id): exit 2 with this message."""


def bounded(bound: Bound) -> Callable[[str], int | float]:
    """The argparse ``type`` of a number option within ``bound``: every numeric option takes
    its value through one of these, so a value out of range is ``error: argument --NAME:
    must be …`` and exit 2, never a value the code cannot use."""

    def parse(text: str) -> int | float:
        try:
            return bound.parse(text)
        except OutOfBounds as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    parse.__name__ = bound.unit  # argparse names the type in some messages
    return parse


def add_rules_option(
    parser: argparse.ArgumentParser,
    help: str = f"the rules directory (default: {DEFAULT_RULES_DIR})",
    default: str | None = DEFAULT_RULES_DIR,
) -> None:
    """``--rules DIR``: the rules folder a command reads."""
    parser.add_argument("--rules", metavar="DIR", default=default, help=help)


def add_library_option(parser: argparse.ArgumentParser) -> None:
    """``--rules PATH`` for the commands that read the library wherever it is
    (:mod:`rlt_rules.project.discover`)."""
    parser.add_argument(
        "--rules",
        metavar="PATH",
        default=None,
        help="the rules folder or a rules.json bundle (default: library in [tool.rlt-rules], "
        "else ./rules/ with library.yaml, else the library inside the package)",
    )


def workspace(args: argparse.Namespace, *, remembered: bool = False) -> Workspace:
    """The reviewed repository's settings and the library (``--rules``, else as found);
    ``remembered``: a rules folder's library may come from the cache
    (:mod:`rlt_rules.project.remembered`)."""
    try:
        return open_workspace(args.rules, Path.cwd(), remembered=remembered)
    except (ConfigError, DiscoveryError) as error:
        raise UsageError(str(error)) from None


def site_url_of(found: Workspace, given: str | None) -> str | None:
    """``--site-url``, else ``[tool.rlt-rules] site-url``, else the library's ``mkdocs.yml``."""
    try:
        return found.site_url(given)
    except AddressError as error:
        raise UsageError(str(error)) from None


def add_site_url_option(parser: argparse.ArgumentParser) -> None:
    """``--site-url URL``: where this version's pages are; ``mkdocs.yml`` says so by default."""
    parser.add_argument(
        "--site-url",
        metavar="URL",
        help="the published site's root for this version, for links to rule pages "
        "(<URL>rules/R03/; default: site_url in the mkdocs.yml beside the rules folder, plus "
        "the library version; '' for links relative to the site root)",
    )


def read_diff_text(argument: str, *, limit: int = MAX_DIFF_BYTES) -> str:
    """The text of the diff ``--diff`` names (``-``: stdin), bounded
    (:mod:`rlt_rules.files.reading`)."""
    try:
        return read_diff(argument, limit=limit)
    except ReadRefused as error:
        raise UsageError(str(error)) from None


def read_change(argument: str) -> Change:
    """The diff ``--diff`` names (``-``: stdin); :class:`~rlt_rules.findings.diff.DiffError`
    when it is not a unified diff."""
    return parse_diff(read_diff_text(argument))
