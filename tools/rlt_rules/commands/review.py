"""``rlt-rules review-context [--diff FILE | -] [--max-chars N]``: what an agent needs to review
one change with the library, as one Markdown document (:mod:`rlt_rules.findings.context`).

The agent's answer is then checked with ``rlt-rules findings check ANSWER --repo . --diff FILE``
and published with ``findings sarif`` or ``findings markdown``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..atomic import check_output_file, write_atomic
from ..bounds import CHARACTERS
from ..config import ConfigError
from ..findings.context import ContextTooLong, review_context
from ..findings.diff import DiffError, parse_diff
from ..render.text import visible
from ..scan import DiffError as ScanDiffError
from ..scan import changed_lines, places_to_look, unplaced
from .common import (
    EXIT_INVALID,
    EXIT_OK,
    UsageError,
    add_library_option,
    add_site_url_option,
    bounded,
    read_diff_text,
    site_url_of,
    workspace,
)


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "review-context",
        help="print what an agent needs to review one change: rules, changed lines, answer format",
        description="Print one Markdown document for an agent reviewing a change: the "
        "library's preamble, the rules (in full, or in the most detail that fits --max-chars, "
        "never cut inside a rule), the files and line ranges the diff changes, the places the "
        "detectors point at on its changed lines, and the findings format to answer in. Check "
        "the answer with `rlt-rules findings check ANSWER --repo . --diff FILE`. Exit 1 when "
        "the diff or the library is invalid, 2 on usage errors.",
    )
    parser.add_argument(
        "--diff",
        metavar="FILE",
        help="the change under review as a unified diff (`git diff`, `diff -u`); - reads stdin",
    )
    parser.add_argument(
        "--max-chars",
        metavar="N",
        type=bounded(CHARACTERS),
        help="keep the document within N characters: each rule gets the most detail that fits",
    )
    add_library_option(parser)
    add_site_url_option(parser)
    parser.add_argument(
        "-o", "--output", metavar="PATH", help="write here (replaced atomically), not to stdout"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.output:
        check_output_file(Path(args.output))
    change = diff = None
    if args.diff is not None:
        diff = read_diff_text(args.diff)
        try:
            change = parse_diff(diff)
        except DiffError as error:
            print(f"{args.diff}: {error}", file=sys.stderr)
            return EXIT_INVALID
    found = workspace(args)
    site_url = site_url_of(found, args.site_url)
    try:
        places = places_to_look(diff, found.library, found.config, Path.cwd()) if diff else []
        missing = unplaced(changed_lines(diff), Path.cwd()) if diff else []
    except (ConfigError, ScanDiffError) as error:
        raise UsageError(str(error)) from None
    for problem in missing:  # listed in the document, but the detectors could not look
        print(f"{visible(problem.path)}: {problem.message}", file=sys.stderr)
    diff_name = args.diff if args.diff not in (None, "-") else "CHANGE.diff"
    try:
        text = review_context(
            found.library,
            site_url,
            change,
            max_chars=args.max_chars,
            diff_name=diff_name,
            source=found.source.describe(),
            library_option=found.source.option(),
            places=places,
        )
    except ContextTooLong as error:
        raise UsageError(str(error)) from None
    if args.output:
        write_atomic(Path(args.output), text.encode("utf-8"))
    else:
        sys.stdout.write(text)
    return EXIT_OK
