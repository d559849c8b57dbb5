"""A memo for a process that computes the same things again and again (the site's preview).

Each :class:`Recent` belongs to one owner (an object that lives as long as the process's
work, such as the site plugin), never to a module: a one-off command makes its own or none.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable


class Recent[K: Hashable, V]:
    """Values by key, kept for the keys used in the current or the previous generation.

    The owner calls :meth:`next_generation` once per round of work (a build): a key not used
    during two rounds is forgotten, so the memo holds at most two rounds' worth of entries
    however long the process runs.
    """

    __slots__ = ("_current", "_previous")

    def __init__(self) -> None:
        self._current: dict[K, V] = {}
        self._previous: dict[K, V] = {}

    def get(self, key: K, make: Callable[[K], V]) -> V:
        """The value for ``key``: remembered, or ``make(key)`` (then remembered)."""
        try:
            return self._current[key]
        except KeyError:
            pass
        value = self._previous[key] if key in self._previous else make(key)
        self._current[key] = value
        return value

    def next_generation(self) -> None:
        """Start a new round: what the round before the last one used and this one did not
        is forgotten."""
        self._previous, self._current = self._current, {}

    def __len__(self) -> int:
        return len(self._current.keys() | self._previous.keys())
