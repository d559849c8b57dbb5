"""What a citation points at: each trigger, the impact, the correction and each example of a
rule has an anchor made from its own text (its rule page's ids; the bundle, SARIF, ``show`` and
findings carry the same)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from itertools import islice
from typing import Any

#: An anchor keeps this many words of its item's text, then this many hex digits of its hash.
ANCHOR_WORDS = 4
ANCHOR_HASH_CHARS = 6
_ANCHOR_WORD = re.compile(r"[A-Za-z0-9]+")


def cite_anchor(kind: str, text: str) -> str:
    """The anchor of a rule's item of ``kind`` (trigger, impact, correction, example) whose
    source text is ``text``: ``trigger-set-calls-on-a-3f2a1c``, its kind, its first words and
    the start of the text's SHA-256. Made from the item's own text, so that editing, adding or
    reordering the rule's other items never moves it."""
    # The first words only: an example's text is its whole program.
    words = [word[0].lower() for word in islice(_ANCHOR_WORD.finditer(text), ANCHOR_WORDS)]
    digest = hashlib.sha256(text.encode()).hexdigest()[:ANCHOR_HASH_CHARS]
    return "-".join([kind, *words, digest])


@dataclass(frozen=True, slots=True)
class RuleAnchors:
    """A rule's citable items by anchor, in the rule's order (:meth:`Rule.anchors`)."""

    triggers: tuple[str, ...]
    impact: str
    correction: str
    examples: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "triggers": list(self.triggers),
            "impact": self.impact,
            "correction": self.correction,
            "examples": list(self.examples),
        }
