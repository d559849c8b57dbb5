"""``rlt-rules review-context [--diff FILE | - | --base REF] [--max-chars N] [-- PATH...]``: what
an agent needs to review one change with the library, as one Markdown document
(:mod:`rlt_rules.findings.context`). Without ``--diff`` the change is ``git diff REF -- PATH...``
(:mod:`rlt_rules.files.gitdiff`): the working tree against ``HEAD`` unless ``--base`` names another.

The agent's answer is then checked with ``rlt-rules findings check ANSWER --repo . --diff FILE``
and published with ``findings sarif`` or ``findings markdown``.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
from pathlib import Path

from ..files.atomic import check_output_file, write_atomic
from ..files.bounds import CHARACTERS
from ..files.config import ConfigError
from ..files.gitdiff import DEFAULT_BASE, GitDiffError, read_change
from ..findings.context import ContextTooLong, DiffSource, review_context
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
        "the answer with the command it prints. Without --diff the change is the working "
        "tree's against HEAD (or --base REF), as `git diff REF -- PATH...` prints it, limited "
        "to the PATHs given (`review-context -- sglang/srt/model_executor`). Exit 1 when the "
        "diff or the library is invalid, 2 on usage errors (no Git, no change).",
    )
    parser.add_argument(
        "paths",
        metavar="PATH",
        nargs="*",
        help="review only the change under these files and folders (Git pathspecs, relative "
        "to the current folder); not with --diff",
    )
    given = parser.add_mutually_exclusive_group()
    given.add_argument(
        "--diff",
        metavar="FILE",
        help="the change under review as a unified diff (`git diff`, `diff -u`); - reads stdin",
    )
    given.add_argument(
        "--base",
        metavar="REF",
        help=f"review `git diff REF`: the working tree against REF (default: {DEFAULT_BASE}; "
        "`main` for a branch's whole change)",
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


def _saved(argument: str) -> DiffSource:
    """A diff named by path is read again from there; stdin and a pipe (``<(git diff)``, which
    shows as ``/dev/fd/63``) are gone once read."""
    try:
        regular = argument != "-" and stat.S_ISREG(os.stat(argument).st_mode)
    except OSError:
        regular = False
    return DiffSource(file=argument) if regular else DiffSource()


def run(args: argparse.Namespace) -> int:
    if args.output:
        check_output_file(Path(args.output))
    if args.diff is not None and args.paths:
        raise UsageError(
            "PATHs limit the change read from Git; with --diff, give the diff of those paths "
            "(`git diff REF -- PATH`)"
        )
    top, repo = Path.cwd(), "."
    if args.diff is not None:
        diff, source = read_diff_text(args.diff), _saved(args.diff)
    else:
        try:
            read = read_change(
                Path.cwd(), args.base or DEFAULT_BASE, args.paths, instead="--diff FILE"
            )
        except GitDiffError as error:
            raise UsageError(str(error)) from None
        diff, source, top = read.text, DiffSource(command=read.command()), read.top
        repo = os.path.relpath(top, Path.cwd().resolve())
        if read.untracked:
            print(
                f"rlt-rules review-context: {len(read.untracked)} untracked file(s) left out "
                f"of the change (git diff does not show them; `git add -N FILE` adds one): "
                f"{', '.join(read.untracked[:5])}" + (" …" if len(read.untracked) > 5 else ""),
                file=sys.stderr,
            )
    try:
        change = parse_diff(diff)
    except DiffError as error:
        print(f"{args.diff if args.diff is not None else source.command}: {error}", file=sys.stderr)
        return EXIT_INVALID
    found = workspace(args)
    site_url = site_url_of(found, args.site_url)
    try:
        places = places_to_look(diff, found.library, found.config, top)
        missing = unplaced(changed_lines(diff), top)
    except (ConfigError, ScanDiffError) as error:
        raise UsageError(str(error)) from None
    for problem in missing:  # listed in the document, but the detectors could not look
        print(f"{visible(problem.path)}: {problem.message}", file=sys.stderr)
    try:
        text = review_context(
            found.library,
            site_url,
            change,
            max_chars=args.max_chars,
            diff=source,
            repo=repo,
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
