"""The scan's matcher: the ``ast-grep`` command over many files, each file under a time bound.

It must find exactly what ast-grep-py finds in this process (the reference the detectors are
written and tested against), whatever the file's line endings, byte-order mark or name; and a
detector that does not finish on a file is named, in bounded time, while the others' hints stay.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import io
import json
import shutil
import sys
import time
from pathlib import Path

import pytest
import yaml
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from test_detector_cost import nested
from test_scan import GUARD

from rlt_rules import load_library
from rlt_rules.cli import main
from rlt_rules.scan import detector_set
from rlt_rules.scan.engine import scan_files, scan_source

ROOT = Path(__file__).resolve().parents[1]
VALID = ROOT / "tests" / "fixtures" / "valid"
#: A detector that runs for minutes on a file of a few hundred statements, and a quick one.
COSTLY = {"id": "costly", "message": "Costly", "severity": "hint", "rule": nested(4)}
GUARD_DETECTOR = {
    "id": "guard",
    "message": "A guard",
    "severity": "warning",
    "rule": {"pattern": 'hasattr(self, "$NAME")'},
}
#: What the costly detector does not finish on, with one hint of the quick one.
BIG = GUARD + "".join(f"v{n} = f({n})\n" for n in range(150))


def test_the_command_finds_what_ast_grep_py_finds_on_every_example(tmp_path: Path) -> None:
    library = load_library(ROOT / "rules")
    detectors = detector_set(library, preview=True)
    programs = [example.code for rule in library.rules for example in rule.examples]
    files: list[Path] = []
    for index, program in enumerate(programs):
        # Files ast-grep reads itself, and the ones it is handed as Python reads them.
        variant = index % 5
        name = f"p{index:03} é.py" if variant == 1 else f"p{index:03}.py"
        path = tmp_path / (name if variant != 4 else f"p{index:03}.pyi")
        data = program.encode("utf-8")
        if variant == 2:
            data = data.replace(b"\n", b"\r\n")
        elif variant == 3:
            data = b"\xef\xbb\xbf" + data.replace(b"\n", b"\r")
        path.write_bytes(data)
        files.append(path)
    results = scan_files(detectors, files, jobs=2)
    flagged = 0
    for program, path, result in zip(programs, files, results, strict=True):
        expected = scan_source(detectors, program)
        assert result.hits == expected.hits, path.name
        assert result.problem is None and result.stalled == ()
        flagged += bool(result.hits)
    assert flagged >= 10  # the bad examples: the comparison compared hints, not silence


def test_a_file_gives_the_same_hints_alone_and_among_many(tmp_path: Path) -> None:
    library = load_library(ROOT / "rules")
    detectors = detector_set(library)
    files = []
    for index in range(250):  # more than one run's worth of files
        path = tmp_path / f"m{index:03}.py"
        path.write_text(GUARD if index % 7 == 0 else "x = 1\n", encoding="utf-8")
        files.append(path)
    together = scan_files(detectors, files, jobs=2)
    alone = [scan_files(detectors, [path], jobs=1)[0] for path in files[:15]]
    assert together[:15] == alone
    assert sum(bool(result.hits) for result in together) == len(range(0, 250, 7))


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def _with_detectors(tmp_path: Path, *detectors: dict) -> Path:
    rules = tmp_path / "rules"
    shutil.copytree(VALID, rules)
    text = (rules / "R02.yaml").read_text(encoding="utf-8")
    (rules / "R02.yaml").write_text(
        text.rstrip("\n") + "\n" + yaml.safe_dump({"detectors": list(detectors)}, sort_keys=False),
        encoding="utf-8",
    )
    return rules


def test_a_detector_that_does_not_finish_on_a_file_is_named_and_the_others_still_run(
    tmp_path: Path,
) -> None:
    rules = _with_detectors(tmp_path, COSTLY, GUARD_DETECTOR)
    code = tmp_path / "code"
    code.mkdir()
    # Enough nodes for the nested search to run for minutes; a quick file beside it.
    (code / "big.py").write_text(BIG, encoding="utf-8")
    (code / "quick.py").write_text("x = 1\n", encoding="utf-8")
    begun = time.monotonic()
    status, out, err = run_cli(
        "scan", str(code), "--format", "json", "--file-timeout", "2", "--rules", str(rules)
    )
    elapsed = time.monotonic() - begun
    assert status == 1, err
    assert "big.py: detector R02-costly did not finish on this file within 2 s" in err
    assert "--file-timeout" in err and "quick.py" not in err
    hits = json.loads(out)["hits"]
    assert [(hit["path"].rsplit("/", 1)[-1], hit["detector"]) for hit in hits] == [
        ("big.py", "R02-guard")
    ]
    # Killed at its bound (minutes if run to the end), not waited for.
    assert elapsed < 60, elapsed


def test_a_detector_that_names_no_node_kind_is_refused_where_it_is_written(
    tmp_path: Path,
) -> None:
    lone = {"id": "lone", "message": "Any node", "severity": "hint", "rule": {"regex": "x"}}
    rules = _with_detectors(tmp_path, lone)
    status, out, _ = run_cli("validate", str(rules))
    text = (rules / "R02.yaml").read_text(encoding="utf-8").splitlines()
    line = next(n for n, row in enumerate(text, 1) if row.strip() == "regex: x")
    assert status == 1
    assert f"R02.yaml:{line}:" in out and "detector 'lone'" in out and "add a `kind:`" in out


def test_the_configured_bound_holds_for_code_an_agent_sends_through_mcp(tmp_path: Path) -> None:
    _with_detectors(tmp_path, COSTLY, GUARD_DETECTOR)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.rlt-rules]\nlibrary = "rules"\nfile-timeout = 2\n', encoding="utf-8"
    )
    code = BIG

    async def call() -> dict:
        params = StdioServerParameters(
            command=str(Path(sys.executable).parent / "rlt-rules"), args=["mcp"], cwd=tmp_path
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("scan_code", {"code": code, "file_name": "engine.py"})
            assert not result.is_error, result.content
            return result.structured_content

    begun = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        found = pool.submit(asyncio.run, call()).result()
    elapsed = time.monotonic() - begun
    assert [hit["detector"] for hit in found["hits"]] == ["R02-guard"]
    assert [problem["path"] for problem in found["problems"]] == ["engine.py"]
    assert "R02-costly did not finish on this code within 2 s" in found["problems"][0]["message"]
    assert elapsed < 60, elapsed  # the configured bound, not the default 30 s twice


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "1e9", "1e12", "soon"])
def test_the_file_timeout_must_be_a_number_of_seconds_within_its_bound(value: str) -> None:
    err = io.StringIO()
    argv = ["scan", str(ROOT / "samples"), "--file-timeout", value, "--rules", str(ROOT / "rules")]
    with contextlib.redirect_stderr(err), pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    bound = "argument --file-timeout: must be a number of seconds above 0 and at most 86,400"
    assert bound in err.getvalue()
