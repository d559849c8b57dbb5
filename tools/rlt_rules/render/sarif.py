"""SARIF 2.1.0 as every view writes it: the log's envelope, artifact locations, and the
library's rules and detectors as ``reportingDescriptor``s.

``rules.sarif.json`` (the export), ``findings sarif`` and ``scan --format sarif`` build their
logs from these pieces: :func:`envelope` wraps one run, :func:`driver` describes the library
as the tool, :func:`artifact_location` turns a shown path into a URI. Without a site URL the
URI fields (``informationUri``, ``helpUri``) are left out.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import quote

from ..files.jsonout import ArrayPieces, indented_array, indented_fragment
from ..library.model import Detector, HintSeverity, Library, Rule, Status
from .inert import InertRules, inert_rule
from .links import rule_url, site_base
from .markdown import bullet_list, guidance_blocks, join_blocks, seed_example_block, status_note
from .text import seed_example_text, strip_fences

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
    # What a result cites beyond the rule: ``helpUri`` + ``#`` + the anchor of a trigger.
    properties["anchors"] = rule.anchors().to_dict()
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


#: The ``ruleId`` of a review's finding that no rule covers (``kind: outside-rules``).
OUTSIDE_RULES_ID = "outside-rules"


def outside_rules_descriptor(library: Library, site_url: str | None) -> dict[str, Any]:
    """The ``reportingDescriptor`` of findings no rule of the library covers: a reviewer
    applying the library still reports a real problem the rules do not name."""
    text = (
        f"A real problem in the reviewed code that no rule of {library.title} "
        f"{library.version} covers, reported with its location, trigger, impact and correction."
    )
    descriptor: dict[str, Any] = {
        "id": OUTSIDE_RULES_ID,
        "name": "OutsideTheRules",
        "shortDescription": {"text": "A problem no rule covers"},
        "fullDescription": {"text": text},
        "help": {
            "text": f"{text} Read the finding's trigger, impact and correction; no rule page "
            "applies.",
        },
        "properties": {"tags": [OUTSIDE_RULES_ID]},
    }
    if site_url:
        descriptor["helpUri"] = site_base(site_url)
    return descriptor


#: How deep :func:`envelope` puts a rule's descriptor: ``runs[0].tool.driver.rules[i]``.
DESCRIPTOR_DEPTH = 6


def descriptor_fragments(library: Library, site_url: str | None, inert: InertRules) -> ArrayPieces:
    """``driver.rules`` of a log of one run (:func:`envelope`) as its indented JSON, each
    rule's descriptor kept by ``inert.part`` by everything it is made from: the rule, the site
    URL, its category's title and the ids it replaces."""
    replaced = replaced_ids(library)
    return indented_array(
        (
            inert.part(
                (
                    "sarif",
                    rule,
                    site_url,
                    library.category(rule.category).title,
                    tuple(replaced.get(rule.id, ())),
                ),
                lambda rule=rule: indented_fragment(
                    rule_descriptor(library, rule, site_url, replaced, inert), DESCRIPTOR_DEPTH
                ),
            )
            for rule in library.rules
        ),
        DESCRIPTOR_DEPTH - 1,
    )


def driver(
    library: Library,
    site_url: str | None,
    inert: InertRules | None = None,
    *,
    rules: object = None,
) -> dict[str, Any]:
    """The ``tool.driver`` ``toolComponent``: the library, its version and its rules
    (:func:`rule_descriptors`, or ``rules`` when given: their JSON, from
    :func:`descriptor_fragments`)."""
    component: dict[str, Any] = {
        "name": library.title,
        "fullName": f"{library.title}: {library.subtitle}",
        "version": library.version,
        "semanticVersion": library.version,
    }
    if site_url:
        component["informationUri"] = site_base(site_url)
    component["rules"] = rule_descriptors(library, site_url, inert) if rules is None else rules
    return component


def envelope(run: dict[str, Any]) -> dict[str, Any]:
    """A SARIF 2.1.0 log holding ``run``, its one run."""
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}


def artifact_location(path: str, base_id: str | None) -> dict[str, str]:
    """A shown path as an ``artifactLocation``: its bytes percent-encoded (a name that is not
    UTF-8 keeps its bytes: ``caf%E9.py``), relative to the ``originalUriBaseIds`` entry
    ``base_id`` (none: relative to wherever the reader is), or a ``file://`` URI when the path
    is absolute."""
    uri = quote(path.encode("utf-8", "surrogateescape"))
    if PurePosixPath(path).is_absolute():
        return {"uri": "file://" + uri}
    if base_id is None:
        return {"uri": uri}
    return {"uri": uri, "uriBaseId": base_id}


def uri_base(root_uri: str) -> dict[str, str]:
    """An ``originalUriBaseIds`` entry: the folder's URI, ending with one slash."""
    return {"uri": root_uri.rstrip("/") + "/"}
