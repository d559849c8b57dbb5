"""``rules.sarif.json``: the rules as SARIF 2.1.0 rule metadata (``reportingDescriptor``s).

One run whose ``tool.driver`` describes the library and lists every rule, so linters, CI and
review tools can annotate findings with our rule ids and link to the rule pages. There are no
results (an empty ``results`` array: SARIF readers such as sarif-tools expect one in every
run); this file describes rules. The descriptors and the envelope are
:mod:`rlt_rules.render.sarif`'s, shared with the tools that report findings.
"""

from __future__ import annotations

from typing import Any

from ..files.jsonout import indented
from ..library.model import Library
from ..render.inert import InertRules
from ..render.sarif import descriptor_fragments, driver, envelope

FILE_NAME = "rules.sarif.json"


def sarif_log(
    library: Library, site_url: str | None, inert: InertRules | None = None
) -> dict[str, Any]:
    """A SARIF log with one run holding the rule metadata and no results (``"results": []``)."""
    return envelope({"tool": {"driver": driver(library, site_url, inert)}, "results": []})


def render(library: Library, site_url: str | None, inert: InertRules | None = None) -> bytes:
    """:func:`sarif_log` as indented JSON, each rule's descriptor kept by ``inert``."""
    rules = descriptor_fragments(library, site_url, inert or InertRules())
    tool = {"driver": driver(library, site_url, inert, rules=rules.fragment())}
    return indented(envelope({"tool": tool, "results": []}))


def files(
    library: Library, site_url: str | None, inert: InertRules | None = None
) -> dict[str, bytes]:
    return {FILE_NAME: render(library, site_url, inert)}
