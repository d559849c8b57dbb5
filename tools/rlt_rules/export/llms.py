"""``llms.txt`` and ``llms-full.txt`` for the site root, per the llms.txt convention.

``llms.txt``: an H1 title, a blockquote summary, the preamble, then one H2 section per
category listing each rule's page with a one-line description, and an ``Optional`` section
linking the other exports. ``llms-full.txt``: the whole library in one Markdown file, every
rule with its statement, seed example, rationale, guidance and runnable examples.
"""

from __future__ import annotations

from ..library.model import Library, Rule
from ..render.inert import InertRules, inert_library
from ..render.links import rule_url, site_base
from ..render.markdown import encode_blocks, encoded_library, library_blocks
from ..render.text import first_sentence, rule_heading

INDEX_NAME = "llms.txt"
FULL_NAME = "llms-full.txt"


def summary(library: Library) -> str:
    return (
        f"> {library.subtitle}: {len(library.rules)} rules ({library.id_span()}) in "
        f"{len(library.categories)} "
        f"categories, version {library.version}. Each rule has a stable id, a statement, "
        "triggers a reviewer can spot in a diff, its impact and the correction."
    )


def index_line(rule: Rule, site_url: str | None) -> str:
    """A rule's line in ``llms.txt``: its heading linking its page, its first sentence."""
    return f"- [{rule_heading(rule)}]({rule_url(site_url, rule.id)}): " + first_sentence(
        rule.statement
    )


def render_index(library: Library, site_url: str | None, inert: InertRules | None = None) -> bytes:
    """``llms.txt`` of ``library`` as given, or, with ``inert``, of ``library`` made inert
    by it (each rule's line kept by ``inert.part``)."""
    shown = library if inert is None else inert_library(library, inert)
    base = site_base(site_url)
    blocks = [f"# {shown.title}", summary(shown), *shown.preamble]
    for category, shown_category in zip(library.categories, shown.categories, strict=True):
        links = [
            index_line(rule, site_url)
            if inert is None
            else inert.part(
                ("llms.txt", rule, site_url),
                lambda rule=rule: index_line(inert.rule(rule), site_url),
            )
            for rule in library.rules_in(category.id)
        ]
        blocks.extend((f"## {shown_category.title}", "\n".join(links)))
    blocks.append("## Optional")
    blocks.append(
        "\n".join(
            (
                f"- [Full text]({base}{FULL_NAME}): every rule with its examples in one file",
                f"- [Rule bundle]({base}rules.json): every rule and example as one JSON document",
                f"- [Bundle schema]({base}schema/bundle.schema.json): JSON Schema of rules.json",
                f"- [SARIF rule metadata]({base}rules.sarif.json): SARIF 2.1.0 rule descriptors",
                f"- [Review checklist]({base}checklist.md): every trigger as a task list",
                f"- [Agent Skill]({base}skill/SKILL.md): the library as instructions for agents",
            )
        )
    )
    return encode_blocks(blocks)


def render_full(library: Library, inert: InertRules | None = None) -> bytes:
    """``llms-full.txt`` of ``library`` as given (made inert by the caller when it was not
    given ``inert``)."""
    if inert is None:
        blocks = library_blocks(library, full=True)
        blocks.insert(1, summary(library))
        return encode_blocks(blocks)
    shown = inert_library(library, inert)
    return encoded_library(library, shown, inert, full=True, after_title=(summary(shown),))


def files(
    library: Library, site_url: str | None, inert: InertRules | None = None
) -> dict[str, bytes]:
    """Both files, with the library's text inert (raw HTML shows as text: see
    :mod:`rlt_rules.render.inert`)."""
    inert = inert or InertRules()
    return {
        INDEX_NAME: render_index(library, site_url, inert),
        FULL_NAME: render_full(library, inert),
    }
