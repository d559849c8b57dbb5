"""A web address written into output: the published site's root (``--site-url``,
``[tool.rlt-rules] site-url``, ``mkdocs.yml``'s ``site_url``), checked before any link is made
from it.

Every rule link, in every format (a text line, a Markdown review, SARIF's ``helpUri``), is
that root plus a path. A root holding a line break forges a line; a space, a quote or an angle
bracket ends a Markdown link or opens HTML (``https://x/ <img src=x onerror=…>``); a control
or bidirectional character hides what a reader sees. So the root is an ``http(s)`` URL with a
host and none of those characters.
"""

from __future__ import annotations

import unicodedata
from urllib.parse import urlsplit

#: Characters that end a link or open markup wherever it is written.
_FORBIDDEN = "\"'`<>\\"
#: Unicode categories never in an address: controls, format (bidirectional) characters,
#: surrogates, spaces and line or paragraph separators.
_CATEGORIES = ("Cc", "Cf", "Cs", "Zs", "Zl", "Zp")


def url_problem(url: str) -> str | None:
    """Why ``url`` is not an ``http(s)`` address to link from, or None when it is one."""
    for index, char in enumerate(url):
        if char in _FORBIDDEN or char.isspace() or unicodedata.category(char) in _CATEGORIES:
            return (
                f"holds {_named(char)} at character {index + 1}: an address has no spaces, "
                "quotes, angle brackets, backslashes or control characters (percent-encode "
                "them)"
            )
    if not url.lower().startswith(("https://", "http://")):
        return "must be an http(s) URL (https://…)"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (checks the port: urlsplit only reads it when asked)
    except ValueError as error:
        return f"is not a URL: {error}"
    if not parts.hostname:
        return "names no host (https://HOST/…)"
    return None


def _named(char: str) -> str:
    name = unicodedata.name(char, "")
    return f"{char!r} (U+{ord(char):04X}{' ' + name if name else ''})"
