"""A memo for a process that computes the same things again and again (the site's preview).

Each :class:`Recent` or :class:`ByPage` belongs to one owner (an object that lives as long as
the process's work, such as the site plugin), never to a module: a one-off command makes its
own or none.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

#: No value: a memo's values may be None.
_MISSING: object = object()


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
        # Moved from the previous round (a key is hashed three times, not four: a key of
        # tuples is hashed afresh each time, and the exports look up thousands per build).
        value = self._previous.pop(key, _MISSING)
        if value is _MISSING:
            value = make(key)
        self._current[key] = value
        return value

    def next_generation(self) -> None:
        """Start a new round: what the round before the last one used and this one did not
        is forgotten."""
        self._previous, self._current = self._current, {}

    def __len__(self) -> int:
        return len(self._current.keys() | self._previous.keys())


class ByPage[K: Hashable, V]:
    """Values by page and key, for the parts a page is made of: each page keeps what its
    latest use asked for (:meth:`use`), so a page a build does not render again keeps its
    parts, and a page rendered again drops the parts it no longer has."""

    __slots__ = ("_pages",)

    def __init__(self) -> None:
        self._pages: dict[str, dict[K, V]] = {}

    def use(
        self,
        page: str,
        keys: Sequence[K],
        make: Callable[[K], V],
        *,
        reusable: Callable[[V], bool] = lambda value: True,
    ) -> list[V]:
        """The value of each key of ``page``, in order: kept from the page's last use when
        ``reusable``, else ``make(key)``; the page keeps these values only."""
        kept = self._pages.get(page, {})
        used: dict[K, V] = {}
        for key in keys:
            if key not in used:
                value = kept.get(key)
                used[key] = value if value is not None and reusable(value) else make(key)
        self._pages[page] = used
        return [used[key] for key in keys]

    def __len__(self) -> int:
        return sum(len(values) for values in self._pages.values())
