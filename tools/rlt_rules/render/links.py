"""Links to rule pages: on the published site (its base URL, each rule's permanent page) and
between the site's Markdown sources."""

from __future__ import annotations


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
