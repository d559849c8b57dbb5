"""What every error a user can fix has in common.

An :class:`InputError` is bad input (a rule file, an answer, a path, an option's value, a
config table): its message names where and what to do, and every view shows it as it is: the
CLI prints it and exits non-zero, the MCP server answers it as the tool's error. Anything
else raised is a bug in rlt-rules and keeps its traceback.
"""

from __future__ import annotations


class InputError(Exception):
    """Bad input the user can fix; the message says where and what to do."""
