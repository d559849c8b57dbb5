"""``rlt-rules export``, ``show`` and ``list``: the library for tools, terminals and scripts.

``export --format F [-o PATH]`` renders one export (see :mod:`rlt_rules.export`) to stdout or,
atomically, to PATH (a file; a folder for ``skill``, ``llms``, ``reviewers`` and ``ast-grep``,
which never replaces a file rlt-rules did not write or that was edited since). ``show R03``
prints one rule for reading in a terminal. ``list`` prints the rules as a table or JSON,
filtered by category, tag or status.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from pathlib import Path

from .. import export
from ..export import reviewers
from ..facts.addresses import placeholder_host
from ..files.atomic import check_output_file, check_targets, write_atomic
from ..files.owned import write_owned_folder
from ..library.model import CorpusScope, Library, Measured, Rule, Status
from ..render.links import cite_url
from ..render.text import FENCE, rule_heading
from .common import (
    EXIT_OK,
    UsageError,
    add_library_option,
    add_site_url_option,
    site_url_of,
    workspace,
)

WIDTH = 88


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    export_parser = subparsers.add_parser(
        "export",
        help="write the library as JSON, SARIF, an Agent Skill, llms.txt, a checklist, the "
        "AI reviewers' instruction files or ast-grep rules",
        description="Render one export of a valid rules directory. Without -o the export goes "
        "to stdout (for skill: SKILL.md; for llms: llms.txt; for reviewers: AGENTS.md; for "
        "ast-grep: sgconfig.yml). With -o it is written atomically: to the file PATH, or for "
        "skill, llms, reviewers and ast-grep into the folder PATH (PATH/SKILL.md; PATH/llms.txt "
        "and PATH/llms-full.txt; the reviewers' tree: AGENTS.md, .github/, .cursor/, .claude/, "
        ".coderabbit.yaml, .greptile/, .gemini/; PATH/sgconfig.yml, PATH/rules/, "
        "PATH/rule-tests/). Exits 1 when the library is invalid.",
    )
    export_parser.add_argument(
        "--format", required=True, choices=tuple(export.FORMATS), help="the export to render"
    )
    export_parser.add_argument("-o", "--output", metavar="PATH", help="file or folder to write")
    add_library_option(export_parser)
    add_site_url_option(export_parser)
    export_parser.add_argument(
        "--apply-to",
        metavar="GLOB",
        nargs="+",
        action="extend",
        help="reviewers only: the files the rules apply to, one glob each (repeatable; "
        f"default: {' '.join(reviewers.DEFAULT_APPLY_TO)})",
    )
    export_parser.add_argument(
        "--force",
        action="store_true",
        help="replace files in the output folder that rlt-rules did not write or that were "
        "edited since (default: refuse and name them)",
    )
    export_parser.add_argument(
        "--preview",
        action="store_true",
        help="ast-grep only: include the preview detectors (left out by default: not precise "
        "enough on real code yet)",
    )
    export_parser.set_defaults(handler=run_export)

    show_parser = subparsers.add_parser(
        "show",
        help="print one rule for reading in a terminal",
        description="Print one rule: title, category, status, statement, seed example, "
        "triggers, impact, correction, its examples' titles and its detectors (status, "
        "measured precision on real engine code, what each sees and misses). Each trigger, "
        "the impact, the correction and each example ends with its link: the rule page and "
        "the item's anchor, to cite in a review or as a finding's trigger_anchor. Exits 2 "
        "for an unknown id.",
    )
    show_parser.add_argument("rule_id", metavar="ID", help="a rule id, e.g. R03")
    add_library_option(show_parser)
    add_site_url_option(show_parser)
    show_parser.set_defaults(handler=run_show)

    list_parser = subparsers.add_parser(
        "list",
        help="list rules, filtered by category, tag or status",
        description="List the rules (id, status, category, title), optionally filtered; "
        "filters combine. Exits 2 for an unknown category.",
    )
    list_parser.add_argument("--category", metavar="C", help="only rules in category id C")
    list_parser.add_argument("--tag", metavar="T", help="only rules tagged T")
    list_parser.add_argument(
        "--status", choices=[str(status) for status in Status], help="only rules with status S"
    )
    list_parser.add_argument(
        "--format", choices=("table", "json"), default="table", help="table (default) or json"
    )
    add_library_option(list_parser)
    list_parser.set_defaults(handler=run_list)


# --- export ------------------------------------------------------------------------------


def run_export(args: argparse.Namespace) -> int:
    writes_folder = export.FORMATS[args.format].writes_folder
    if args.output is not None:
        output = Path(args.output)
        if writes_folder and output.exists() and not output.is_dir():
            raise UsageError(f"{output}: {args.format} writes a folder, and this is a file")
        if not writes_folder:
            check_output_file(output)
    found = workspace(args)
    library = found.library
    options = {}
    if args.apply_to is not None:
        if "apply_to" not in export.FORMATS[args.format].options:
            raise UsageError(f"--apply-to is for --format reviewers, not {args.format}")
        try:
            options["apply_to"] = reviewers.check_globs(args.apply_to)
        except ValueError as error:
            raise UsageError(f"--apply-to: {error}") from None
    if args.preview:
        if "preview" not in export.FORMATS[args.format].options:
            raise UsageError(f"--preview is for --format ast-grep, not {args.format}")
        options["preview"] = True
    site_url = site_url_of(found, args.site_url)
    host = placeholder_host(site_url)
    if args.format == "reviewers" and host is not None:
        print(
            f"rlt-rules export: warning: the site address {site_url} is a placeholder "
            f"({host} never resolves), so every rule link in these files is dead: set site_url "
            "in mkdocs.yml, or pass --site-url",
            file=sys.stderr,
        )
    files = export.render(args.format, library, site_url, **options)
    if args.output is None:
        first = next(iter(files.values()))
        sys.stdout.buffer.write(first)
        sys.stdout.flush()
        if len(files) > 1:
            others = ", ".join(list(files)[1:])
            print(f"rlt-rules export: not printed: {others}; use -o DIR", file=sys.stderr)
        return EXIT_OK
    if writes_folder:
        check_targets(output, files)
        result = write_owned_folder(output, files, force=args.force)
        written = result.written
        for path in result.kept:
            print(
                f"rlt-rules export: kept {path}: an export killed while committing would have "
                "replaced it, and it changed since",
                file=sys.stderr,
            )
    else:
        (data,) = files.values()
        write_atomic(output, data)
        written = [output]
    for path in written:
        print(f"wrote {path}", file=sys.stderr)
    return EXIT_OK


# --- show --------------------------------------------------------------------------------


def _terminal(markdown: str, indent: str = "  ") -> str:
    """Markdown prose wrapped to the terminal width; code kept verbatim, indented further."""
    out: list[str] = []
    in_code = False
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            out.extend(
                textwrap.wrap(
                    " ".join(paragraph), WIDTH, initial_indent=indent, subsequent_indent=indent
                )
            )
            paragraph.clear()

    for line in markdown.split("\n"):
        if FENCE.match(line):
            flush()
            in_code = not in_code
        elif in_code:
            out.append(f"{indent}    {line}".rstrip())
        elif not line.strip():
            flush()
            out.append("")
        else:
            paragraph.append(line.strip())
    flush()
    return "\n".join(out).strip("\n")


def _bullets(items: tuple[str, ...], links: tuple[str, ...] = ()) -> str:
    """Each item a wrapped list item; ``links``: a line under each (one per item)."""
    return "\n".join(
        textwrap.fill(
            " ".join(item.split()), WIDTH, initial_indent="  - ", subsequent_indent="    "
        )
        + (f"\n    {links[number]}" if links else "")
        for number, item in enumerate(items)
    )


def format_rule(library: Library, rule: Rule, site_url: str | None = None) -> str:
    """One rule as plain text for a terminal; each trigger, the impact, the correction and
    each example followed by its link (``site_url``: the versioned site root, else a link
    relative to it)."""
    anchors = rule.anchors()

    def link(anchor: str) -> str:
        return cite_url(site_url, rule.id, anchor)

    category = library.category(rule.category)
    status = f"{rule.status} (since {rule.since})"
    if rule.replaced_by is not None:
        status += f", replaced by {rule.replaced_by}"
    lines = [
        rule_heading(rule),
        "=" * min(len(rule_heading(rule)), WIDTH),
        f"Category: {category.title} ({category.id})",
        f"Status:   {status}",
    ]
    if rule.retired_reason is not None:
        lines.append(f"Retired:  {' '.join(rule.retired_reason.split())}")
    if rule.tags:
        lines.append(f"Tags:     {', '.join(rule.tags)}")
    if rule.related:
        lines.append(f"Related:  {', '.join(rule.related)}")
    sections = [
        ("Statement", _terminal(rule.statement)),
        ("Example", _terminal(rule.seed_example)),
        ("Triggers", _bullets(rule.triggers, tuple(map(link, anchors.triggers)))),
        ("Impact", f"{_terminal(rule.impact)}\n  {link(anchors.impact)}"),
        ("Correction", f"{_terminal(rule.correction)}\n  {link(anchors.correction)}"),
    ]
    if rule.examples:
        sections.append(
            (
                "Examples",
                "\n".join(
                    f"  {example.kind:<4}  {example.name}: {example.title}\n        {link(anchor)}"
                    for example, anchor in zip(rule.examples, anchors.examples, strict=True)
                ),
            )
        )
    sections.append(("Detectors", _detectors(rule)))
    for title, body in sections:
        lines.extend(("", title, body))
    return "\n".join(lines) + "\n"


def _measured(measured: Measured) -> str:
    where = (
        f"all of {measured.corpus}" if measured.scope is CorpusScope.PACKAGE else measured.corpus
    )
    figures = (
        f"{measured.hints} hints, {measured.tp} tp, {measured.arguable} arguable, {measured.fp} fp"
    )
    if measured.precision is not None:
        figures += f": tp-precision {measured.precision:.2f} ({measured.level})"
    return f"Measured on {where}: {figures}"


def _detectors(rule: Rule) -> str:
    """Each detector: its id, status and severity, what it looks for, its measured precision
    and what it sees and misses (the record's ``note``), as the rule page's "Automated hints"."""
    if not rule.detectors:
        return "  None: `rlt-rules scan` raises no hint for this rule; only a reviewer finds it."
    blocks = []
    for detector in rule.detectors:
        status = "active (on by default)"
        if detector.preview:
            status = f"preview (only with --preview): {detector.preview_reason or ''}"
        parts = [
            f"  {rule.id}-{detector.id}: {detector.severity}",
            _bullets((f"Status: {status}",)),
            _bullets((f"Looks for: {detector.message}",)),
            _bullets((_measured(detector.measured) if detector.measured else "Measured: not yet",)),
            _bullets((f"Sees and misses: {detector.note or 'not recorded'}",)),
        ]
        blocks.append("\n".join(parts))
    return "\n\n".join(blocks)


def run_show(args: argparse.Namespace) -> int:
    found = workspace(args)
    library = found.library
    wanted = args.rule_id.strip().upper()
    try:
        rule = library.rule(wanted)
    except KeyError:
        known = ", ".join(rule.id for rule in library.rules)
        raise UsageError(f"unknown rule id '{args.rule_id}'; known ids: {known}") from None
    sys.stdout.write(format_rule(library, rule, site_url_of(found, args.site_url)))
    return EXIT_OK


# --- list --------------------------------------------------------------------------------


def run_list(args: argparse.Namespace) -> int:
    library = workspace(args).library
    if args.category is not None and args.category not in {c.id for c in library.categories}:
        known = ", ".join(category.id for category in library.categories)
        raise UsageError(f"unknown category '{args.category}'; categories: {known}")
    rules = library.select(category=args.category, tag=args.tag, status=args.status)
    if args.format == "json":
        records = [
            {
                "id": rule.id,
                "title": rule.title,
                "category": rule.category,
                "status": str(rule.status),
                "tags": list(rule.tags),
            }
            for rule in rules
        ]
        print(json.dumps(records, ensure_ascii=False, indent=2))
        return EXIT_OK
    rows = [("ID", "STATUS", "CATEGORY", "TITLE")]
    rows += [(rule.id, str(rule.status), rule.category, rule.title) for rule in rules]
    widths = [max(len(row[column]) for row in rows) for column in range(3)]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row[:3], widths, strict=True)]
        print("  ".join([*cells, row[3]]))
    return EXIT_OK
