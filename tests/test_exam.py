"""The reviewer exam: tasks that never name their answer, the scorer's judgements on hand-made
answers, exam data that fails loudly, and a tasks folder that never overwrites anyone's files.

Real tasks are built from ``tests/fixtures/exam/`` (two injected cases, two controls, a
verdict) against the fetched SGLang corpora (``python tools/corpus.py fetch``; the tests fail,
never skip, without them) and from the repository's ``exam/`` (the real 0.5.22 → 0.5.23
change of ``sglang/srt/model_executor``).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from corpus_pins import CORPUS, require_corpora

from rlt_rules import load_library
from rlt_rules.cli import main
from rlt_rules.exam import OUTSIDE, CorpusError, ExamDataError, Group, load_exam_data, open_exam
from rlt_rules.exam.library_tasks import EXAMPLE_FILE
from rlt_rules.exam.output import INDEX, write_tasks
from rlt_rules.exam.scoring import Answered, Outcome, judge, score_exam
from rlt_rules.exam.tasks import Expected, Task, TaskFile, TaskKind, ValidRegion
from rlt_rules.files.diffs import parse_diff
from rlt_rules.library.pairs import marked_lines, pairs_of

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "rules"
FIXTURES = ROOT / "tests" / "fixtures" / "exam"


@pytest.fixture(scope="module")
def library():
    return load_library(RULES)


@pytest.fixture(scope="module")
def exam(library):
    """The library's tasks and the fixtures' real ones."""
    require_corpora()
    return open_exam(library, FIXTURES, CORPUS)


@pytest.fixture(scope="module")
def change_exam(library):
    """The library's tasks and the repository's exam folder (the real change)."""
    require_corpora()
    return open_exam(library, ROOT / "exam", CORPUS)


@pytest.fixture(scope="module")
def tasks_dir(exam, tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("exam") / "tasks"
    write_tasks(target, exam)
    return target


def _by_source(exam, source: str) -> Task:
    return next(task for task in exam.tasks if task.source == source)


# --- what a reviewer is given ---------------------------------------------------------------


def test_nothing_in_a_task_names_its_answer(library, exam, change_exam, tmp_path) -> None:
    """No rule id, no marker, no output line, no case, control, change, defect or pair name in
    any file of any task, nor in the index."""
    data = [load_exam_data(FIXTURES), load_exam_data(ROOT / "exam")]
    names = {record.id for d in data for record in (*d.cases, *d.controls, *d.changes)}
    names |= {defect.id for d in data for change in d.changes for defect in change.defects}
    names |= {pair.name for rule in library.rules for pair in pairs_of(rule)}
    names = {name for name in names if len(name) > 6}
    telling = re.compile(
        r"\bR\d{2,}\b|#\s*R\d+:|^\s*[+ ]?\s*#>|" + "|".join(map(re.escape, sorted(names))),
        re.MULTILINE,
    )
    tasks = {task.id: task for task in (*exam.tasks, *change_exam.tasks)}
    target = tmp_path / "tasks"
    write_tasks(target, change_exam)
    written = [path for path in target.rglob("*") if path.is_file()]
    assert written and (target / INDEX) in written
    found = []
    for path in written:
        for match in telling.finditer(path.read_text(encoding="utf-8")):
            found.append(f"{path.relative_to(target)}: {match.group(0)!r}")
    for task in tasks.values():
        for text in (task.diff, *(file.text for file in task.files)):
            found.extend(f"{task.id}: {m.group(0)!r}" for m in telling.finditer(text))
        assert not telling.search(task.id)
    assert found == []
    index = json.loads((target / INDEX).read_text(encoding="utf-8"))
    assert sorted(index) == ["files", "kind", "tasks"]
    assert index["tasks"] == [task.id for task in change_exam.tasks]


def test_every_pair_gives_a_bad_and_a_good_task(library, exam) -> None:
    pairs = [pair for rule in library.rules for pair in pairs_of(rule)]
    library_tasks = [task for task in exam.tasks if task.group is Group.LIBRARY]
    assert len(library_tasks) == 2 * len(pairs)
    assert sum(1 for task in library_tasks if task.expected) == len(pairs)
    assert all(re.fullmatch(r"t-[0-9a-f]{8}", task.id) for task in exam.tasks)


def test_a_bad_task_expects_the_marked_lines_as_the_reviewer_sees_them(library, exam) -> None:
    """The expected span covers every marked line of code (comments aside), and its first
    and last lines of code are marked ones."""
    for rule in library.rules:
        for pair in pairs_of(rule):
            task = _by_source(exam, f"{pair.rule_id} {pair.name} (bad)")
            (expected,) = task.expected
            shown = task.files[0].text.splitlines()
            original = pair.bad.code.splitlines()
            marked = [
                original[n - 1].split("#")[0].rstrip()
                for n in sorted(marked_lines(pair.bad.code, pair.rule_id))
                if original[n - 1].split("#")[0].strip()
            ]
            span = [
                code
                for line in shown[expected.start_line - 1 : expected.end_line]
                if (code := line.split("#")[0].rstrip())
            ]
            assert marked, pair.name
            assert span[0] == marked[0] and span[-1] == marked[-1], pair.name
            assert all(line in span for line in marked), pair.name
            assert expected.rule == pair.rule_id and expected.path == EXAMPLE_FILE


def test_a_real_task_is_one_added_hunk_of_the_engine_file(exam) -> None:
    task = _by_source(exam, "R10-radix-reset-guarded")
    (file,) = task.files
    assert file.path == "sglang/srt/managers/schedule_policy.py"
    (changed,) = parse_diff(task.diff).files
    assert changed.path == file.path
    assert [(h.added, h.removed) for h in changed.hunks] == [(2, 0)]
    lines = file.text.splitlines()
    assert lines[349:351] == [
        '        if hasattr(self, "waiting_queue_radix_tree"):',
        "            self.waiting_queue_radix_tree.reset()",
    ]
    control = _by_source(exam, "control-zero-match-result")
    pristine = (CORPUS / "sglang-0.5.23" / control.files[0].path).read_text(encoding="utf-8")
    assert control.files[0].text == pristine
    assert [(h.added, h.removed) for h in parse_diff(control.diff).files[0].hunks] == [(20, 0)]


def test_the_real_change_is_the_real_diff_with_its_known_defect(change_exam) -> None:
    task = _by_source(change_exam, "change-model-executor")
    change = parse_diff(task.diff)
    assert len(change.files) == 33
    (defect,) = task.expected
    assert defect.rule is None and defect.row == OUTSIDE
    forward = change.file("sglang/srt/model_executor/forward_batch_info.py")
    assert forward is not None
    assert set(range(1807, 1811)) <= forward.added_lines
    head = {file.path: file.text for file in task.files}[defect.path].splitlines()
    assert head[1806].strip() == "bucket = min("
    assert head[1809].strip() == "global_num_tokens = [bucket] * sync_group_size"


def test_the_tools_read_a_task_as_any_change(tasks_dir, exam) -> None:
    """``scan --diff`` and ``findings check --diff`` work in a task's repo/ unchanged."""
    task = _by_source(exam, "R10-radix-reset-guarded")
    repo = tasks_dir / task.id / "repo"
    scanned = subprocess.run(
        [sys.executable, "-m", "rlt_rules", "scan", "--diff", "../change.diff", "--rules", RULES],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )
    assert scanned.returncode == 1, scanned.stderr
    assert "schedule_policy.py:350:" in scanned.stdout and " R10 " in scanned.stdout


# --- scoring ---------------------------------------------------------------------------------


def _task(*expected: Expected, valid: tuple[ValidRegion, ...] = ()) -> Task:
    return Task(
        "t-00000000", TaskKind.CASE, "hand-made", (TaskFile("a.py", "x\n"),), "", expected, valid
    )


DEFECT = Expected("defect", "R03", ("R02",), "a.py", 10, 12)
NO_RULE = Expected("real-defect", None, (), "a.py", 50, 52)
VALID = ValidRegion("verdict", "a.py", 30, 31, "a real issue")


@pytest.mark.parametrize(
    ("line", "outcome"),
    [(6, Outcome.NOISE), (7, Outcome.HIT), (15, Outcome.HIT), (16, Outcome.NOISE)],
)
def test_a_finding_touches_a_defect_within_three_lines(line: int, outcome: Outcome) -> None:
    (judged,) = judge(_task(DEFECT), [Answered("R03", "a.py", line, line)]).judged
    assert judged.outcome is outcome


def test_hand_made_answers_score_as_the_rules_say() -> None:
    task = _task(DEFECT, NO_RULE, valid=(VALID,))
    findings = [
        Answered("R05", "a.py", 11, 11),  # right lines, wrong rule: noise
        Answered("R02", "a.py", 9, 13),  # an allowed alternative: hit
        Answered("R03", "a.py", 12, 12),  # the defect again: duplicate
        Answered("R03", "b.py", 11, 11),  # another file: noise
        Answered("R07", "a.py", 30, 30),  # a judged real issue: valid
        Answered("R08", "a.py", 31, 31),  # the same verdict again: duplicate
        Answered(None, "a.py", 51, 51),  # outside the rules, on a defect no rule covers: hit
        Answered(None, "a.py", 80, 80),  # outside the rules, elsewhere: noise
    ]
    score = score_exam([task], {task.id: findings}, ["R02", "R03", "R05", "R07", "R08"])
    outcomes = [judged.outcome for judged in score.tasks[0].judged]
    assert outcomes == [
        Outcome.NOISE,
        Outcome.HIT,
        Outcome.DUPLICATE,
        Outcome.NOISE,
        Outcome.VALID,
        Outcome.DUPLICATE,
        Outcome.HIT,
        Outcome.NOISE,
    ]
    miscited = [judged.miscited for judged in score.tasks[0].judged]
    assert miscited == [True, False, False, False, False, False, False, False]
    table = score.table()
    assert list(table.rows) == ["R03", "R05", "R07", "R08", OUTSIDE]
    r03 = table.rows["R03"]
    assert (r03.cases, r03.hits, r03.noise, r03.duplicates) == (1, 1, 1, 1)
    assert r03.recall == 1.0 and r03.precision == 0.5 and r03.f1 == pytest.approx(2 / 3)
    outside = table.rows[OUTSIDE]
    assert (outside.cases, outside.hits, outside.noise) == (1, 1, 1)
    total = table.total
    assert (total.cases, total.hits, total.noise, total.valid, total.duplicates) == (2, 2, 3, 1, 2)
    assert total.recall == 1.0 and total.precision == 0.4
    assert total.signal_to_noise == 1.0  # (2 hits + 1 valid) / 3 noise
    assert (r03.found, outside.found, total.found) == (1, 1, 2)


def test_a_defect_is_found_by_any_finding_on_its_lines_whatever_it_cites() -> None:
    """What compares a review without rules to one with them: the defect's lines were
    reported, under the wrong rule or none."""
    task = _task(DEFECT)
    wrong_rule = score_exam([task], {task.id: [Answered("R05", "a.py", 11, 11)]}, ["R03", "R05"])
    row = wrong_rule.table().rows["R03"]
    assert (row.hits, row.found) == (0, 1)
    no_rule = score_exam([task], {task.id: [Answered(None, "a.py", 14, 14)]}, ["R03"])
    assert no_rule.table().rows["R03"].found == 1
    elsewhere = score_exam([task], {task.id: [Answered(None, "a.py", 40, 40)]}, ["R03"])
    assert elsewhere.table().rows["R03"].found == 0


def test_no_finding_is_no_hit_and_no_noise() -> None:
    score = score_exam([_task(DEFECT)], {}, ["R03"])
    tally = score.table().rows["R03"]
    assert (tally.cases, tally.hits, tally.noise, tally.recall, tally.precision) == (
        1,
        0,
        0,
        0.0,
        None,
    )
    assert tally.f1 is None and tally.signal_to_noise == 0.0


def _answer(library, *findings: dict) -> str:
    return yaml.safe_dump({"library_version": library.version, "findings": list(findings)})


def _finding(rule: str, path: str, start: int, end: int) -> dict:
    return {
        "rule": rule,
        "location": {"path": path, "start_line": start, "end_line": end},
        "trigger": "t",
        "impact": "i",
        "correction": "c",
    }


def test_score_reads_answers_reports_invalid_ones_and_exits_1(
    library, exam, tasks_dir, tmp_path, capsys
) -> None:
    answers = tmp_path / "answers"
    answers.mkdir()
    case = _by_source(exam, "R10-radix-reset-guarded")
    control = _by_source(exam, "control-shortest-prefill-work")
    bad = _by_source(exam, "R07-retract-positional-flag")
    policy = "sglang/srt/managers/schedule_policy.py"
    (answers / f"{case.id}.yaml").write_text(
        _answer(library, _finding("R10", policy, 350, 351), _finding("R05", policy, 368, 370))
    )
    (answers / f"{control.id}.yaml").write_text(_answer(library, _finding("R09", policy, 400, 400)))
    (answers / f"{bad.id}.yaml").write_text("```yaml\nfindings: [\n")
    argv = ["exam", "score", "--tasks", str(tasks_dir), "--answers", str(answers)]
    data_args = ["--cases", str(FIXTURES), "--corpus", str(CORPUS), "--rules", str(RULES)]
    assert main([*argv, *data_args, "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert list(report["invalid"]) == [bad.id]
    real = report["groups"]["real"]["rules"]
    assert real["R10"]["hits"] == 1 and real["R05"]["valid"] == 1
    assert real["R09"]["noise"] == 1 and real["R07"]["hits"] == 0
    assert report["groups"]["library"]["total"]["hits"] == 0
    assert main([*argv, *data_args]) == 1
    text = capsys.readouterr().out
    assert "invalid answers, scored as no finding: 1" in text and bad.id in text


# --- exam data and the corpus ----------------------------------------------------------------


def test_a_drifted_corpus_fails_naming_the_case_file(library, tmp_path, capsys) -> None:
    corpus = tmp_path / "corpus"
    for name in (
        "managers/schedule_policy.py",
        "managers/scheduler.py",
        "mem_cache/base_prefix_cache.py",
    ):
        source = CORPUS / "sglang-0.5.23" / "sglang" / "srt" / name
        target = corpus / "sglang-0.5.23" / "sglang" / "srt" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    policy = corpus / "sglang-0.5.23" / "sglang/srt/managers/schedule_policy.py"
    lines = policy.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[349] = lines[349].replace("reset()", "reset()  # drifted")
    policy.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(ExamDataError) as raised:
        open_exam(library, FIXTURES, corpus)
    (problem,) = raised.value.diagnostics
    assert problem.path.endswith("sglang-0.5.23/cases/R10-radix-reset-guarded.yaml")
    assert "drifted" in problem.message and "tools/corpus.py fetch" in problem.message
    out = tmp_path / "tasks"
    argv = ["exam", "build", "--out", str(out), "--cases", str(FIXTURES), "--corpus", str(corpus)]
    assert main([*argv, "--rules", str(RULES)]) == 2
    assert "R10-radix-reset-guarded.yaml:2:1: the corpus drifted" in capsys.readouterr().err
    assert not out.exists()


def test_a_missing_corpus_names_the_fetch_command(library, tmp_path) -> None:
    with pytest.raises(
        CorpusError, match=r"no corpus sglang-0\.5\.23 here: run `python tools/corpus.py fetch`"
    ):
        open_exam(library, FIXTURES, tmp_path)


def test_exam_data_errors_are_at_their_line_and_column(tmp_path) -> None:
    folder = tmp_path / "exam" / "sglang-0.5.23"
    shutil.copytree(FIXTURES / "sglang-0.5.23", folder)
    controls = folder / "controls.yaml"
    text = controls.read_text(encoding="utf-8")
    controls.write_text(text.replace("  start_line: 398", "  start_line: three"), "utf-8")
    case = folder / "cases" / "R07-retract-positional-flag.yaml"
    case.write_text(case.read_text("utf-8").replace("rule: R07", "rule: 7"), "utf-8")
    (folder / "valid.yaml").write_text(
        "- case: R99-nothing\n  path: a.py\n  start_line: 1\n  end_line: 1\n  why: x\n"
    )
    with pytest.raises(ExamDataError) as raised:
        load_exam_data(tmp_path / "exam")
    shown = [str(d) for d in raised.value.diagnostics]
    line = 1 + text.splitlines().index("  start_line: 398")
    assert any(
        s.startswith(f"{controls}:{line}:15: [0].start_line must be an integer") for s in shown
    ), shown
    assert any(s.startswith(f"{case}:3:7: rule must be a string") for s in shown), shown
    assert any("case 'R99-nothing' is not a case, control or change" in s for s in shown), shown


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "valid.yaml:1:1: the file holds no list: write [] for none"),
        (
            "# verdicts\n---\n- case: c\n  why: a\n  why: b\n",
            "valid.yaml:5:3: duplicate key 'why': already set at line 4, column 3;",
        ),
        ("- case: c\n", "valid.yaml:1:3: missing required field 'path' in [0]"),
    ],
)
def test_a_list_file_is_read_at_its_own_lines(tmp_path, text: str, expected: str) -> None:
    folder = tmp_path / "exam" / "sglang-0.5.23"
    folder.mkdir(parents=True)
    (folder / "valid.yaml").write_text(text, "utf-8")
    with pytest.raises(ExamDataError) as raised:
        load_exam_data(tmp_path / "exam", "exam")
    shown = [str(d) for d in raised.value.diagnostics]
    assert shown[0].startswith(f"exam/sglang-0.5.23/{expected}"), shown
    assert len(shown) == len(set(shown))


def test_a_case_whose_edit_does_not_parse_is_refused(library, tmp_path) -> None:
    folder = tmp_path / "exam"
    shutil.copytree(FIXTURES, folder)
    case = folder / "sglang-0.5.23" / "cases" / "R10-radix-reset-guarded.yaml"
    text = case.read_text("utf-8")
    case.write_text(text.replace("                self.waiting", "          self.waiting"), "utf-8")
    with pytest.raises(
        ExamDataError,
        match=r"R10-radix-reset-guarded\.yaml:2:1: the edited "
        r"sglang/srt/managers/schedule_policy\.py does not parse \(line 351",
    ):
        open_exam(library, folder, CORPUS)


# --- the tasks folder ------------------------------------------------------------------------


def test_build_refuses_a_folder_it_did_not_write(exam, tmp_path, capsys) -> None:
    foreign = tmp_path / "notes"
    foreign.mkdir()
    (foreign / "mine.txt").write_text("keep me")
    argv = ["exam", "build", "--out", str(foreign), "--rules", str(RULES)]
    assert main([*argv, "--cases", str(FIXTURES), "--corpus", str(CORPUS)]) == 2
    assert "not empty, and not as the exam wrote it (mine.txt)" in capsys.readouterr().err
    assert [p.name for p in foreign.iterdir()] == ["mine.txt"]
    assert (foreign / "mine.txt").read_text() == "keep me"
    assert [p.name for p in tmp_path.iterdir()] == ["notes"]


def test_build_replaces_its_own_folder_but_not_a_file_added_or_edited_there(exam, tmp_path) -> None:
    target = tmp_path / "tasks"
    write_tasks(target, exam)
    assert write_tasks(target, exam) == len(exam.tasks)  # its own, unchanged: replaced
    added = target / exam.tasks[0].id / "answer.yaml"
    added.write_text("findings: []\n")
    with pytest.raises(Exception, match="answer.yaml"):
        write_tasks(target, exam)
    added.unlink()
    note = target / exam.tasks[0].id / "task.md"
    note.write_text("edited\n")
    with pytest.raises(Exception, match="task.md"):
        write_tasks(target, exam)
    assert note.read_text() == "edited\n"
    assert [p.name for p in tmp_path.iterdir()] == ["tasks"]
