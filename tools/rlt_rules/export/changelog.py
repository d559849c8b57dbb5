"""The changelog page and ``rlt-rules diff``'s Markdown: views of a history and of a diff.

The changelog is a site page: released titles are plain text
(:func:`rlt_rules.render.inert.md_text`) and retired reasons Markdown made inert
(:func:`rlt_rules.render.inert.inert_markdown`), as on every other page.
``diff`` prints the text as the libraries hold it.
"""

from __future__ import annotations

from dataclasses import replace

from ..library.model import Library
from ..releases import Bump, ChangeKind, History, LibraryDiff, compare
from ..render.inert import inert_markdown, md_text
from ..render.links import rule_uri


def _link(rule_id: str, title: str) -> str:
    return f"[{rule_id} — {md_text(title)}]({rule_uri(rule_id)})"


def changelog_markdown(history: History) -> str:
    """The site's changelog page (at the site root, next to ``rules/``): every release, newest
    first, with the rules it added, changed, deprecated and retired, each linking to its page."""
    lines = [
        "# Changelog",
        "",
        "Every release of the library, newest first. Rule ids are stable: a released id is never "
        "reused or removed; a rule that no longer applies is retired and keeps its page.",
        "",
    ]
    if not history.releases:
        lines.extend(["No release yet.", ""])
    previous: Library | None = None
    sections: list[list[str]] = []
    for release in history.releases:
        section = [f"## {release.version}", ""]
        if previous is None:
            count = len(release.library.rules)
            section.extend([f"First release: {count} rule{'s' if count != 1 else ''}.", ""])
            diff = compare(replace(release.library, rules=()), release.library)
        else:
            diff = compare(previous, release.library)
            bump = diff.required_bump
            summary = (
                f"A {bump} release after {previous.version}."
                if bump is not Bump.NONE
                else f"No changes since {previous.version}."
            )
            section.extend([summary, ""])
        section.extend(_diff_lines(diff, heading="###", for_site=True))
        sections.append(section)
        previous = release.library
    for section in reversed(sections):
        lines.extend(section)
    return "\n".join(lines).rstrip("\n") + "\n"


_SECTION_TITLES = {
    ChangeKind.ADDED: "Added",
    ChangeKind.CHANGED: "Changed",
    ChangeKind.DEPRECATED: "Deprecated",
    ChangeKind.RETIRED: "Retired",
    ChangeKind.REACTIVATED: "Reactivated",
    ChangeKind.REMOVED: "Removed (not allowed: retire instead)",
}


def _diff_lines(diff: LibraryDiff, heading: str, *, for_site: bool) -> list[str]:
    """Each kind of change as a list. ``for_site``: rule names link to their pages and the
    library's text is escaped for the site (see the module doc)."""
    lines: list[str] = []
    for kind, section_title in _SECTION_TITLES.items():
        changes = diff.of_kind(kind)
        if not changes:
            continue
        lines.extend([f"{heading} {section_title}", ""])
        for change in changes:
            title = md_text(change.title) if for_site else change.title
            name = (
                _link(change.rule_id, change.title)
                if for_site and kind is not ChangeKind.REMOVED
                else f"{change.rule_id} — {title}"
            )
            detail = ""
            if change.replaced_by is not None:
                detail = f" (replaced by {change.replaced_by})"
            elif change.retired_reason is not None:
                reason = change.retired_reason
                if for_site:
                    reason = inert_markdown(reason, at_line_start=False, attr_lists=True)
                detail = f": {reason.splitlines()[0]}"
            if change.fields and kind is not ChangeKind.ADDED:
                detail += f" — changed: {', '.join(change.fields)}"
            lines.append(f"- {name}{detail}")
        lines.append("")
    if diff.library:
        lines.extend([f"{heading} Library", ""])
        lines.extend(f"- {change.field}: {change.reason}" for change in diff.library)
        lines.append("")
    return lines


def diff_markdown(diff: LibraryDiff) -> str:
    """``rlt-rules diff``'s Markdown: each kind of change, and the release it requires."""
    lines = [
        f"# Changes from {diff.old_version} to {diff.new_version}",
        "",
    ]
    required = diff.required_bump
    if required is Bump.NONE:
        lines.extend(["No changes.", ""])
    else:
        lines.extend([f"Requires at least a {required} release.", ""])
    lines.extend(_diff_lines(diff, heading="##", for_site=False))
    return "\n".join(lines).rstrip("\n") + "\n"
