import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

# ruff >= 0.17 defaults to its "full" output, which pytest-examples cannot map back to YAML lines.
os.environ.setdefault("RUFF_OUTPUT_FORMAT", "concise")
# validate remembers detectors' costs (detector_cost.CostRecord): the tests' own folder, not the
# user's cache, so a run starts from nothing remembered.
os.environ["RLT_RULES_CACHE_DIR"] = tempfile.mkdtemp(prefix="rlt-rules-test-cache-")
atexit.register(shutil.rmtree, os.environ["RLT_RULES_CACHE_DIR"], ignore_errors=True)

try:  # Browser checks: playwright's expect() waits 5 s by default, too little under load.
    from playwright.sync_api import expect
except ImportError:  # the browser tests then fail on their own import, saying so
    pass
else:
    expect.set_options(timeout=60_000)


@pytest.fixture
def rules_dir(tmp_path: Path) -> Path:
    """A fresh copy of the valid fixture library, for tests that edit it and expect errors."""
    target = tmp_path / "rules"
    shutil.copytree(Path(__file__).parent / "fixtures" / "valid", target)
    return target
