"""``rlt-rules release``, ``new`` and ``diff``: the library's history, kept by the tools.

``release VERSION`` publishes the valid library as ``releases/VERSION.json`` (a bundle),
replacing ``since: next`` with VERSION and setting ``library.yaml``'s version; it refuses a
version smaller than the changes require. ``new --category C --title T`` scaffolds the next
free id. ``diff OLD NEW`` lists what changed between two releases, bundles or rules folders.
The policy is in :mod:`rlt_rules.releases`.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

from ..export.changelog import diff_markdown
from ..files.atomic import write_atomic
from ..library.bundle_load import load_bundle
from ..library.load import load_yaml
from ..library.model import Library, LibraryError
from ..library.schema_errors import schema_diagnostics
from ..library.validate import LIBRARY_FILE
from ..project.check import check_project
from ..releases import (
    History,
    Version,
    compare,
    load_history,
    next_rule_id,
    plan_release,
    release_path,
    releases_dir,
    write_release,
)
from .common import EXIT_INVALID, EXIT_OK, UsageError, add_rules_option
from .scaffold import scaffold_rule


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    release_parser = subparsers.add_parser(
        "release",
        help="publish the library as releases/VERSION.json",
        description="Publish the valid library as VERSION: set library.yaml's version, replace "
        "each rule's `since: next` with VERSION, and write releases/VERSION.json (a bundle). "
        "Policy: a new rule or a deprecation needs a minor release, an edit a patch, a "
        "retirement, a category change or a declared meaning change a major one. Exits 1 when "
        "the library is invalid or VERSION is smaller than the changes require (naming them).",
    )
    release_parser.add_argument("version", metavar="VERSION", help="MAJOR.MINOR.PATCH")
    release_parser.add_argument(
        "--meaning-changed",
        metavar="ID",
        action="append",
        default=[],
        help="declare that released rule ID now means something else (requires a major "
        "release); repeat for several rules",
    )
    _add_rules_argument(release_parser)
    release_parser.set_defaults(handler=run_release)

    new_parser = subparsers.add_parser(
        "new",
        help="scaffold a rule file with the next free id",
        description="Write rules/<next id>.yaml: the id after every id in rules/ and in every "
        "release (retired ones included), the given category and title, since: next, and TODO "
        "placeholders that `validate` rejects until they are written. Never overwrites a file. "
        "Exits 2 for an unknown category.",
    )
    new_parser.add_argument("--category", required=True, metavar="C", help="a category id")
    new_parser.add_argument("--title", required=True, metavar="TITLE", help="the rule's title")
    _add_rules_argument(new_parser)
    new_parser.set_defaults(handler=run_new)

    diff_parser = subparsers.add_parser(
        "diff",
        help="list the rules added, changed, deprecated and retired between two versions",
        description="Compare OLD with NEW. Each is a released version (releases/VERSION.json "
        "beside the rules folder), a bundle file, or a rules folder. Prints the rules added, "
        "changed (with the fields), deprecated and retired, and the release the changes require.",
    )
    diff_parser.add_argument("old", metavar="OLD", help="a version, a bundle file or a folder")
    diff_parser.add_argument("new", metavar="NEW", help="a version, a bundle file or a folder")
    diff_parser.add_argument(
        "--format", choices=("markdown", "json"), default="markdown", help="markdown or json"
    )
    _add_rules_argument(diff_parser)
    diff_parser.set_defaults(handler=run_diff)


def _add_rules_argument(parser: argparse.ArgumentParser) -> None:
    add_rules_option(
        parser, help="the rules directory; its history is in DIR/../releases (default: rules)"
    )


def _rules_dir(raw: str) -> Path:
    if not Path(raw).is_dir():
        raise UsageError(f"{raw}: no such directory (give the rules folder with --rules)")
    return Path(raw)


# --- release -----------------------------------------------------------------------------


def run_release(args: argparse.Namespace) -> int:
    rules_dir = _rules_dir(args.rules)
    if Version.parse(args.version) is None:
        raise UsageError(f"{args.version!r} is not a version: write MAJOR.MINOR.PATCH (1.2.0)")
    result = check_project(rules_dir, args.rules)
    if result.library is None:
        raise LibraryError(result.diagnostics)
    # A clean validation read the history (an unreadable one is among its diagnostics).
    history = result.history
    assert history is not None
    outcome = plan_release(
        rules_dir, result.library, history, args.version, set(args.meaning_changed)
    )
    if outcome.plan is None:
        print(f"rlt-rules release: refused to release {args.version}:", file=sys.stderr)
        for line in outcome.refusals:
            print(line if line.startswith(" ") else f"- {line}", file=sys.stderr)
        return EXIT_INVALID
    plan = outcome.plan
    write_release(plan)

    after = check_project(rules_dir, args.rules)
    if after.library is None or after.library != _written(after.history, plan.version, plan.target):
        for diagnostic in after.diagnostics:
            print(diagnostic, file=sys.stderr)
        print(
            f"rlt-rules release: {plan.target} was written but the rules folder does not match "
            "it: check the files named above",
            file=sys.stderr,
        )
        return EXIT_INVALID
    for edit in plan.edits:
        print(f"updated {edit.path}")
    print(f"wrote {plan.target}")
    if plan.previous is None:
        print(f"released {plan.version}: the first release, {len(plan.library.rules)} rules")
    else:
        assert plan.diff is not None
        print(
            f"released {plan.version}: a {plan.diff.required_bump}-level change set after "
            f"{plan.previous.version} ({len(plan.diff.rules)} rule change(s))"
        )
    return EXIT_OK


def _written(history: History | None, version: str, target: Path) -> Library:
    """The release ``version`` as written at ``target``: from the history just read (which
    holds it), else read again."""
    release = history.get(version) if history is not None else None
    return release.library if release is not None else load_bundle(target)


# --- new ---------------------------------------------------------------------------------


def run_new(args: argparse.Namespace) -> int:
    rules_dir = _rules_dir(args.rules)
    title = args.title.strip()
    if not title or "\n" in title or "\r" in title:
        raise UsageError("--title must be one non-empty line")
    categories = _category_ids(rules_dir)
    if args.category not in categories:
        raise UsageError(
            f"unknown category {args.category!r}; known categories: {', '.join(categories)}"
        )
    history = load_history(rules_dir)
    rule_id = next_rule_id(rules_dir, history)
    target = rules_dir / f"{rule_id}.yaml"
    if target.exists():
        raise UsageError(f"{target} already exists: not overwriting it")
    write_atomic(target, scaffold_rule(rule_id, args.category, title).encode("utf-8"))
    print(f"wrote {target}: fill in every TODO, then run `rlt-rules validate`")
    return EXIT_OK


def _category_ids(rules_dir: Path) -> list[str]:
    """The categories ``library.yaml`` defines (checked against its schema), even while some
    rule file is unfinished, so ``new`` works on a library with a TODO in it."""
    path = rules_dir / LIBRARY_FILE
    loaded = load_yaml(path, str(path))
    problems = list(loaded.diagnostics)
    if loaded.document is not None:
        problems.extend(schema_diagnostics(loaded.document, "library.schema.json"))
    if problems or loaded.document is None:
        raise LibraryError(tuple(problems))
    return [category["id"] for category in loaded.document.data["categories"]]


# --- diff --------------------------------------------------------------------------------


def _resolve(raw: str, rules_dir: Path) -> Library:
    """A version in the history, a bundle file, or a rules folder, as a typed library."""
    path = Path(raw)
    if path.is_dir():
        return validate_or_raise(path, raw)
    if path.is_file():
        return load_bundle(path)
    if Version.parse(raw) is not None:
        target = release_path(rules_dir, raw)
        if target.is_file():
            # The whole history must be sound, not just this file; it holds the release.
            release = load_history(rules_dir).get(raw)
            return release.library if release is not None else load_bundle(target)
    known = sorted(p.stem for p in releases_dir(rules_dir).glob("*.json"))
    raise UsageError(
        f"{raw}: not a released version (released: {', '.join(known) or 'none'}), "
        "nor a bundle file or rules folder"
    )


def _label(raw: str, library: Library) -> str:
    """A version names itself; a folder is the working copy of the version it announces."""
    return f"{raw} (working copy of {library.version})" if Path(raw).is_dir() else library.version


def validate_or_raise(path: Path, shown: str) -> Library:
    result = check_project(path, shown)
    if result.library is None:
        raise LibraryError(result.diagnostics)
    return result.library


def run_diff(args: argparse.Namespace) -> int:
    rules_dir = Path(args.rules)
    old = _resolve(args.old, rules_dir)
    new = _resolve(args.new, rules_dir)
    diff = replace(
        compare(old, new), old_version=_label(args.old, old), new_version=_label(args.new, new)
    )
    if args.format == "json":
        print(json.dumps(diff.to_dict(), ensure_ascii=False, indent=2))
    else:
        print(diff_markdown(diff), end="")
    return EXIT_OK
