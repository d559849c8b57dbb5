"""Review findings that cite the rules: a format, a checker and two renderings.

A review (``schema/findings.schema.json``) is the library version it cites plus findings, each
with a rule id (or ``kind: outside-rules`` for a real problem no rule covers), a location, the
trigger, impact and correction, an optional severity and an optional suggested patch.
:func:`check_review` checks a file against the schema, the library and (optionally) the
reviewed repository; :mod:`.sarif` and :mod:`.markdown` render a checked review.
:func:`site_page` is the site's worked example, built from ``samples/review/``.
"""

from __future__ import annotations

from pathlib import Path

from ..library.model import Library
from ..render.code import code_span, fenced
from ..render.links import rule_uri
from .check import CheckResult, check_review, load_review
from .markdown import render_markdown
from .model import Finding, FindingKind, FindingsError, FindingSeverity, Location, Review
from .sarif import sarif_log

#: The repository root: sample paths in ``samples/review/findings.yaml`` are relative to it.
REPO_ROOT = Path(__file__).resolve().parents[3]
SAMPLE_DIR = REPO_ROOT / "samples" / "review"
SAMPLE_CODE = "scheduler.py"
SAMPLE_FINDINGS = "findings.yaml"

__all__ = [
    "CheckResult",
    "Finding",
    "FindingKind",
    "FindingSeverity",
    "FindingsError",
    "Location",
    "Review",
    "check_review",
    "load_review",
    "render_markdown",
    "sarif_log",
    "site_page",
]


def site_page(library: Library, site_url: str | None, sample_dir: Path = SAMPLE_DIR) -> str:
    """The Markdown page "What a review with these rules looks like" (onboarding reading).

    With ``site_url`` rule links are absolute (``<site_url>rules/R03/``); without it they are
    MkDocs links to ``rules/R03.md``, correct for a page placed at the docs root and checked by
    ``mkdocs build --strict``. Raises :class:`FindingsError` if the sample review does not
    pass ``findings check`` against ``library`` and the sample code.
    """
    findings_path = sample_dir / SAMPLE_FINDINGS
    repo = sample_dir.parents[1]
    code_path = sample_dir / SAMPLE_CODE
    review, _warnings = load_review(findings_path, library, repo, _shown(findings_path, repo))
    code = code_path.read_text(encoding="utf-8")
    shown_code = _shown(code_path, repo)
    shown_findings = _shown(findings_path, repo)
    marked = sorted(
        {
            line
            for f in review.findings
            for line in range(f.location.start_line, f.location.end_line + 1)
        }
    )
    link = None if site_url else rule_uri
    blocks = [
        "# What a review with these rules looks like",
        "A small scheduler with a preemption path, reviewed with these rules: each finding names "
        "its rule, its location, the condition that triggered it, its impact and its correction, "
        "as the preamble asks of every reviewer, person or agent.",
        f"The review is the data file {code_span(shown_findings)}; `rlt-rules findings check` "
        "verifies it against the library and the code, `rlt-rules findings markdown` renders it "
        "as below, "
        "and `rlt-rules findings sarif` turns it into code-scanning results.",
        f"## The code under review: {code_span(shown_code)}",
        fenced(code.rstrip("\n"), "python", title=shown_code, hl_lines=marked, numbered=True),
        render_markdown(review, library, site_url, heading_level=2, link=link).rstrip("\n"),
        "## Write your own",
        fenced(
            f"rlt-rules findings check {shown_findings} --repo .\n"
            f"rlt-rules findings markdown {shown_findings}\n"
            f"rlt-rules findings sarif {shown_findings} -o review.sarif",
            "sh",
        ),
    ]
    return "\n\n".join(blocks) + "\n"


def _shown(path: Path, repo: Path) -> str:
    try:
        return path.resolve().relative_to(repo.resolve()).as_posix()
    except ValueError:
        return path.as_posix()
