"""How a reviewer file is put together (:mod:`.reviewers`): blocks joined by blank lines, the
rules listed in full and encoded piece by piece, or fitted in the most detail a file's budget
allows (:func:`rlt_rules.render.digest.fit_rules`), and YAML front matter."""

from __future__ import annotations

import json
from dataclasses import dataclass

from ..library.model import Library
from ..render.digest import Detail, Measure, characters, fit_rules, rule_pieces
from ..render.inert import InertRules


def front_matter(fields: dict[str, str | bool]) -> str:
    """YAML front matter; strings double-quoted (JSON strings are YAML scalars), so globs such
    as ``**/*.py`` are never read as YAML aliases."""
    lines_ = [
        f"{key}: {json.dumps(value) if isinstance(value, bool) else _quoted(value)}"
        for key, value in fields.items()
    ]
    return "---\n" + "\n".join(lines_) + "\n---\n"


def _quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def joined(blocks: list[str]) -> str:
    return "\n\n".join(block for block in blocks if block) + "\n"


@dataclass(frozen=True, slots=True)
class Listing:
    """Every applicable rule at ``detail``, with no budget: for the files that list them all."""

    library: Library
    shown: Library
    site_url: str | None
    detail: Detail
    level: int
    #: What made ``shown`` inert (and keeps the rules' pieces), when the caller has it.
    inert: InertRules | None = None
    #: Each trigger ends with its anchor, for a finding's ``trigger_anchor``.
    anchored: bool = False

    def encoded(self) -> bytes:
        """Encoded piece by piece: the listing of a large library never exists as one ``str``
        (two or four bytes per character once it holds one "—")."""
        inert = known_rules(self.library, self.shown, self.inert)
        pieces = rule_pieces(
            self.library,
            self.detail,
            self.site_url,
            self.level,
            by_category=True,
            inert=inert,
            anchored=self.anchored,
        )
        return b"".join(piece.encode("utf-8") for piece in pieces)


def known_rules(library: Library, shown: Library, inert: InertRules | None) -> InertRules:
    """``inert``, which made ``shown`` (and keeps the rules' pieces), else ``shown``'s rules."""
    return inert if inert is not None else InertRules.seeded(library, shown)


def encoded(blocks: list[str | Listing]) -> bytes:
    """:func:`joined`, encoded, with each listing encoded in pieces."""
    parts = [
        block.encoded() if isinstance(block, Listing) else block.encode("utf-8")
        for block in blocks
        if block
    ]
    return b"\n\n".join(parts) + b"\n"


def fitted_document(
    before: list[str],
    library: Library,
    shown: Library,
    site_url: str | None,
    budget: int,
    details: tuple[Detail, ...],
    measure: Measure = characters,
    level: int = 3,
    *,
    by_category: bool = False,
    inert: InertRules | None = None,
) -> str:
    """``before`` then the rules, in the most detail that keeps the whole document within
    ``budget`` (as the additive ``measure`` counts)."""
    fixed = measure(joined([*before, "x"])) - measure("x")  # all but the rules' text
    fitted = fit_rules(
        library,
        site_url,
        budget - fixed,
        details,
        level,
        by_category=by_category,
        measure=measure,
        inert=known_rules(library, shown, inert),
    )
    return joined([*before, fitted.text])
