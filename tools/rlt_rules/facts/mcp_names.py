"""The names the library's MCP server (``rlt-rules mcp``) serves under, in one place: the server
registers its tools by them and the reviewers' export grants them to the review subagent
(Claude Code calls a tool ``mcp__<server>__<tool>``)."""

from __future__ import annotations

#: The server's name in ``.mcp.json`` and in clients' tool names.
SERVER = "rlt-rules"
LIST_RULES = "list_rules"
GET_RULE = "get_rule"
SEARCH_RULES = "search_rules"
REVIEW_CONTEXT = "review_context"
CHECK_FINDINGS = "check_findings"
SCAN_CODE = "scan_code"
#: Every tool, in the order the server lists them.
TOOLS = (LIST_RULES, GET_RULE, SEARCH_RULES, REVIEW_CONTEXT, CHECK_FINDINGS, SCAN_CODE)
#: The prompt that starts a review of a change.
REVIEW_PROMPT = "review_change"
#: A rule's page: ``rlt://rules/R03``.
RULE_URI = "rlt://rules/{rule_id}"
#: How long one tool call may run, in seconds, unless ``rlt-rules mcp --call-timeout`` says.
CALL_TIMEOUT = 120.0


def claude_tool(tool: str) -> str:
    """The name Claude Code gives one of the server's tools: ``mcp__rlt-rules__get_rule``."""
    return f"mcp__{SERVER}__{tool}"
