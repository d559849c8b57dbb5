"""A checked :class:`Review` as one Markdown review comment (GitHub, GitLab, MkDocs pages).

Findings are grouped by file. Each gives its location, the rule id and title linked to the
rule's page, the trigger, impact and correction, and the suggested patch as a ``diff`` block.
Finding text is plain text in which backticks mark code: code spans are kept, everything else
is escaped as all plain text is (:func:`rlt_rules.export.inert.md_text`), so ``<`` or ``*`` in
a trigger shows as written and never as HTML.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..export.inert import md_text
from ..export.markdown import code_block, rule_url
from ..export.text import rule_heading
from ..model import Library
from .model import Finding, Review

#: A code span: a run of backticks, then text, then a run of the same length.
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")


def plain_text(text: str) -> str:
    """Plain text with backtick code spans, as Markdown paragraphs that render as written.

    Lines within a paragraph are joined (as Markdown would); blank lines separate paragraphs.
    """
    paragraphs = [p for p in re.split(r"\n\s*\n", text.strip()) if p.strip()]
    rendered = []
    for paragraph in paragraphs:
        joined = " ".join(line.strip() for line in paragraph.splitlines())
        parts: list[str] = []
        position = 0
        for match in _CODE_SPAN.finditer(joined):
            parts.append(md_text(joined[position : match.start()]))
            parts.append(match[0])
            position = match.end()
        parts.append(md_text(joined[position:]))
        rendered.append("".join(parts))
    return "\n\n".join(rendered)


def code_span(text: str) -> str:
    """``text`` as one code span, with enough backticks to hold any backticks inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def render_markdown(
    review: Review,
    library: Library,
    site_url: str | None,
    *,
    heading_level: int = 2,
    link: Callable[[str], str] | None = None,
) -> str:
    """The review as one comment. ``link(rule_id)`` overrides the rule page URL."""
    link_for = link or (lambda rule_id: rule_url(site_url, rule_id))
    top = "#" * heading_level
    groups = review.by_file()
    count = len(review.findings)
    noun = "finding" if count == 1 else "findings"
    files = "file" if len(groups) == 1 else "files"
    blocks = [
        f"{top} Review: {count} {noun}" + (f" in {len(groups)} {files}" if groups else ""),
        f"Rules cited from {md_text(library.title)} {library.version} "
        f"(the review cites {md_text(review.library_version)})."
        if review.library_version != library.version
        else f"Rules cited from {md_text(library.title)} {library.version}.",
    ]
    if not review.findings:
        blocks.append("No findings.")
    for path, findings in groups.items():
        blocks.append(f"{top}# {code_span(path)}")
        for finding in findings:
            blocks.extend(_finding_blocks(finding, library, link_for, top + "##"))
    return "\n\n".join(blocks) + "\n"


def _finding_blocks(
    finding: Finding, library: Library, link_for: Callable[[str], str], heading: str
) -> list[str]:
    rule = library.rule(finding.rule)
    where = finding.location.lines_label()
    if finding.location.column is not None:
        where += f", column {finding.location.column}"
    title = f"[{md_text(rule_heading(rule))}]({link_for(finding.rule)})"
    blocks = [
        f"{heading} {where[0].upper()}{where[1:]}: {title}",
        f"**Severity:** {finding.severity}",
        f"**Trigger:** {plain_text(finding.trigger)}",
        f"**Impact:** {plain_text(finding.impact)}",
        f"**Correction:** {plain_text(finding.correction)}",
    ]
    if finding.suggested_patch is not None:
        blocks += ["**Suggested patch:**", code_block(finding.suggested_patch, "diff")]
    return blocks
