"""A checked :class:`Review` as a SARIF 2.1.0 log, for GitHub code scanning and SARIF viewers.

The run's ``tool.driver`` is the library's own descriptor from :mod:`rlt_rules.render.sarif`
(every rule, with ``helpUri`` to its page when a site URL is given); each finding becomes a
``result`` pointing at its rule by ``ruleId`` and ``ruleIndex`` (a finding no rule covers at
the descriptor ``outside-rules``, added when the review has one), and at the rule's trigger it
cites by ``properties.triggerAnchor`` (one of the descriptor's ``properties.anchors``) and
``triggerUri`` (that trigger on the rule's page). A suggested patch becomes a
SARIF ``fix`` (one replacement per run of changed lines) unless it ends without a newline,
which a line-based replacement cannot express; the raw diff is kept in ``properties``.
"""

from __future__ import annotations

from typing import Any

from ..files.jsonout import indented
from ..library.model import Library
from ..render.links import cite_url
from ..render.sarif import (
    OUTSIDE_RULES_ID,
    artifact_location,
    driver,
    envelope,
    outside_rules_descriptor,
)
from .model import Finding, Review
from .patch import Replacement, parse_patch


def sarif_log(review: Review, library: Library, site_url: str | None) -> dict[str, Any]:
    """One run: the library as the tool, and one result per finding in review order."""
    tool = driver(library, site_url)
    if any(finding.outside_rules for finding in review.findings):
        tool["rules"] = [*tool["rules"], outside_rules_descriptor(library, site_url)]
    index_of = {descriptor["id"]: index for index, descriptor in enumerate(tool["rules"])}
    results = [
        _result(finding, index_of[_rule_id(finding)], site_url) for finding in review.findings
    ]
    run: dict[str, Any] = {
        "tool": {"driver": tool},
        "columnKind": "unicodeCodePoints",
        "results": results,
        "properties": {"libraryVersionCited": review.library_version},
    }
    return envelope(run)


def render(review: Review, library: Library, site_url: str | None) -> bytes:
    return indented(sarif_log(review, library, site_url))


def message_text(finding: Finding) -> str:
    """The result message: the trigger first (viewers show the first line), then the rest."""
    return (
        f"{finding.trigger.strip()}\n\nImpact: {finding.impact.strip()}\n\n"
        f"Correction: {finding.correction.strip()}"
    )


def _rule_id(finding: Finding) -> str:
    """The finding's rule id, or :data:`OUTSIDE_RULES_ID` for a finding no rule covers."""
    return OUTSIDE_RULES_ID if finding.rule is None else finding.rule


def _result(finding: Finding, rule_index: int, site_url: str | None) -> dict[str, Any]:
    location = finding.location
    region: dict[str, Any] = {"startLine": location.start_line, "endLine": location.end_line}
    if location.column is not None:
        region["startColumn"] = location.column
    result: dict[str, Any] = {
        "ruleId": _rule_id(finding),
        "ruleIndex": rule_index,
        "level": str(finding.severity),
        "message": {"text": message_text(finding)},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": artifact_location(location.path, None),
                    "region": region,
                }
            }
        ],
    }
    properties: dict[str, Any] = {
        "trigger": finding.trigger,
        "impact": finding.impact,
        "correction": finding.correction,
    }
    if finding.rule is not None and finding.trigger_anchor is not None:
        # The rule's trigger it cites: its descriptor's properties.anchors lists them all.
        properties["triggerAnchor"] = finding.trigger_anchor
        if site_url:
            properties["triggerUri"] = cite_url(site_url, finding.rule, finding.trigger_anchor)
    if finding.suggested_patch is not None:
        properties["suggestedPatch"] = finding.suggested_patch
        patch = parse_patch(finding.suggested_patch)
        if not patch.newline_markers:
            result["fixes"] = [
                {
                    "description": {"text": finding.correction.strip()},
                    "artifactChanges": [
                        {
                            "artifactLocation": artifact_location(location.path, None),
                            "replacements": [_replacement(r) for r in patch.replacements()],
                        }
                    ],
                }
            ]
    result["properties"] = properties
    return result


def _replacement(replacement: Replacement) -> dict[str, Any]:
    """Whole lines: from column 1 of the first deleted line to column 1 of the line after."""
    start = replacement.start_line
    deleted = {
        "startLine": start,
        "startColumn": 1,
        "endLine": start + replacement.deleted_count,
        "endColumn": 1,
    }
    change: dict[str, Any] = {"deletedRegion": deleted}
    if replacement.inserted:
        change["insertedContent"] = {"text": "".join(f"{line}\n" for line in replacement.inserted)}
    return change
