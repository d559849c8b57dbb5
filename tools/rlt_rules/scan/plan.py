"""Which detectors a scan runs, and on which files: ``--select`` and ``--preview`` over the
reviewed repository's ``[tool.rlt-rules]`` (``select``, ``ignore``, ``exclude``,
``per-file-ignores``, ``preview``).

An id is a rule id (``R07``: every detector of the rule) or a detector id
(``R10-hasattr-guard``). A mistake on the command line is a :class:`SelectionError`; one in
the configuration a :class:`~rlt_rules.files.config.ConfigError` at its line and column.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..detectors.detect import DetectorSet, Hit
from ..files.config import ConfigError, RepoConfig
from ..files.errors import InputError
from ..files.globs import GlobError, GlobSet
from ..library.model import Detector, Library, Status
from .matcher import FILE_TIMEOUT


class SelectionError(InputError, ValueError):
    """``--select`` names no known rule, or no rule with a detector."""


@dataclass(frozen=True, slots=True)
class ScanPlan:
    """The detectors to run, the files never read, and the ids ignored per file.

    ``preview`` is ``--preview``, else ``[tool.rlt-rules] preview``, else off: preview
    detectors run only with it. ``unchecked`` holds the rules whose detectors do not all run
    (not chosen, or preview ones left out): a suppression of one of them may silence a hint
    this scan cannot see, so it is never reported as unused.
    """

    detectors: DetectorSet
    preview: bool
    unchecked: frozenset[str] = frozenset()
    root: Path | None = None
    exclude: GlobSet | None = None
    per_file: tuple[tuple[GlobSet, frozenset[str]], ...] = ()
    #: Seconds one file's matching may take: ``[tool.rlt-rules] file-timeout``, else 30.
    file_timeout: float = FILE_TIMEOUT

    def excluded(self, path: Path) -> bool:
        """Whether ``exclude`` keeps ``path`` from being read."""
        relative = self._relative(path)
        return bool(relative and self.exclude is not None and self.exclude.matches(relative))

    def keeps(self, path: Path, hit: Hit) -> bool:
        """Whether ``per-file-ignores`` leaves ``hit`` (in ``path``) reported."""
        relative = self._relative(path)
        if relative is None:
            return True
        ids = {hit.rule_id, hit.qualified_id}
        return not any(
            globs.matches(relative) and ids & set(ignored) for globs, ignored in self.per_file
        )

    def _relative(self, path: Path) -> str | None:
        if self.root is None:
            return None
        try:
            return path.absolute().relative_to(self.root.absolute()).as_posix()
        except ValueError:
            return None


def detector_ids(library: Library) -> dict[str, str]:
    """Every id a selection may name, mapped to its rule: rule ids and detector ids."""
    ids = {rule.id: rule.id for rule in library.rules}
    ids.update(
        (f"{rule.id}-{detector.id}", rule.id)
        for rule in library.rules
        for detector in rule.detectors
    )
    return ids


def plan_scan(
    library: Library, config: RepoConfig, *, select: str | None, preview: bool | None
) -> ScanPlan:
    """The plan for a scan: ``select`` (``--select``, comma-separated) overrides the
    configuration's ``select``; its ``ignore`` always applies."""
    known = detector_ids(library)
    for key, ids in (("select", config.select or ()), ("ignore", config.ignore)):
        _check_configured(config, known, ids, (key,))
    for glob, ids in config.per_file_ignores.items():
        _check_configured(config, known, ids, ("per-file-ignores", glob))
    if select is not None:
        wanted = _command_line_selection(library, known, select)
    elif config.select is not None:
        wanted = set(config.select)
    else:
        wanted = None
    ignored = set(config.ignore)
    preview_on = bool(preview if preview is not None else config.preview)

    def runs(rule_id: str, detector: Detector) -> bool:
        chosen = _chosen(rule_id, f"{rule_id}-{detector.id}", wanted, ignored)
        return chosen and (preview_on or not detector.preview)

    active = [rule for rule in library.rules if rule.status is Status.ACTIVE]
    entries = [(rule.id, d) for rule in active for d in rule.detectors if runs(rule.id, d)]
    unchecked = frozenset(
        rule.id
        for rule in library.rules
        if rule.detectors
        and (rule.status is not Status.ACTIVE or not all(runs(rule.id, d) for d in rule.detectors))
    )
    root = config.root
    return ScanPlan(
        DetectorSet(entries),
        preview=preview_on,
        unchecked=unchecked,
        root=root,
        exclude=_globs(config, config.exclude, ("exclude",)) if config.exclude else None,
        per_file=tuple(
            (_globs(config, [glob], ("per-file-ignores", glob)), frozenset(ids))
            for glob, ids in config.per_file_ignores.items()
        ),
        file_timeout=config.file_timeout or FILE_TIMEOUT,
    )


def _globs(config: RepoConfig, lines: Sequence[str], keys: Sequence[str]) -> GlobSet:
    """The patterns of ``lines`` (checked when the configuration was read)."""
    try:
        return GlobSet.of(lines)
    except GlobError as error:
        raise config.error(f"{keys[0]}: {error}", *keys) from None


def _chosen(rule_id: str, detector_id: str, wanted: set[str] | None, ignored: set[str]) -> bool:
    if rule_id in ignored or detector_id in ignored:
        return False
    return wanted is None or rule_id in wanted or detector_id in wanted


def _check_configured(
    config: RepoConfig, known: dict[str, str], ids: Iterable[str], keys: Sequence[str]
) -> None:
    unknown = [item for item in ids if item not in known]
    if unknown:
        raise config.error(
            f"{keys[0]}: unknown rule or detector id(s) {', '.join(unknown)}; ids are rule ids "
            "(R07) or detector ids (R10-hasattr-guard): `rlt-rules list`",
            *keys,
        )


def _command_line_selection(library: Library, known: dict[str, str], select: str) -> set[str]:
    wanted = {part.strip() for part in select.split(",") if part.strip()}
    wanted = {item.upper() if item.upper() in known else item for item in wanted}
    unknown = sorted(wanted - set(known))
    if unknown or not wanted:
        raise SelectionError(f"--select: unknown rule id(s) {', '.join(unknown) or '(none given)'}")
    with_detectors = {
        rule.id for rule in library.rules if rule.detectors and rule.status is Status.ACTIVE
    }
    if not {known[item] for item in wanted} & with_detectors:
        raise SelectionError(
            f"--select {select}: none of these rules has a detector; rules with detectors: "
            + ", ".join(sorted(with_detectors))
        )
    return wanted


__all__ = ["ConfigError", "ScanPlan", "SelectionError", "detector_ids", "plan_scan"]
