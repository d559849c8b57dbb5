"""``rlt-rules mcp``: the library as a read-only MCP server over stdio, for agents.

:func:`build_server` registers the tools (list, get and search rules; the review context of a
change; check a findings answer; scan code), a resource per rule page (``rlt://rules/R03``) and
the prompt that starts a review (:mod:`.server`); what they answer about the rules is built in
:mod:`.views`, and the reviewed repository (its diffs and files) is :mod:`.workspace`. The tool
names are :mod:`rlt_rules.facts.mcp_names`'s, which the reviewers' export grants to the subagent.
"""

from __future__ import annotations

from .server import build_server, serve

__all__ = ["build_server", "serve"]
