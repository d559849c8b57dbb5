"""``rlt-rules examples [RULE_ID ...]``: run rules' examples and print a pass/fail table."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..library.model import Rule, expected_output
from ..library.pairs import MIN_PAIR_RATIO, ExamplePair, pairs_of
from ..project.check import load_library
from .common import EXIT_INVALID, EXIT_OK, UsageError, add_rules_option

if TYPE_CHECKING:
    from ..library.examples import ExampleOutcome


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "examples",
        help="run rules' good and bad examples and check what they print",
        description="Run the examples and practice programs of the given rules (all rules when "
        "none is given) and compare their output with the '#>' comments. Exits 1 when any "
        "fails.",
    )
    parser.add_argument("rule_ids", nargs="*", metavar="RULE_ID", help="e.g. R03 R17")
    add_rules_option(parser, help="rules directory (default: rules)")
    parser.add_argument("--format", choices=("table", "json"), default="table")
    parser.add_argument(
        "--pairs",
        action="store_true",
        help="instead of running the examples, show each bad/good pair: the lines the "
        f"correction changes, the similarity (difflib ratio over lines; at least "
        f"{MIN_PAIR_RATIO} required) and each side's output",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    # pytest-examples (and the pytest and black it imports) is a dev dependency, needed only
    # by this command: importing it here keeps every other command's start-up light.
    try:
        from ..library.examples import check_rules
    except ModuleNotFoundError as missing:
        raise UsageError(
            f"`rlt-rules examples` needs {missing.name}: pip install 'rlt-rules[dev]'"
        ) from None

    library = load_library(Path(args.rules))
    known = {rule.id for rule in library.rules}
    unknown = [rule_id for rule_id in args.rule_ids if rule_id not in known]
    if unknown:
        raise UsageError(f"unknown rule id(s): {', '.join(unknown)}; known: {library.id_span()}")
    wanted = set(args.rule_ids) or known
    if args.pairs:
        return _show_pairs(tuple(rule for rule in library.rules if rule.id in wanted), args.format)
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
        "kind": outcome.kind,
        "passed": outcome.passed,
        "result": str(outcome.result),
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
                outcome.kind,
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


def _show_pairs(rules: tuple[Rule, ...], output_format: str) -> int:
    pairs = tuple(pair for rule in rules for pair in pairs_of(rule))
    too_far = [pair for pair in pairs if pair.ratio < MIN_PAIR_RATIO]
    if output_format == "json":
        print(json.dumps([_pair_dict(pair) for pair in pairs], indent=2))
    else:
        for pair in pairs:
            print(_pair_text(pair))
        print(f"{len(pairs)} pair(s), {len(too_far)} below a similarity of {MIN_PAIR_RATIO}")
    for pair in too_far:
        print(
            f"{pair.rule_id} {pair.name}: similarity {pair.ratio:.2f} < {MIN_PAIR_RATIO}: the good "
            "example should be the bad one with only the correction applied (or split the pair)",
            file=sys.stderr,
        )
    return EXIT_INVALID if too_far else EXIT_OK


def _pair_dict(pair: ExamplePair) -> dict[str, object]:
    removed, added = pair.changed_lines()
    return {
        "rule": pair.rule_id,
        "pair": pair.name,
        "similarity": round(pair.ratio, 3),
        "lines_removed": removed,
        "lines_added": added,
        "diff": list(pair.diff()),
        "bad_output": list(expected_output(pair.bad.code)),
        "good_output": list(expected_output(pair.good.code)),
    }


def _pair_text(pair: ExamplePair) -> str:
    removed, added = pair.changed_lines()
    bad, good = expected_output(pair.bad.code), expected_output(pair.good.code)
    width = max((len(line) for line in bad), default=len("bad output"))
    width = max(width, len("bad output"))
    lines = [
        f"{pair.rule_id} {pair.name}: similarity {pair.ratio:.2f}, "
        f"correction removes {removed} line(s) and adds {added}",
        *(f"    {line}" for line in pair.diff(context=0) if not line.startswith("@@")),
        f"  {'bad output'.ljust(width)}  | good output",
    ]
    for index in range(max(len(bad), len(good))):
        left = bad[index] if index < len(bad) else ""
        right = good[index] if index < len(good) else ""
        mark = " " if left == right else "≠"
        lines.append(f"  {left.ljust(width)} {mark}| {right}")
    return "\n".join(lines) + "\n"
