"""A scan's result in the four formats of ``rlt-rules scan --format``.

* ``text``: ``path:line:column: R10 message (rule page URL)``, one hit a line (a control,
  separator or bidirectional character in a file name shown as an escape, so a name cannot
  forge a line or read backwards; :func:`~rlt_rules.render.text.visible`);
* ``json``: every hit with its span, detector, severity, message, URL and code;
* ``sarif``: SARIF 2.1.0 whose ``tool.driver.rules`` are the detectors (each result's
  ``ruleId`` is its detector, ``R10-hasattr-guard``, as in the ast-grep export), each with its
  rule's help and page and its measured ``properties.precision``; paths are relative to the
  scan's root, named in ``originalUriBaseIds``; files that could not be read are tool
  notifications;
* ``findings``: a draft review (``schema/findings.schema.json``) with one finding per hit, rule
  and location filled and the reviewer's part marked TODO, which ``findings check`` rejects
  until it is written.

A file name that is not UTF-8 is scanned and reported like any other: its undecodable bytes
are ``\\xNN`` in text, JSON and the findings draft, and percent-encoded bytes in SARIF's URIs.
JSON and SARIF write line separators and bidirectional controls as ``\\uXXXX`` escapes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..facts.about import NAME, VERSION
from ..files.jsonout import indented, line_safe
from ..library.model import Library
from ..render.links import rule_url, suppression_url
from ..render.sarif import (
    LEVELS,
    artifact_location,
    detector_descriptors,
    driver,
    envelope,
    uri_base,
)
from ..render.text import decodable, visible
from . import REASONLESS, UNUSED, ScanResult


@dataclass(frozen=True, slots=True)
class Output:
    """How to render: the site the rule links point to (``None``: relative links) and whether
    the scan ran the preview detectors (SARIF then describes them too)."""

    site_url: str | None
    preview: bool = False


Renderer = Callable[[ScanResult, Library, Output], bytes]

#: The ``originalUriBaseIds`` key of the scan's root in SARIF.
ROOT_BASE = "SRCROOT"
#: SARIF descriptors of the hits about suppression comments (not detectors of a rule).
SUPPRESSION_DESCRIPTORS = {
    REASONLESS: "A `# rlt: ignore[Rnn]` comment without a reason: it silences nothing.",
    UNUSED: "A `# rlt: ignore[Rnn] reason` comment on a line where no hint of that rule "
    "fires: remove it.",
}


def text(result: ScanResult, library: Library, output: Output) -> bytes:
    lines = [
        f"{visible(found.path)}:{found.hit.line}:{found.hit.column}: {found.hit.rule_id} "
        f"{found.hit.message} ({rule_url(output.site_url, found.hit.rule_id)})"
        for found in result.hits
    ]
    return "".join(f"{line}\n" for line in lines).encode("utf-8")


def json_data(result: ScanResult, library: Library, output: Output) -> dict[str, Any]:
    return {
        "generator": {"name": NAME, "version": VERSION},
        "library_version": library.version,
        "root": result.root.as_posix(),
        "files_scanned": result.files_scanned,
        "suppressed": result.suppressed,
        "hits": [
            {
                "path": found.path,
                "line": found.hit.line,
                "column": found.hit.column,
                "end_line": found.hit.end_line,
                "end_column": found.hit.end_column,
                "rule": found.hit.rule_id,
                "detector": found.hit.qualified_id,
                "severity": str(found.hit.severity),
                "message": found.hit.message,
                "url": rule_url(output.site_url, found.hit.rule_id),
                "code": found.hit.text,
            }
            for found in result.hits
        ],
        "problems": [{"path": p.path, "message": p.message} for p in result.problems],
    }


def _decodable(value: Any) -> Any:
    """``value`` with every string :func:`~rlt_rules.render.text.decodable` (JSON is UTF-8)."""
    if isinstance(value, str):
        return decodable(value)
    if isinstance(value, dict):
        return {key: _decodable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_decodable(item) for item in value]
    return value


def json_(result: ScanResult, library: Library, output: Output) -> bytes:
    return line_safe(indented(_decodable(json_data(result, library, output))))


def sarif_log(result: ScanResult, library: Library, output: Output) -> dict[str, Any]:
    tool = driver(library, output.site_url)
    tool["rules"] = detector_descriptors(library, output.site_url, preview=output.preview)
    for name, text in SUPPRESSION_DESCRIPTORS.items():
        descriptor: dict[str, Any] = {"id": name, "shortDescription": {"text": text}}
        if output.site_url:
            descriptor["helpUri"] = suppression_url(output.site_url, name)
        tool["rules"].append(descriptor)
    index_of = {descriptor["id"]: index for index, descriptor in enumerate(tool["rules"])}
    results = []
    for found in result.hits:
        hit = found.hit
        suppression = hit.detector_id in SUPPRESSION_DESCRIPTORS
        rule_id = hit.detector_id if suppression else hit.qualified_id
        results.append(
            {
                "ruleId": rule_id,
                "ruleIndex": index_of[rule_id],
                "level": LEVELS[hit.severity],
                "message": {"text": hit.message},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": artifact_location(found.path, ROOT_BASE),
                            "region": {
                                "startLine": hit.line,
                                "startColumn": hit.column,
                                "endLine": hit.end_line,
                                "endColumn": hit.end_column,
                                "snippet": {"text": hit.text},
                            },
                        }
                    }
                ],
                "properties": {"rule": hit.rule_id, "detector": hit.qualified_id},
            }
        )
    notifications = [
        {
            "level": "error",
            "message": {"text": problem.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": artifact_location(problem.path, ROOT_BASE)
                    }
                }
            ],
        }
        for problem in result.problems
    ]
    invocation: dict[str, Any] = {"executionSuccessful": True}
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    run: dict[str, Any] = {
        "tool": {"driver": tool},
        "invocations": [invocation],
        "originalUriBaseIds": {ROOT_BASE: uri_base(result.root.as_uri())},
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    return envelope(run)


def sarif(result: ScanResult, library: Library, output: Output) -> bytes:
    return line_safe(indented(_decodable(sarif_log(result, library, output))))


#: The reviewer's part of a draft finding; ``findings check`` rejects it until rewritten.
TODO_TRIGGER = "TODO: confirm the hint, then say what in this code matches the rule."
TODO_IMPACT = "TODO: what goes wrong here, for whom and when."
TODO_CORRECTION = "TODO: the change that resolves it, small enough to make in this change."


def _block(key: str, lines: list[str]) -> list[str]:
    """``key: |-`` and the text's lines, indented under it (text fields of a finding)."""
    return [f"    {key}: |-", *(f"      {line}" for line in lines)]


def _quoted(path: str) -> str:
    """``path`` as a YAML double-quoted scalar: JSON's escapes (which YAML reads the same),
    line separators and bidirectional controls escaped too (YAML 1.1 folds ``U+0085``)."""
    quoted = json.dumps(decodable(path), ensure_ascii=False).encode("utf-8")
    return line_safe(quoted).decode("utf-8")


def findings(result: ScanResult, library: Library, output: Output) -> bytes:
    """A findings file (YAML) with one draft finding per hit, written for people to edit."""
    out = [
        "# Draft review from `rlt-rules scan`: one finding per hint. A hint is not a verdict:",
        "# delete each finding whose code does not break its rule, replace the TODO lines of",
        "# the rest, then check it: "
        f"`rlt-rules findings check FILE --repo {visible(str(result.root))}`.",
        f"library_version: {json.dumps(library.version)}",
        "findings:" if result.hits else "findings: []",
    ]
    for found in result.hits:
        hit = found.hit
        correction = " ".join(library.rule(hit.rule_id).correction.split())
        out += [
            f"  - rule: {hit.rule_id}",
            f"    severity: {LEVELS[hit.severity]}",
            "    location:",
            f"      path: {_quoted(found.path)}",
            f"      start_line: {hit.line}",
            f"      end_line: {hit.end_line}",
            f"      column: {hit.column}",
            *_block("trigger", [TODO_TRIGGER, f"Hint ({hit.qualified_id}): {hit.message}"]),
            *_block("impact", [TODO_IMPACT]),
            *_block("correction", [TODO_CORRECTION, f"{hit.rule_id} says: {correction}"]),
        ]
    return "".join(f"{line}\n" for line in out).encode("utf-8")


#: Every output format of ``rlt-rules scan``, by name.
FORMATS: dict[str, Renderer] = {"text": text, "json": json_, "sarif": sarif, "findings": findings}
