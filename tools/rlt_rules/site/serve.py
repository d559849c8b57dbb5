"""How quickly ``mkdocs serve`` notices an edit: what its ``on_serve`` event lets a plugin set.

MkDocs' server looks for changed files every half second (a polling watcher, which works on
every file system, Docker's and network mounts included) and then waits a tenth of a second
for more changes before it rebuilds: up to 0.6 s between saving a rule and the rebuild
starting. Polling also costs while nothing changes: every look reads the status of every
watched file (at 1,000 rules, polling every 0.1 s took a fifth of a core, in the interpreter
the rebuilds run in). The server it hands to plugins has both as public attributes
(``observer``, ``build_delay``) and ``watch``/``unwatch``: :func:`watch_quickly` moves the
folders MkDocs watches so far to a watcher of the plugin's choice (:class:`Watcher`), adds the
plugin's, and shortens the wait.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.livereload import LiveReloadServer
from watchdog.events import (
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
)
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver
from watchdog.observers.polling import PollingObserver


class Watcher(enum.StrEnum):
    """How the server learns that a file changed."""

    #: The operating system reports each change as it happens (inotify, FSEvents, Windows'
    #: directory changes): no delay, no cost while idle. Changes made from outside the
    #: machine the server runs on (Docker Desktop's bind mounts, network drives) may go
    #: unreported: use ``polling`` there.
    NATIVE = "native"
    #: Every ``poll_interval`` seconds, read the status of every watched file (MkDocs' own way).
    POLLING = "polling"


#: What a change is. Watchdog also reports a file opened, read or closed unwritten: a build
#: reads every rule file, and must not start the next build.
CHANGES = (FileCreatedEvent, FileModifiedEvent, FileClosedEvent, FileMovedEvent, FileDeletedEvent)


class ChangeObserver(Observer):  # type: ignore[misc,valid-type]  # the platform's observer
    """The platform's native observer, reporting only :data:`CHANGES` to what it schedules
    (MkDocs' ``watch`` schedules its handler without a filter)."""

    def schedule(self, event_handler, path, *, recursive=False, event_filter=None):
        return super().schedule(
            event_handler, path, recursive=recursive, event_filter=event_filter or CHANGES
        )

    def start(self) -> None:
        """Start watching; an operating system that refuses (Linux's limit of inotify
        instances or watches reached, a folder gone) stops the server with what to do."""
        watched = sorted(emitter.watch.path for emitter in self.emitters)
        try:
            super().start()
        except OSError as error:  # (watchdog has dropped the failing watch by now)
            paths = ", ".join(watched)
            raise PluginError(
                f"the operating system would not watch {paths or 'the site'} for changes "
                f"({error}); set `watcher: polling` under `- rlt-rules:` in mkdocs.yml's "
                "plugins, or raise the limit (Linux: fs.inotify.max_user_instances and "
                "max_user_watches)"
            ) from error


def watch_quickly(
    server: LiveReloadServer,
    config: MkDocsConfig,
    paths: Iterable[str],
    *,
    watcher: Watcher,
    poll_interval: float,
    build_delay: float,
) -> None:
    """Watch ``paths`` too, with ``watcher`` (polling every ``poll_interval`` seconds if it
    polls), rebuilding ``build_delay`` seconds after the last change.

    Call it from ``on_serve`` before the server starts (it starts its watcher then): the paths
    watched so far are those MkDocs watches before its plugins' ``on_serve`` (the docs folder,
    ``mkdocs.yml``, the theme's folders with ``--watch-theme``), and any a plugin with an
    earlier ``on_serve`` added among them.
    """
    candidates = [config.docs_dir, config.config_file_path, *config.theme.dirs]
    moved: list[str] = []
    for path in candidates:
        if not path:
            continue
        while True:  # a path watched twice is unwatched twice
            try:
                server.unwatch(path)
            except KeyError:
                break
            moved.append(path)
    observer: BaseObserver
    if watcher is Watcher.POLLING:
        observer = PollingObserver(timeout=poll_interval)
    else:
        observer = ChangeObserver()
    server.observer = observer
    for path in [*moved, *paths]:
        server.watch(path)
    server.build_delay = build_delay
