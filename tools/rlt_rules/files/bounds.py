"""The numbers a user may set (``--max-file-bytes``, ``--file-timeout``, ``--jobs``, …), each a
:class:`Bound`: one range, checked the same way on the command line, in ``[tool.rlt-rules]``
and through the MCP server.

A value outside its range is an :class:`OutOfBounds` naming the range, never a value that
reaches the code: a negative byte limit would read without end, ``inf`` seconds or one past
2**63 bytes overflow the calls they are passed to.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .errors import InputError


class OutOfBounds(InputError, ValueError):
    """A number outside its :class:`Bound` (or not a number); ``str()`` says the range."""


@dataclass(frozen=True, slots=True)
class Bound:
    """A range of numbers: ``whole`` ones only, or any finite number; ``low`` itself
    allowed unless ``above``."""

    low: float
    high: float
    unit: str
    whole: bool = True
    above: bool = False

    def describe(self) -> str:
        kind = "a whole number" if self.whole else "a number"
        if self.above:
            return f"{kind} of {self.unit} above {self.low:,g} and at most {self.high:,g}"
        return f"{kind} of {self.unit} from {self.low:,} to {self.high:,}"

    def check(self, value: object) -> int | float:
        """``value`` when it is in range; :class:`OutOfBounds` otherwise."""
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if not number or (self.whole and not isinstance(value, int)):
            raise OutOfBounds(f"must be {self.describe()}, got {value!r}")
        assert isinstance(value, int | float)
        inside = math.isfinite(value) and self.low <= value <= self.high
        if not inside or (self.above and value == self.low):
            raise OutOfBounds(f"must be {self.describe()}, got {value!r}")
        return value

    def parse(self, text: str) -> int | float:
        """The number ``text`` writes, in range; :class:`OutOfBounds` otherwise."""
        try:
            value: int | float = int(text) if self.whole else float(text)
        except ValueError:
            raise OutOfBounds(f"must be {self.describe()}, got {text!r}") from None
        return self.check(value)


#: ``--max-file-bytes``, ``--max-diff-bytes``: the most bytes of one file or diff read (a
#: gibibyte: the limits are there so that nothing larger is held in memory).
BYTES = Bound(1, 1024**3, "bytes")
#: ``--file-timeout``, ``file-timeout``: seconds one file's matching may take (a day at most:
#: longer overflows the operating system's wait).
FILE_SECONDS = Bound(0, 86_400, "seconds", whole=False, above=True)
#: ``--jobs``: ``ast-grep`` runs at once (never more than the CPUs, whatever is asked).
JOBS = Bound(1, 4096, "jobs")
#: ``--max-chars``: the length of a review context.
CHARACTERS = Bound(1, 1_000_000_000, "characters")
