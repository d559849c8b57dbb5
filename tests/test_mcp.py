"""``rlt-rules mcp`` driven by the MCP Python SDK's own stdio client: initialise, list the tools,
resources and prompts, call every tool with good and bad input, read the rule pages.

One server runs for the module, in a temporary git repository whose last commit is the sample
change (``samples/review/change.diff``); every call is made in one session, in order, so a bad
call that crashed the server would fail every call after it. Answers are compared with the
command line's: the same document, the same problems, the same hits.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

from rlt_rules import Library, load_library
from rlt_rules.cli import main
from rlt_rules.export import reviewers
from rlt_rules.facts import mcp_names
from rlt_rules.mcp_server import views
from rlt_rules.render.answer import ANCHOR_NOTE

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "rules"
SAMPLE = ROOT / "samples" / "review"
SITE_URL = "https://rules.acme.dev/rlt/1.0.0/"
RLT_RULES = Path(sys.executable).parent / "rlt-rules"

SNIPPET = """\
class Engine:
    def finish(self, request_id):
        if hasattr(self, "preemption"):
            self.preemption.discard_snapshot(request_id)

    def __init__(self, preemption):
        self.preemption = preemption
"""


def _answer_with_every_problem() -> str:
    """The sample answer with a schema problem, a line past the end of the file, an unknown
    rule and a path outside the change: all four come back from one call."""
    data = yaml.safe_load((SAMPLE / "findings.yaml").read_text(encoding="utf-8"))
    findings = data["findings"]
    del findings[0]["trigger"]
    findings[1]["location"]["end_line"] = 900
    findings[2]["rule"] = "R42"
    findings[3]["location"]["path"] = "README.md"
    return yaml.safe_dump(data, sort_keys=False)


#: Every call, by name: the tool and its arguments. Bad calls are among the good ones.
CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "list": ("list_rules", {}),
    "list_category": ("list_rules", {"category": "boundaries-and-capabilities"}),
    "list_tag": ("list_rules", {"tag": "preemption"}),
    "list_status": ("list_rules", {"status": "retired"}),
    "list_bad_category": ("list_rules", {"category": "boundaries"}),
    "list_bad_tag": ("list_rules", {"tag": "no-such-tag"}),
    "list_bad_status": ("list_rules", {"status": "gone"}),
    "get_statement": ("get_rule", {"rule_id": "R03", "detail": "statement"}),
    "get_guidance": ("get_rule", {"rule_id": "r3"}),
    "get_full": ("get_rule", {"rule_id": "R10", "detail": "full"}),
    "get_unknown": ("get_rule", {"rule_id": "R99"}),
    "get_bad_detail": ("get_rule", {"rule_id": "R03", "detail": "everything"}),
    "get_no_id": ("get_rule", {}),
    "search_words": ("search_rules", {"query": "preemption victim"}),
    "search_id": ("search_rules", {"query": "R07", "limit": 1}),
    "search_trigger": ("search_rules", {"query": "hasattr"}),
    "search_prefix": ("search_rules", {"query": "preempt"}),
    "search_nothing": ("search_rules", {"query": "zyxwvut"}),
    "search_empty": ("search_rules", {"query": " ?! "}),
    "search_bad_limit": ("search_rules", {"query": "state", "limit": 0}),
    "search_unknown_argument": ("search_rules", {"query": "state", "limt": 3}),
    "context_diff": ("review_context", {"diff": "DIFF"}),
    "context_base": ("review_context", {"base": "HEAD~1"}),
    "context_budget": ("review_context", {"base": "HEAD~1", "max_chars": 9000}),
    "context_no_change": ("review_context", {}),
    "context_paths": ("review_context", {"base": "HEAD~1", "paths": ["samples"]}),
    "context_other_paths": ("review_context", {"base": "HEAD~1", "paths": ["docs"]}),
    "context_paths_outside": ("review_context", {"base": "HEAD~1", "paths": ["../x"]}),
    "context_diff_paths": ("review_context", {"diff": "DIFF", "paths": ["samples"]}),
    "context_too_small": ("review_context", {"diff": "DIFF", "max_chars": 300}),
    "context_bad_budget": ("review_context", {"diff": "DIFF", "max_chars": 0}),
    "context_both": ("review_context", {"diff": "DIFF", "base": "HEAD~1"}),
    "context_bad_diff": ("review_context", {"diff": "not a diff"}),
    "context_unknown_base": ("review_context", {"base": "no-such-branch"}),
    "context_option_base": ("review_context", {"base": "--output=/tmp/owned"}),
    "check_ok": ("check_findings", {"answer": "SAMPLE", "base": "HEAD~1"}),
    "check_problems": ("check_findings", {"answer": "PROBLEMS", "base": "HEAD~1"}),
    "check_fenced": ("check_findings", {"answer": "```yaml\nlibrary_version: 1.0.0\n```\n"}),
    "check_not_text": ("check_findings", {"answer": 3}),
    "check_bad_diff": ("check_findings", {"answer": "SAMPLE", "diff": "+++ nothing"}),
    "scan_paths": ("scan_code", {"paths": ["samples"]}),
    "scan_snippet": ("scan_code", {"code": SNIPPET, "file_name": "engine/core.py"}),
    "scan_outside": ("scan_code", {"paths": ["../"]}),
    "scan_missing": ("scan_code", {"paths": ["src/nothing.py"]}),
    "scan_neither": ("scan_code", {}),
    "scan_both": ("scan_code", {"paths": ["samples"], "code": "x = 1\n", "file_name": "x.py"}),
    "scan_no_name": ("scan_code", {"code": SNIPPET}),
    "scan_not_python": ("scan_code", {"code": SNIPPET, "file_name": "notes.txt"}),
    "scan_diff": ("scan_code", {"diff": "DIFF"}),
    "scan_base": ("scan_code", {"base": "HEAD~1"}),
    "scan_base_paths": ("scan_code", {"base": "HEAD~1", "paths": ["samples/review"]}),
    "scan_diff_code": ("scan_code", {"diff": "DIFF", "code": SNIPPET, "file_name": "x.py"}),
    "scan_bad_diff": ("scan_code", {"diff": "not a diff"}),
    "scan_everything": ("scan_code", {"paths": ["."]}),
    "no_such_tool": ("delete_rules", {}),
    "list_after_errors": ("list_rules", {"status": "active"}),
}


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.test", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repository whose last commit is the sample change."""
    repo = tmp_path_factory.mktemp("reviewed")
    code = repo / "samples" / "review" / "scheduler.py"
    code.parent.mkdir(parents=True)
    shutil.copy(SAMPLE / "scheduler.py", code)
    _git(repo, "init", "-q")
    _git(repo, "apply", "-R", str(SAMPLE / "change.diff"))
    (repo / "README.md").write_text("An engine.\n", encoding="utf-8")
    (repo / "engine").mkdir()
    (repo / "engine" / "core.py").write_text(SNIPPET, encoding="utf-8")  # a hint, unchanged
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "before")
    shutil.copy(SAMPLE / "scheduler.py", code)
    (repo / "docs").mkdir()
    (repo / "docs" / "changes.md").write_text("Urgent admission.\n", encoding="utf-8")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "the change")
    return repo


class Session:
    """What one session with the server gave: the listings and every call's result."""

    def __init__(self) -> None:
        self.initialized: Any = None
        self.tools: list[Any] = []
        self.resources: list[Any] = []
        self.prompts: list[Any] = []
        self.results: dict[str, Any] = {}
        self.pages: dict[str, str] = {}
        self.unknown_page: str = ""
        self.prompt: str = ""


async def _session(repo: Path, diff: str) -> Session:
    found = Session()
    params = StdioServerParameters(
        command=str(RLT_RULES),
        args=["mcp", "--rules", str(RULES), "--site-url", SITE_URL],
        cwd=str(repo),
        # The whole environment (the SDK passes on only HOME, PATH and a few more), so the
        # server imports the code under test as the command-line runs below do (PYTHONPATH).
        env=dict(os.environ),
    )
    substitutes = {"DIFF": diff, "SAMPLE": (SAMPLE / "findings.yaml").read_text(encoding="utf-8")}
    substitutes["PROBLEMS"] = _answer_with_every_problem()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        found.initialized = await session.initialize()
        found.tools = (await session.list_tools()).tools
        found.resources = (await session.list_resources()).resources
        found.prompts = (await session.list_prompts()).prompts
        for name, (tool, arguments) in CALLS.items():
            given = {key: substitutes.get(value, value) if isinstance(value, str) else value
                     for key, value in arguments.items()}  # fmt: skip
            found.results[name] = await session.call_tool(tool, given)
        for rule_id in ("R03", "R10"):
            contents = (await session.read_resource(f"rlt://rules/{rule_id}")).contents
            found.pages[rule_id] = contents[0].text
        try:
            await session.read_resource("rlt://rules/R99")
        except MCPError as error:
            found.unknown_page = str(error)
        prompt = await session.get_prompt(mcp_names.REVIEW_PROMPT, {"base": "origin/main"})
        found.prompt = prompt.messages[0].content.text
    return found


@pytest.fixture(scope="module")
def session(repo: Path) -> Session:
    diff = (SAMPLE / "change.diff").read_text(encoding="utf-8")
    # In a thread of its own: playwright's sync API (the browser tests) may have left an event
    # loop running in this one, and asyncio.run() refuses to start inside a running loop.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, _session(repo, diff)).result()


@pytest.fixture(scope="module")
def library() -> Library:
    return load_library(RULES)


def data(session: Session, name: str) -> Any:
    result = session.results[name]
    assert not result.is_error, (name, result.content)
    return result.structured_content


def error(session: Session, name: str) -> str:
    result = session.results[name]
    assert result.is_error, (name, result.structured_content)
    (content,) = result.content
    return content.text


def text(session: Session, name: str) -> str:
    return data(session, name)["result"]


def cli(repo: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(RLT_RULES), *args], cwd=repo, input=stdin, capture_output=True, text=True, check=False
    )


# --- the server and what it lists ------------------------------------------------------------


def test_initialise_names_the_library_and_the_loop(session: Session, library: Library) -> None:
    info = session.initialized.server_info
    assert (info.name, info.title) == ("rlt-rules", f"{library.title} {library.version}")
    assert "review_context" in session.initialized.instructions
    assert "check_findings" in session.initialized.instructions


def test_the_tools_are_the_named_ones_and_all_read_only(session: Session) -> None:
    assert [tool.name for tool in session.tools] == list(mcp_names.TOOLS)
    for tool in session.tools:
        assert tool.annotations.read_only_hint is True, tool.name
        assert tool.annotations.destructive_hint is False, tool.name
        assert tool.description, tool.name


def test_the_review_subagent_is_granted_exactly_the_servers_tools(
    session: Session, library: Library
) -> None:
    """The reviewers' export names each tool as Claude Code does: mcp__<server>__<tool>."""
    agent = reviewers.files(library, SITE_URL)[reviewers.CLAUDE].decode("utf-8")
    front = yaml.safe_load(agent.split("---\n")[1])
    granted = [tool.strip() for tool in front["tools"].split(",")]
    served = [f"mcp__rlt-rules__{tool.name}" for tool in session.tools]
    assert granted == ["Read", "Grep", "Glob", *served]
    config = json.loads(reviewers.files(library, SITE_URL)[reviewers.MCP_CONFIG])
    assert config["mcpServers"]["rlt-rules"]["args"] == ["mcp"]


def test_every_rule_page_is_a_resource(session: Session, library: Library) -> None:
    assert [resource.uri for resource in session.resources] == [
        f"rlt://rules/{rule.id}" for rule in library.rules
    ]
    for resource, rule in zip(session.resources, library.rules, strict=True):
        assert resource.name == rule.id and resource.mime_type == "text/markdown"
        assert resource.title == f"{rule.id} — {rule.title}"
        assert resource.description and rule.statement.startswith(resource.description[:-1])


def test_a_page_holds_the_whole_rule_with_its_examples(session: Session, library: Library) -> None:
    rule = library.rule("R10")
    page = session.pages["R10"]
    assert page.startswith(f"# R10 — {rule.title}\n\n")
    assert f"Page: {SITE_URL}rules/R10/" in page
    for part in (rule.statement, rule.rationale, rule.correction, *rule.triggers):
        assert part in page
    for example in rule.examples:
        assert example.code.strip() in page
    assert "Unknown resource: rlt://rules/R99" in session.unknown_page


def test_a_page_links_each_trigger_by_its_anchor(session: Session, library: Library) -> None:
    """Each trigger on the page ends with its anchor, linked to that trigger on the versioned
    page the server was given; the page says to cite it as ``trigger_anchor``."""
    rule = library.rule("R10")
    page = session.pages["R10"]
    anchors = rule.anchors().triggers
    assert len(anchors) == len(rule.triggers) > 0
    for trigger, anchor in zip(rule.triggers, anchors, strict=True):
        assert f"- {trigger} ([`{anchor}`]({SITE_URL}rules/R10/#{anchor}))\n" in page
    assert page.index("Triggers:") < page.index(ANCHOR_NOTE) < page.index("Impact:")


def test_without_a_site_address_a_page_names_anchors_unlinked(library: Library) -> None:
    """No site URL: each anchor in code, its link relative to the site root (as ``show``)."""
    rule = library.rule("R03")
    page = views.page_text(library, None, rule)
    (cite, *_) = views.rule_view(library, None, "R03", views.RuleDetail.FULL)["triggers"]
    anchor = rule.anchors().triggers[0]
    assert f"- {rule.triggers[0]} (`{anchor}`)\n" in page and "](rules/R03/#" not in page
    assert cite["anchor"] == anchor and cite["url"] == f"rules/R03/#{anchor}"


def test_the_prompt_starts_a_review_with_the_preamble(session: Session, library: Library) -> None:
    (prompt,) = session.prompts
    assert prompt.name == "review_change"
    assert [argument.name for argument in prompt.arguments] == ["base"]
    for paragraph in library.preamble:
        assert paragraph in session.prompt
    assert "`git diff origin/main`" in session.prompt
    for tool in (mcp_names.REVIEW_CONTEXT, mcp_names.CHECK_FINDINGS, mcp_names.GET_RULE):
        assert f"`{tool}`" in session.prompt
    assert "cite the trigger the code matches by its anchor (`trigger_anchor`)" in session.prompt


# --- list, get, search -----------------------------------------------------------------------


def test_list_rules_filters_combine_as_the_list_command(
    session: Session, repo: Path, library: Library
) -> None:
    everything = data(session, "list")
    assert everything["library_version"] == library.version
    assert [rule["id"] for rule in everything["rules"]] == [rule.id for rule in library.rules]
    assert everything["rules"][2] == {
        "id": "R03",
        "title": library.rule("R03").title,
        "category": library.rule("R03").category,
        "status": "active",
        "tags": list(library.rule("R03").tags),
        "url": f"{SITE_URL}rules/R03/",
        "uri": "rlt://rules/R03",
    }
    for name, option in (
        ("list_category", ["--category", "boundaries-and-capabilities"]),
        ("list_tag", ["--tag", "preemption"]),
        ("list_status", ["--status", "retired"]),
    ):
        shown = cli(repo, "list", "--rules", str(RULES), "--format", "json", *option)
        expected = [record["id"] for record in json.loads(shown.stdout)]
        assert [rule["id"] for rule in data(session, name)["rules"]] == expected, name
    assert data(session, "list_category")["count"] > 0
    assert data(session, "list_status") == {"library_version": "1.0.0", "count": 0, "rules": []}
    assert data(session, "list_after_errors")["count"] == len(library.rules)


def test_list_rules_bad_filters_say_what_exists(session: Session, library: Library) -> None:
    categories = ", ".join(category.id for category in library.categories)
    assert error(session, "list_bad_category").endswith(
        f"unknown category 'boundaries'; categories: {categories}"
    )
    assert "unknown tag 'no-such-tag'; tags: " in error(session, "list_bad_tag")
    assert "preemption" in error(session, "list_bad_tag")
    assert "Input should be 'active', 'deprecated' or 'retired'" in error(
        session, "list_bad_status"
    )


def test_get_rule_at_each_detail(session: Session, library: Library) -> None:
    rule = library.rule("R03")
    statement = data(session, "get_statement")
    assert statement["id"] == "R03" and statement["detail"] == "statement"
    assert rule.statement in statement["text"] and rule.triggers[0] not in statement["text"]
    guidance = data(session, "get_guidance")  # "r3" is R03; guidance is the default
    assert guidance["id"] == "R03" and guidance["detail"] == "guidance"
    assert rule.triggers[0] in guidance["text"] and rule.correction in guidance["text"]
    assert rule.statement not in guidance["text"]
    full = data(session, "get_full")
    assert full["text"] == session.pages["R10"]
    assert full["url"] == f"{SITE_URL}rules/R10/"


def test_get_rule_cites_each_trigger_by_its_anchor(
    session: Session, repo: Path, library: Library
) -> None:
    """At every detail, ``triggers`` gives each trigger's anchor, its versioned link and the
    Markdown citation ``findings markdown`` renders for it; the guidance ends each trigger with
    its anchor and says to cite it. The sample answer's anchor, which ``check_findings``
    accepts, is among them."""
    rule = library.rule("R03")
    anchors = list(rule.anchors().triggers)
    statement, guidance = data(session, "get_statement"), data(session, "get_guidance")
    assert statement["triggers"] == guidance["triggers"]
    assert [cite["anchor"] for cite in guidance["triggers"]] == anchors
    for cite in guidance["triggers"]:
        assert cite["url"] == f"{SITE_URL}rules/R03/#{cite['anchor']}"
        assert cite["citation"].startswith("[R03, trigger: ")
        assert cite["citation"].endswith(f"]({cite['url']})")
    for trigger, anchor in zip(rule.triggers, anchors, strict=True):
        assert f"- {trigger} (`{anchor}`)\n" in guidance["text"]
        assert anchor not in statement["text"]
    assert ANCHOR_NOTE in guidance["text"] and ANCHOR_NOTE not in statement["text"]
    full = data(session, "get_full")
    assert [cite["anchor"] for cite in full["triggers"]] == list(
        library.rule("R10").anchors().triggers
    )
    sample = yaml.safe_load((SAMPLE / "findings.yaml").read_text(encoding="utf-8"))
    (cited,) = [f for f in sample["findings"] if f.get("rule") == "R03" and "trigger_anchor" in f]
    assert cited["trigger_anchor"] in anchors and data(session, "check_ok")["ok"] is True
    answer = str(SAMPLE / "findings.yaml")
    shown = cli(repo, "findings", "markdown", answer, "--rules", str(RULES), "--site-url", SITE_URL)
    (cite,) = [c for c in guidance["triggers"] if c["anchor"] == cited["trigger_anchor"]]
    assert shown.returncode == 0 and f"**Rule trigger:** {cite['citation']}\n" in shown.stdout


def test_get_rule_bad_arguments(session: Session) -> None:
    assert error(session, "get_unknown").endswith(
        "unknown rule id 'R99': library 1.0.0 has rules R01–R17"
    )
    assert "Input should be 'statement', 'guidance' or 'full'" in error(session, "get_bad_detail")
    assert "rule_id" in error(session, "get_no_id") and "Field required" in error(
        session, "get_no_id"
    )


def test_search_finds_ids_titles_statements_and_triggers(
    session: Session, library: Library
) -> None:
    words = data(session, "search_words")["results"]
    assert words[0]["matched_words"] == ["preemption", "victim"]
    assert "R04" in [hit["id"] for hit in words[:3]]  # "victim selection" is R04's statement
    assert data(session, "search_id")["results"][0]["id"] == "R07"
    assert len(data(session, "search_id")["results"]) == 1
    with_hasattr = [rule.id for rule in library.rules if "hasattr" in " ".join(rule.triggers)]
    found = data(session, "search_trigger")["results"]
    assert with_hasattr and [hit["id"] for hit in found][: len(with_hasattr)] == with_hasattr
    assert "triggers" in found[0]["matched_fields"]
    assert "preemption" in " ".join(
        library.rule(data(session, "search_prefix")["results"][0]["id"]).tags
    )
    assert data(session, "search_nothing") == {"query": "zyxwvut", "count": 0, "results": []}
    assert "give at least one word" in error(session, "search_empty")
    assert "greater than or equal to 1" in error(session, "search_bad_limit")
    assert error(session, "search_unknown_argument").endswith(
        "search_rules takes no argument 'limt'; its arguments: query, limit"
    )


# --- review context and the findings check ---------------------------------------------------


def test_review_context_is_the_review_context_command_s_document(
    session: Session, repo: Path
) -> None:
    diff = (SAMPLE / "change.diff").read_text(encoding="utf-8")
    args = ["review-context", "--rules", str(RULES), "--site-url", SITE_URL, "--diff", "-"]
    shown = cli(repo, *args, stdin=diff)
    assert shown.returncode == 0, shown.stderr
    assert text(session, "context_diff") == shown.stdout
    # A diff sent as text, like one on stdin, is in no file: the reviewer is told to save it.
    assert "--diff CHANGE.diff`" in shown.stdout and "no file holds it" in shown.stdout
    # `base` reads `git diff BASE` in the repository: here, the same change, and the check
    # command reads it again the same way.
    based = ["review-context", "--rules", str(RULES), "--site-url", SITE_URL, "--base", "HEAD~1"]
    assert text(session, "context_base") == cli(repo, *based).stdout
    assert "`git diff 'HEAD~1' | rlt-rules findings check ANSWER.yaml" in text(
        session, "context_base"
    )
    budget = cli(repo, *based, "--max-chars", "9000")
    assert text(session, "context_budget") == budget.stdout
    assert len(text(session, "context_budget")) <= 9000
    # `paths` limit the change, as `review-context -- PATH` does.
    assert text(session, "context_paths") == cli(repo, *based, "--", "samples").stdout
    assert "samples/review/scheduler.py" in text(session, "context_paths")
    other = text(session, "context_other_paths")
    assert "- `docs/changes.md` (added)" in other and "scheduler.py` (" not in other
    assert "- `docs/changes.md` (added)" in text(session, "context_base")
    assert "docs/changes.md" not in text(session, "context_paths")


def test_review_context_bad_arguments(session: Session) -> None:
    # Neither `diff` nor `base`: the working tree against HEAD, which here is clean.
    assert error(session, "context_no_change").endswith(
        "git diff HEAD: no change between HEAD and the working tree: give another base (a "
        "branch such as main) or the change as `diff`"
    )
    assert "../x: outside the repository" in error(session, "context_paths_outside")
    assert "`paths` limit the change read from git" in error(session, "context_diff_paths")
    assert "max_chars 300 cannot hold the review context" in error(session, "context_too_small")
    assert "greater than or equal to 1" in error(session, "context_bad_budget")
    assert error(session, "context_both").endswith(
        "give the change as `diff` or as `base`, not both"
    )
    assert "diff: no changed file found" in error(session, "context_bad_diff")
    assert "git diff no-such-branch failed in" in error(session, "context_unknown_base")
    assert error(session, "context_option_base").endswith(
        "base '--output=/tmp/owned' is not a revision: give a branch, tag or commit"
    )
    assert not Path("/tmp/owned").exists()


def test_check_findings_accepts_the_sample(session: Session) -> None:
    assert data(session, "check_ok") == {
        "ok": True,
        "findings": 6,
        "errors": 0,
        "warnings": 0,
        "problems": [],
    }


def test_check_findings_gives_every_problem_with_its_position(session: Session, repo: Path) -> None:
    """One call: the schema problem and the others, as `findings check` reports them."""
    outcome = data(session, "check_problems")
    assert outcome["ok"] is False and outcome["findings"] is None
    assert outcome["errors"] == len(outcome["problems"]) >= 4
    (repo / "answer.yaml").write_text(_answer_with_every_problem(), encoding="utf-8")
    based = subprocess.run(["git", "diff", "HEAD~1"], cwd=repo, capture_output=True, text=True)
    shown = cli(repo, "findings", "check", "answer.yaml", "--rules", str(RULES), "--repo", ".",
                "--diff", "-", stdin=based.stdout)  # fmt: skip
    assert shown.returncode == 1
    assert [
        f"answer.yaml:{p['line']}:{p['column']}: {p['message']}" for p in outcome["problems"]
    ] == shown.stderr.splitlines()[:-1]
    messages = " / ".join(problem["message"] for problem in outcome["problems"])
    for expected in (
        "missing required field 'trigger' in findings[0]",
        "findings[1].location.end_line 900 is beyond the end of samples/review/scheduler.py",
        "unknown rule 'R42'",
        "findings[3].location.path 'README.md' is not in the change under review",
    ):
        assert expected in messages
    assert {problem["rule"] for problem in outcome["problems"]} >= {"R42", "R07"}


def test_check_findings_bad_input(session: Session) -> None:
    (problem,) = data(session, "check_fenced")["problems"]
    assert problem["line"] == 1 and "wrapped in a Markdown code fence" in problem["message"]
    assert "Input should be a valid string" in error(session, "check_not_text")
    assert "diff: " in error(session, "check_bad_diff")


# --- scan ------------------------------------------------------------------------------------


def test_scan_paths_is_the_scan_command_s_json(session: Session, repo: Path) -> None:
    shown = cli(repo, "scan", "samples", "--rules", str(RULES), "--format", "json",
                "--site-url", SITE_URL)  # fmt: skip
    assert data(session, "scan_paths") == json.loads(shown.stdout)
    assert data(session, "scan_paths")["hits"]


def test_scan_a_change_keeps_the_hints_on_its_added_lines(session: Session, repo: Path) -> None:
    """As `rlt-rules scan --diff` does: only hints on lines the change adds, in its files
    (or in the paths given)."""
    scan = ["scan", "--diff", "-", "--rules", str(RULES), "--format", "json", "--site-url",
            SITE_URL]  # fmt: skip
    diff = (SAMPLE / "change.diff").read_text(encoding="utf-8")
    expected = json.loads(cli(repo, *scan, stdin=diff).stdout)
    assert expected["hits"] and data(session, "scan_diff") == expected
    assert data(session, "scan_base_paths") == expected
    based = subprocess.run(["git", "diff", "HEAD~1"], cwd=repo, capture_output=True, text=True)
    assert data(session, "scan_base") == json.loads(cli(repo, *scan, stdin=based.stdout).stdout)
    assert data(session, "scan_base")["hits"] == expected["hits"]
    hits = data(session, "scan_everything")["hits"]
    assert {hit["path"] for hit in hits} == {"engine/core.py", "samples/review/scheduler.py"}
    assert {hit["path"] for hit in expected["hits"]} == {"samples/review/scheduler.py"}
    assert "not with `code`" in error(session, "scan_diff_code")
    assert "diff: " in error(session, "scan_bad_diff")


def test_scan_a_snippet_under_its_file_name(session: Session) -> None:
    (hit,) = data(session, "scan_snippet")["hits"]
    assert (hit["path"], hit["line"], hit["rule"]) == ("engine/core.py", 3, "R10")
    assert hit["url"] == f"{SITE_URL}rules/R10/"


def test_scan_bad_arguments(session: Session, repo: Path) -> None:
    assert error(session, "scan_outside").endswith(f"../: outside the repository {repo.resolve()}")
    assert "src/nothing.py: no such file or folder" in error(session, "scan_missing")
    assert "give `paths` to scan" in error(session, "scan_neither")
    assert error(session, "scan_both").endswith("give `paths` or `code`, not both")
    assert "give `file_name`, ending in .py" in error(session, "scan_no_name")
    assert "give `file_name`, ending in .py" in error(session, "scan_not_python")
    assert "Unknown tool: delete_rules" in error(session, "no_such_tool")


# --- the command -----------------------------------------------------------------------------


def test_mcp_command_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mcp", "--rules", str(RULES), "--repo", str(tmp_path / "none")]) == 2
    assert "no such directory (--repo)" in capsys.readouterr().err
    assert main(["mcp", "--rules", str(tmp_path / "none")]) == 2
    assert "no such rules folder" in capsys.readouterr().err
    broken = tmp_path / "rules"
    shutil.copytree(RULES, broken)
    (broken / "R03.yaml").write_text("id: R03\n", encoding="utf-8")
    assert main(["mcp", "--rules", str(broken)]) == 1
    assert "the library is invalid" in capsys.readouterr().err


# --- the site page ---------------------------------------------------------------------------


def test_the_page_configures_three_clients_and_lists_every_tool(library: Library) -> None:
    """site/mcp.md: Claude Code's block is the exported `.mcp.json`; Cursor's and VS Code's
    start the same command in the workspace; the table names every tool the server serves."""
    page = (ROOT / "site" / "mcp.md").read_text(encoding="utf-8")
    claude, cursor, vscode = [
        json.loads(block) for block in re.findall(r"```json\n(.*?)```", page, re.S)
    ]
    assert json.dumps(claude, indent=2) + "\n" == reviewers.mcp_config().decode("utf-8")
    assert cursor["mcpServers"]["rlt-rules"] == {
        "command": "rlt-rules",
        "args": ["mcp", "--repo", "${workspaceFolder}"],
    }
    assert vscode["servers"]["rlt-rules"] == {
        "type": "stdio",
        "command": "rlt-rules",
        "args": ["mcp", "--repo", "${workspaceFolder}"],
    }
    for tool in mcp_names.TOOLS:
        assert f"| `{tool}` |" in page, tool
    assert "`rlt://rules/R03`" in page and f"`{mcp_names.REVIEW_PROMPT}`" in page
