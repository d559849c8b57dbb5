"""Citable items on a rule page: each trigger, the impact, the correction and each example
carries its anchor (:meth:`rlt_rules.library.model.Rule.anchors`: made from its own text, so
editing, adding or reordering the other items never moves it) and a marker that ``site/js/cite.js``
fills with "copy link" and "copy citation" buttons (the published, versioned address; the
label is set as text only).
"""

from __future__ import annotations

import html

from ..render.links import cite_label


def cite_marker(
    rule_id: str, kind: str, text: str, anchor: str, *, target: bool, label: str | None = None
) -> str:
    """The inline marker the buttons go in, citing the item as ``kind: <first words of label,
    else of text>``; ``target``: whether it carries the anchor's id itself (else the anchor is
    on an element around it)."""
    attrs = [
        'class="rlt-cite"',
        *([f'id="{anchor}"'] if target else []),
        f'data-rlt-anchor="{anchor}"',
        f'data-rlt-rule="{html.escape(rule_id)}"',
        f'data-rlt-cite="{html.escape(cite_label(kind, text if label is None else label))}"',
    ]
    return f"<span {' '.join(attrs)}></span>"
