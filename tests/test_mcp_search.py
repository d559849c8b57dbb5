"""How well an agent finds a rule by what the code does: every reviewer's query of
``tests/data/search_queries*.yaml`` sent to the MCP server's ``search_rules`` by the official
MCP SDK client, over stdio, scored as the site's search is (top-1 and top-3 by rule).

The server ranks with its own word index (``mcp_server/views.py``), not the site's lunr, so its
figures are printed and held apart; the blind sets are never tuned to.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import sys
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from search_queries import BLIND_SETS, Query, load_queries, score

from rlt_rules.facts import mcp_names

ROOT = Path(__file__).resolve().parents[1]
RLT_RULES = Path(sys.executable).parent / "rlt-rules"
#: What ``search_rules`` reaches today, less one query (session 11: 85/98 and 95/98; the blind
#: sets 44/51 and 49/51 each). Its ranking counts the query's words found in any field, so an
#: edit of a rule's text moves each set by a query or two (session 11's coverage sentences
#: moved the first blind set from 45 to 44 first): a change that finds fewer than this fails.
#: Stems and a stop-word list were tried in session 11 and not kept (benchmarks/README.md).
FLOOR_TOP_1, FLOOR_TOP_3 = 0.84, 0.95
BLIND_FLOORS = {"fresh (blind)": (0.84, 0.94), "fresh 2 (blind)": (0.84, 0.94)}


async def _ask(queries: list[str]) -> list[list[str]]:
    params = StdioServerParameters(
        command=str(RLT_RULES),
        args=["mcp", "--rules", str(ROOT / "rules")],
        cwd=str(ROOT),
        env=dict(os.environ),  # the code under test, as the other MCP tests import it
    )
    ranked = []
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for query in queries:
            result = await session.call_tool(mcp_names.SEARCH_RULES, {"query": query, "limit": 3})
            assert not result.is_error, (query, result.content)
            ranked.append([hit["id"] for hit in result.structured_content["results"]])
    return ranked


def _ranked(queries: list[Query]) -> list[tuple[Query, list[str]]]:
    # In a thread of its own: a browser test may have left an event loop running in this one.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        rules = pool.submit(asyncio.run, _ask([query.text for query in queries])).result()
    return list(zip(queries, rules, strict=True))


def test_an_agent_finds_the_rule_by_what_the_code_does() -> None:
    whole = score(_ranked(load_queries()))
    blind = {label: score(_ranked(load_queries(path))) for label, path in BLIND_SETS.items()}
    report = "; ".join([f"search_rules: all {whole}"] + [f"{k} {v}" for k, v in blind.items()])
    print(report)
    assert whole.count >= 60 and all(found.count >= 51 for found in blind.values())
    assert whole.top_1 >= FLOOR_TOP_1 and whole.top_3 >= FLOOR_TOP_3, report
    for label, found in blind.items():
        floor_1, floor_3 = BLIND_FLOORS[label]
        assert found.top_1 >= floor_1 and found.top_3 >= floor_3, report
