"""Score the reviewing agents' committed answers against the exam as it is now.

    .venv/bin/python benchmarks/exam_agents.py [--run benchmarks/exam/2026-12-04] [--json]

A run folder holds ``tasks.json`` (the task ids the agents were given: two halves and the real
change) and one folder per context with ``answers/<task id>.yaml``. The exam is built from this
checkout (``rules/``, ``exam/``, the fetched corpora); answers to tasks it no longer builds (a
library pair rewritten since, a case changed) are counted as stale and left out, so the figures
are those of the tasks that are still the same. Per context, per kind of task: tasks, defects,
found (a finding on the defect's lines, whatever it cites), hits (the right rule, or an allowed
alternative), findings on a defect's lines citing another rule, findings off every defect
(noise unless judged valid), valid; then recall, precision and signal-to-noise over the real
tasks (cases, controls, the real change).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from rlt_rules import load_library  # noqa: E402
from rlt_rules.exam import TaskKind, open_exam  # noqa: E402
from rlt_rules.exam.answers import read_answers  # noqa: E402
from rlt_rules.exam.output import write_tasks  # noqa: E402
from rlt_rules.exam.scoring import Outcome, score_exam  # noqa: E402

KINDS = tuple(str(kind) for kind in TaskKind)


def figures(run: Path, corpus: Path) -> dict:
    library = load_library(ROOT / "rules")
    exam = open_exam(library, ROOT / "exam", corpus)
    given = json.loads((run / "tasks.json").read_text(encoding="utf-8"))
    wanted = sorted({task_id for ids in given.values() for task_id in ids})
    current = [exam.task(task_id) for task_id in wanted]
    tasks = [task for task in current if task is not None]
    stale = [task_id for task_id, task in zip(wanted, current, strict=True) if task is None]
    result: dict = {"tasks": len(tasks), "stale": stale, "contexts": {}}
    with tempfile.TemporaryDirectory() as scratch:
        tasks_dir = Path(scratch) / "tasks"
        write_tasks(tasks_dir, exam)
        ids = tuple(task.id for task in tasks)
        for context in sorted(p.name for p in run.iterdir() if (p / "answers").is_dir()):
            read = read_answers(run / context / "answers", tasks_dir, ids, library)
            score = score_exam(tasks, read.findings, [r.id for r in library.rules], read.invalid)
            rows: dict[str, Counter] = {kind: Counter() for kind in KINDS}
            for task_score in score.tasks:
                row = rows[str(task_score.task.kind)]
                row["tasks"] += 1
                row["defects"] += len(task_score.task.expected)
                row["found"] += len(task_score.found)
                for judged in task_score.judged:
                    row["findings"] += 1
                    if judged.outcome is Outcome.NOISE:
                        row["other rule" if judged.miscited else "off"] += 1
                    else:
                        row[str(judged.outcome)] += 1
            real = sum((rows[k] for k in ("case", "control", "change")), Counter())
            noise = real["other rule"] + real["off"]
            result["contexts"][context] = {
                "rows": {kind: dict(row) for kind, row in rows.items()},
                "invalid": sorted(read.invalid),
                "real": {
                    "recall": round(real["hit"] / real["defects"], 3) if real["defects"] else None,
                    "found": round(real["found"] / real["defects"], 3) if real["defects"] else None,
                    "precision": round(real["hit"] / (real["hit"] + noise), 3)
                    if real["hit"] + noise
                    else None,
                    "signal_to_noise": round((real["hit"] + real["valid"]) / max(noise, 1), 2),
                },
            }
    return result


def text(result: dict) -> str:
    lines = [f"{result['tasks']} task(s) scored; stale answers left out: {len(result['stale'])}"]
    columns = ("tasks", "defects", "found", "hit", "other rule", "off", "valid", "duplicate")
    for context, data in result["contexts"].items():
        real = data["real"]
        lines += [
            "",
            f"{context}: real tasks recall {real['recall']}, found {real['found']}, "
            f"precision {real['precision']}, S/N {real['signal_to_noise']}",
            "  " + "kind".ljust(13) + "".join(c.rjust(11) for c in columns),
        ]
        for kind, row in data["rows"].items():
            lines.append(
                "  " + kind.ljust(13) + "".join(str(row.get(c, 0)).rjust(11) for c in columns)
            )
        if data["invalid"]:
            lines.append(f"  invalid answers (scored as none): {', '.join(data['invalid'])}")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", default=str(ROOT / "benchmarks" / "exam" / "2026-12-04"))
    parser.add_argument("--corpus", default=str(ROOT / ".cache" / "corpus"))
    parser.add_argument("--json", action="store_true", help="print JSON, not text")
    args = parser.parse_args()
    result = figures(Path(args.run), Path(args.corpus))
    print(json.dumps(result, indent=2) if args.json else text(result), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
