"""A findings answer is written by anyone: a path with a control character is an error at its
position, and whatever reaches a rendered comment is inert (no live HTML, no @-mention)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bounded import address_space
from markdown_it import MarkdownIt

from rlt_rules import load_library
from rlt_rules.findings.check import check_answer
from rlt_rules.findings.markdown import render_markdown
from rlt_rules.findings.model import Finding, Location, Review

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
#: A child check finishes within this, and within bounded.MEMORY bytes of address space.
SECONDS = 60


def answer(path_yaml: str, trigger: str = "`x` is set from outside its owner.") -> bytes:
    return f"""library_version: 1.0.0
findings:
  - rule: R02
    severity: error
    location:
      path: {path_yaml}
      start_line: 1
      end_line: 1
    trigger: {trigger!r}
    impact: A second caller sees a stale counter and schedules twice.
    correction: Let the policy advance its own counter through an operation it defines.
""".encode()


def test_a_path_with_a_newline_is_an_error_at_its_position() -> None:
    library = load_library(ROOT / "rules")
    result = check_answer(answer('"x.py\\n<script>alert(1)</script>"'), "answer.yaml", library)
    assert result.review is None
    (error,) = [d for d in result.errors if "path" in d.message]
    assert (error.line, error.column) == (6, 13)
    assert "control characters" in error.message


def test_a_rendered_path_and_mention_are_inert() -> None:
    library = load_library(ROOT / "rules")
    finding = Finding(
        "R02",
        Location("x.py\n<script>alert(1)</script>", 1, 1),
        "Ask @octocat and @team/serving: `x` is set from outside.",
        "A stale counter.",
        "Let the owner advance it.",
    )
    text = render_markdown(Review("1.0.0", (finding,)), library, None)
    html = MarkdownIt("commonmark").render(text)
    assert "<script>" not in html and "\\n&lt;script&gt;" in html
    assert "`@octocat`" in text and "`@team/serving`" in text
    assert "<code>@octocat</code>" in html


def test_a_line_number_past_any_file_is_an_error_at_its_position() -> None:
    """orjson (the SARIF writer) stops at 64-bit integers; the format stops far below."""
    library = load_library(ROOT / "rules")
    raw = answer("src/x.py").replace(b"start_line: 1", b"start_line: 18446744073709551616")
    result = check_answer(raw, "answer.yaml", library)
    assert result.review is None
    (error,) = [d for d in result.errors if "start_line" in d.message]
    assert (error.line, error.column) == (7, 19)


def test_a_named_source_file_is_read_bounded(tmp_path: Path) -> None:
    """`findings check --repo` reads a location's file as `scan` reads one: a 5 GB file (read
    whole, it was 5 GB resident or a MemoryError) is refused by size, at the path's position,
    in a child process with a time and an address-space limit."""
    with (tmp_path / "generated.py").open("wb") as handle:
        handle.truncate(5 * 1024**3)  # sparse: 5 GB claimed, nothing on disk
    (tmp_path / "answer.yaml").write_bytes(answer("generated.py"))
    result = subprocess.run(
        [str(BIN / "rlt-rules"), "findings", "check", "answer.yaml", "--rules",
         str(ROOT / "rules"), "--repo", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=SECONDS,
        preexec_fn=address_space(),
        check=False,
    )  # fmt: skip
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert (
        "answer.yaml:6:13: findings[0].location.path 'generated.py': over the 4,194,304-byte "
        "limit: not read; findings point at source files"
    ) in result.stderr
