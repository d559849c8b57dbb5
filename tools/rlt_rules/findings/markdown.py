"""A checked :class:`Review` as one Markdown review comment (GitHub, GitLab, MkDocs pages).

Findings keep the order the review gives them (the schema's reading order). Each gives its
file and lines, the rule id and title linked to the rule's page ("Outside the rules" for a
finding no rule covers), the rule's trigger it cites (``trigger_anchor``) as a link to that
trigger on the rule's page, the trigger, impact and correction, and the suggested patch as a
``diff`` block. Finding text is plain text in which
backticks mark code: code spans are kept, and the rest is escaped only where Markdown would
change it (:func:`rlt_rules.render.inert.md_prose`), so the raw comment reads as written while
``<`` or ``*`` in a trigger shows as written and never as HTML. An ``@name`` in finding text
becomes a code span, so a posted comment pings nobody; a path's control characters show as
escapes (``\n``), so a file name cannot start a block of its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..library.model import Library
from ..render.code import code_span, fenced
from ..render.inert import md_prose
from ..render.links import cite_markdown, rule_url
from ..render.text import rule_heading, visible
from .model import Finding, Review

#: A code span: a run of backticks, then text, then a run of the same length.
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
#: An @-mention as GitHub and GitLab read one: ``@`` after no word character, then a name.
_MENTION = re.compile(r"(?<![\w`\\])@(?=[A-Za-z0-9])[A-Za-z0-9][-A-Za-z0-9]*(?:/[-A-Za-z0-9]+)?")


#: The heading's title of a finding no rule covers (``kind: outside-rules``).
OUTSIDE_TITLE = "Outside the rules (no rule of the library covers it)"


def _unmention(prose: str) -> str:
    """Escaped prose with each @-mention as a code span: shown as written, notifying nobody."""
    return _MENTION.sub(lambda match: f"`{match[0]}`", prose)


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
            text_before = joined[position : match.start()]
            parts.append(_unmention(md_prose(text_before, at_line_start=position == 0)))
            parts.append(match[0])
            position = match.end()
        parts.append(_unmention(md_prose(joined[position:], at_line_start=position == 0)))
        rendered.append("".join(parts))
    return "\n\n".join(rendered)


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
    count = len(review.findings)
    files = len({finding.location.path for finding in review.findings})
    noun = "finding" if count == 1 else "findings"
    cited = md_prose(f"{library.title} {library.version}", at_line_start=False)
    theirs = md_prose(review.library_version, at_line_start=False)
    blocks = [
        f"{top} Review: {count} {noun}"
        + (f" in {files} file{'s' * (files != 1)}" if files else ""),
        f"Rules cited from {cited} (the review cites {theirs})."
        if review.library_version != library.version
        else f"Rules cited from {cited}.",
    ]
    if not review.findings:
        blocks.append("No findings.")
    for finding in review.findings:
        blocks.extend(_finding_blocks(finding, library, link_for, top + "#"))
    return "\n\n".join(blocks) + "\n"


def _finding_blocks(
    finding: Finding, library: Library, link_for: Callable[[str], str], heading: str
) -> list[str]:
    where = f"{code_span(visible(finding.location.path))}, {finding.location.lines_label()}"
    if finding.location.column is not None:
        where += f", column {finding.location.column}"
    if finding.rule is None:
        title = OUTSIDE_TITLE
    else:
        heading_text = rule_heading(library.rule(finding.rule))
        title = md_prose(heading_text, at_line_start=False, link_text=True)
        title = f"[{title}]({link_for(finding.rule)})"
    blocks = [f"{heading} {where}: {title}", f"**Severity:** {finding.severity}"]
    if finding.rule is not None and finding.trigger_anchor is not None:
        blocks.append(f"**Rule trigger:** {_cited_trigger(finding, library, link_for)}")
    blocks += [
        f"**Trigger:** {plain_text(finding.trigger)}",
        f"**Impact:** {plain_text(finding.impact)}",
        f"**Correction:** {plain_text(finding.correction)}",
    ]
    if finding.suggested_patch is not None:
        blocks += ["**Suggested patch:**", fenced(finding.suggested_patch.rstrip("\n"), "diff")]
    return blocks


def _cited_trigger(finding: Finding, library: Library, link_for: Callable[[str], str]) -> str:
    """``[R03, trigger: first words…](<rule page>#<anchor>)``: the citation the rule page's
    "Copy citation" gives, for the rule's trigger the finding names by its anchor."""
    assert finding.rule is not None and finding.trigger_anchor is not None
    rule = library.rule(finding.rule)
    texts = dict(zip(rule.anchors().triggers, rule.triggers, strict=True))
    text = texts.get(finding.trigger_anchor, finding.trigger_anchor)  # checked: always found
    return cite_markdown(rule.id, "trigger", text, f"{link_for(rule.id)}#{finding.trigger_anchor}")
