"""What ``validate`` checks of the working rules against the release history.

* a released id never disappears: its ``rules/<id>.yaml`` must exist (retire it instead);
* a released id is never reused for a different rule. *Reused* means: the rule's current title
  AND its current statement both differ from every released version of that id. (Rewording
  the title or the statement is an edit; rewriting both at once is a new rule, which needs a
  new id. To rewrite both, change one per release.)
* a retired rule stays retired (its id stays reserved);
* ``since`` is the first release containing the rule; a rule in no release says ``since: next``
  (or the version ``library.yaml`` announces, not yet released: what an interrupted
  ``release`` leaves behind);
* ``library.yaml``'s version is not older than the latest release.

Deprecation without ``replaced_by`` is rejected by the rule schema itself.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from ..library.load import Document
from ..library.model import Diagnostic, Status, id_number
from ..library.validate import LIBRARY_FILE, RecordCheck
from .history import History, HistoryResult, read_history, releases_display
from .versions import NEXT, Version


def release_diagnostics(records: RecordCheck) -> HistoryResult:
    """Every way the working rules of ``records`` break the release history (see module doc),
    with the history they were checked against (None when it cannot be read)."""
    root, library_doc = records.root, records.library_doc
    library_shown = records.shown(root / LIBRARY_FILE)
    rules_shown = os.path.dirname(library_shown) or "."
    loaded = read_history(root, rules_shown)
    if loaded.history is None:
        return loaded
    history = loaded.history
    latest = history.latest
    if latest is None:
        return loaded
    releases_shown = releases_display(rules_shown)
    found: list[Diagnostic] = []

    library_version = None
    version_at = (1, 1)
    if library_doc is not None:
        library_version = library_doc.data.get("version")
        position = library_doc.keys.get(("version",)) or library_doc.value_position(())
        version_at = (position.line, position.column)
        parsed = Version.parse(library_version)
        if parsed is not None and parsed < Version.parse(latest.version):
            value_at = library_doc.value_position(("version",))
            found.append(
                Diagnostic(
                    library_shown,
                    value_at.line,
                    value_at.column,
                    f"version {library_version} is older than the latest release "
                    f"{latest.version} ({releases_shown}/{latest.version}.json): the library's "
                    "version only moves forward; `rlt-rules release` sets it",
                )
            )

    file_ids = {path.stem for path in records.rule_files}
    for rule_id in sorted(history.released_ids() - file_ids, key=id_number):
        versions = history.versions_of(rule_id)
        last_version, last = versions[-1]
        found.append(
            Diagnostic(
                library_shown,
                *version_at,
                f"{rule_id} ('{last.title}') was published in "
                f"{_version_list([version for version, _ in versions])} and "
                f"{rules_shown}/{rule_id}.yaml is missing: a released id never disappears; "
                f"restore {rules_shown}/{rule_id}.yaml (as released in "
                f"{releases_shown}/{last_version}.json) and retire it with status: retired and "
                "retired_reason",
                rule_id,
            )
        )

    announced = Version.parse(library_version) if isinstance(library_version, str) else None
    pending = (
        library_version
        if announced is not None
        and announced > Version.parse(latest.version)
        and history.get(library_version) is None
        else None
    )
    for doc in records.rule_docs:
        found.extend(_rule_diagnostics(doc, history, releases_shown, pending))
    return HistoryResult(history, tuple(found))


def _rule_diagnostics(
    doc: Document, history: History, releases_shown: str, pending: str | None
) -> Iterable[Diagnostic]:
    data = doc.data
    rule_id = data.get("id")
    if not isinstance(rule_id, str):
        return

    def at(key: str, message: str) -> Diagnostic:
        position = doc.value_position((key,))
        return Diagnostic(doc.path, position.line, position.column, message, rule_id)

    since = data.get("since")
    versions = history.versions_of(rule_id)
    if not versions:
        if isinstance(since, str) and since != NEXT and since != pending:
            yield at(
                "since",
                f"since {since}: {rule_id} is in no release yet (latest: "
                f"{history.latest.version}); write since: next, which `rlt-rules release` "
                "replaces with the version that first publishes it",
            )
        return

    first_version = versions[0][0]
    last_version, last = versions[-1]
    published = _version_list([version for version, _ in versions])
    title, statement = data.get("title"), data.get("statement")
    if (
        isinstance(title, str)
        and isinstance(statement, str)
        and all(title != rule.title and statement != rule.statement for _, rule in versions)
    ):
        yield at(
            "id",
            f"{rule_id} is reused for a different rule: neither its title nor its statement "
            f"matches {rule_id} as published in {published} ('{last.title}'); a released id is "
            f"never reused: restore {rule_id} as released ({releases_shown}/{last_version}.json; "
            "retire it if it no longer applies) and add this rule under a new id with "
            "`rlt-rules new`",
        )
    retired_in = next((v for v, rule in versions if rule.status is Status.RETIRED), None)
    status = data.get("status")
    if retired_in is not None and isinstance(status, str) and status != str(Status.RETIRED):
        yield at(
            "status",
            f"{rule_id} was retired in {retired_in} and is now {status}: a retired rule stays "
            "retired and its id stays reserved; set status: retired, and add a new rule with "
            "`rlt-rules new` instead",
        )
    if isinstance(since, str) and since != first_version:
        if since == NEXT:
            yield at(
                "since",
                f"since: next, but {rule_id} was already published in {first_version}: "
                f"write since: {first_version}",
            )
        else:
            yield at(
                "since",
                f"since {since} does not match the release history: {rule_id} was first "
                f"published in {first_version} ({releases_shown}/{first_version}.json); "
                f"write since: {first_version}",
            )


def _version_list(versions: list[str]) -> str:
    if len(versions) <= 4:
        return ", ".join(versions)
    return f"{versions[0]} and {len(versions) - 1} later releases (last {versions[-1]})"
