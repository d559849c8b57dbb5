"""How quickly ``mkdocs serve`` notices an edit: what its ``on_serve`` event lets a plugin set.

MkDocs' server looks for changed files every half second (a polling watcher, which works on
every file system) and then waits a tenth of a second for more changes before it rebuilds: up
to 0.6 s between saving a rule and the rebuild starting. The server it hands to plugins has
both as public attributes (``observer``, ``build_delay``) and ``watch``/``unwatch``:
:func:`watch_quickly` moves the folders MkDocs watches so far to a polling watcher of its own
interval, adds the plugin's, and shortens the wait.
"""

from __future__ import annotations

from collections.abc import Iterable

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.livereload import LiveReloadServer
from watchdog.observers.polling import PollingObserver


def watch_quickly(
    server: LiveReloadServer,
    config: MkDocsConfig,
    paths: Iterable[str],
    *,
    poll_interval: float,
    build_delay: float,
) -> None:
    """Watch ``paths`` too, every ``poll_interval`` seconds, rebuilding ``build_delay`` seconds
    after the last change.

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
    server.observer = PollingObserver(timeout=poll_interval)
    for path in [*moved, *paths]:
        server.watch(path)
    server.build_delay = build_delay
