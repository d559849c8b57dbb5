"""Citable items on a rule page: each trigger, the impact, the correction and each example gets
an anchor made from its own text (``trigger-set-calls-on-a-3f2a1c``: its kind, a slug of its
first words and the start of its text's SHA-256), so that editing, adding or reordering the
other items never moves it, and a marker that ``site/js/cite.js`` fills with "copy link" and
"copy citation" buttons (the published, versioned address; the label is set as text only).
"""

from __future__ import annotations

import hashlib
import html
import re
from collections import Counter

#: Words of an item's text a slug and a citation label keep.
SLUG_WORDS = 4
LABEL_WORDS = 6
HASH_CHARS = 6
_WORD = re.compile(r"[A-Za-z0-9]+")
_LABEL_NOISE = re.compile(r"[`*\[\]<>]")


def cite_anchor(kind: str, text: str) -> str:
    """The anchor of an item of ``kind`` whose source text is ``text``."""
    words = [word.lower() for word in _WORD.findall(text)[:SLUG_WORDS]]
    digest = hashlib.sha256(text.encode()).hexdigest()[:HASH_CHARS]
    return "-".join([kind, *words, digest])


def cite_label(kind: str, text: str) -> str:
    """How a citation names the item: its kind and its first words (plain text)."""
    words = _LABEL_NOISE.sub("", " ".join(text.split())).split(" ")
    first = " ".join(words[:LABEL_WORDS])
    return f"{kind}: {first}{'…' if len(words) > LABEL_WORDS else ''}"


class Anchors:
    """The anchors of one page, unique: an item whose text repeats another's gets ``-2``…"""

    def __init__(self) -> None:
        self._seen: Counter[str] = Counter()

    def anchor(self, kind: str, text: str) -> str:
        anchor = cite_anchor(kind, text)
        self._seen[anchor] += 1
        count = self._seen[anchor]
        return anchor if count == 1 else f"{anchor}-{count}"


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
