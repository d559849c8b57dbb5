"""A finding's ``trigger_anchor``: one of its rule's triggers, by the anchor the rule's page,
``rlt-rules show``, the bundle and SARIF give it (:meth:`rlt_rules.library.model.Rule.anchors`).

An anchor is made from its trigger's text, so one that names no trigger of the rule was
mistyped, belongs to another rule, or was copied before its trigger was reworded: the message
says which, and where the rule's anchors are listed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ..library.load import Document, JsonPath
from ..library.model import Diagnostic, Library

FIELD = "trigger_anchor"


def trigger_anchor_diagnostics(
    document: Document,
    index: int,
    finding: dict[str, Any],
    library: Library,
    accepted: Callable[[JsonPath], bool],
) -> Iterator[Diagnostic]:
    """The problem of finding ``index``'s ``trigger_anchor`` when the schema accepted it and
    its rule exists (an unknown rule is reported as such) and it is none of the rule's
    triggers."""
    path: JsonPath = ("findings", index, FIELD)
    anchor, rule_id = finding.get(FIELD), finding.get("rule")
    if anchor is None or not isinstance(rule_id, str) or not accepted(path):
        return
    try:
        rule = library.rule(rule_id)
    except KeyError:
        return
    triggers = rule.anchors().triggers
    if anchor in triggers:
        return
    shown = f"findings[{index}].{FIELD} '{anchor}'"
    slug = anchor.rsplit("-", 1)[0] + "-"
    reworded = [other for other in triggers if other.startswith(slug)]
    owners = [
        other.id
        for other in library.rules
        if other is not rule and anchor in other.anchors().triggers
    ]
    if reworded:
        why = f"that trigger's text changed since; its anchor is now {reworded[0]}"
    elif owners:
        why = f"it is a trigger of {owners[0]}: cite that rule, or one of {rule_id}'s triggers"
    else:
        listed = ", ".join(triggers)
        why = f"its triggers are {listed}"
    where = document.value_position(path)
    yield Diagnostic(
        document.path,
        where.line,
        where.column,
        f"{shown} is not a trigger of {rule_id} in library {library.version}: {why} "
        f"(`rlt-rules show {rule_id}` prints each trigger with its anchor)",
        rule_id,
    )
