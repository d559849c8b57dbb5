"""The fetched SGLang corpora, for the tests that read them: ``tools/corpus.py`` (a script, not
part of the package) loaded once, where its cache is, and a failure naming the fetch command
when a pinned corpus is missing (never a skip)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load_script():
    name = "rlt_corpus_script"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / "corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


corpus_script = _load_script()
#: Where the pinned corpora are unpacked (``$RLT_CORPUS_CACHE``, else ``.cache/corpus``).
CORPUS = corpus_script.CACHE


def require_corpora() -> None:
    """Fail, naming the fetch command, when a pinned corpus is not unpacked."""
    missing = [pin.name for pin in corpus_script.PINS if not corpus_script.ready(CORPUS / pin.name)]
    if missing:
        pytest.fail(
            f"the SGLang corpora {', '.join(missing)} are not in {CORPUS}: run "
            f"`{corpus_script.FETCH_COMMAND}` (`./dev test` runs it)"
        )
