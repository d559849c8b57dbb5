"""Release history: stable rule ids enforced by software, not by care.

A release is a bundle: ``releases/<version>.json`` beside ``rules/``, written by
:func:`rlt_rules.library.bundle.render` and read back by
:func:`rlt_rules.library.bundle_load.read_bundle`. One module per job:

* :mod:`.versions`: ``MAJOR.MINOR.PATCH`` and the kinds of release (:class:`Bump`);
* :mod:`.history`: reading ``releases/`` into a :class:`History`;
* :mod:`.policy`: the change policy, a pure comparison of two libraries (:func:`compare`) and
  the release each change requires;
* :mod:`.checks`: what ``validate`` checks of ``rules/`` against the history
  (:func:`release_diagnostics`);
* :mod:`.plan`: planning a release (:func:`plan_release`) and writing it.

The changelog and diff Markdown are views: :mod:`rlt_rules.export.changelog`.
"""

from .checks import release_diagnostics
from .history import (
    RELEASES_DIR,
    RULE_ID,
    History,
    HistoryResult,
    Release,
    load_history,
    next_rule_id,
    read_history,
    release_path,
    releases_dir,
    releases_display,
)
from .plan import FileEdit, PlanResult, ReleasePlan, plan_release, write_release
from .policy import (
    MEANING_FIELDS,
    TEXT_FIELDS,
    ChangeKind,
    LibraryChange,
    LibraryDiff,
    RuleChange,
    RuleHistory,
    compare,
    compare_rules,
    rule_history,
)
from .versions import NEXT, Bump, Version, bump_between, version_key

__all__ = [
    "MEANING_FIELDS",
    "NEXT",
    "RELEASES_DIR",
    "RULE_ID",
    "TEXT_FIELDS",
    "Bump",
    "ChangeKind",
    "FileEdit",
    "History",
    "HistoryResult",
    "LibraryChange",
    "LibraryDiff",
    "PlanResult",
    "Release",
    "ReleasePlan",
    "RuleChange",
    "RuleHistory",
    "Version",
    "bump_between",
    "compare",
    "compare_rules",
    "load_history",
    "next_rule_id",
    "plan_release",
    "read_history",
    "release_diagnostics",
    "release_path",
    "releases_dir",
    "releases_display",
    "rule_history",
    "version_key",
    "write_release",
]
