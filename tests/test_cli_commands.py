"""``rlt-rules COMMAND`` imports only that command's module (``cli.COMMANDS``); ``--help``
lists every command."""

from __future__ import annotations

import subprocess
import sys

import pytest

from rlt_rules.cli import COMMANDS, build_parser

#: Modules ``rlt-rules scan`` never needs.
NOT_FOR_SCAN = ("rlt_rules.exam", "rlt_rules.site", "rlt_rules.mcp_server", "rlt_rules.export")


def test_a_command_imports_its_own_module_only() -> None:
    code = (
        "import sys\n"
        "from rlt_rules.cli import build_parser\n"
        "build_parser(['scan', 'x.py']).parse_args(['scan', 'x.py'])\n"
        f"print([m for m in {NOT_FOR_SCAN!r} if m in sys.modules])\n"
        "print('rlt_rules.commands.scan' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert result.stdout.splitlines() == ["[]", "True"], result.stdout + result.stderr


def test_help_and_an_unknown_command_know_every_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = build_parser([]).format_help()
    assert all(name in text for name in COMMANDS), text
    with pytest.raises(SystemExit) as exited:
        build_parser(["bogus"]).parse_args(["bogus"])
    assert exited.value.code == 2
    error = capsys.readouterr().err
    assert "invalid choice: 'bogus'" in error and all(f"'{name}'" in error for name in COMMANDS)
