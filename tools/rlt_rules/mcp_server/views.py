"""What the MCP server answers about the rules, as named data built from the typed library: a
listing, one rule at a chosen detail, a word search, a rule's page and the prompt that starts a
review. No MCP here: :mod:`.server` registers these; a bad argument is a :class:`ViewError`
whose message says what to give instead.

Rule text is the inert library's (raw HTML shows as text) and renders as the exports render it
(:func:`rlt_rules.render.digest.rule_text`, :func:`rlt_rules.render.markdown.rule_blocks`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import TypedDict

from ..facts import mcp_names
from ..files.errors import InputError
from ..library.model import Library, Rule, Status, id_span
from ..render.answer import ANCHOR_NOTE
from ..render.digest import Detail, rule_text
from ..render.inert import inert_library, inert_rule
from ..render.links import cite_markdown, cite_url, rule_url
from ..render.markdown import join_blocks, rule_blocks
from ..render.text import first_sentence


class ViewError(InputError, ValueError):
    """An argument the library cannot answer (an unknown id, category or tag, an empty
    query): the message names what exists."""


class RuleDetail(StrEnum):
    """How much of a rule :func:`rule_view` gives."""

    #: The rule in its authors' words.
    STATEMENT = "statement"
    #: What a reviewer spots and what to do: triggers and correction.
    GUIDANCE = "guidance"
    #: The whole page: statement, seed example, rationale, triggers, impact, correction and
    #: every runnable example.
    FULL = "full"


class RuleSummary(TypedDict):
    id: str
    title: str
    category: str
    status: str
    tags: list[str]
    url: str
    uri: str


class RuleListing(TypedDict):
    library_version: str
    count: int
    rules: list[RuleSummary]


class CitedTrigger(TypedDict):
    """How a finding or a review comment cites one trigger of a rule."""

    #: The trigger's anchor on its rule's page: a finding's ``trigger_anchor``.
    anchor: str
    #: The rule's page at that trigger (relative to the site root without a site URL).
    url: str
    #: ``[R03, trigger: first words…](url)``, for a review comment.
    citation: str


class RuleView(TypedDict):
    id: str
    title: str
    category: str
    status: str
    replaced_by: str | None
    url: str
    detail: str
    text: str
    triggers: list[CitedTrigger]


class SearchHit(TypedDict):
    id: str
    title: str
    status: str
    url: str
    matched_words: list[str]
    matched_fields: list[str]


class SearchResults(TypedDict):
    query: str
    count: int
    results: list[SearchHit]


def rule_uri(rule_id: str) -> str:
    return mcp_names.RULE_URI.format(rule_id=rule_id)


def summary(rule: Rule, site_url: str | None) -> RuleSummary:
    return {
        "id": rule.id,
        "title": rule.title,
        "category": rule.category,
        "status": str(rule.status),
        "tags": list(rule.tags),
        "url": rule_url(site_url, rule.id),
        "uri": rule_uri(rule.id),
    }


def listing(
    library: Library,
    site_url: str | None,
    category: str | None = None,
    tag: str | None = None,
    status: str | None = None,
) -> RuleListing:
    """The rules matching every given filter, in id order."""
    categories = [category.id for category in library.categories]
    if category is not None and category not in categories:
        raise ViewError(f"unknown category '{category}'; categories: {', '.join(categories)}")
    tags = sorted({tag for rule in library.rules for tag in rule.tags})
    if tag is not None and tag not in tags:
        raise ViewError(f"unknown tag '{tag}'; tags: {', '.join(tags)}")
    rules = library.select(category=category, tag=tag, status=status)
    return {
        "library_version": library.version,
        "count": len(rules),
        "rules": [summary(rule, site_url) for rule in rules],
    }


def find_rule(library: Library, rule_id: str) -> Rule:
    """The rule ``rule_id`` names (``r3``, ``R03`` and `` R03 `` alike)."""
    wanted = rule_id.strip().upper()
    if re.fullmatch(r"R\d+", wanted) and len(wanted) < 4:
        wanted = f"R{int(wanted[1:]):02d}"
    try:
        return library.rule(wanted)
    except KeyError:
        known = id_span([rule.id for rule in library.rules], listed_up_to=5)
        raise ViewError(
            f"unknown rule id '{rule_id}': library {library.version} has rules {known}"
        ) from None


def cited_triggers(rule: Rule, site_url: str | None) -> list[CitedTrigger]:
    """Each trigger of ``rule`` by its anchor (:meth:`~rlt_rules.library.model.Rule.anchors`),
    with its link and citation."""
    cites: list[CitedTrigger] = []
    for text, anchor in zip(rule.triggers, rule.anchors().triggers, strict=True):
        url = cite_url(site_url, rule.id, anchor)
        cites.append(
            {"anchor": anchor, "url": url, "citation": cite_markdown(rule.id, "trigger", text, url)}
        )
    return cites


def rule_view(library: Library, site_url: str | None, rule_id: str, detail: RuleDetail) -> RuleView:
    """One rule at ``detail``, as Markdown, with what identifies it and (at every detail) how
    to cite each of its triggers; the text's triggers end with their anchors."""
    rule = find_rule(library, rule_id)
    if detail is RuleDetail.FULL:
        text = page_text(library, site_url, rule)
    elif detail is RuleDetail.STATEMENT:
        text = rule_text(rule, Detail.STATEMENT, site_url, level=2) + "\n"
    else:
        text = rule_text(rule, Detail.GUIDANCE, site_url, level=2, anchored=True)
        text += f"\n\n{ANCHOR_NOTE}\n"
    return {
        "id": rule.id,
        "title": rule.title,
        "category": rule.category,
        "status": str(rule.status),
        "replaced_by": rule.replaced_by,
        "url": rule_url(site_url, rule.id),
        "detail": str(detail),
        "text": text,
        "triggers": cited_triggers(rule, site_url),
    }


def page_text(library: Library, site_url: str | None, rule: Rule) -> str:
    """A rule's page as Markdown: its category and address, then everything the site's page
    holds, examples included (the resource ``rlt://rules/R03``). Each trigger ends with its
    anchor, linked to the trigger on the published page when the site's address is known."""
    shown = inert_rule(rule)
    category = inert_library(library).category(rule.category).title
    marks = tuple(
        f"[`{cite['anchor']}`]({cite['url']})" if site_url else f"`{cite['anchor']}`"
        for cite in cited_triggers(rule, site_url)
    )
    blocks = rule_blocks(shown, 1, full=True, marks=marks, triggers_note=ANCHOR_NOTE)
    where = f"Category: {category}. Library: {library.title} {library.version}."
    where += f" Page: {rule_url(site_url, rule.id)}" if site_url else ""
    return join_blocks([blocks[0], where, *blocks[1:]])


def resource_description(rule: Rule) -> str:
    """One line for a client's list of resources: the statement's first sentence."""
    return first_sentence(rule.statement)


# --- search ----------------------------------------------------------------------------------

#: The longest query :meth:`RuleIndex.search` takes (a rule's statement is a few hundred).
MAX_QUERY_CHARS = 1000
_WORD = re.compile(r"[a-z0-9]+(?:[_'-][a-z0-9]+)*")
#: The fields searched, each with its weight in the ranking.
_FIELDS = (
    ("id", 100),
    ("title", 8),
    ("tags", 5),
    ("statement", 4),
    ("triggers", 4),
    ("search_terms", 4),
    ("correction", 2),
    ("impact", 1),
    ("rationale", 1),
)


def _words(text: str) -> set[str]:
    words = set(_WORD.findall(text.casefold()))
    # "request_id" is found by "request" and "id" too.
    return words | {part for word in words for part in re.split(r"[_'-]", word) if part}


@dataclass(frozen=True, slots=True)
class _RuleWords:
    rule: Rule
    fields: tuple[tuple[str, int, frozenset[str]], ...]


class RuleIndex:
    """The words of every rule's searchable fields, built once for a server's library."""

    def __init__(self, library: Library) -> None:
        self.library = library
        self._rules = tuple(
            _RuleWords(
                rule,
                tuple(
                    (name, weight, frozenset(_words(_field(rule, name))))
                    for name, weight in _FIELDS
                ),
            )
            for rule in library.rules
        )

    def search(self, site_url: str | None, query: str, limit: int) -> SearchResults:
        """Rules holding the query's words (a word also finds longer words it starts:
        ``preempt`` finds ``preemption``), most words matched first, then by weight (id, title,
        tags, statement, triggers and search terms, then the rest), retired rules last. An id
        is matched whole (``R3`` or ``R03``)."""
        if len(query) > MAX_QUERY_CHARS:
            raise ViewError(
                f"query is {len(query):,} characters, over the {MAX_QUERY_CHARS:,}-character "
                "limit: give the words to look for (an id, a few words of a rule)"
            )
        wanted = sorted(_words(query))
        if not wanted:
            raise ViewError("give at least one word to search for (an id, or words of a rule)")
        scored = []
        for entry in self._rules:
            matched_words: set[str] = set()
            matched_fields: list[str] = []
            score = 0
            for name, weight, words in entry.fields:
                if name == "id":
                    hits = {word for word in wanted if word in words}
                else:
                    hits = {word for word in wanted if any(w.startswith(word) for w in words)}
                if hits:
                    matched_fields.append(name)
                    matched_words |= hits
                    score += weight * len(hits)
            if matched_words:
                retired = entry.rule.status is Status.RETIRED
                key = (-len(matched_words), retired, -score, entry.rule.number)
                scored.append((key, entry.rule, sorted(matched_words), matched_fields))
        scored.sort(key=lambda item: item[0])
        results: list[SearchHit] = [
            {
                "id": rule.id,
                "title": rule.title,
                "status": str(rule.status),
                "url": rule_url(site_url, rule.id),
                "matched_words": words,
                "matched_fields": fields,
            }
            for _key, rule, words, fields in scored[:limit]
        ]
        return {"query": query, "count": len(scored), "results": results}


def _field(rule: Rule, name: str) -> str:
    if name == "id":
        return f"{rule.id} {rule.id[0]}{int(rule.id[1:])}"  # R03 and R3
    if name == "tags":
        return " ".join(rule.tags)
    if name in ("triggers", "search_terms"):
        return "\n".join(getattr(rule, name))
    return str(getattr(rule, name))


# --- the prompt ------------------------------------------------------------------------------


def review_prompt(library: Library, base: str | None) -> str:
    """The message that starts a review of a change: the library's preamble, then the loop
    through the server's tools."""
    shown = inert_library(library)
    change = (
        f"`{mcp_names.REVIEW_CONTEXT}` with `base` = `{base}` (the change is `git diff {base}`)"
        if base
        else f"`{mcp_names.REVIEW_CONTEXT}` with the change's unified diff as `diff` (or a base "
        "revision as `base`)"
    )
    steps = [
        f"1. Call {change}: it gives the rules, the files and line ranges the change touches "
        "and the findings format to answer in.",
        "2. Read the changed code and its callers. Before citing a rule, read it with "
        f"`{mcp_names.GET_RULE}` (`detail: full` has its examples) and cite the trigger the "
        f"code matches by its anchor (`trigger_anchor`); `{mcp_names.SEARCH_RULES}` "
        f"finds rules by words and `{mcp_names.SCAN_CODE}` points at code shaped like a rule's "
        "triggers, for you to judge.",
        f"3. Write the answer and call `{mcp_names.CHECK_FINDINGS}` with it (and the same diff "
        "or base): fix every problem it lists, each at its line, until it reports none.",
        "4. Reply with the checked answer: one YAML document in the findings format, nothing else.",
    ]
    return join_blocks(
        [
            f"# Review a change with {shown.title} {library.version}",
            *shown.preamble,
            "## How to review with the rlt-rules tools",
            "\n".join(steps),
        ]
    )
