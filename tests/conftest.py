import os

# ruff >= 0.17 defaults to its "full" output, which pytest-examples cannot map back to YAML lines.
os.environ.setdefault("RUFF_OUTPUT_FORMAT", "concise")
