"""Links to rule pages: on the published site (its base URL, each rule's permanent page, the
section on suppression comments) and between the site's Markdown sources."""

from __future__ import annotations

import re

from .inert import md_prose

#: Words of an item's text a citation's label keeps.
LABEL_WORDS = 6
_LABEL_NOISE = re.compile(r"[`*\[\]<>]")


def site_base(site_url: str | None) -> str:
    """The site URL with one trailing slash, or ``""`` for links relative to the site root."""
    if not site_url:
        return ""
    return site_url.rstrip("/") + "/"


def rule_uri(rule_id: str) -> str:
    """Source URI of a rule's page among the site's Markdown sources (``rules/R03.md``); it is
    published at the permanent URL ``rules/<id>/`` (:func:`rule_url`)."""
    return f"rules/{rule_id}.md"


def rule_url(site_url: str | None, rule_id: str) -> str:
    """The rule's page: ``<site_url>rules/R03/`` (relative ``rules/R03/`` without a site URL)."""
    return f"{site_base(site_url)}rules/{rule_id}/"


def cite_url(site_url: str | None, rule_id: str, anchor: str) -> str:
    """A trigger, the impact, the correction or an example of a rule, by its anchor
    (:meth:`rlt_rules.library.model.Rule.anchors`): ``<site_url>rules/R03/#trigger-…``."""
    return f"{rule_url(site_url, rule_id)}#{anchor}"


def cite_label(kind: str, text: str) -> str:
    """How a citation names an item: its kind and its first words, as plain text
    (``trigger: Two functions compute the same value…``)."""
    words = _LABEL_NOISE.sub("", " ".join(text.split())).split(" ")
    first = " ".join(words[:LABEL_WORDS])
    return f"{kind}: {first}{'…' if len(words) > LABEL_WORDS else ''}"


def cite_markdown(rule_id: str, kind: str, text: str, url: str) -> str:
    """``[R03, trigger: first words…](<url>)``: the Markdown citation of a rule's item (its
    page's "Copy citation"), the label escaped so that it renders as written."""
    label = md_prose(f"{rule_id}, {cite_label(kind, text)}", at_line_start=False, link_text=True)
    return f"[{label}]({url})"


#: The site page with a section on each of ``scan``'s reports about suppression comments,
#: anchored by its SARIF ``ruleId`` (``suppression-without-reason``, ``unused-suppression``).
SUPPRESSIONS_PAGE = "configuration.md"


def suppression_url(site_url: str | None, name: str) -> str:
    """The section explaining the suppression report ``name``: ``<site_url>configuration/#name``."""
    return f"{site_base(site_url)}{SUPPRESSIONS_PAGE.removesuffix('.md')}/#{name}"
