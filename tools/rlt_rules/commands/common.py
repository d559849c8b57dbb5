"""What every command shares: exit codes, :class:`UsageError`, the ``--rules`` option, the
site address (``--site-url``, else ``mkdocs.yml``'s: :mod:`rlt_rules.addresses`) and reading
the diff of the change under review (``--diff``).

Exit codes: 0 clean, 1 problems found in the input, 2 usage errors. A command raises
:class:`UsageError` for a wrong call; :func:`rlt_rules.cli.main` prints it and exits 2.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..addresses import AddressError, project_addresses
from ..diffs import Change, parse_diff
from ..project import DEFAULT_RULES_DIR
from ..reading import ReadRefused, read_diff

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


def add_site_url_option(parser: argparse.ArgumentParser) -> None:
    """``--site-url URL``: where this version's pages are; ``mkdocs.yml`` says so by default."""
    parser.add_argument(
        "--site-url",
        metavar="URL",
        help="the published site's root for this version, for links to rule pages "
        "(<URL>rules/R03/; default: site_url in the mkdocs.yml beside the rules folder, plus "
        "the library version; '' for links relative to the site root)",
    )


def site_url_for(given: str | None, rules_dir: str | Path, version: str) -> str | None:
    """``--site-url`` as given (``""``: none), else the project's address for ``version``."""
    if given is not None:
        return given or None
    try:
        return project_addresses(rules_dir).pages(version)
    except AddressError as error:
        raise UsageError(str(error)) from None


def read_change(argument: str) -> Change:
    """The diff ``--diff`` names (``-``: stdin); :class:`~rlt_rules.findings.diff.DiffError`
    when it is not a unified diff."""
    try:
        text = read_diff(argument)
    except ReadRefused as error:
        raise UsageError(str(error)) from None
    return parse_diff(text)
