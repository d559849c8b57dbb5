"""Hostile rule files: each is a clear path:line:column error, in bounded time and memory.

Each case runs `rlt-rules validate` in a child process capped at 1 GiB of address space and
60 s: a loader that blew up on the input would be killed and the test would fail.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from bounded import address_space

ROOT = Path(__file__).resolve().parents[1]
VALID = ROOT / "tests" / "fixtures" / "valid"
MEMORY_CAP = 1024 * 1024 * 1024


def validate_capped(rules: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rlt_rules", "validate", "rules"],
        cwd=rules.parent,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=address_space(MEMORY_CAP),
        check=False,
    )


def _ten_megabytes() -> bytes:
    return b"statement: |\n" + b"  x\n" * (10 * 1024 * 1024 // 4)


HOSTILE = {
    "ten-megabytes": (
        _ten_megabytes,
        "rules/R09.yaml:1:1: file is 10,485,773 bytes, over the 1,048,576-byte limit for a "
        "rule file: split it or remove what does not belong",
    ),
    "flow-nesting-100000": (
        lambda: b"id: " + b"[\n  " * 100_000 + b"]\n" * 100_000,
        "rules/R09.yaml:1000:3: YAML syntax error: while increasing flow level exceeded "
        "maximum nesting depth",
    ),
    "block-nesting-4999": (
        lambda: b"- " * 4_999 + b"x\n",
        "rules/R09.yaml:1:1999: YAML syntax error: while increasing block level exceeded "
        "maximum nesting depth",
    ),
    "alias-bomb": (
        lambda: (
            "\n".join(
                ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
                + [f"a{i}: &a{i} [{','.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 12)]
            )
            + "\n"
        ).encode(),
        "rules/R09.yaml:1:5: anchor &a0 is not allowed in rule files: write values out in full",
    ),
    "nul-byte": (
        lambda: b"id: R09\ntitle: a\x00b\n",
        "rules/R09.yaml:2:9: control character U+0000 is not allowed in YAML: remove it",
    ),
    "one-megabyte-line": (
        lambda: b"id: R09\ntitle: " + b"x" * 1_000_000 + b"\n",
        "rules/R09.yaml:2:10001: line is 1,000,007 characters long, over the 10,000-character "
        "limit: wrap it (YAML block scalars keep newlines)",
    ),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_file_is_a_clear_error(rules_dir: Path, case: str) -> None:
    make, expected = HOSTILE[case]
    (rules_dir / "R09.yaml").write_bytes(make())
    completed = validate_capped(rules_dir)
    assert completed.returncode == 1, completed.stderr
    assert completed.stdout.splitlines()[0] == expected


def test_symlink_outside_rules_directory(rules_dir: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.yaml"
    outside.write_text((rules_dir / "R02.yaml").read_text().replace("R02", "R09"))
    (rules_dir / "R09.yaml").symlink_to(outside)
    completed = validate_capped(rules_dir)
    assert completed.returncode == 1
    assert completed.stdout.splitlines()[0] == (
        f"rules/R09.yaml:1:1: R09.yaml is a link to {outside.resolve()}, outside the rules "
        "directory: rule files must be regular files in it"
    )


def test_symlink_to_a_device_is_refused(rules_dir: Path) -> None:
    (rules_dir / "R09.yaml").symlink_to("/dev/zero")
    completed = validate_capped(rules_dir)
    assert completed.returncode == 1
    assert completed.stdout.splitlines()[0].startswith("rules/R09.yaml:1:1: R09.yaml is a link to")


def test_a_fifo_is_refused_unread(rules_dir: Path) -> None:
    """A FIFO named like a rule file is reported, never opened (nothing writes to it: reading
    it would wait forever)."""
    os.mkfifo(rules_dir / "R09.yaml")
    completed = validate_capped(rules_dir)
    assert completed.returncode == 1
    assert completed.stdout.splitlines()[0] == (
        "rules/R09.yaml:1:1: R09.yaml is not a regular file (a folder, FIFO, device or broken "
        "link): rule files must be regular files in it"
    )
