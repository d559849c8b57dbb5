"""The limits the hostile-input tests run a child under: a case that reads a file whole or
loops fails as a limit (MemoryError, a timeout), never as a machine out of memory."""

from __future__ import annotations

import resource
from collections.abc import Callable

#: A child's address space, in bytes (Python and its imports fit in well under 1 GiB).
MEMORY = 3 * 1024**3


def address_space(limit: int = MEMORY) -> Callable[[], None]:
    """A ``preexec_fn`` that caps the child's address space at ``limit`` bytes."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return cap
