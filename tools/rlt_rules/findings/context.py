"""What an agent needs to review one change with the library, as one Markdown document.

``rlt-rules review-context`` prints it: the preamble; the rules (in full, or in the most
detail that fits ``max_chars``, never cut inside a rule: :func:`rlt_rules.render.digest.fit_rules`);
the files and line ranges the diff changes; the detectors' hints on its added lines (or that
they ran and found none); and the findings format to answer in, with the command that checks
the answer. The loop: the agent answers in that format,
``rlt-rules findings check ANSWER --repo . --diff CHANGE`` checks every finding against the
library, the code and the change, and ``findings sarif`` or ``findings markdown`` publishes it.
The printed commands read the change where it is (:class:`DiffSource`): its file, or the
``git diff`` that prints it; a change given on standard input is to be saved first.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from ..facts.about import NAME, VERSION
from ..files.errors import InputError
from ..library.model import Library
from ..render.answer import answer_blocks
from ..render.code import code_span
from ..render.digest import Detail, fit_rules
from ..render.inert import inert_library, inert_markdown
from ..render.levels import Levels, fit_each, level_summary
from ..render.links import site_base
from ..render.text import visible
from .diff import Change, ChangedFile, FileStatus

_FULL_NOTE = (
    "Each rule with its statement, triggers, impact and correction; its page has the rationale "
    "and runnable examples."
)
_EACH_NOTE = (
    "A digest: the full text does not fit in {budget} characters, so each rule has the most "
    "detail that fits, triggers first. Read a rule's page for the rest before citing it. "
    "Detail per rule: {levels}."
)
_INDEX_NOTE = (
    "An index (the rules' text does not fit in {budget} characters): one line per rule. Read a "
    "rule's page before citing it."
)
#: The share of ``max_chars`` the places to look first may take; the rules get the rest.
PLACES_SHARE = 4


class ContextTooLong(InputError, ValueError):
    """``max_chars`` cannot hold the document even with one line per rule."""


#: The name the printed commands give a change that no file holds (standard input, a pipe).
UNSAVED_DIFF = "CHANGE.diff"


@dataclass(frozen=True, slots=True)
class DiffSource:
    """Where the change came from, so a printed command can read it again: a regular file
    (``file``), a command that prints it (``command``: ``git diff HEAD -- PATH``), or neither
    (standard input, a pipe, text an agent sent): then the reviewer is told to save it."""

    file: str | None = None
    command: str | None = None

    @property
    def saved(self) -> bool:
        return self.file is not None or self.command is not None

    def run(self, command: str) -> str:
        """``command`` reading the change with ``--diff``."""
        if self.file is not None:
            return f"{command} --diff {shlex.quote(self.file)}"
        if self.command is not None:
            return f"{self.command} | {command} --diff -"
        return f"{command} --diff {UNSAVED_DIFF}"

    def note(self) -> str:
        """What to do before running the printed commands: nothing, or save the change."""
        if self.saved:
            return ""
        return (
            f"`{UNSAVED_DIFF}` in these commands stands for the change under review: it was "
            "given on standard input (or through a pipe), so no file holds it. Save the same "
            f"diff as `{UNSAVED_DIFF}` first (for a Git change: `git diff BASE > {UNSAVED_DIFF}`)."
        )


@dataclass(frozen=True, slots=True)
class Place:
    """A changed line a detector points at: a place to look first, not a finding."""

    rule_id: str
    path: str
    line: int
    message: str

    def text(self) -> str:
        """One list item; the detector's message on one line, made inert as rule text is."""
        message = inert_markdown(" ".join(self.message.split()), at_line_start=False)
        return f"- {self.rule_id} {code_span(f'{visible(self.path)}:{self.line}')}: {message}"


@dataclass(frozen=True, slots=True)
class Places:
    """The detectors' hints on a change's added lines, and how many of its Python files they
    ran on (0: they did not run, so their silence says nothing)."""

    hints: tuple[Place, ...] = ()
    files: int = 0


def review_context(
    library: Library,
    site_url: str | None,
    change: Change | None,
    *,
    max_chars: int | None = None,
    diff: DiffSource | None = None,
    repo: str = ".",
    source: str | None = None,
    library_option: str | None = None,
    places: Places | None = None,
) -> str:
    """The document, at most ``max_chars`` characters when given (:class:`ContextTooLong`
    when that cannot hold it). ``diff`` says where the change came from (default: nowhere a
    command can read it again), ``repo`` the repository's root as the check command names it;
    ``source`` says where the library came from; ``library_option`` (``--rules PATH``) goes
    into the check command when the library is not found without it; ``places`` are the
    detectors' hints on the changed lines."""
    diff = diff or DiffSource()
    shown = inert_library(library)
    head = [
        f"# Review a change with {shown.title} {library.version}",
        f"Prepared by {NAME} {VERSION} from {shown.title} {library.version}"
        + (f" ({site_base(site_url)})" if site_url else "")
        + ". Review the change below with the rules below and answer in the format at the end.",
        f"Library: {shown.title} {library.version}, from {source}." if source else "",
        "## How to review",
        *shown.preamble,
    ]
    check = f"{NAME} findings check ANSWER.yaml" + (f" {library_option}" if library_option else "")
    check += f" --repo {shlex.quote(repo)}"
    check = diff.run(check) if change is not None else check
    places_budget = None if max_chars is None else max_chars // PLACES_SHARE
    tail = [
        "## The change",
        *change_blocks(change),
        *place_blocks(places or Places(), places_budget, diff),
        *answer_blocks(library, site_url, check=check, anchored=True),
        diff.note() if change is not None else "",
    ]
    if max_chars is None:
        fitted = fit_rules(library, site_url, None, level=4, by_category=True, anchored=True)
        return _document(head, _FULL_NOTE, fitted.text, tail)
    # Everything but the rules and their note: each adds its length and one separator.
    fixed = len(_document(head, "x", "x", tail)) - 2
    each = fit_each(
        library,
        site_url,
        max(max_chars - fixed, 0),
        anchored=True,
        note=lambda levels: len(_each_note(levels, 0, max_chars)),
    )
    if each.listed == 0 and each.left_out:
        raise ContextTooLong(
            f"--max-chars {max_chars} cannot hold the review context: without the rules it "
            f"takes {fixed} characters; give at least {fixed + 200}"
        )
    text = _document(head, _each_note(each.levels, each.left_out, max_chars), each.text, tail)
    assert len(text) <= max_chars, (len(text), max_chars)
    return text


def _each_note(levels: Levels, left_out: int, budget: int) -> str:
    """The note before the rules fitted to ``budget``: which detail each has."""
    if all(detail is Detail.FULL for _, detail in levels) and not left_out:
        return _FULL_NOTE
    if left_out or all(detail is Detail.INDEX for _, detail in levels):
        return _INDEX_NOTE.format(budget=budget)
    return _EACH_NOTE.format(budget=budget, levels=level_summary(levels))


def _document(head: list[str], note: str, rules: str, tail: list[str]) -> str:
    blocks = [*head, "## The rules", note, rules, *tail]
    return "\n\n".join(block for block in blocks if block) + "\n"


def place_blocks(found: Places, budget: int | None, diff: DiffSource) -> list[str]:
    """The places to look first: one line per hint, whole lines within ``budget`` characters,
    and a last line saying how many more ``rlt-rules scan --diff`` lists; when the detectors
    ran and point at nothing, a line saying so."""
    places = found.hints
    if not places:
        if not found.files:
            return []
        files = "Python file" if found.files == 1 else f"{found.files} Python files"
        return [
            f"## Places to look first\n\nThe library's detectors ran on the change's {files} "
            "and point at none of the lines it adds. That is not approval: most findings have "
            "no hint, so read every changed line."
        ]
    intro = (
        "## Places to look first\n\nThe library's detectors point at these changed lines. "
        "Start there and judge each: a hint is not a finding, and most findings have no hint."
    )

    def more(count: int) -> str:
        return f"- … {count} more: `{diff.run(f'{NAME} scan')}`"

    lines: list[str] = []
    used = len(intro) + 2
    for number, place in enumerate(places):
        line = place.text()
        after = len(places) - number - 1
        reserve = len(more(after)) + 1 if after else 0
        if budget is not None and used + len(line) + 1 + reserve > budget:
            break
        lines.append(line)
        used += len(line) + 1
    left = len(places) - len(lines)
    if left:
        if not lines and budget is not None and used + len(more(left)) > budget:
            return []
        lines.append(more(left))
    return [intro, "\n".join(lines)]


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
    # A name git diff quoted may hold a line break or bytes that are not UTF-8: escaped.
    path = code_span(visible(changed.path))
    status = str(changed.status)
    if changed.status is FileStatus.RENAMED and changed.old_path is not None:
        status += f" from {code_span(visible(changed.old_path))}"
    if changed.binary:
        return f"- {path} ({status}, binary: no lines to review)"
    if changed.status is FileStatus.DELETED:
        return f"- {path} ({status}: nothing left to point at)"
    hunks = "; ".join(
        f"{hunk.lines.label()} (+{hunk.added} −{hunk.removed})" for hunk in changed.hunks
    )
    return f"- {path} ({status}): {hunks or 'no lines changed'}"
