"""``rules.sarif.json``: the rules as SARIF 2.1.0 rule metadata (``reportingDescriptor``s).

One run whose ``tool.driver`` describes the library and lists every rule, so linters, CI and
review tools can annotate findings with our rule ids and link to the rule pages. There are no
results (an empty ``results`` array: SARIF readers such as sarif-tools expect one in every
run); this file describes rules, and :func:`rule_descriptors` is reused by tools that report
findings. Without a site URL the URI fields (``informationUri``, ``helpUri``) are left out.
"""

from __future__ import annotations

import re
from typing import Any

from ..jsonout import indented
from ..model import Detector, HintSeverity, Library, Rule, Status
from .inert import InertRules, inert_rule
from .markdown import (
    bullet_list,
    guidance_blocks,
    join_blocks,
    rule_url,
    seed_example_block,
    site_base,
    status_note,
)
from .text import seed_example_text, strip_fences

FILE_NAME = "rules.sarif.json"
SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)


def pascal_case(title: str) -> str:
    """``Give mutable state one authoritative owner`` -> ``GiveMutableStateOneAuthoritativeOwner``.

    Words are runs of letters and digits; each gets an upper-case first letter, the rest is kept
    (``KV`` stays ``KV``).
    """
    return "".join(word[0].upper() + word[1:] for word in re.findall(r"[A-Za-z0-9]+", title))


def _help_text(rule: Rule) -> str:
    blocks = [rule.statement, seed_example_text(rule), *guidance_blocks(rule)]
    note = status_note(rule)
    return strip_fences(join_blocks(([note] if note else []) + blocks)).rstrip("\n")


def _help_markdown(rule: Rule) -> str:
    blocks = [rule.statement, seed_example_block(rule)]
    blocks += ["**Triggers**", bullet_list(rule.triggers)]
    blocks += [f"**Impact:** {rule.impact}", f"**Correction:** {rule.correction}"]
    note = status_note(rule)
    return join_blocks(([f"**{note}**"] if note else []) + blocks).rstrip("\n")


def replaced_ids(library: Library) -> dict[str, list[str]]:
    """For each rule that replaces others, the ids it replaces (SARIF ``deprecatedIds``)."""
    replaced: dict[str, list[str]] = {}
    for other in library.rules:  # in id order
        if other.replaced_by is not None:
            replaced.setdefault(other.replaced_by, []).append(other.id)
    return replaced


def rule_descriptor(
    library: Library,
    rule: Rule,
    site_url: str | None,
    replaced_by_rule: dict[str, list[str]] | None = None,
    inert: InertRules | None = None,
) -> dict[str, Any]:
    """One rule as a SARIF ``reportingDescriptor``.

    ``replaced_by_rule`` is :func:`replaced_ids` of the library, passed in for many rules;
    ``inert``, the rules made inert so far by the caller.
    """
    if replaced_by_rule is None:
        replaced_by_rule = replaced_ids(library)
    descriptor: dict[str, Any] = {"id": rule.id, "name": pascal_case(rule.title)}
    replaced = replaced_by_rule.get(rule.id, [])
    if replaced:
        descriptor["deprecatedIds"] = replaced
    # The markdown fields are rendered by review tools: raw HTML in them shows as text.
    shown = inert_rule(rule) if inert is None else inert.rule(rule)
    descriptor["shortDescription"] = {"text": rule.title}
    descriptor["fullDescription"] = {
        "text": strip_fences(rule.statement),
        "markdown": shown.statement,
    }
    if site_url:
        descriptor["helpUri"] = rule_url(site_url, rule.id)
    descriptor["help"] = {"text": _help_text(rule), "markdown": _help_markdown(shown)}
    if rule.status is Status.RETIRED:
        descriptor["defaultConfiguration"] = {"enabled": False}
    tags = [rule.category, *(tag for tag in rule.tags if tag != rule.category)]
    properties: dict[str, Any] = {
        "tags": tags,
        "category": library.category(rule.category).title,
        "status": str(rule.status),
        "since": rule.since,
    }
    if rule.related:
        properties["related"] = list(rule.related)
    if rule.replaced_by is not None:
        properties["replacedBy"] = rule.replaced_by
    descriptor["properties"] = properties
    return descriptor


#: SARIF levels of the detectors' severities.
LEVELS = {HintSeverity.HINT: "note", HintSeverity.INFO: "note", HintSeverity.WARNING: "warning"}


def detector_descriptor(
    library: Library, rule: Rule, detector: Detector, site_url: str | None
) -> dict[str, Any]:
    """One detector as a SARIF ``reportingDescriptor`` (as CodeQL describes a query): its
    id ``R10-hasattr-guard`` (the ast-grep export's name), its message, its rule's help and
    page, and its measured precision on the judged corpus (``properties.precision``:
    very-high, high or medium; ``properties.measured`` holds the figures, with ``scope:
    package`` when they come from the whole package rather than the judged slice)."""
    base = rule_descriptor(library, rule, site_url, {})
    descriptor: dict[str, Any] = {
        "id": f"{rule.id}-{detector.id}",
        "name": pascal_case(f"{rule.id} {detector.id.replace('-', ' ')}"),
        "shortDescription": {"text": detector.message},
        "fullDescription": base["fullDescription"],
    }
    if "helpUri" in base:
        descriptor["helpUri"] = base["helpUri"]
    descriptor["help"] = base["help"]
    descriptor["defaultConfiguration"] = {"level": LEVELS[detector.severity]}
    properties: dict[str, Any] = {
        "rule": rule.id,
        "detector": detector.id,
        "tags": base["properties"]["tags"],
        "category": base["properties"]["category"],
        "status": str(detector.status),
    }
    measured = detector.measured
    if measured is not None:
        if measured.level is not None:
            properties["precision"] = measured.level
        properties["measured"] = measured.to_dict()
    descriptor["properties"] = properties
    return descriptor


def detector_descriptors(
    library: Library, site_url: str | None, *, preview: bool
) -> list[dict[str, Any]]:
    """The detectors of the active rules as ``reportingDescriptor``s, in id order; preview
    detectors only with ``preview``."""
    return [
        detector_descriptor(library, rule, detector, site_url)
        for rule in library.rules
        if rule.status is Status.ACTIVE
        for detector in rule.detectors
        if preview or not detector.preview
    ]


def rule_descriptors(
    library: Library, site_url: str | None, inert: InertRules | None = None
) -> list[dict[str, Any]]:
    """Every rule as a SARIF ``reportingDescriptor``, in id order (for ``driver.rules``)."""
    replaced = replaced_ids(library)
    return [rule_descriptor(library, rule, site_url, replaced, inert) for rule in library.rules]


def driver(
    library: Library, site_url: str | None, inert: InertRules | None = None
) -> dict[str, Any]:
    """The ``tool.driver`` ``toolComponent``: the library, its version and its rules."""
    component: dict[str, Any] = {
        "name": library.title,
        "fullName": f"{library.title}: {library.subtitle}",
        "version": library.version,
        "semanticVersion": library.version,
    }
    if site_url:
        component["informationUri"] = site_base(site_url)
    component["rules"] = rule_descriptors(library, site_url, inert)
    return component


def sarif_log(
    library: Library, site_url: str | None, inert: InertRules | None = None
) -> dict[str, Any]:
    """A SARIF log with one run holding the rule metadata and no results (``"results": []``)."""
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [{"tool": {"driver": driver(library, site_url, inert)}, "results": []}],
    }


def render(library: Library, site_url: str | None, inert: InertRules | None = None) -> bytes:
    return indented(sarif_log(library, site_url, inert))


def files(
    library: Library, site_url: str | None, inert: InertRules | None = None
) -> dict[str, bytes]:
    return {FILE_NAME: render(library, site_url, inert)}
