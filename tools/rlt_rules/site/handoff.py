"""A library already loaded, handed to the MkDocs build that runs in the same process.

``rlt-rules site build`` validates the library before MkDocs starts (so an invalid library
exits 1 with every problem as path:line:column), then runs MkDocs in the same process. Without
this, the hook's ``on_config`` would load and validate the same files again. The command wraps
the build in :func:`provided`; the hook asks :func:`provided_library`. Outside that block
(``mkdocs build`` run directly, ``mike``, ``mkdocs serve``) nothing is handed over and the hook
loads the library itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ..project import ProjectCheck

_provided: ProjectCheck | None = None


@contextmanager
def provided(loaded: ProjectCheck) -> Iterator[None]:
    """Hand ``loaded`` to the builds that run inside this block, in this process."""
    global _provided
    if _provided is not None:
        raise RuntimeError("a library is already handed to a build in this process")
    _provided = loaded
    try:
        yield
    finally:
        _provided = None


def provided_library() -> ProjectCheck | None:
    """The library handed to the build running now, or None: then the hook loads it."""
    return _provided
