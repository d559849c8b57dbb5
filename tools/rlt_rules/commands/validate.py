"""``rlt-rules validate [PATH ...]``: report every problem at once, as path:line:column."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..library.model import Rule
from ..project.check import DEFAULT_RULES_DIR, ProjectCheck, check_project, filter_for_files
from .common import EXIT_INVALID, EXIT_OK, UsageError


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "validate",
        help="check rule files against the schema and each other",
        description="Check a rules directory (or some of its files) against the schemas and "
        "across records. Prints every problem as path:line:column: message. Exits 0 when clean, "
        "1 when problems were found, 2 on usage errors.",
    )
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        default=[DEFAULT_RULES_DIR],
        help="a rules directory, or rule files inside one (default: rules)",
    )
    parser.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text (default) or json for tools",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    results: list[ProjectCheck] = []
    rules = 0
    # Files are checked with their directory (cross-record checks need it): once per directory.
    named: dict[Path, tuple[Path, str, set[str]]] = {}
    for raw in args.paths:
        path = Path(raw)
        if path.is_dir():
            result = check_project(path, raw, measure_cost=True)
            results.append(result)
            rules += len(result.library.rules) if result.library is not None else 0
        elif path.is_file():
            folder = path.parent
            _, _, names = named.setdefault(folder.resolve(), (folder, str(folder), set()))
            names.add(path.name)
        else:
            raise UsageError(f"{raw}: no such file or directory")
    for folder, display, names in named.values():
        result = filter_for_files(check_project(folder, display, measure_cost=True), names)
        results.append(result)
        if result.library is not None:
            rules += sum(1 for rule in result.library.rules if _file_name(rule) in names)

    diagnostics = [d for result in results for d in result.diagnostics]
    files = sum(result.files_checked for result in results)
    if args.format == "json":
        print(
            json.dumps(
                {
                    "ok": not diagnostics,
                    "files_checked": files,
                    "diagnostics": [d.to_dict() for d in diagnostics],
                },
                indent=2,
            )
        )
    else:
        for diagnostic in diagnostics:
            print(diagnostic)
        if diagnostics:
            print(f"{len(diagnostics)} problem(s) in {len({d.path for d in diagnostics})} file(s)")
        else:
            print(f"ok: {files} files, {rules} rules valid")
    return EXIT_INVALID if diagnostics else EXIT_OK


def _file_name(rule: Rule) -> str | None:
    return Path(rule.source.path).name if rule.source is not None else None
