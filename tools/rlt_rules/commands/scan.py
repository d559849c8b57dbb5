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

from ..atomic import write_atomic
from ..model import Library, Status
from ..project import load_library
from ..scan import (
    DiffError,
    changed_lines,
    default_root,
    detector_set,
    scan,
    unchecked_rules,
)
from ..scan.render import FORMATS, Output
from .common import (
    EXIT_INVALID,
    EXIT_OK,
    UsageError,
    add_rules_option,
    add_site_url_option,
    site_url_for,
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
        "suppressions included) or unreadable files, 2 on usage errors.",
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
        help="only these rules' detectors, comma-separated (R07,R10)",
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
        "--preview",
        action="store_true",
        help="also run the preview detectors (not precise enough on real code to be on by "
        "default; each record says why)",
    )
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
        type=int,
        help="worker processes for many files (default: one per CPU)",
    )
    add_rules_option(parser)
    parser.set_defaults(handler=run_scan)


def _selection(library: Library, select: str | None) -> set[str] | None:
    if select is None:
        return None
    wanted = {part.strip().upper() for part in select.split(",") if part.strip()}
    known = {rule.id for rule in library.rules}
    unknown = sorted(wanted - known)
    if unknown or not wanted:
        raise UsageError(f"--select: unknown rule id(s) {', '.join(unknown) or '(none given)'}")
    with_detectors = {
        rule.id for rule in library.rules if rule.detectors and rule.status is Status.ACTIVE
    }
    if not wanted & with_detectors:
        raise UsageError(
            f"--select {select}: none of these rules has a detector; rules with detectors: "
            + ", ".join(sorted(with_detectors))
        )
    return wanted


def _read_diff(name: str) -> str:
    if name == "-":
        return sys.stdin.read()
    try:
        return Path(name).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"--diff {name}: cannot read: {error}") from None


def run_scan(args: argparse.Namespace) -> int:
    if not Path(args.rules).is_dir():
        raise UsageError(f"{args.rules}: no such directory (give the rules folder with --rules)")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    changed = None
    if args.diff is not None:
        try:
            changed = changed_lines(_read_diff(args.diff))
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
        paths = [root / path for path in sorted(changed) if (root / path).is_file()]
    library = load_library(args.rules)
    selected = _selection(library, args.select)
    detectors = detector_set(library, selected, preview=args.preview)
    unchecked = unchecked_rules(library, selected, preview=args.preview)
    result = scan(paths, detectors, changed=changed, root=root, jobs=args.jobs, unchecked=unchecked)
    for problem in result.problems:
        print(f"{problem.path}: {problem.message}", file=sys.stderr)
    site_url = site_url_for(args.site_url, args.rules, library.version)
    data = FORMATS[args.format](result, library, Output(site_url, preview=args.preview))
    if args.output is not None:
        output = Path(args.output)
        if output.is_dir() or not output.parent.is_dir():
            raise UsageError(f"{output}: give a file in an existing folder")
        write_atomic(output, data)
    else:
        sys.stdout.write(data.decode("utf-8"))
        sys.stdout.flush()
    files = result.files_scanned
    summary = f"{len(result.hits)} hint(s) in {files} file(s) scanned"
    if result.suppressed:
        summary += f", {result.suppressed} suppressed"
    if result.problems:
        summary += f", {len(result.problems)} file(s) not readable"
    print(f"rlt-rules scan: {summary}", file=sys.stderr)
    return EXIT_OK if result.clean else EXIT_INVALID
