"""Match detectors over many files with the ``ast-grep`` command, each file under a time bound.

ast-grep-py compiles a rule again for every file it matches; ``ast-grep scan`` (the binary of
the ``ast-grep-cli`` package, the engine the ast-grep export is written for) compiles the
detectors once per run and matches many files. So files go to ``ast-grep scan`` in chunks,
``jobs`` runs at a time, one thread each; a file whose text ast-grep would read differently
from Python (``\\r`` line endings, a byte-order mark, another suffix, a name it cannot print
back) goes alone through standard input, as Python reads it.

Every run is killed when it passes the time bound. A chunk that does then runs again file by
file; a file that passes the bound alone runs once per detector, so the detectors that do not
finish on it are named (:attr:`Matched.stalled`) and the others' hits are kept.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from ..detectors.detect import Hit, cli_rule
from ..files.errors import InputError
from ..library.model import Detector

#: The default bound, in seconds, on matching one file (``--file-timeout``).
FILE_TIMEOUT = 30.0
#: Most files handed to one ``ast-grep scan`` run (a run costs about 10 ms more than its files).
CHUNK_FILES = 100
#: The binary ``ast-grep-cli`` installs.
BINARY = "ast-grep"


class MatchError(InputError):
    """``ast-grep`` is missing or failed (not a timeout): the scan cannot go on."""


@dataclass(frozen=True, slots=True)
class Source:
    """One file to match: its absolute path, and its text when ast-grep must read that text
    from standard input rather than the file (``None``: ast-grep reads the file)."""

    path: str
    text: str | None = None


@dataclass(frozen=True, slots=True)
class Matched:
    """What matching one file gave: its hits, in no particular order, and the detectors (by
    qualified id) that did not finish on it within the bound, whose hits are missing."""

    hits: tuple[Hit, ...] = ()
    stalled: tuple[str, ...] = ()


def find_binary() -> str:
    """The ``ast-grep`` command of this Python environment (else the first on ``PATH``)."""
    for folder in (sysconfig.get_path("scripts"), str(Path(sys.executable).parent)):
        found = shutil.which(BINARY, path=folder)
        if found:
            return found
    found = shutil.which(BINARY)
    if found:
        return found
    raise MatchError(
        "the `ast-grep` command is missing: `rlt-rules scan` matches with it; install the "
        "`ast-grep-cli` package into this environment (`pip install ast-grep-cli`)"
    )


class Matcher:
    """The detectors written once as an ast-grep rule file in a folder that lives as long as
    this matcher (use it as a context manager); ``timeout`` bounds each file, in seconds, and
    ``jobs`` runs go at once."""

    def __init__(
        self,
        entries: Sequence[tuple[str, Detector]],
        *,
        timeout: float = FILE_TIMEOUT,
        jobs: int = 1,
    ) -> None:
        self.timeout = timeout
        self.jobs = max(1, jobs)
        self._by_id = {f"{rule_id}-{d.id}": (rule_id, d) for rule_id, d in entries}
        self._binary = find_binary() if self._by_id else BINARY
        self._folder: tempfile.TemporaryDirectory[str] | None = None

    def __enter__(self) -> Matcher:
        self._folder = tempfile.TemporaryDirectory(prefix="rlt-rules-scan-")
        self._write(self._rules, self._by_id)
        return self

    @staticmethod
    def _write(path: Path, detectors: dict[str, tuple[str, Detector]]) -> None:
        documents = [json.dumps(cli_rule(name, d)) for name, (_, d) in detectors.items()]
        path.write_text("\n---\n".join(documents) + "\n", encoding="utf-8")

    def _rule_file(self, only: str | None) -> Path:
        """The rule file of every detector, or of the one named ``only`` (written when first
        needed: only a file that passed the bound is matched one detector at a time)."""
        if only is None:
            return self._rules
        path = self._rules.with_name(f"{only}.yml")
        if not path.exists():
            self._write(path, {only: self._by_id[only]})
        return path

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None

    @property
    def _rules(self) -> Path:
        assert self._folder is not None, "a Matcher is used inside `with`"
        return Path(self._folder.name) / "rules.yml"

    def match(self, sources: Sequence[Source]) -> list[Matched]:
        """One :class:`Matched` per source, in order."""
        if not self._by_id or not sources:
            return [Matched() for _ in sources]
        read_by_ast_grep = [i for i, source in enumerate(sources) if source.text is None]
        piped = [i for i, source in enumerate(sources) if source.text is not None]
        # As many runs as it takes to keep them at CHUNK_FILES, a multiple of ``jobs`` so that
        # no run is left going alone at the end.
        runs = self.jobs * -(-len(read_by_ast_grep) // (self.jobs * CHUNK_FILES))
        size = max(1, -(-len(read_by_ast_grep) // max(runs, 1)))
        tasks: list[list[int]] = [
            read_by_ast_grep[start : start + size]
            for start in range(0, len(read_by_ast_grep), size)
        ]
        tasks.extend([index] for index in piped)
        results: list[Matched] = [Matched() for _ in sources]
        with ThreadPoolExecutor(max_workers=self.jobs) as pool:
            done = pool.map(lambda task: self._match_task([sources[i] for i in task]), tasks)
            for indices, matched in zip(tasks, done, strict=True):
                for index, found in zip(indices, matched, strict=True):
                    results[index] = found
        return results

    def _match_task(self, sources: list[Source]) -> list[Matched]:
        found = self._run(sources)
        if found is not None:
            return [Matched(tuple(found.get(source.path, ()))) for source in sources]
        if len(sources) > 1:  # the chunk passed the bound: which file did?
            return [self._match_task([source])[0] for source in sources]
        return [self._per_detector(sources[0])]

    def _per_detector(self, source: Source) -> Matched:
        hits: list[Hit] = []
        stalled: list[str] = []
        for qualified in self._by_id:
            found = self._run([source], only=qualified)
            if found is None:
                stalled.append(qualified)
            else:
                hits.extend(found.get(source.path, ()))
        return Matched(tuple(hits), tuple(stalled))

    def _run(
        self, sources: list[Source], *, only: str | None = None
    ) -> dict[str, list[Hit]] | None:
        """Hits by source path, or None when the run passed the time bound (and was killed).
        The run's folder is the matcher's own, so no ``sgconfig.yml`` of the scanned
        repository changes what ast-grep matches."""
        command = [self._binary, "scan", "--rule", str(self._rule_file(only)), "--json=stream"]
        command += ["--threads", "1"]
        piped = sources[0].text if len(sources) == 1 else None
        if piped is not None:
            command.append("--stdin")
        else:
            command += [source.path for source in sources]
        try:
            completed = subprocess.run(
                command,
                input=piped.encode("utf-8") if piped is not None else None,
                stdin=None if piped is not None else subprocess.DEVNULL,
                capture_output=True,
                timeout=self.timeout,
                cwd=self._rules.parent,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return None
        except OSError as error:
            raise MatchError(f"cannot run `{self._binary}`: {error.strerror or error}") from None
        if completed.returncode != 0:
            reason = completed.stderr.decode("utf-8", "replace").strip().splitlines()
            raise MatchError(
                f"`ast-grep scan` failed (exit {completed.returncode}): "
                + (reason[-1] if reason else "no message")
            )
        by_path: dict[str, list[Hit]] = {}
        shown = sources[0].path if piped is not None else None
        for line in completed.stdout.splitlines():
            record = json.loads(line)
            path = shown if shown is not None else record["file"]
            by_path.setdefault(path, []).append(self._hit(record))
        return by_path

    def _hit(self, record: dict[str, Any]) -> Hit:
        rule_id, detector = self._by_id[record["ruleId"]]
        start, end = record["range"]["start"], record["range"]["end"]
        return Hit(
            rule_id,
            detector.id,
            detector.message,
            detector.severity,
            start["line"] + 1,
            start["column"] + 1,
            end["line"] + 1,
            end["column"] + 1,
            record["text"],
        )
