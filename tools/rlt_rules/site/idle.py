"""The live preview's garbage collection, moved out of its rebuilds.

A preview at 1,000 rules holds about a million long-lived objects (the library, the pages'
parts, MkDocs' pages); each rebuild adds enough that Python's full collection, which walks them
all (0.2-0.25 s), fell inside about one rebuild in four, between saving a rule and the page
showing it. :class:`IdleCollector` turns automatic collection off while a rebuild runs and
collects a short while after it, once browsers have been told to reload and have fetched the
page: the same garbage is collected, at a time nobody waits for.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable
from typing import Protocol


class Cancellable(Protocol):
    """What scheduling a collection returns: it can be called off before it runs."""

    def cancel(self) -> None: ...


def start_daemon_timer(delay: float, action: Callable[[], None]) -> Cancellable:
    """Runs ``action`` after ``delay`` seconds on a daemon thread (a stopping server does not
    wait for it)."""
    timer = threading.Timer(delay, action)
    timer.daemon = True
    timer.start()
    return timer


class IdleCollector:
    """Collects garbage ``delay`` seconds after each build instead of during the next one.

    ``build_started`` (the first event of a build) turns automatic collection off, from the
    second build on; ``build_ended`` (after the build, whether it succeeded or failed)
    schedules one full collection, which turns it on again unless another build has started
    meanwhile. The first build, which renders every page, collects as usual and schedules
    nothing: a full collection right after it walks the whole preview's memory, and would hold
    up an edit made at once. ``close`` cancels what is scheduled and turns collection back on
    as it was.

    ``schedule(delay, action)`` starts the delayed collection and returns something with
    ``cancel()``; the default is a daemon timer thread. A test passes its own and runs the
    action when it chooses, so nothing depends on how fast a thread gets a core.
    """

    def __init__(
        self,
        *,
        delay: float,
        schedule: Callable[[float, Callable[[], None]], Cancellable] = start_daemon_timer,
    ) -> None:
        self.delay = delay
        self._schedule = schedule
        self._lock = threading.Lock()
        self._building = False
        self._ended_once = False
        self._timer: Cancellable | None = None
        self._was_enabled = gc.isenabled()

    def build_started(self) -> None:
        with self._lock:
            self._cancel()
            self._building = True
            if self._ended_once:
                gc.disable()

    def build_ended(self) -> None:
        with self._lock:
            self._building = False
            self._cancel()
            if not self._ended_once:  # the first build: collection stayed on
                self._ended_once = True
                return
            self._timer = self._schedule(self.delay, self._collect)

    def close(self) -> None:
        with self._lock:
            self._cancel()
            self._building = False
            if self._was_enabled:
                gc.enable()

    def _collect(self) -> None:
        with self._lock:
            if self._building:  # a build started after this was scheduled: it runs later
                return
            gc.collect()
            if self._was_enabled:
                gc.enable()

    def _cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
