"""Markdown building blocks shared by the Markdown exports (skill, llms, checklist, SARIF help)
and the MCP server's views.

Each function returns text blocks (paragraphs, lists, code) without surrounding blank lines;
callers join blocks with one blank line. Library text is inserted verbatim.
"""

from __future__ import annotations

from ..library.model import Example, Library, Rule, Status
from .code import fenced
from .inert import InertRules
from .text import rule_heading, starts_with_code


def list_item(text: str, marker: str = "- ") -> str:
    """A list item; continuation lines are indented under the marker so the item stays whole."""
    if "\n" not in text:
        return marker + text
    pad = " " * len(marker)
    lines = text.split("\n")
    return marker + "\n".join([lines[0], *(pad + line if line else "" for line in lines[1:])])


def bullet_list(items: tuple[str, ...] | list[str], marker: str = "- ") -> str:
    return "\n".join(list_item(item, marker) for item in items)


def status_note(rule: Rule) -> str | None:
    """``Status: deprecated …`` / ``Status: retired …`` for a rule that no longer applies as is."""
    if rule.status is Status.DEPRECATED:
        return f"Status: deprecated; replaced by {rule.replaced_by}."
    if rule.status is Status.RETIRED:
        return f"Status: retired. {rule.retired_reason}"
    return None


def seed_example_block(rule: Rule) -> str:
    """The seed example verbatim (code kept fenced), introduced by ``Example:`` as in the seed."""
    if starts_with_code(rule.seed_example):
        return f"Example:\n\n{rule.seed_example}"
    return f"Example: {rule.seed_example}"


def cited(items: tuple[str, ...], marks: tuple[str, ...]) -> tuple[str, ...]:
    """Each item followed by its mark in parentheses (a trigger by its anchor: ``… (`a`)``)."""
    return tuple(f"{item} ({mark})" for item, mark in zip(items, marks, strict=True))


def guidance_blocks(
    rule: Rule, marks: tuple[str, ...] = (), *, triggers_note: str | None = None
) -> list[str]:
    """Triggers, impact and correction: what a reviewer looks for and reports; ``marks``:
    one per trigger, after it (:func:`cited`); ``triggers_note``: a block right after the
    triggers' list."""
    blocks = ["Triggers:", bullet_list(cited(rule.triggers, marks) if marks else rule.triggers)]
    if triggers_note is not None:
        blocks.append(triggers_note)
    return [*blocks, f"Impact: {rule.impact}", f"Correction: {rule.correction}"]


def example_blocks(example: Example, heading: str) -> list[str]:
    """One runnable example: heading with kind and title, explanation, fenced code."""
    return [
        f"{heading} {example.kind.capitalize()}: {example.title}",
        example.explanation,
        fenced(example.code.rstrip("\n"), "python"),
    ]


def rule_blocks(
    rule: Rule,
    level: int,
    *,
    full: bool,
    marks: tuple[str, ...] = (),
    triggers_note: str | None = None,
) -> list[str]:
    """A rule under a heading of ``level``: the seed's words, then guidance.

    ``full`` adds the metadata line, rationale and every runnable example; ``marks`` and
    ``triggers_note``: as :func:`guidance_blocks`'.
    """
    hashes = "#" * level
    blocks = [f"{hashes} {rule_heading(rule)}"]
    note = status_note(rule)
    if note is not None:
        blocks.append(note)
    if full:
        meta = [f"Since: {rule.since}."]
        if rule.tags:
            meta.append(f"Tags: {', '.join(rule.tags)}.")
        if rule.related:
            meta.append(f"Related: {', '.join(rule.related)}.")
        blocks.append(" ".join(meta))
    blocks.extend((rule.statement, seed_example_block(rule)))
    if full:
        blocks.append(f"Rationale: {rule.rationale}")
    blocks.extend(guidance_blocks(rule, marks, triggers_note=triggers_note))
    if full:
        for example in rule.examples:
            blocks.extend(example_blocks(example, "#" * (level + 1)))
    return blocks


def library_blocks(library: Library, *, full: bool, rule_level: int = 3) -> list[str]:
    """The whole library in the seed's order: title, subtitle, preamble, categories, rules."""
    blocks = [f"# {library.title}", library.subtitle, *library.preamble]
    for category in library.categories:
        blocks.append(f"{'#' * (rule_level - 1)} {category.title}")
        for rule in library.rules_in(category.id):
            blocks.extend(rule_blocks(rule, rule_level, full=full))
    return blocks


def encoded_library(
    library: Library,
    shown: Library,
    inert: InertRules,
    *,
    full: bool,
    after_title: tuple[str, ...] = (),
    prefix: str = "",
) -> bytes:
    """``encode_blocks(blocks, prefix)`` of :func:`library_blocks` of ``shown`` (the library
    made inert by ``inert``) with ``after_title`` inserted after its title, each rule's blocks
    encoded as one piece, kept by ``inert.part`` by the rule and how it is shown."""
    rule_level = 3
    encoded = [
        block.encode("utf-8")
        for block in (f"# {shown.title}", *after_title, shown.subtitle, *shown.preamble)
    ]
    for category, shown_category in zip(library.categories, shown.categories, strict=True):
        encoded.append(f"{'#' * (rule_level - 1)} {shown_category.title}".encode())
        for rule in library.rules_in(category.id):
            encoded.append(
                inert.part(
                    ("rule_blocks", rule, rule_level, full),
                    lambda rule=rule: b"\n\n".join(
                        block.encode("utf-8")
                        for block in rule_blocks(inert.rule(rule), rule_level, full=full)
                    ),
                )
            )
    return _joined(encoded, prefix)


def join_blocks(blocks: list[str]) -> str:
    """Blocks separated by one blank line, ending with one newline."""
    return "\n\n".join(blocks) + "\n"


def encode_blocks(blocks: list[str], prefix: str = "") -> bytes:
    """``(prefix + join_blocks(blocks)).encode("utf-8")``, encoded block by block.

    The document never exists as one ``str``, which takes two or four bytes per character once
    it holds one non-ASCII character ("—"), nor is it copied to add the final newline: the
    exports' peak memory at 5,000 rules is a third lower.
    """
    return _joined([block.encode("utf-8") for block in blocks], prefix)


def _joined(encoded: list[bytes], prefix: str) -> bytes:
    """Encoded blocks joined as :func:`encode_blocks` joins them (a piece may hold several
    blocks, already joined: a block always has a piece of its own or shares one)."""
    encoded = encoded or [b""]
    encoded[0] = prefix.encode("utf-8") + encoded[0]
    encoded[-1] += b"\n"
    return b"\n\n".join(encoded)
