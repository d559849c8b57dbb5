"""Detectors on real engine code: SGLang 0.5.23's judged slice and its verdict file.

``tools/corpus.py fetch`` (run by ``./dev test``) puts the pinned wheel's Python files in
``.cache/corpus/``. Every hint the detectors (preview ones too) raise on the slice has a verdict
in ``tests/corpus/sglang-0.5.23.yaml`` and every verdict a hint; so does every hint, anywhere in
the package, of a detector that raises nothing on the slice
(``tests/corpus/sglang-0.5.23.package.yaml``). Every default-on detector is at tp-precision 0.8
or more with at most 1 in 10 hints fp in the scope it is judged in; the ``measured:`` figures
in the records are what the verdicts give. A missing corpus fails these tests (it never skips
them).
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from rlt_rules import load_library
from rlt_rules.detectors.detect import Hit
from rlt_rules.library.model import CorpusScope, HintSeverity, Measured
from rlt_rules.render.sarif import detector_descriptor
from rlt_rules.scan import FileHit
from rlt_rules.scan.corpus import (
    CorpusComparison,
    Verdict,
    VerdictError,
    compare,
    judge_corpus,
    load_verdicts,
    measure_corpus,
    package_scoped,
    rewrite_measured,
)
from rlt_rules.site.hints import hints_markdown

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "rules"


def _load_script():
    spec = importlib.util.spec_from_file_location("corpus_script", ROOT / "tools" / "corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


corpus_script = _load_script()
VERDICTS = corpus_script.VERDICTS
PACKAGE_VERDICTS = corpus_script.PACKAGE_VERDICTS


@pytest.fixture(scope="module")
def comparison() -> CorpusComparison:
    """The slice scanned with every detector against its verdict file, and the whole package
    with the detectors silent on the slice against theirs (once per module)."""
    folder = corpus_script.FOLDER
    if not corpus_script.ready(folder):
        pytest.fail(
            f"the SGLang corpus is not in {folder}: run `{corpus_script.FETCH_COMMAND}` "
            "(`./dev test` runs it; it needs the package index)"
        )
    return judge_corpus(
        folder,
        corpus_script.SLICE,
        load_library(RULES),
        load_verdicts(VERDICTS),
        load_verdicts(PACKAGE_VERDICTS, scope=CorpusScope.PACKAGE),
    )


# --- the corpus, judged --------------------------------------------------------------------


@pytest.mark.parametrize("scope", list(CorpusScope))
def test_every_hint_has_a_verdict_and_every_verdict_a_hint(
    comparison: CorpusComparison, scope: CorpusScope
) -> None:
    judged = comparison.on_slice if scope is CorpusScope.SLICE else comparison.on_package
    name = (VERDICTS if scope is CorpusScope.SLICE else PACKAGE_VERDICTS).name
    print("\n" + judged.table())
    unjudged = [
        f"{f.path}:{f.hit.line}: {f.hit.qualified_id}: {f.hit.text.splitlines()[0][:60]}"
        for f in judged.unjudged
    ]
    stale = [f"{v.path}:{v.line}: {v.detector}" for v in judged.stale]
    assert not unjudged, (
        f"{len(unjudged)} hint(s) without a verdict in {name} (judge them):\n"
        + "\n".join(unjudged[:40])
    )
    assert not stale, (
        f"{len(stale)} verdict(s) in {name} for hints that no longer appear (remove them):\n"
        + "\n".join(stale[:40])
    )


def test_default_on_detectors_reach_the_precision_bar(comparison: CorpusComparison) -> None:
    """tp-precision >= 0.8 and fp <= 10 % of hints in the scope each detector is judged in,
    or the detector is ``status: preview``."""
    print("\n" + comparison.table())
    below = [
        f"{t.detector} ({t.scope}): {t.hints} hints, {t.tp} tp, {t.arguable} arguable, {t.fp} fp"
        for judged in comparison.scopes
        for t in judged.tallies
        if not t.preview and not t.meets_bar
    ]
    assert below == [], "narrow these detectors or make them preview (with the reason):\n" + (
        "\n".join(below)
    )


def test_detectors_silent_on_the_slice_are_judged_on_the_package(
    comparison: CorpusComparison,
) -> None:
    silent = package_scoped(comparison.on_slice)
    assert silent, "every detector raises hints on the slice: no package scope"
    assert [t.detector for t in comparison.on_package.tallies] == sorted(silent)
    assert all(t.scope is CorpusScope.PACKAGE for t in comparison.on_package.tallies)
    assert sum(t.hints for t in comparison.on_package.tallies) > 0


def test_the_records_measured_figures_are_what_the_verdicts_give(
    comparison: CorpusComparison,
) -> None:
    library = load_library(RULES)
    corpus = corpus_script.FOLDER.name
    wrong = []
    for rule in library.rules:
        for detector in rule.detectors:
            tally = comparison.tally(f"{rule.id}-{detector.id}")
            if tally is not None and detector.measured != tally.measured(corpus):
                wrong.append(f"{rule.id}-{detector.id}: record {detector.measured}")
    assert wrong == [], "run `python tools/corpus.py measure --write`:\n" + "\n".join(wrong)


# --- the verdict files ---------------------------------------------------------------------


@pytest.mark.parametrize("scope", list(CorpusScope))
def test_the_verdict_files_follow_their_schema(scope: CorpusScope) -> None:
    path = VERDICTS if scope is CorpusScope.SLICE else PACKAGE_VERDICTS
    verdicts = load_verdicts(path, scope=scope)
    keys = [(v.path, v.line, v.detector) for v in verdicts]
    assert keys == sorted(keys), (
        f"keep the file sorted: `python tools/corpus.py gather --scope {scope}`"
    )
    assert all(v.path.startswith("sglang/") and v.detector.startswith(v.rule) for v in verdicts)
    assert all(v.scope is scope for v in verdicts)


def test_a_broken_verdict_is_reported_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "v.yaml"
    entry = "- {path: sglang/a.py, line: 3, rule: R10, detector: R10-x, verdict: %s, why: W}\n"
    path.write_text(entry % "tp" + entry % "maybe", encoding="utf-8")
    with pytest.raises(VerdictError, match=r"v\.yaml:2:3: 1/verdict: 'maybe' is not one of"):
        load_verdicts(path)


def test_a_verdict_in_the_other_scopes_file_is_reported_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "v.yaml"
    entry = "- {path: sglang/a.py, line: 3, rule: R10, detector: R10-x, verdict: tp, why: W%s}\n"
    path.write_text(entry % "" + entry % ", scope: package", encoding="utf-8")
    with pytest.raises(VerdictError, match=r"v\.yaml:2:3: 1/scope: a package verdict in the file"):
        load_verdicts(path)
    with pytest.raises(VerdictError, match=r"v\.yaml:1:3: 0/scope: a slice verdict in the file"):
        load_verdicts(path, scope=CorpusScope.PACKAGE)
    path.write_text(entry % ", scope: wide", encoding="utf-8")
    with pytest.raises(VerdictError, match=r"0/scope: 'wide' is not one of"):
        load_verdicts(path, scope=CorpusScope.PACKAGE)


# --- matching hits and verdicts ------------------------------------------------------------


def _hit(path: str, line: int, detector: str = "R10-hasattr-guard") -> FileHit:
    rule, name = detector.split("-", 1)
    return FileHit(path, Hit(rule, name, "m", HintSeverity.HINT, line, 1, line, 2, "x"))


def _verdict(path: str, line: int, verdict: str, detector: str = "R10-hasattr-guard") -> Verdict:
    return Verdict(path, line, detector.split("-")[0], detector, verdict, "why")


def test_compare_counts_verdicts_and_finds_unjudged_and_stale() -> None:
    hits = [_hit("a.py", 1), _hit("a.py", 1), _hit("a.py", 5), _hit("b.py", 2)]
    verdicts = [
        _verdict("a.py", 1, "tp"),
        _verdict("a.py", 1, "fp"),
        _verdict("b.py", 2, "arguable"),
        _verdict("b.py", 9, "tp"),
    ]
    found = compare(hits, verdicts, {"R10-hasattr-guard": False, "R07-positional-switch": True})
    tally = {t.detector: t for t in found.tallies}
    assert (tally["R10-hasattr-guard"].hints, tally["R10-hasattr-guard"].tp) == (4, 1)
    assert (tally["R10-hasattr-guard"].fp, tally["R10-hasattr-guard"].arguable) == (1, 1)
    assert tally["R07-positional-switch"].hints == 0 and tally["R07-positional-switch"].meets_bar
    assert [(f.path, f.hit.line) for f in found.unjudged] == [("a.py", 5)]
    assert [(v.path, v.line) for v in found.stale] == [("b.py", 9)]
    assert not found.complete and not found.settled("R10-hasattr-guard")
    assert found.settled("R07-positional-switch")
    assert "R10-hasattr-guard" in found.table() and "1 unjudged" in found.table()


def test_the_package_scope_takes_the_detectors_silent_on_the_slice() -> None:
    detectors = {"R10-hasattr-guard": False, "R07-minus-one-count": False, "R03-x": True}
    on_slice = compare([_hit("a.py", 1)], [_verdict("a.py", 1, "tp")], detectors)
    # Silent on the slice, on by default or preview (whose reason rests on its figures).
    assert package_scoped(on_slice) == ("R03-x", "R07-minus-one-count")
    detector = "R07-minus-one-count"
    on_package = compare(
        [_hit("b.py", 4, detector)],
        [_verdict("b.py", 4, "tp", detector), _verdict("c.py", 2, "fp")],
        {detector: False},
        scope=CorpusScope.PACKAGE,
    )
    # A package verdict of a detector judged on the slice has no hit there: stale.
    assert [(v.path, v.detector) for v in on_package.stale] == [("c.py", "R10-hasattr-guard")]
    (tally,) = on_package.tallies
    assert tally.scope is CorpusScope.PACKAGE and (tally.hints, tally.tp) == (1, 1)
    assert tally.measured("c-1").to_dict()["scope"] == "package"
    assert "scope: package" in on_package.table()
    assert "judged on the package" in on_slice.table()


def test_the_bar_is_precision_and_fp_share() -> None:
    def tally(tp: int, arguable: int, fp: int) -> bool:
        hits = [_hit("a.py", n) for n in range(tp + arguable + fp)]
        kinds = ["tp"] * tp + ["arguable"] * arguable + ["fp"] * fp
        verdicts = [_verdict("a.py", n, kind) for n, kind in enumerate(kinds)]
        return compare(hits, verdicts, {}).tallies[0].meets_bar

    assert tally(8, 1, 1) and tally(10, 0, 0)
    assert not tally(7, 3, 0)  # precision 0.7
    assert not tally(16, 0, 3) and tally(17, 1, 2)  # fp 3 of 19 > 10 %


# --- the records' figures ------------------------------------------------------------------


def test_rewriting_figures_keeps_the_record_as_written(tmp_path: Path) -> None:
    # The record as written before any figure: the committed one without its measured lines.
    original = re.sub(
        r"^    measured: .*\n", "", (RULES / "R07.yaml").read_text(encoding="utf-8"), flags=re.M
    )
    first = Measured("sglang-0.5.23", 40, 33, 4, 3, 0.82)
    text = rewrite_measured(original, "positional-switch", first)
    added = [line for line in text.splitlines() if line not in original.splitlines()]
    assert added == [
        "    measured: {corpus: sglang-0.5.23, hints: 40, tp: 33, arguable: 4, fp: 3, "
        "precision: 0.82}"
    ]
    second = Measured("sglang-0.5.23", 0, 0, 0, 0, None, CorpusScope.PACKAGE)
    again = rewrite_measured(text, "positional-switch", second)
    again = rewrite_measured(again, "count-as-failure", first)
    assert rewrite_measured(again, "count-as-failure", first) == again
    data = yaml.safe_load(again)
    detectors = {d["id"]: d for d in data["detectors"]}
    assert Measured.from_dict(detectors["positional-switch"]["measured"]) == second
    assert Measured.from_dict(detectors["count-as-failure"]["measured"]) == first
    for detector in detectors.values():
        detector.pop("measured", None)
    assert data == yaml.safe_load(original)
    record = tmp_path / "rules"
    record.mkdir()
    for path in RULES.glob("*.yaml"):
        (record / path.name).write_bytes(path.read_bytes())
    (record / "R07.yaml").write_text(again, encoding="utf-8")
    rule = load_library(record).rule("R07")
    assert [d.measured for d in rule.detectors][:2] == [second, first]
    with pytest.raises(ValueError, match="no detector `missing`"):
        rewrite_measured(original, "missing", first)


def test_the_rule_page_and_sarif_say_when_figures_come_from_the_whole_package() -> None:
    library = load_library(RULES)
    rule = library.rule("R07")
    (detector,) = [d for d in rule.detectors if d.id == "minus-one-count"]
    assert detector.measured is not None and detector.measured.scope is CorpusScope.PACKAGE
    page = "\n".join(hints_markdown(rule))
    assert "**Measured on all of `sglang-0.5.23`** (it raises nothing on the judged slice)" in page
    properties = detector_descriptor(library, rule, detector, None)["properties"]
    assert properties["measured"]["scope"] == "package"
    (sliced,) = [d for d in rule.detectors if d.id == "positional-switch"]
    assert "scope" not in detector_descriptor(library, rule, sliced, None)["properties"]["measured"]


def test_precision_words_follow_codeql() -> None:
    def level(precision: float | None) -> str | None:
        return Measured("c-1", 1, 1, 0, 0, precision).level

    assert [level(p) for p in (1.0, 0.95, 0.94, 0.8, 0.79, None)] == [
        "very-high",
        "very-high",
        "high",
        "high",
        "medium",
        None,
    ]


# --- fetching ------------------------------------------------------------------------------


def test_unpacking_keeps_only_python_files_inside_the_folder(tmp_path: Path) -> None:
    wheel = tmp_path / "w.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("sglang/__init__.py", "x = 1\n")
        archive.writestr("sglang/lib.so", b"\0")
        archive.writestr("../evil.py", "x = 2\n")
        archive.writestr("sglang-0.5.23.dist-info/METADATA", "Name: sglang\n")
    folder = tmp_path / "sglang-0.5.23"
    assert corpus_script._unpack(wheel, folder) == 1
    assert corpus_script.ready(folder)
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.py")) == [
        "sglang/__init__.py"
    ]
    assert not (tmp_path / "evil.py").exists()


def test_the_corpus_folder_is_ignored_by_git() -> None:
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert "/.cache" in ignored
    if "RLT_CORPUS_CACHE" not in os.environ:
        assert corpus_script.FOLDER == ROOT / ".cache" / "corpus" / "sglang-0.5.23"


def test_measure_write_fills_the_figures_of_settled_detectors_only(
    comparison: CorpusComparison, tmp_path: Path
) -> None:
    """``tools/corpus.py measure --write`` on a copy: a detector whose hints are all judged
    gets its figures; one with unjudged hints keeps its record as it was."""
    rules = tmp_path / "rules"
    rules.mkdir()
    for path in RULES.glob("*.yaml"):
        (rules / path.name).write_bytes(path.read_bytes())
    # Only R07-positional-switch's hints judged (the first one fp): R10's are left unjudged.
    committed = yaml.safe_load(VERDICTS.read_text(encoding="utf-8"))
    judged = [
        {**entry, "verdict": "fp" if n == 0 else "tp", "why": "judged in a test"}
        for n, entry in enumerate(e for e in committed if e["detector"] == "R07-positional-switch")
    ]
    assert judged, "R07-positional-switch raises no hint on the slice any more: pick another"
    verdicts = tmp_path / "verdicts.yaml"
    verdicts.write_text(yaml.safe_dump(judged, sort_keys=False), encoding="utf-8")
    # No package verdict: the detectors judged on the package keep their records too.
    package = tmp_path / "package.yaml"
    package.write_text("[]\n", encoding="utf-8")
    before = {name: (rules / f"{name}.yaml").read_bytes() for name in ("R10", "R13")}
    report = measure_corpus(
        corpus_script.FOLDER, corpus_script.SLICE, verdicts, package, rules, write=True
    )
    assert not report.complete and "rewrote:" in report.text
    hints = len(judged)
    detectors = {d.id: d for d in load_library(rules).rule("R07").detectors}
    measured = detectors["positional-switch"].measured
    assert measured == Measured(
        "sglang-0.5.23", hints, hints - 1, 0, 1, round((hints - 1) / hints, 2)
    )
    assert {name: (rules / f"{name}.yaml").read_bytes() for name in before} == before


def test_a_missing_corpus_fails_the_corpus_tests_and_names_the_fetch_command(
    tmp_path: Path,
) -> None:
    """Never a silent skip in CI: without the corpus the tests fail and say how to fetch it."""
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            __file__,
            "-k",
            "every_hint_has_a_verdict and slice",
        ],
        cwd=ROOT,
        env={**os.environ, "RLT_CORPUS_CACHE": str(tmp_path / "empty")},
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 1, completed.stdout
    assert "1 error" in completed.stdout or "1 failed" in completed.stdout
    assert "skipped" not in completed.stdout
    assert "run `python tools/corpus.py fetch`" in completed.stdout
