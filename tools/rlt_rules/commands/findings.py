"""``rlt-rules findings check|sarif|markdown FILE``: check a review and show it where teams look.

Every subcommand checks the findings file first (schema, library, the reviewed files when
``--repo`` is given, and the change under review when ``--diff`` is) and prints each problem
as ``path:line:column: message`` on stderr.
Errors stop it with exit 1; warnings (a deprecated rule, another library version) do not.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..files.atomic import check_output_file, write_atomic
from ..findings import markdown as findings_markdown
from ..findings import sarif as findings_sarif
from ..findings.check import CONTEXT_NOTE, CheckResult, check_review
from ..findings.diff import DiffError
from ..project.discover import Workspace
from .common import (
    EXIT_INVALID,
    EXIT_OK,
    UsageError,
    add_library_option,
    add_site_url_option,
    read_change,
    site_url_of,
    workspace,
)


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "findings",
        help="check review findings that cite the rules; render them as SARIF or Markdown",
        description="Review findings (schema/findings.schema.json, YAML or JSON) cite rules of "
        "this library. `check` reports every problem as path:line:column; `sarif` and "
        "`markdown` check first, then render. Exit 0 when clean (warnings allowed), 1 when the "
        "findings or the library have errors, 2 on usage errors.",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

    check = actions.add_parser(
        "check",
        help="check a findings file against the schema, the library and the reviewed code",
        description="Check a findings file. With --repo, also check that each location's file "
        "exists, its lines exist and each suggested patch applies; with --diff, that each "
        "location is among the lines of the change's hunks (context lines count as part of "
        "the change's surroundings: accepted, with a note when a finding touches no added "
        "line).",
    )
    _common(check)
    check.set_defaults(handler=run_check)

    sarif = actions.add_parser(
        "sarif",
        help="write the findings as SARIF 2.1.0 (GitHub code scanning, SARIF viewers)",
        description="Check, then write a SARIF 2.1.0 log with the library's rules in "
        "tool.driver.rules and one result per finding.",
    )
    _common(sarif)
    _output(sarif)
    add_site_url_option(sarif)
    sarif.set_defaults(handler=run_sarif)

    markdown = actions.add_parser(
        "markdown",
        help="write the findings as one Markdown review comment, in the answer's order",
        description="Check, then write one Markdown review comment with each finding linked "
        "to its rule's page.",
    )
    _common(markdown)
    _output(markdown)
    add_site_url_option(markdown)
    markdown.set_defaults(handler=run_markdown)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="the findings file (.yaml, .yml or .json)")
    add_library_option(parser)
    parser.add_argument(
        "--repo",
        metavar="DIR",
        help="the reviewed repository's root: check paths, line ranges and patches against it",
    )
    parser.add_argument(
        "--diff",
        metavar="FILE",
        help="the change under review (a unified diff; - reads stdin): every finding must "
        "point at lines of its hunks, as `rlt-rules review-context` lists them; a hunk's "
        "context lines count (the change's surroundings), and `check` notes findings on them "
        "alone",
    )


def _output(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-o",
        "--output",
        metavar="PATH",
        help="write here (replaced atomically) instead of to stdout",
    )


def _checked(args: argparse.Namespace) -> tuple[Workspace, CheckResult]:
    path = Path(args.file)
    if not path.is_file():
        raise UsageError(f"{args.file}: no such file")
    found = workspace(args)
    repo = None
    if args.repo is not None:
        repo = Path(args.repo)
        if not repo.is_dir():
            raise UsageError(f"{args.repo}: no such directory (--repo)")
    change = None
    if args.diff is not None:
        try:
            change = read_change(args.diff)
        except DiffError as error:
            raise UsageError(f"--diff {args.diff}: {error}") from None
    result = check_review(path, found.library, repo, args.file, change)
    for diagnostic in result.diagnostics:
        print(diagnostic, file=sys.stderr)
    return found, result


def run_check(args: argparse.Namespace) -> int:
    _found, result = _checked(args)
    if result.review is None:
        print(f"{len(result.errors)} error(s), {len(result.warnings)} warning(s)", file=sys.stderr)
        return EXIT_INVALID
    findings = len(result.review.findings)
    print(f"ok: {findings} finding(s), {len(result.warnings)} warning(s)")
    if result.context_only:
        print(f"note: {', '.join(result.context_only)}: {CONTEXT_NOTE}")
    return EXIT_OK


def _emit(args: argparse.Namespace, data: bytes) -> None:
    if args.output:
        write_atomic(Path(args.output), data)
    else:
        sys.stdout.write(data.decode("utf-8"))


def run_sarif(args: argparse.Namespace) -> int:
    if args.output:
        check_output_file(Path(args.output))
    found, result = _checked(args)
    if result.review is None:
        return EXIT_INVALID
    library, site_url = found.library, site_url_of(found, args.site_url)
    _emit(args, findings_sarif.render(result.review, library, site_url))
    return EXIT_OK


def run_markdown(args: argparse.Namespace) -> int:
    if args.output:
        check_output_file(Path(args.output))
    found, result = _checked(args)
    if result.review is None:
        return EXIT_INVALID
    library, site_url = found.library, site_url_of(found, args.site_url)
    text = findings_markdown.render_markdown(result.review, library, site_url)
    _emit(args, text.encode("utf-8"))
    return EXIT_OK
