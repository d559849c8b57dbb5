"""``rlt-rules scan PATH... [--diff FILE|-] [--select IDS] [--format F]``: the rules' detectors
over Python code, each hit a hint that sends the reviewer to a rule page.

Exit 0 with no hits, 1 with hits (an unused or reasonless suppression is a hit too), files
that could not be read, or an invalid library; 2 on usage errors. Files that cannot be read or
are not UTF-8 are reported on stderr and skipped. The summary goes to stderr, so stdout holds
only the chosen format.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..files.atomic import check_output_file, write_atomic
from ..files.bounds import BYTES, FILE_SECONDS, JOBS
from ..files.config import ConfigError
from ..files.reading import MAX_DIFF_BYTES, MAX_FILE_BYTES, ReadRefused, read_diff
from ..render.text import visible
from ..scan import (
    FILE_TIMEOUT,
    BadPath,
    DiffError,
    MatchError,
    OutOfBounds,
    SelectionError,
    changed_lines,
    default_root,
    plan_scan,
    scan,
)
from ..scan.files import PYTHON_SUFFIXES
from ..scan.render import FORMATS, Output
from .common import (
    EXIT_INVALID,
    EXIT_OK,
    UsageError,
    add_library_option,
    add_site_url_option,
    bounded,
    site_url_of,
    workspace,
)


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "scan",
        help="point at code shaped like a rule's triggers (the rules' detectors)",
        description="Run the detectors of the library's active rules over Python files and "
        "folders (folders walked without hidden and .gitignored paths). Each hit prints as "
        "path:line:column: RULE message (rule page). With --diff, only hits on lines the "
        "unified diff adds or changes are kept, and without PATH the diff's files are scanned "
        "(run it from the repository root). Suppress a hint on its line with "
        "`# rlt: ignore[R09] reason`; a suppression without a reason, or one on a line where "
        "no hint of its rule fires, is reported. Exit 0 with no hits, 1 with hits (reported "
        "suppressions included) or unreadable files, 2 on usage errors. [tool.rlt-rules] in "
        "the nearest pyproject.toml sets select, ignore, exclude, per-file-ignores, preview, "
        "library and site-url; options given here override it. After `--` every word is a "
        "path, even one starting with - (the pre-commit hook passes its files so).",
    )
    parser.add_argument("paths", metavar="PATH", nargs="*", help="Python files and folders")
    parser.add_argument(
        "--diff",
        metavar="FILE",
        help="a unified diff (`git diff` output; - for stdin): keep hits on its added lines",
    )
    parser.add_argument(
        "--select",
        metavar="IDS",
        help="only these rules' or detectors' hints, comma-separated (R07,R10-hasattr-guard); "
        "overrides select in [tool.rlt-rules]",
    )
    parser.add_argument(
        "--preview",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="also run the preview detectors (not precise enough on real code to be on by "
        "default; each record says why; default: preview in [tool.rlt-rules], else off)",
    )
    parser.add_argument(
        "--format",
        choices=tuple(FORMATS),
        default="text",
        help="text (default), json, sarif (SARIF 2.1.0 for code scanning) or findings "
        "(a draft findings file for `findings check`)",
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE, not stdout")
    parser.add_argument(
        "--root",
        metavar="DIR",
        help="show paths relative to DIR, and read --diff paths from it (default: the top of "
        "the Git work tree holding the first PATH, else the current folder)",
    )
    add_site_url_option(parser)
    parser.add_argument(
        "--jobs",
        metavar="N",
        type=bounded(JOBS),
        help="ast-grep runs at once for many files (default and at most: one per CPU)",
    )
    parser.add_argument(
        "--file-timeout",
        metavar="SECONDS",
        type=bounded(FILE_SECONDS),
        help="report (and skip) a detector that does not finish on one file within SECONDS "
        f"(default: [tool.rlt-rules] file-timeout, else {FILE_TIMEOUT:g}; at most "
        f"{FILE_SECONDS.high:,g})",
    )
    parser.add_argument(
        "--max-file-bytes",
        metavar="N",
        type=bounded(BYTES),
        default=MAX_FILE_BYTES,
        help=f"skip (and report) a Python file over N bytes (default: {MAX_FILE_BYTES:,}; "
        f"at most {BYTES.high:,})",
    )
    parser.add_argument(
        "--max-diff-bytes",
        metavar="N",
        type=bounded(BYTES),
        default=MAX_DIFF_BYTES,
        help=f"refuse a diff over N bytes (default: {MAX_DIFF_BYTES:,}; at most {BYTES.high:,})",
    )
    add_library_option(parser)
    parser.set_defaults(handler=run_scan)


def _read_diff(name: str, *, limit: int) -> str:
    try:
        return read_diff(name, limit=limit)
    except ReadRefused as error:
        raise UsageError(f"--diff: {error}") from None


def run_scan(args: argparse.Namespace) -> int:
    if args.output is not None:
        check_output_file(Path(args.output))  # before the scan, not after it
    changed = None
    if args.diff is not None:
        try:
            changed = changed_lines(_read_diff(args.diff, limit=args.max_diff_bytes))
        except DiffError as error:
            raise UsageError(f"--diff {args.diff}: {error}") from None
    if not args.paths and changed is None:
        raise UsageError("give the files or folders to scan, or --diff")
    paths = [Path(path) for path in args.paths]
    missing = [str(path) for path in paths if not path.exists()]
    if missing:
        raise UsageError(f"no such file or folder: {', '.join(missing)}")
    if args.root is not None and not Path(args.root).is_dir():
        raise UsageError(f"--root {args.root}: no such folder")
    root = Path(args.root).absolute() if args.root is not None else default_root(paths)
    if not paths and changed is not None:
        python = [path for path in sorted(changed) if path.endswith(PYTHON_SUFFIXES)]
        paths = [root / path for path in python if (root / path).is_file()]
        if python and not paths:
            raise UsageError(
                f"none of the {len(python)} Python file(s) the diff changes exists under "
                f"{root}: run the scan from the repository root the diff's paths are relative "
                "to, or give --root"
            )
    found = workspace(args, remembered=True)  # a scan never shows a rule's file
    library = found.library
    try:
        plan = plan_scan(library, found.config, select=args.select, preview=args.preview)
    except (SelectionError, ConfigError) as error:
        raise UsageError(str(error)) from None
    try:
        result = scan(
            paths,
            plan.detectors,
            changed=changed,
            root=root,
            jobs=args.jobs,
            plan=plan,
            max_file_bytes=args.max_file_bytes,
            file_timeout=args.file_timeout,
        )
    except (MatchError, OutOfBounds, BadPath) as error:
        raise UsageError(str(error)) from None
    for problem in result.problems:
        print(f"{visible(problem.path)}: {problem.message}", file=sys.stderr)
    site_url = site_url_of(found, args.site_url)
    data = FORMATS[args.format](result, library, Output(site_url, preview=plan.preview))
    if args.output is not None:
        write_atomic(Path(args.output), data)
    else:
        sys.stdout.write(data.decode("utf-8"))
        sys.stdout.flush()
    files = result.files_scanned
    summary = f"{len(result.hits)} hint(s) in {files} file(s) scanned"
    if result.suppressed:
        summary += f", {result.suppressed} suppressed"
    if result.problems:
        summary += f", {len(result.problems)} problem(s) above"
    print(f"rlt-rules scan: {summary}", file=sys.stderr)
    return EXIT_OK if result.clean else EXIT_INVALID
