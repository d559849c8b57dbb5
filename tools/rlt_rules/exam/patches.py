"""The change a task asks to review, as a unified diff in Git's form (``git diff`` prints the
same), so ``review-context --diff``, ``scan --diff`` and ``findings check --diff`` read it as
they read any change."""

from __future__ import annotations

import difflib

#: Lines of context around each hunk, as Git gives them.
CONTEXT = 3
_NO_NEWLINE = "\\ No newline at end of file\n"


def file_diff(path: str, old: str | None, new: str | None) -> str:
    """The diff of one file from ``old`` to ``new`` (None: the file is absent on that side);
    empty when both sides hold the same text."""
    if old == new:
        return ""
    old_lines = old.splitlines(keepends=True) if old is not None else []
    new_lines = new.splitlines(keepends=True) if new is not None else []
    body = list(
        difflib.unified_diff(
            old_lines,
            new_lines,
            "/dev/null" if old is None else f"a/{path}",
            "/dev/null" if new is None else f"b/{path}",
            n=CONTEXT,
        )
    )
    if not body:
        return ""
    head = [f"diff --git a/{path} b/{path}\n"]
    if old is None:
        head.append("new file mode 100644\n")
    elif new is None:
        head.append("deleted file mode 100644\n")
    lines = []
    for line in body:
        lines.append(line if line.endswith("\n") else line + "\n" + _NO_NEWLINE)
    return "".join(head + lines)


def addition_diff(path: str, head: list[str], start_line: int, end_line: int) -> str:
    """The diff adding lines ``start_line..end_line`` of ``head`` (its lines, with their
    endings) to the file without them: one hunk, :data:`CONTEXT` lines of context each side."""
    first = max(start_line - 1 - CONTEXT, 0)
    last = min(end_line + CONTEXT, len(head))
    before = head[first : start_line - 1]
    added = head[start_line - 1 : end_line]
    after = head[end_line:last]
    old_count = len(before) + len(after)
    old_start = first + 1 if old_count else first
    new_start = first + 1
    lines = [
        f"diff --git a/{path} b/{path}\n",
        f"--- a/{path}\n",
        f"+++ b/{path}\n",
        f"@@ -{_range(old_start, old_count)} +{_range(new_start, last - first)} @@\n",
    ]
    lines += [" " + line for line in before]
    lines += ["+" + line for line in added]
    lines += [" " + line for line in after]
    return "".join(line if line.endswith("\n") else line + "\n" + _NO_NEWLINE for line in lines)


def _range(start: int, count: int) -> str:
    return f"{start}" if count == 1 else f"{start},{count}"
