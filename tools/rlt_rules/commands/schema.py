"""``rlt-rules schema build [--check]``: generate the self-contained schemas from their parts."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..files.atomic import write_atomic
from ..library.schemas import generated_schemas
from .common import EXIT_INVALID, EXIT_OK


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "schema",
        help="generate the self-contained schemas of schema/ from schema/parts/",
        description="Write each schema of schema/parts/ to schema/ with the schemas it refers to "
        "by $id embedded, so it validates offline. With --check, write nothing and exit 1 when "
        "a generated schema is out of date.",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    build = actions.add_parser("build", help="generate (or check) the self-contained schemas")
    build.add_argument("--check", action="store_true", help="only report out-of-date files")
    build.set_defaults(handler=run_build)


def run_build(args: argparse.Namespace) -> int:
    stale = [
        (path, content)
        for path, content in generated_schemas().items()
        if not path.is_file() or path.read_bytes() != content
    ]
    for path, content in stale:
        if args.check:
            print(f"{_shown(path)}:1:1: out of date with schema/parts/: run rlt-rules schema build")
        else:
            write_atomic(path, content)
            print(f"wrote {_shown(path)}")
    return EXIT_INVALID if args.check and stale else EXIT_OK


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
