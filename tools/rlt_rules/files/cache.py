"""The user's cache folder, where rlt-rules remembers what is costly to compute again (detector
costs, checked libraries): ``$RLT_RULES_CACHE_DIR``, else ``$XDG_CACHE_HOME/rlt-rules``, else
``~/.cache/rlt-rules``. Deleting it is safe: everything in it is computed again.
"""

from __future__ import annotations

import os
from pathlib import Path

#: The variable that moves the cache folder.
CACHE_DIR_ENV = "RLT_RULES_CACHE_DIR"


def cache_folder() -> Path:
    """``$RLT_RULES_CACHE_DIR``, else ``$XDG_CACHE_HOME`` (or ``~/.cache``) ``/rlt-rules``."""
    folder = os.environ.get(CACHE_DIR_ENV)
    if not folder:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        folder = str(Path(base) / "rlt-rules")
    return Path(folder)
