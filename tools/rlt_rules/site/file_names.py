"""File names on the Exports page break only after a ``/``, never inside a name.

Material lets inline code break anywhere (``rules.sarif.↪json`` in a narrow table cell). Each
code span there that is a file name or path (no whitespace, a ``.`` or ``/`` in it) becomes
its parts, each kept on one row (``.rlt-file__part`` in ``site/css/rules.css``), with a break
opportunity (``<wbr>``) after each ``/``. The text, and so what a reader copies, is unchanged.
"""

from __future__ import annotations

import html
import re

#: The page whose code spans are file names (site/exports.md).
FILE_NAMES_PAGE = "exports.md"

_CODE = re.compile(r"<code>(?P<text>[^<\s]+)</code>")
_PART = re.compile(r"[^/]*/|[^/]+")


def break_file_names(page_html: str) -> str:
    """``page_html`` with each file name's code span split into unbreakable parts."""
    return _CODE.sub(_file_name, page_html)


def _file_name(match: re.Match[str]) -> str:
    text = html.unescape(match.group("text"))
    if "." not in text and "/" not in text:
        return match.group(0)
    parts = (
        f'<span class="rlt-file__part">{html.escape(part, quote=False)}</span>'
        for part in _PART.findall(text)
    )
    return f'<code class="rlt-file">{"<wbr>".join(parts)}</code>'
