"""YAML as the exports and the site write it: one dumper, multi-line text as ``|`` blocks.

Keys keep their order, non-ASCII text is written as itself, and a string holding a newline
(example code, a note, review instructions) is a literal block a reviewer can read. libyaml's
emitter writes it when PyYAML has one (the pure-Python emitter takes seconds at thousands of
rules); a document that writes one long text once and refers to it after needs the
pure-Python serializer, which is the one that names anchors.
"""

from __future__ import annotations

from typing import Any

import yaml

_FAST_DUMPER: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def _literal_text(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    style = "|" if "\n" in text else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


class _LiteralDumper(_FAST_DUMPER):  # type: ignore[misc, valid-type]
    """Multi-line strings as ``|`` blocks."""


class _SharedTextDumper(yaml.SafeDumper):
    """Multi-line strings as ``|`` blocks, each written once: an anchor where it first
    appears, an alias after (the anchor's name is set by :func:`yaml_text`)."""

    anchor = "text"

    def ignore_aliases(self, data: object) -> bool:
        return not (isinstance(data, str) and "\n" in data)

    def generate_anchor(self, node: yaml.Node) -> str:
        return self.anchor


_LiteralDumper.add_representer(str, _literal_text)
_SharedTextDumper.add_representer(str, _literal_text)


def yaml_text(data: Any, *, width: int, shared_text_anchor: str | None = None) -> str:
    """``data`` as a YAML document, lines broken after ``width`` characters where YAML can.

    ``shared_text_anchor``: the anchor naming one multi-line text that ``data`` holds more
    than once (the same ``str`` object), written once and then referred to; a document
    holding several such texts needs none.
    """
    dumper: type[yaml.SafeDumper] = _LiteralDumper
    if shared_text_anchor is not None:
        dumper = type("_NamedAnchorDumper", (_SharedTextDumper,), {"anchor": shared_text_anchor})
    return yaml.dump(data, Dumper=dumper, sort_keys=False, allow_unicode=True, width=width)
