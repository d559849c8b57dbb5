"""Detectors measured on real engine code: the judged corpus slice and its verdict files.

A verdict file (``schema/verdicts.schema.json``, ``tests/corpus/<package>-<version>.yaml``)
holds one reviewer's verdict (``tp``, ``arguable``, ``fp``) per hint the detectors raise on the
judged slice. A detector that raises nothing there is judged on the whole package
instead: every hint it raises anywhere has a verdict in ``<package>-<version>.package.yaml``
(``scope: package``). :func:`compare` matches a scan's hits with a file: a hit without a
verdict is unjudged, a verdict without a hit is stale, and each detector gets a :class:`Tally`;
:func:`judge_corpus` does it for both scopes.
:func:`rewrite_measured` writes a detector's figures into its rule record as one
``measured: {...}`` line, editing the text in place so the rest of the record keeps its form.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from ..detectors.detect import DetectorSet
from ..files.atomic import write_atomic
from ..files.errors import InputError
from ..library.model import CorpusScope, Library, Measured, Status
from ..library.schemas import validator_for
from ..project.check import load_library
from . import FileHit, ScanResult, detector_set, scan

SCHEMA_NAME = "verdicts.schema.json"
VERDICTS = ("tp", "arguable", "fp")
#: What a default-on detector must reach on the judged slice: tp / hints, and the most fp.
MIN_PRECISION = 0.8
MAX_FP_SHARE = 0.1
#: How many unjudged hints and stale verdicts the measure report lists.
SHOWN = 30


class VerdictError(InputError, ValueError):
    """The verdict file cannot be read or breaks its schema (``path:line:column: message``)."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """One judged hint: where (``path`` relative to the package root, 1-based ``line``),
    which detector, the verdict and why, and the scope it was judged in."""

    path: str
    line: int
    rule: str
    detector: str
    verdict: str
    why: str
    scope: CorpusScope = CorpusScope.SLICE

    @property
    def key(self) -> tuple[str, int, str]:
        return (self.path, self.line, self.detector)


def load_verdicts(path: Path, *, scope: CorpusScope = CorpusScope.SLICE) -> tuple[Verdict, ...]:
    """The verdicts of ``path``, a file of ``scope`` verdicts, checked against the schema;
    :class:`VerdictError` names the file, line and column of the first entry that breaks it
    or belongs to the other scope's file."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise VerdictError(f"{path}:1:1: cannot read: {error}") from None
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        node = yaml.compose(text, Loader=loader)
        data = yaml.load(text, Loader=loader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{mark.line + 1}:{mark.column + 1}" if mark else "1:1"
        raise VerdictError(f"{path}:{where}: not YAML: {error}") from None
    data = [] if data is None else data

    def position(index: object) -> str:
        if isinstance(node, yaml.SequenceNode) and isinstance(index, int):
            mark = node.value[index].start_mark
            return f"{mark.line + 1}:{mark.column + 1}"
        return "1:1"

    errors = sorted(validator_for(SCHEMA_NAME).iter_errors(data), key=lambda e: list(e.path))
    if errors:
        error = errors[0]
        field = "/".join(str(part) for part in error.path) or "(top)"
        where = position(error.path[0] if error.path else None)
        raise VerdictError(
            f"{path}:{where}: {field}: {error.message} (format: schema/{SCHEMA_NAME})"
        )
    verdicts = tuple(
        Verdict(**{**entry, "scope": CorpusScope(entry.get("scope", CorpusScope.SLICE))})
        for entry in data
    )
    for index, verdict in enumerate(verdicts):
        if verdict.scope is not scope:
            raise VerdictError(
                f"{path}:{position(index)}: {index}/scope: a {verdict.scope} verdict in the file "
                f"of {scope} verdicts; move it to the {verdict.scope} file (`python "
                f"tools/corpus.py gather --scope {verdict.scope}`)"
            )
    return verdicts


@dataclass(frozen=True, slots=True)
class Tally:
    """One detector's hints on the slice and how many of them were judged each way."""

    detector: str
    preview: bool
    hints: int = 0
    tp: int = 0
    arguable: int = 0
    fp: int = 0
    scope: CorpusScope = CorpusScope.SLICE

    @property
    def judged(self) -> int:
        return self.tp + self.arguable + self.fp

    @property
    def precision(self) -> float | None:
        return self.tp / self.hints if self.hints else None

    @property
    def meets_bar(self) -> bool:
        """tp-precision at least 0.8 with at most 1 in 10 hints fp (no hints: nothing wrong)."""
        if not self.hints:
            return True
        return self.tp >= MIN_PRECISION * self.hints and self.fp <= MAX_FP_SHARE * self.hints

    def measured(self, corpus: str) -> Measured:
        precision = None if self.precision is None else round(self.precision, 2)
        return Measured(corpus, self.hints, self.tp, self.arguable, self.fp, precision, self.scope)


@dataclass(frozen=True, slots=True)
class Comparison:
    """A scan of one scope (the slice, or the package) against that scope's verdict file."""

    tallies: tuple[Tally, ...]
    #: Hits with no verdict (``path:line detector`` order).
    unjudged: tuple[FileHit, ...]
    #: Verdicts with no hit.
    stale: tuple[Verdict, ...]
    scope: CorpusScope = CorpusScope.SLICE

    @property
    def complete(self) -> bool:
        return not self.unjudged and not self.stale

    def settled(self, detector: str) -> bool:
        """Whether every hint of ``detector`` is judged and none of its verdicts is stale."""
        return not any(found.hit.qualified_id == detector for found in self.unjudged) and not any(
            verdict.detector == detector for verdict in self.stale
        )

    def table(self) -> str:
        """Per detector: hints, tp, arguable, fp, tp-precision, and whether it meets the bar."""
        header = f"{'detector':<36} {'hints':>5} {'tp':>4} {'arg':>4} {'fp':>4} {'prec':>5}  status"
        lines = [f"scope: {self.scope}", header, "-" * len(header)]
        for tally in self.tallies:
            precision = "-" if tally.precision is None else f"{tally.precision:.2f}"
            state = "preview" if tally.preview else ("ok" if tally.meets_bar else "BELOW BAR")
            if self.scope is CorpusScope.SLICE and not tally.hints:
                state = "judged on the package"
            if tally.judged < tally.hints:
                state += f" ({tally.hints - tally.judged} unjudged)"
            lines.append(
                f"{tally.detector:<36} {tally.hints:>5} {tally.tp:>4} {tally.arguable:>4} "
                f"{tally.fp:>4} {precision:>5}  {state}"
            )
        return "\n".join(lines)


def detectors_of(library: Library) -> dict[str, bool]:
    """Every detector of the active rules, qualified id -> whether it is preview."""
    return {
        f"{rule.id}-{detector.id}": detector.preview
        for rule in library.rules
        if rule.status is Status.ACTIVE
        for detector in rule.detectors
    }


def compare(
    hits: Iterable[FileHit],
    verdicts: Sequence[Verdict],
    detectors: dict[str, bool],
    *,
    scope: CorpusScope = CorpusScope.SLICE,
) -> Comparison:
    """Match hits with verdicts by path, line and detector (as many verdicts as hits there);
    ``detectors`` are the ones scanned (each gets a tally, with or without hits)."""
    waiting: dict[tuple[str, int, str], list[Verdict]] = {}
    for verdict in verdicts:
        waiting.setdefault(verdict.key, []).append(verdict)
    counts: dict[str, Counter[str]] = {name: Counter() for name in detectors}
    unjudged: list[FileHit] = []
    for found in hits:
        name = found.hit.qualified_id
        counts.setdefault(name, Counter())["hints"] += 1
        matched = waiting.get((found.path, found.hit.line, name))
        if matched:
            counts[name][matched.pop(0).verdict] += 1
        else:
            unjudged.append(found)
    stale = tuple(verdict for left in waiting.values() for verdict in left)
    tallies = tuple(
        Tally(
            name,
            detectors.get(name, False),
            count["hints"],
            count["tp"],
            count["arguable"],
            count["fp"],
            scope,
        )
        for name, count in sorted(counts.items())
    )
    return Comparison(tallies, tuple(unjudged), stale, scope)


def scan_slice(folder: Path, slice_: Sequence[str], library: Library) -> ScanResult:
    """Every detector of the active rules, preview ones too, over the slice; paths relative
    to ``folder`` (the package root's parent: ``sglang/srt/...``)."""
    paths = [folder / part for part in slice_]
    missing = [str(path) for path in paths if not path.is_dir()]
    if missing:
        raise FileNotFoundError(f"corpus slice missing: {', '.join(missing)}")
    return scan(paths, detector_set(library, preview=True), root=folder)


def package_scoped(slice_comparison: Comparison) -> tuple[str, ...]:
    """The detectors that raise no hint on the slice: each is judged on the whole package
    instead, so its precision on real code is measured all the same (a default-on one must
    meet the bar there; a preview one keeps the figures its ``preview_reason`` rests on)."""
    return tuple(tally.detector for tally in slice_comparison.tallies if not tally.hints)


def scan_package(folder: Path, library: Library, detectors: Sequence[str]) -> ScanResult:
    """The ``detectors`` (qualified ids) over every Python file under ``folder``, paths
    relative to it; nothing to scan without detectors."""
    chosen = DetectorSet(
        (rule_id, detector)
        for rule_id, detector in detector_set(library, preview=True).detectors()
        if f"{rule_id}-{detector.id}" in detectors
    )
    if not len(chosen):
        return ScanResult((), (), 0, 0, folder)
    return scan([folder], chosen, root=folder)


@dataclass(frozen=True, slots=True)
class CorpusComparison:
    """Both scopes judged: the slice with every detector, and the whole package with the
    detectors that raise nothing on the slice."""

    on_slice: Comparison
    on_package: Comparison

    @property
    def complete(self) -> bool:
        return self.on_slice.complete and self.on_package.complete

    @property
    def scopes(self) -> tuple[Comparison, Comparison]:
        return (self.on_slice, self.on_package)

    def tally(self, detector: str) -> Tally | None:
        """The detector's figures in the scope it is judged in."""
        found = {t.detector: t for t in self.on_slice.tallies} | {
            t.detector: t for t in self.on_package.tallies
        }
        return found.get(detector)

    def settled(self, detector: str) -> bool:
        return self.on_slice.settled(detector) and self.on_package.settled(detector)

    def table(self) -> str:
        return self.on_slice.table() + "\n\n" + self.on_package.table()


def judge_corpus(
    folder: Path,
    slice_: Sequence[str],
    library: Library,
    slice_verdicts: Sequence[Verdict],
    package_verdicts: Sequence[Verdict],
) -> CorpusComparison:
    """Scan the slice and compare it with ``slice_verdicts``; then scan the whole package with
    the detectors that raised nothing there and compare with ``package_verdicts``
    (a verdict of any other detector is stale)."""
    detectors = detectors_of(library)
    on_slice = compare(scan_slice(folder, slice_, library).hits, slice_verdicts, detectors)
    chosen = package_scoped(on_slice)
    on_package = compare(
        scan_package(folder, library, chosen).hits,
        package_verdicts,
        {name: detectors[name] for name in chosen},
        scope=CorpusScope.PACKAGE,
    )
    return CorpusComparison(on_slice, on_package)


# --- the records' measured figures --------------------------------------------------------


def measured_line(measured: Measured) -> str:
    """The figures as one YAML flow mapping (the record's ``measured:`` value)."""
    parts = [f"{key}: {value}" for key, value in measured.to_dict().items()]
    return "{" + ", ".join(parts) + "}"


_TOP_KEY = re.compile(r"^[A-Za-z_]")


def rewrite_measured(text: str, detector_id: str, measured: Measured) -> str:
    """``text`` (a rule record) with the ``measured:`` line of detector ``detector_id`` set to
    ``measured``, inserted after its ``severity:`` line when it has none; every other line
    stays as written. ``ValueError`` when the record has no such detector."""
    lines = text.splitlines(keepends=True)
    start = next((n for n, line in enumerate(lines) if line.rstrip() == "detectors:"), None)
    if start is None:
        raise ValueError(f"no `detectors:` key in the record (looking for {detector_id})")
    end = next((n for n in range(start + 1, len(lines)) if _TOP_KEY.match(lines[n])), len(lines))
    item = re.compile(rf"^(?P<indent> *)- +id: +['\"]?{re.escape(detector_id)}['\"]?\s*$")
    first = next((n for n in range(start + 1, end) if item.match(lines[n])), None)
    if first is None:
        raise ValueError(f"no detector `{detector_id}` under `detectors:`")
    indent = len(item.match(lines[first])["indent"])  # type: ignore[index]
    last = next(
        (
            n
            for n in range(first + 1, end)
            if lines[n].strip() and len(lines[n]) - len(lines[n].lstrip(" ")) <= indent
        ),
        end,
    )
    key_indent = " " * (indent + 2)
    new = f"{key_indent}measured: {measured_line(measured)}\n"
    at = next(
        (n for n in range(first, last) if lines[n].startswith(f"{key_indent}measured:")), None
    )
    if at is not None:
        stop = at + 1
        while stop < last and (
            not lines[stop].strip() or len(lines[stop]) - len(lines[stop].lstrip(" ")) > indent + 2
        ):
            stop += 1
        lines[at:stop] = [new]
    else:
        severity = next(
            (n for n in range(first, last) if lines[n].startswith(f"{key_indent}severity:")),
            first,
        )
        lines.insert(severity + 1, new)
    return "".join(lines)


@dataclass(frozen=True, slots=True)
class MeasureReport:
    """What ``tools/corpus.py measure`` found: the table, and whether every hint is judged
    and every verdict current."""

    text: str
    complete: bool
    comparison: CorpusComparison


def measure_corpus(
    folder: Path,
    slice_: Sequence[str],
    verdicts_path: Path,
    package_verdicts_path: Path,
    rules_dir: Path,
    *,
    write: bool,
) -> MeasureReport:
    """Judge both scopes (:func:`judge_corpus`) and (``write``) rewrite the ``measured:``
    figures of each settled detector in its record, from the scope it is judged in."""
    library = load_library(rules_dir)
    comparison = judge_corpus(
        folder,
        slice_,
        library,
        load_verdicts(verdicts_path),
        load_verdicts(package_verdicts_path, scope=CorpusScope.PACKAGE),
    )
    corpus = folder.name
    out = [comparison.table(), ""]
    problems = [
        f"unjudged ({scope.scope}): {found.path}:{found.hit.line} {found.hit.qualified_id}"
        for scope in comparison.scopes
        for found in scope.unjudged
    ] + [
        f"stale ({scope.scope}): {v.path}:{v.line} {v.detector}"
        for scope in comparison.scopes
        for v in scope.stale
    ]
    out += problems[:SHOWN]
    if len(problems) > SHOWN:
        out.append(f"... and {len(problems) - SHOWN} more unjudged or stale")
    written: list[str] = []
    if write:
        for rule in library.rules:
            path = rules_dir / f"{rule.id}.yaml"
            text = original = path.read_text(encoding="utf-8")
            for detector in rule.detectors:
                name = f"{rule.id}-{detector.id}"
                tally = comparison.tally(name)
                if tally is None or not comparison.settled(name):
                    continue
                text = rewrite_measured(text, detector.id, tally.measured(corpus))
            if text != original:
                write_atomic(path, text.encode("utf-8"))
                written.append(str(path))
        out.append(f"rewrote: {', '.join(written) or 'nothing (figures already current)'}")
    return MeasureReport("\n".join(out).rstrip("\n"), comparison.complete, comparison)
