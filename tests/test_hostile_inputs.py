"""Whatever a repository, its ``[tool.rlt-rules]``, a diff or the command line holds, ``scan``
and ``review-context`` answer with a hint or a positioned message: no traceback, no hang, no
hint lost or forged. Globs that backtrack, values no scan can use, numbers out of bounds, NUL
bytes, file names that are not UTF-8 or hold line separators, names ``git diff`` quotes.

Each command runs in a child process with a wall-clock timeout and an address-space limit, as
``tests/test_hostile_scan.py`` does: a hang or an unbounded read fails the test, not the
machine.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from bounded import address_space
from test_hostile_scan import BIN, RULES, SECONDS
from test_scan import GUARD

from rlt_rules import load_library
from rlt_rules.files.bounds import OutOfBounds
from rlt_rules.files.diffs import DiffError, check_revision, parse_diff
from rlt_rules.files.reading import BadPath, read_diff
from rlt_rules.scan import detector_set, scan
from rlt_rules.scan.render import FORMATS, SUPPRESSION_DESCRIPTORS

#: Backtracks catastrophically as a regular expression against a 40-character name.
HOSTILE = "*a" * 12 + "*b"
#: A name it does not match (no "b"): the regex tried every way to place twelve "a"s.
NAME = "a" * 40 + ".py"
#: A folder it matches (ends in "b"): what it ignores, excludes or exempts.
MATCHED = "a" * 39 + "b"


@dataclass(frozen=True)
class Run:
    code: int
    out: bytes
    err: str

    @property
    def text(self) -> str:
        return self.out.decode("utf-8")  # every format is UTF-8, whatever the names


def run(cwd: Path, *argv: str, stdin: bytes | Path | None = None) -> Run:
    """``rlt-rules ARGV --rules RULES`` in ``cwd``, bounded in time and memory."""
    source = stdin.open("rb") if isinstance(stdin, Path) else None
    try:
        result = subprocess.run(
            [str(BIN / "rlt-rules"), *argv, "--rules", str(RULES)],
            cwd=cwd,
            input=stdin if isinstance(stdin, bytes) else None,
            stdin=source,
            capture_output=True,
            timeout=SECONDS,
            preexec_fn=address_space(),
            check=False,
        )
    finally:
        if source is not None:
            source.close()
    err = result.stderr.decode("utf-8", errors="backslashreplace")
    assert "Traceback" not in err, err
    return Run(result.returncode, result.stdout, err)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "src").mkdir()
    return tmp_path


def configure(repo: Path, body: str) -> None:
    (repo / "pyproject.toml").write_text(f"[tool.rlt-rules]\n{body}\n", encoding="utf-8")


# --- globs in linear time ----------------------------------------------------------------------


@pytest.mark.parametrize("source", [".gitignore", "exclude", "per-file-ignores"])
def test_a_glob_that_backtracks_as_a_regex_is_matched_in_linear_time(
    repo: Path, source: str
) -> None:
    (repo / "src" / NAME).write_text(GUARD, encoding="utf-8")
    (repo / "src" / MATCHED).mkdir()
    (repo / "src" / MATCHED / "engine.py").write_text(GUARD, encoding="utf-8")
    if source == ".gitignore":
        (repo / ".gitignore").write_text(f"{HOSTILE}\n", encoding="utf-8")
    elif source == "exclude":
        configure(repo, f'exclude = ["{HOSTILE}"]')
    else:
        configure(repo, f'per-file-ignores = {{ "{HOSTILE}" = ["R10"] }}')
    result = run(repo, "scan", "src", "--format", "json")
    assert result.code == 1, result.err
    paths = [hit["path"] for hit in json.loads(result.text)["hits"]]
    assert paths == [f"src/{NAME}"]  # the glob meets the folder ending in "b", not the name


# --- [tool.rlt-rules] values no scan can use ---------------------------------------------------


@pytest.mark.parametrize(
    ("body", "position", "message"),
    [
        ('exclude = ["!"]', "2:1", "exclude: pattern '!': nothing follows '!'"),
        ('exclude = ["[z-a]"]', "2:1", "exclude: pattern '[z-a]': the range z-a is empty"),
        ('exclude = ["# build"]', "2:1", "exclude: pattern '# build' matches nothing"),
        ('exclude = ["a\\u0000b"]', "2:1", "exclude: pattern 'a\\x00b' holds a NUL byte"),
        ('per-file-ignores = { "!" = ["R10"] }', "2:1", "per-file-ignores: pattern '!'"),
        (
            'per-file-ignores = { "!tests/" = ["R10"] }',
            "2:1",
            "per-file-ignores: pattern '!tests/' only re-includes ('!')",
        ),
        (
            '[tool.rlt-rules.per-file-ignores]\n"[z-a]" = ["R10"]',
            "3:1",
            "per-file-ignores: pattern '[z-a]': the range z-a is empty",
        ),
        ("file-timeout = inf", "2:1", "file-timeout must be a number of seconds above 0"),
        ("file-timeout = 1e12", "2:1", "file-timeout must be a number of seconds above 0"),
        ("file-timeout = nan", "2:1", "file-timeout must be a number of seconds"),
        ('site-url = "https://x/\\nsrc/a.py:1:1: R99 forged"', "2:1", "site-url holds '\\n'"),
        ('site-url = "https://x/ <img src=x onerror=alert(1)>"', "2:1", "site-url holds ' '"),
        ('site-url = "https://x/\\"onmouseover=\\"alert(1)"', "2:1", "site-url holds '\"'"),
        ('site-url = "https://x/<b>"', "2:1", "site-url holds '<'"),
        ('site-url = "https://x/\\u202e"', "2:1", "site-url holds '\\u202e'"),
        ('site-url = "https://x/\\u0085"', "2:1", "site-url holds '\\x85'"),
        ('site-url = "javascript:alert(1)"', "2:1", "site-url must be an http(s) URL"),
        ('site-url = "https:///rules/"', "2:1", "site-url names no host"),
        ('library = "rules\\u0000x"', "2:1", "library holds a NUL byte"),
    ],
)
def test_a_value_no_scan_can_use_is_an_error_at_its_position(
    repo: Path, body: str, position: str, message: str
) -> None:
    (repo / "src" / "engine.py").write_text(GUARD, encoding="utf-8")
    configure(repo, body)
    result = run(repo, "scan", "src")
    assert result.code == 2
    assert f"pyproject.toml:{position}: {message}" in result.err, result.err
    assert result.out == b""


def _added_diff(target: Path, path: str, text: str) -> None:
    """A unified diff that adds ``text`` as the new file ``path`` (review-context reads a
    change; outside a Git work tree it must be given one)."""
    lines = text.splitlines()
    body = "".join(f"+{line}\n" for line in lines)
    target.write_text(
        f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{len(lines)} @@\n{body}", encoding="utf-8"
    )


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("https://x/\nsrc/a.py:1:1: R99 forged", "--site-url holds '\\n'"),
        ("https://x/ <img src=x onerror=alert(1)>", "--site-url holds ' '"),
        ("https://x/\u2028", "--site-url holds '\\u2028'"),
        ("javascript:alert(1)", "--site-url must be an http(s) URL"),
    ],
)
def test_a_site_url_option_that_is_no_safe_address_is_refused(
    repo: Path, url: str, message: str
) -> None:
    (repo / "src" / "engine.py").write_text(GUARD, encoding="utf-8")
    _added_diff(repo / "change.diff", "src/engine.py", GUARD)
    for argv in (["scan", "src"], ["review-context", "--diff", "change.diff"]):
        result = run(repo, *argv, "--site-url", url)
        assert result.code == 2 and message in result.err, result.err
        assert result.out == b""


def test_a_tool_key_that_is_not_a_table_is_an_error_at_its_line(repo: Path) -> None:
    (repo / "pyproject.toml").write_text(
        'tool = 5\n[project]\ndependencies = ["rlt-rules"]\n', encoding="utf-8"
    )
    (repo / "src" / "engine.py").write_text(GUARD, encoding="utf-8")
    result = run(repo, "scan", "src")
    assert result.code == 2
    assert "pyproject.toml:1:1: tool must be a table ([tool.NAME] sections), got int 5" in (
        result.err
    )


def test_a_pyproject_that_is_not_utf8_is_an_error_not_passed_over(repo: Path) -> None:
    configure(repo, 'exclude = ["engine/"]')  # the parent's: would hide the hint
    engine = repo / "engine"
    engine.mkdir()
    (engine / "runner.py").write_text(GUARD, encoding="utf-8")
    (engine / "pyproject.toml").write_bytes(b'[tool.rlt-rules]\n# r\xe9sum\xe9\nselect = ["R10"]\n')
    result = run(engine, "scan", ".")
    assert result.code == 2
    assert "pyproject.toml:2:4: not UTF-8 (byte 0xe9): TOML files are UTF-8" in result.err
    _added_diff(engine / "change.diff", "runner.py", GUARD)
    review = run(engine, "review-context", "--diff", "change.diff")
    assert review.code == 2 and "pyproject.toml:2:4: not UTF-8" in review.err


def test_an_empty_gitignore_range_is_reported_at_its_line_and_the_line_left_out(
    repo: Path,
) -> None:
    """Git reads ``[z-a]`` and matches nothing with it: the scan goes on without the line (a
    repository's ``.gitignore`` is Git's too; refusing to scan would stop every scan of it) and
    says which line, so it does not hide that nothing is ignored."""
    (repo / ".gitignore").write_text("build/\n[z-a]\n", encoding="utf-8")
    (repo / "src" / "engine.py").write_text(GUARD, encoding="utf-8")
    result = run(repo, "scan", "src")
    assert result.code == 1
    assert (
        ".gitignore:2: pattern '[z-a]': the range z-a is empty ('z' sorts after 'a'): Git "
        "matches nothing with it; write a-z; line ignored"
    ) in result.err
    assert "src/engine.py:3:12: R10 " in result.text


# --- numbers on the command line ---------------------------------------------------------------

BEYOND = str(2**63 + 1)


@pytest.mark.parametrize(
    ("argv", "option", "bound"),
    [
        (["scan", "src", "--file-timeout", "inf"], "--file-timeout", "above 0 and at most 86,400"),
        (["scan", "src", "--file-timeout", "1e9"], "--file-timeout", "at most 86,400"),
        (["scan", "src", "--file-timeout", "1e12"], "--file-timeout", "at most 86,400"),
        (["scan", "src", "--file-timeout", "nan"], "--file-timeout", "above 0"),
        (["scan", "src", "--file-timeout", "0"], "--file-timeout", "above 0"),
        (["scan", "src", "--max-file-bytes", "-1"], "--max-file-bytes", "from 1 to 1,073,741,824"),
        (["scan", "src", "--max-file-bytes", "0"], "--max-file-bytes", "from 1"),
        (["scan", "src", "--max-file-bytes", str(2**63)], "--max-file-bytes", "from 1"),
        (["scan", "src", "--max-file-bytes", BEYOND], "--max-file-bytes", "from 1"),
        (["scan", "src", "--max-file-bytes", "1.5"], "--max-file-bytes", "a whole number"),
        (["scan", "--diff", "-", "--max-diff-bytes", "-2"], "--max-diff-bytes", "from 1"),
        (["scan", "--diff", "-", "--max-diff-bytes", BEYOND], "--max-diff-bytes", "from 1"),
        (["scan", "src", "--jobs", "0"], "--jobs", "a whole number of jobs from 1 to 4,096"),
        (["scan", "src", "--jobs", "1" + "0" * 30], "--jobs", "from 1 to 4,096"),
        (["review-context", "--max-chars", "0"], "--max-chars", "of characters from 1"),
        (["review-context", "--max-chars", BEYOND], "--max-chars", "to 1,000,000,000"),
    ],
)
def test_a_number_option_takes_only_values_within_its_bound(
    repo: Path, argv: list[str], option: str, bound: str
) -> None:
    (repo / "src" / "engine.py").write_text(GUARD, encoding="utf-8")
    result = run(repo, *argv, stdin=b"")
    assert result.code == 2
    assert f"error: argument {option}: must be " in result.err and bound in result.err, result.err


def test_a_negative_diff_limit_never_reads_an_endless_standard_input(repo: Path) -> None:
    refused = run(repo, "scan", "--max-diff-bytes", "-2", "--diff", "-", stdin=Path("/dev/zero"))
    assert refused.code == 2 and "argument --max-diff-bytes: must be" in refused.err
    bounded = run(repo, "scan", "--max-diff-bytes", "1024", "--diff", "-", stdin=Path("/dev/zero"))
    assert bounded.code == 2 and "over the 1,024-byte limit: not read" in bounded.err


def test_the_library_refuses_numbers_out_of_bounds_with_a_typed_error(tmp_path: Path) -> None:
    (tmp_path / "engine.py").write_text(GUARD, encoding="utf-8")
    detectors = detector_set(load_library(RULES))
    for options, name in [
        ({"max_file_bytes": -1}, "max_file_bytes"),
        ({"max_file_bytes": 2**63}, "max_file_bytes"),
        ({"file_timeout": float("inf")}, "file_timeout"),
        ({"file_timeout": 1e12}, "file_timeout"),
        ({"jobs": 0}, "jobs"),
    ]:
        with pytest.raises(OutOfBounds, match=f"^{name} must be "):
            scan([tmp_path], detectors, root=tmp_path, **options)
    with pytest.raises(OutOfBounds, match="--max-diff-bytes must be"):
        read_diff("-", limit=-2)


# --- NUL bytes -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "header", ['+++ "b/engine\\000.py"', "+++ b/engine\0.py"], ids=["quoted", "raw"]
)
def test_a_nul_byte_in_a_diff_path_is_an_error_at_its_line(repo: Path, header: str) -> None:
    (repo / "src" / "engine.py").write_text(GUARD, encoding="utf-8")
    diff = f"--- a/engine.py\n{header}\n@@ -1,1 +1,2 @@\n x\n+y\n".encode()
    result = run(repo, "scan", "--diff", "-", stdin=diff)
    assert result.code == 2 and "line 2: path " in result.err and "holds a NUL byte" in result.err
    review = run(repo, "review-context", "--diff", "-", stdin=diff)
    assert review.code == 1 and "line 2: path " in review.err


def test_a_nul_byte_in_a_path_or_a_revision_is_a_typed_error(tmp_path: Path) -> None:
    detectors = detector_set(load_library(RULES))
    with pytest.raises(BadPath, match="path to scan .* holds a NUL byte"):
        scan([tmp_path / "a\0b.py"], detectors, root=tmp_path)
    with pytest.raises(BadPath, match="root .* holds a NUL byte"):
        scan([tmp_path], detectors, root=Path("x\0y"))
    with pytest.raises(BadPath, match="--diff .* holds a NUL byte"):
        read_diff("change\0.diff")
    for base in ["main\0", "", "--output=x", "main\n"]:
        with pytest.raises(DiffError, match="revision"):
            check_revision(base)
    assert check_revision("origin/main...HEAD") == "origin/main...HEAD"


# --- file names in every format ------------------------------------------------------------------

#: A name that is not UTF-8 (Latin-1 "café"), as the file system gives it to Python.
LATIN = os.fsdecode(b"caf\xe9.py")


@pytest.mark.parametrize("form", sorted(FORMATS))
def test_a_name_that_is_not_utf8_is_scanned_and_reported_in_every_format(
    repo: Path, form: str
) -> None:
    (repo / "src" / LATIN).write_text(GUARD, encoding="utf-8")
    result = run(repo, "scan", "src", "--format", form, "--site-url", "https://x.example/")
    assert result.code == 1, result.err
    output = result.text
    if form == "text":
        assert output.startswith("src/caf\\xe9.py:3:12: R10 ")
    elif form == "json":
        assert [hit["path"] for hit in json.loads(output)["hits"]] == ["src/caf\\xe9.py"]
    elif form == "sarif":
        (found,) = json.loads(output)["runs"][0]["results"]
        uri = found["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert uri == "src/caf%E9.py"  # the file's own bytes
    else:
        (finding,) = yaml.safe_load(output)["findings"]
        assert finding["location"]["path"] == "src/caf\\xe9.py"


#: Characters a line-by-line reader takes for a line break, or that make a line read backwards.
SEPARATORS = {"U+2028": "\u2028", "U+0085": "\x85", "U+202E": "\u202e"}


@pytest.mark.parametrize("form", sorted(FORMATS))
@pytest.mark.parametrize("name", sorted(SEPARATORS))
def test_a_name_with_a_line_separator_or_bidi_control_is_escaped(
    repo: Path, form: str, name: str
) -> None:
    char = SEPARATORS[name]
    file = f"a{char}fake.py:1:1: R99 forged.py"
    (repo / "src" / file).write_text(GUARD, encoding="utf-8")
    result = run(repo, "scan", "src", "--format", form)
    assert result.code == 1, result.err
    output = result.text
    assert char not in output  # written as an escape in every format
    if form == "text":
        lines = output.splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"src/a{repr(char)[1:-1]}fake.py:1:1")
        assert not any(line.startswith("fake.py") for line in lines)
    elif form == "json":
        assert [hit["path"] for hit in json.loads(output)["hits"]] == [f"src/{file}"]
    elif form == "sarif":
        (found,) = json.loads(output)["runs"][0]["results"]
        uri = found["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert uri.startswith("src/a%") and "\n" not in uri
    else:
        (finding,) = yaml.safe_load(output)["findings"]
        assert finding["location"]["path"] == f"src/{file}"  # YAML reads the escape back


# --- names git diff quotes -----------------------------------------------------------------------


def git(repo: Path, *args: str) -> str:
    command = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args]
    result = subprocess.run(command, cwd=repo, capture_output=True, check=True)
    return result.stdout.decode("utf-8", errors="replace")


@pytest.fixture
def quoted(tmp_path: Path) -> tuple[Path, bytes]:
    """A repository whose change touches files ``git diff`` names quoted: "café.py" (UTF-8,
    octal escapes), a Latin-1 name and one with a tab; the diff as ``git diff`` writes it."""
    git(tmp_path, "init", "-q")
    names = ["café.py", LATIN, "tab\tname.py"]
    for name in names:
        (tmp_path / name).write_text("x = 1\n", encoding="utf-8")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "before")
    for name in names:
        (tmp_path / name).write_text(GUARD, encoding="utf-8")
    diff = subprocess.run(["git", "diff"], cwd=tmp_path, capture_output=True, check=True).stdout
    assert b'+++ "b/caf\\303\\251.py"' in diff and b'+++ "b/caf\\351.py"' in diff
    return tmp_path, diff


def test_scan_diff_reads_the_files_git_diff_names_quoted(quoted: tuple[Path, bytes]) -> None:
    repo, diff = quoted
    result = run(repo, "scan", "--diff", "-", stdin=diff)
    assert result.code == 1, result.err
    hits = {line.split(": R10 ")[0] for line in result.text.splitlines()}
    assert hits == {"caf\\xe9.py:3:12", "café.py:3:12", "tab\\tname.py:3:12"}


def test_review_context_places_the_files_git_diff_names_quoted(
    quoted: tuple[Path, bytes],
) -> None:
    repo, diff = quoted
    result = run(repo, "review-context", "--diff", "-", stdin=diff)
    assert result.code == 0, result.err
    lines = result.text.splitlines()
    for shown in ("café.py", "caf\\xe9.py", "tab\\tname.py"):  # listed, escaped, placed
        assert f"- `{shown}` (modified): lines 1–7 (+7 −1)" in lines
        assert any(line.startswith(f"- R10 `{shown}:3`: ") for line in lines)
    assert result.err == ""


def test_a_file_the_diff_names_that_is_not_there_is_a_problem_line(repo: Path) -> None:
    (repo / "engine.py").write_text(GUARD, encoding="utf-8")
    diff = (
        b"--- a/engine.py\n+++ b/engine.py\n@@ -1,1 +1,2 @@\n x\n+y\n"
        b"--- a/gone.py\n+++ b/gone.py\n@@ -1,1 +1,2 @@\n x\n+y\n"
    )
    result = run(repo, "scan", "--diff", "-", stdin=diff)
    assert result.code == 1
    assert "gone.py: the diff changes this file, but there is no such file under" in result.err
    review = run(repo, "review-context", "--diff", "-", stdin=diff)
    assert review.code == 0
    assert "gone.py: the diff changes this file, but there is no such file under" in review.err


def test_a_quoted_name_git_would_not_write_is_an_error_at_its_line(repo: Path) -> None:
    diff = b'--- "a/caf\\q.py"\n+++ "b/caf\\q.py"\n@@ -1,1 +1,2 @@\n x\n+y\n'
    result = run(repo, "scan", "--diff", "-", stdin=diff)
    assert result.code == 2
    assert "line 1: file name '\"a/caf\\\\q.py\"': '\\\\q' is not an escape Git writes" in (
        result.err
    )


def test_parse_diff_unquotes_names_to_the_names_on_disk() -> None:
    change = parse_diff('--- "a/caf\\351.py"\n+++ "b/caf\\351.py"\n@@ -1,1 +1,2 @@\n x\n+y\n')
    (file,) = change.files
    assert os.fsencode(file.path) == b"caf\xe9.py"


# --- SARIF descriptors of the suppression reports ---------------------------------------------


def test_scan_sarif_gives_the_suppression_reports_a_help_page(repo: Path) -> None:
    (repo / "src" / "engine.py").write_text(GUARD, encoding="utf-8")
    result = run(repo, "scan", "src", "--format", "sarif", "--site-url", "https://x.example/1/")
    rules = json.loads(result.text)["runs"][0]["tool"]["driver"]["rules"]
    help_of = {rule["id"]: rule.get("helpUri") for rule in rules}
    for name in SUPPRESSION_DESCRIPTORS:
        assert help_of[name] == f"https://x.example/1/configuration/#{name}"
