"""``rlt-rules examples [RULE_ID ...]``: run rules' examples and print a pass/fail table."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from ..validate import load_library
from .validate import DEFAULT_RULES_DIR

if TYPE_CHECKING:
    from ..examples import ExampleOutcome


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "examples",
        help="run rules' good and bad examples and check what they print",
        description="Run the examples of the given rules (all rules when none is given) and "
        "compare their output with the '#>' comments. Exits 1 when any example fails.",
    )
    parser.add_argument("rule_ids", nargs="*", metavar="RULE_ID", help="e.g. R03 R17")
    parser.add_argument(
        "--rules", default=DEFAULT_RULES_DIR, metavar="DIR", help="rules directory (default: rules)"
    )
    parser.add_argument("--format", choices=("table", "json"), default="table")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..cli import EXIT_INVALID, EXIT_OK, UsageError

    # pytest-examples (and the pytest and black it imports) is a dev dependency, needed only
    # by this command: importing it here keeps every other command's start-up light.
    try:
        from ..examples import check_rules
    except ModuleNotFoundError as missing:
        raise UsageError(
            f"`rlt-rules examples` needs {missing.name}: pip install 'rlt-rules[dev]'"
        ) from None

    library = load_library(Path(args.rules))
    known = {rule.id for rule in library.rules}
    unknown = [rule_id for rule_id in args.rule_ids if rule_id not in known]
    if unknown:
        raise UsageError(
            f"unknown rule id(s): {', '.join(unknown)}; known: "
            f"{library.rules[0].id}–{library.rules[-1].id}"
        )
    wanted = set(args.rule_ids) or known
    outcomes = check_rules(tuple(rule for rule in library.rules if rule.id in wanted))
    if args.format == "json":
        print(json.dumps([_as_dict(outcome) for outcome in outcomes], indent=2))
    else:
        print(_table(outcomes))
    failed = sum(not outcome.passed for outcome in outcomes)
    if args.format == "table":
        print(f"{len(outcomes) - failed} passed, {failed} failed")
    return EXIT_INVALID if failed else EXIT_OK


def _as_dict(outcome: ExampleOutcome) -> dict[str, object]:
    return {
        "rule": outcome.rule_id,
        "example": outcome.example.name,
        "kind": str(outcome.example.kind),
        "passed": outcome.passed,
        "location": outcome.location if not outcome.passed else None,
        "detail": outcome.detail or None,
    }


def _table(outcomes: tuple[ExampleOutcome, ...]) -> str:
    rows = [("RULE", "EXAMPLE", "KIND", "RESULT", "FIRST DIFFERENCE")]
    for outcome in outcomes:
        difference = f"{outcome.location}: {outcome.detail}" if not outcome.passed else ""
        rows.append(
            (
                outcome.rule_id,
                outcome.example.name,
                str(outcome.example.kind),
                "pass" if outcome.passed else "FAIL",
                difference,
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    return "\n".join(
        (
            "  ".join(cell.ljust(width) for cell, width in zip(row[:4], widths, strict=True))
            + "  "
            + row[4]
        ).rstrip()
        for row in rows
    )
