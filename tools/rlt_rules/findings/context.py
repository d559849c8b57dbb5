"""What an agent needs to review one change with the library, as one Markdown document.

``rlt-rules review-context`` prints it: the preamble; the rules (in full, or in the most
detail that fits ``max_chars``, never cut inside a rule: :func:`rlt_rules.export.digest.fit_rules`);
the files and line ranges the diff changes; and the findings format to answer in, with the
command that checks the answer. The loop: the agent answers in that format,
``rlt-rules findings check ANSWER --repo . --diff CHANGE`` checks every finding against the
library, the code and the change, and ``findings sarif`` or ``findings markdown`` publishes it.
"""

from __future__ import annotations

from ..about import NAME, VERSION
from ..export.answer import answer_blocks
from ..export.digest import Detail, fit_rules
from ..export.inert import inert_library
from ..export.markdown import site_base
from ..model import Library
from .diff import Change, ChangedFile, FileStatus
from .markdown import code_span

_DETAIL_NOTES = {
    Detail.FULL: "Each rule with its statement, triggers, impact and correction; its page has "
    "the rationale and runnable examples.",
    Detail.GUIDANCE: "A digest (the full text does not fit in {budget} characters): each "
    "rule's triggers and correction. Read a rule's page for the rest before citing it.",
    Detail.STATEMENT: "A digest (the full text does not fit in {budget} characters): each "
    "rule's statement. Read a rule's page for its triggers, impact and correction before "
    "citing it.",
    Detail.INDEX: "An index (the rules' text does not fit in {budget} characters): one line "
    "per rule. Read a rule's page before citing it.",
}


class ContextTooLong(ValueError):
    """``max_chars`` cannot hold the document even with one line per rule."""


def review_context(
    library: Library,
    site_url: str | None,
    change: Change | None,
    *,
    max_chars: int | None = None,
    diff_name: str = "CHANGE.diff",
) -> str:
    """The document, at most ``max_chars`` characters when given (:class:`ContextTooLong`
    when that cannot hold it)."""
    shown = inert_library(library)
    head = [
        f"# Review a change with {shown.title} {library.version}",
        f"Prepared by {NAME} {VERSION} from {shown.title} {library.version}"
        + (f" ({site_base(site_url)})" if site_url else "")
        + ". Review the change below with the rules below and answer in the format at the end.",
        "## How to review",
        *shown.preamble,
    ]
    check = f"{NAME} findings check ANSWER.yaml --repo ." + (
        f" --diff {diff_name}" if change is not None else ""
    )
    tail = [
        "## The change",
        *change_blocks(change),
        *answer_blocks(library, site_url, check=check),
    ]
    if max_chars is None:
        fitted = fit_rules(library, site_url, None, level=4, by_category=True)
        return _document(head, fitted.detail, fitted.text, tail, None)
    # Everything but the rules, with the longest of the notes that introduce them.
    fixed = max(len(_document(head, detail, "x", tail, max_chars)) - 1 for detail in Detail)
    budget = max_chars - fixed
    fitted = fit_rules(library, site_url, budget, level=4, by_category=True)
    if fitted.listed == 0 and fitted.left_out:
        raise ContextTooLong(
            f"--max-chars {max_chars} cannot hold the review context: without the rules it "
            f"takes {fixed} characters; give at least {fixed + 200}"
        )
    text = _document(head, fitted.detail, fitted.text, tail, max_chars)
    assert len(text) <= max_chars, (len(text), max_chars)
    return text


def _note(detail: Detail, budget: int | None) -> str:
    return _DETAIL_NOTES[detail].format(budget=budget)


def _document(
    head: list[str], detail: Detail, rules: str, tail: list[str], budget: int | None
) -> str:
    blocks = [*head, "## The rules", _note(detail, budget), rules, *tail]
    return "\n\n".join(block for block in blocks if block) + "\n"


def change_blocks(change: Change | None) -> list[str]:
    """The changed files, each with its status and the new file's line ranges per hunk."""
    if change is None:
        return [
            "No diff was given: review the files and lines you were asked to review, and "
            "point each finding at them."
        ]
    lines = [_file_line(changed) for changed in change.files]
    return [
        "Point every finding at lines inside these ranges (the new file's lines); read the "
        "changed code and its callers at will.",
        "\n".join(lines),
    ]


def _file_line(changed: ChangedFile) -> str:
    path = code_span(changed.path)
    status = str(changed.status)
    if changed.status is FileStatus.RENAMED and changed.old_path is not None:
        status += f" from {code_span(changed.old_path)}"
    if changed.binary:
        return f"- {path} ({status}, binary: no lines to review)"
    if changed.status is FileStatus.DELETED:
        return f"- {path} ({status}: nothing left to point at)"
    hunks = "; ".join(
        f"{hunk.lines.label()} (+{hunk.added} −{hunk.removed})" for hunk in changed.hunks
    )
    return f"- {path} ({status}): {hunks or 'no lines changed'}"
