"""``[tool.rlt-rules]`` in the reviewed repository and the library every command finds: the
keys, their errors at file:line:column, the order of discovery, and what they change in
``scan`` and ``review-context``."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from rlt_rules.cli import main
from rlt_rules.files.config import ConfigError, find_config, key_position, parse_config, read_config
from rlt_rules.findings.context import Place
from rlt_rules.project.discover import DiscoveryError, Origin, locate, packaged_library

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "rules"
#: Two hints: R10 on line 6, R07's positional-boolean detector on line 9.
CODE = textwrap.dedent(
    """\
    class Runner:
        def __init__(self, cache):
            self.cache = cache

        def step(self):
            if hasattr(self, "cache"):
                self.cache.clear()

        def run(self):
            self.launch(self.cache, True)
    """
)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An engine repository using the checkout's library through ``library``."""
    write(tmp_path / "engine" / "runner.py", CODE)
    write(tmp_path / "tests" / "test_runner.py", CODE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def configure(repo: Path, body: str) -> Path:
    return write(repo / "pyproject.toml", f'[tool.rlt-rules]\nlibrary = "{RULES}"\n' + body)


def hints(out: str) -> list[str]:
    return re.findall(r"^(\S+:\d+):\d+: (R\d+)", out, re.MULTILINE)


# --- reading the table -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "position", "message"),
    [
        ('[tool.rlt-rules]\nselekt = ["R10"]\n', (2, 1), "unknown key 'selekt'; known keys:"),
        ('[tool.rlt-rules]\n\n  select = "R10"\n', (3, 3), "select must be a list of strings"),
        ("[tool.rlt-rules]\npreview = 'yes'\n", (2, 1), "preview must be true or false"),
        ("[tool.rlt-rules]\nlibrary = 3\n", (2, 1), "library must be a string"),
        ('[tool.rlt-rules]\nsite-url = "ftp://x/"\n', (2, 1), "site-url must be an http(s) URL"),
        (
            '[tool.rlt-rules.per-file-ignores]\n"tests/*.py" = "R10"\n',
            (2, 1),
            "tests/*.py must be a list of strings",
        ),
        (
            '[tool.rlt-rules]\nper-file-ignores = { "tests/*.py" = "R10" }\n',
            (2, 1),
            "tests/*.py must be a list of strings",
        ),
        ("[tool]\nrlt-rules.ignore = [1]\n", (2, 1), "ignore must be a list of strings"),
        ("[tool.rlt-rules]\nfile-timeout = 0\n", (2, 1), "file-timeout must be a number of"),
        ('[tool.rlt-rules]\nfile-timeout = "5"\n', (2, 1), "file-timeout must be a number of"),
        ("[tool.rlt-rules]\nfile-timeout = true\n", (2, 1), "file-timeout must be a number of"),
        ('[tool.rlt-rules]\nselect = ["R10"\n', (3, 1), "not valid TOML"),
    ],
)
def test_a_bad_key_is_an_error_at_its_line_and_column(
    tmp_path: Path, text: str, position: tuple[int, int], message: str
) -> None:
    path = tmp_path / "pyproject.toml"
    with pytest.raises(ConfigError) as error:
        parse_config(path, text)
    assert (error.value.line, error.value.column) == position
    assert str(error.value).startswith(f"{path}:{position[0]}:{position[1]}: ")
    assert message in error.value.message


def test_key_positions_skip_multiline_strings_and_other_tables() -> None:
    text = textwrap.dedent(
        '''\
        [tool.ruff]
        select = ["E"]
        [project]
        description = """
        select = 1
        """
        [tool.rlt-rules]
        select = ["R10"]
        '''
    )
    assert key_position(text, ("tool", "rlt-rules", "select")) == (8, 1)
    assert key_position(text, ("tool", "rlt-rules", "ignore")) == (7, 1)


def test_the_nearest_pyproject_with_the_table_is_read(tmp_path: Path) -> None:
    outer = write(tmp_path / "pyproject.toml", '[tool.rlt-rules]\nignore = ["R10"]\n')
    write(tmp_path / "pkg" / "pyproject.toml", '[project]\nname = "pkg"\n')
    inner = tmp_path / "pkg" / "src"
    inner.mkdir()
    assert find_config(inner) == outer
    config = read_config(inner)
    assert config.ignore == ("R10",) and config.root == tmp_path  # above: named in full
    assert read_config(tmp_path.parent / "elsewhere").path is None


# --- which library ---------------------------------------------------------------------------


def test_the_library_is_found_in_order(tmp_path: Path) -> None:
    bundle = tmp_path / "lib.json"
    bundle.write_text("{}", encoding="utf-8")
    configured = tmp_path / "shared-rules"
    write(configured / "library.yaml", "title: x\n")
    write(tmp_path / "rules" / "library.yaml", "title: x\n")
    given = locate("lib.json", configured, tmp_path)
    assert (given.origin, given.path, given.option()) == (
        Origin.OPTION,
        bundle,
        "--rules lib.json",
    )
    from_config = locate(None, configured, tmp_path)
    assert (from_config.origin, from_config.option()) == (Origin.CONFIG, None)
    current = locate(None, None, tmp_path)
    assert (current.origin, current.describe()) == (Origin.CURRENT, "rules/ in the current folder")
    (tmp_path / "rules" / "library.yaml").unlink()  # a rules/ without library.yaml is not one
    packaged = locate(None, None, tmp_path)
    assert packaged.origin is Origin.PACKAGE and packaged.path == packaged_library()
    with pytest.raises(DiscoveryError, match="no such rules folder or rules.json bundle"):
        locate("missing", None, tmp_path)
    with pytest.raises(DiscoveryError, match=r"no library.yaml in this folder \(--rules\)"):
        locate("rules", None, tmp_path)


def test_version_says_which_library_and_where_from(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    configure(repo, "")
    with pytest.raises(SystemExit):
        main(["--version"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("rlt-rules ")
    assert (
        lines[1] == f"library: Rlt Refactor 1.0.0, from folder {RULES} ([tool.rlt-rules] library)"
    )


def test_every_command_that_reads_rules_uses_the_configured_library(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(repo / "pyproject.toml", '[tool.rlt-rules]\nlibrary = "vendor/rules"\n')
    for argv in (("show", "R03"), ("list",), ("export", "--format", "json"), ("scan", "engine")):
        code, _, err = run(capsys, *argv)
        assert code == 2 and "vendor/rules: no such rules folder or rules.json bundle" in err
    configure(repo, "")
    assert run(capsys, "show", "R03")[1].startswith("R03 — ")
    assert "R17" in run(capsys, "list")[1]


# --- scan ------------------------------------------------------------------------------------


def test_scan_without_configuration(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    configure(repo, "")
    code, out, _ = run(capsys, "scan", "engine", "tests")
    assert code == 1
    assert hints(out) == [
        ("engine/runner.py:6", "R10"),
        ("engine/runner.py:10", "R07"),
        ("tests/test_runner.py:6", "R10"),
        ("tests/test_runner.py:10", "R07"),
    ]


def test_select_ignore_exclude_and_per_file_ignores(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    configure(repo, 'select = ["R10"]\n')
    assert hints(run(capsys, "scan", "engine")[1]) == [("engine/runner.py:6", "R10")]
    # --select overrides select
    assert hints(run(capsys, "scan", "engine", "--select", "R07")[1]) == [
        ("engine/runner.py:10", "R07")
    ]
    configure(repo, 'ignore = ["R10-hasattr-guard"]\n')
    assert [rule for _, rule in hints(run(capsys, "scan", "engine")[1])] == ["R07"]
    configure(repo, 'exclude = ["tests/"]\n')
    assert {path.split(":")[0] for path, _ in hints(run(capsys, "scan", ".")[1])} == {
        "engine/runner.py"
    }
    code, out, err = run(capsys, "scan", "tests/test_runner.py")  # named files too
    assert (code, out) == (0, "") and "0 hint(s) in 0 file(s)" in err
    configure(repo, '[tool.rlt-rules.per-file-ignores]\n"tests/*.py" = ["R10", "R07"]\n')
    assert {path.split(":")[0] for path, _ in hints(run(capsys, "scan", ".")[1])} == {
        "engine/runner.py"
    }


def test_unknown_ids_in_the_configuration_are_errors_at_their_key(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    configure(repo, '\n[tool.rlt-rules.per-file-ignores]\n"tests/*" = ["R99"]\n')
    code, _, err = run(capsys, "scan", "engine")
    assert code == 2
    expected = "pyproject.toml:5:1: per-file-ignores: unknown rule or detector id(s) R99"
    assert f"rlt-rules scan: error: {expected}" in err
    configure(repo, 'select = ["R10", "hasattr"]\n')
    code, _, err = run(capsys, "scan", "engine")
    assert code == 2 and "pyproject.toml:3:1: select: unknown rule or detector id(s) hasattr" in err


def test_preview_is_accepted_from_both_places(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``preview`` only passes through here: no detector is in preview yet."""
    configure(repo, "preview = true\n")
    assert run(capsys, "scan", "engine")[0] == 1
    assert run(capsys, "scan", "engine", "--no-preview")[0] == 1


# --- review-context --------------------------------------------------------------------------


def change_for(repo: Path) -> Path:
    lines = CODE.splitlines()
    diff = ["--- a/engine/runner.py", "+++ b/engine/runner.py", f"@@ -0,0 +1,{len(lines)} @@"]
    return write(repo / "change.diff", "\n".join([*diff, *("+" + line for line in lines)]) + "\n")


def test_review_context_lists_places_to_look_first(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    configure(repo, 'site-url = "https://rules.example.org/rlt/1.0.0/"\n')
    change_for(repo)
    code, out, _ = run(capsys, "review-context", "--diff", "change.diff")
    assert code == 0
    section = out[out.index("## Places to look first") : out.index("## How to answer")]
    places = [line for line in section.splitlines() if line.startswith("- ")]
    assert [line.split(":")[0] for line in places] == [
        "- R10 `engine/runner.py",
        "- R07 `engine/runner.py",
    ]
    assert places[0].startswith("- R10 `engine/runner.py:6`: Guards on an attribute of self")
    assert "(https://rules.example.org/rlt/1.0.0/rules/R03/)" in out  # site-url
    assert "findings check ANSWER.yaml --repo . --diff change.diff`" in out  # no --rules needed
    configure(repo, 'ignore = ["R07"]\n')
    out = run(capsys, "review-context", "--diff", "change.diff")[1]
    assert "- R07 `" not in out and "- R10 `engine/runner.py:6`" in out


def test_places_to_look_first_stay_within_the_budget(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    configure(repo, "")
    many = CODE + "".join(
        f"\n    def check_{n}(self):\n        return hasattr(self, 'cache')\n" for n in range(80)
    )
    write(repo / "engine" / "runner.py", many)
    lines = many.splitlines()
    diff = ["--- a/engine/runner.py", "+++ b/engine/runner.py", f"@@ -0,0 +1,{len(lines)} @@"]
    write(repo / "change.diff", "\n".join([*diff, *("+" + line for line in lines)]) + "\n")
    code, out, _ = run(capsys, "review-context", "--diff", "change.diff", "--max-chars", "16000")
    assert code == 0 and len(out) <= 16_000
    section = out[out.index("## Places to look first") : out.index("## How to answer")]
    assert len(section) <= 16_000 // 4
    listed = re.findall(r"^- R\d+ `engine/runner.py:\d+`", section, re.MULTILINE)
    (more,) = re.findall(r"^- … (\d+) more: `rlt-rules scan --diff change.diff`$", section, re.M)
    assert len(listed) + int(more) == 82 and listed


# --- the site page ---------------------------------------------------------------------------

PAGE = ROOT / "site" / "configuration.md"


def page_block(language: str, starting: str = "") -> str:
    page = PAGE.read_text(encoding="utf-8")
    found = re.findall(rf"^```{language}\n(.*?)^```", page, re.S | re.M)
    (block,) = [block for block in found if block.startswith(starting)]
    return block


def test_the_pages_example_is_valid_for_this_library(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    example = page_block("toml")
    config = parse_config(Path("pyproject.toml"), example)
    assert config.select and config.per_file_ignores and config.exclude
    write(repo / "pyproject.toml", example)
    write(repo / "third_party" / "vendored.py", CODE)
    code, out, err = run(capsys, "scan", ".")
    assert code == 1, err
    assert {path.split(":")[0] for path, _ in hints(out)} == {"engine/runner.py"}
    assert [rule for _, rule in hints(out)] == ["R10"]  # R07's positional switch is ignored
    assert "(https://rlt-rules.example/1.0.0/rules/R10/)" in out


def test_the_pages_error_is_what_a_bad_key_prints(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    configure(repo, 'selekt = ["R10"]\n')
    code, _, err = run(capsys, "scan", "engine")
    assert (code, err) == (2, page_block("text", "rlt-rules scan: error:"))


def test_a_place_to_look_is_one_inert_line() -> None:
    place = Place("R10", "engine/a`b.py", 3, "Guards <script>alert(1)</script>\non `x`")
    assert place.text() == (
        "- R10 ``engine/a`b.py:3``: Guards &lt;script>alert(1)&lt;/script> on `x`"
    )
