"""Exports: each a pure, deterministic function of the typed :class:`~rlt_rules.model.Library`.

``site_files`` is the contract with the site build: the files to publish at the site root.
"""

from __future__ import annotations

import json

from ..model import Library


def site_files(library: Library, site_url: str | None) -> dict[str, bytes]:
    """Files to publish in the built site, keyed by path relative to the site root."""
    bundle = {
        "library": library.metadata_dict(),
        "rules": [rule.to_dict() for rule in library.rules],
    }
    text = json.dumps(bundle, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
    return {"rules.json": text.encode("utf-8")}
