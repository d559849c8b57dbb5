"""The library as a read-only MCP server (the official MCP Python SDK's :class:`MCPServer`).

Each tool is a thin view over library code: the listing, rule text and search of :mod:`.views`,
the review context of :func:`rlt_rules.findings.context.review_context`, the findings check of
:func:`rlt_rules.findings.check.check_answer` and the scan engine (:mod:`rlt_rules.scan`). Each
call runs in a worker process under a deadline (:mod:`.calls`); a bad argument, and any error
of the library's, is a :class:`ToolError` whose message the agent reads (what is wrong, what
exists); anything else the SDK reports as a failed call, and the server keeps serving. The
client's lines are checked before the SDK reads them (:mod:`.wire`).

Resources: each rule's page as Markdown at ``rlt://rules/R03``. Prompt: ``review_change``, the
library's preamble and the review loop through the tools.
"""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path
from typing import Annotated, Any, TypedDict

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.resources import FunctionResource
from mcp.types import CallToolResult, InputRequiredResult, ToolAnnotations
from pydantic import Field

from ..detectors.detect import DetectorSet
from ..facts import mcp_names
from ..facts.about import NAME, VERSION
from ..files.config import ConfigError
from ..files.gitdiff import DEFAULT_BASE
from ..files.reading import MAX_FILE_BYTES
from ..findings.check import check_answer
from ..findings.context import ContextTooLong, DiffSource, review_context
from ..library.model import Library, Status
from ..project.discover import Workspace as LibraryWorkspace
from ..render.text import rule_heading
from ..scan import DiffError as ScanDiffError
from ..scan import (
    FileHit,
    ScanResult,
    changed_lines,
    detector_set,
    places_to_look,
    scan,
)
from ..scan import (
    Problem as ScanProblem,
)
from ..scan.engine import scan_text
from ..scan.files import PYTHON_SUFFIXES
from ..scan.matcher import FILE_TIMEOUT
from ..scan.render import Output, json_data
from . import views
from .calls import Calls
from .calls import tool_errors as _tool_errors
from .views import RuleDetail, RuleIndex, ViewError
from .wire import Wire
from .workspace import Workspace

#: Every tool only reads: the library, the repository's files, ``git diff``.
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
#: How an answer is named in the positions ``check_findings`` gives.
ANSWER_NAME = "answer.yaml"

Diff = Annotated[
    str | None,
    Field(description="the change as a unified diff (`git diff` output); or give `base`"),
]
Base = Annotated[
    str | None,
    Field(description="a revision (`main`, `origin/main...HEAD`): the change is `git diff BASE`"),
]
ChangePaths = Annotated[
    list[str] | None,
    Field(
        description="only the change under these files and folders, relative to the "
        "repository (`git diff BASE -- PATH...`); not with `diff`"
    ),
]


class Problem(TypedDict):
    line: int
    column: int
    severity: str
    message: str
    rule: str | None


class CheckOutcome(TypedDict):
    ok: bool
    findings: int | None
    errors: int
    warnings: int
    problems: list[Problem]


class _Server(MCPServer):
    """An :class:`MCPServer` that refuses an argument a tool does not take (the SDK drops it
    silently, so a misspelt ``limt`` would look accepted). :attr:`calls` runs the tools."""

    calls: Calls

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context | None = None
    ) -> CallToolResult | InputRequiredResult:
        taken = {
            tool.name: tool.input_schema.get("properties", {}) for tool in await self.list_tools()
        }
        unknown = sorted(set(arguments) - set(taken.get(name, arguments)))
        if unknown:
            listed = ", ".join(taken[name]) or "none"
            raise ToolError(
                f"{name} takes no argument {', '.join(repr(key) for key in unknown)}; "
                f"its arguments: {listed}"
            )
        return await super().call_tool(name, arguments, context)


def build_server(
    library: Library,
    site_url: str | None,
    root: Path,
    *,
    found: LibraryWorkspace | None = None,
    call_timeout: float = mcp_names.CALL_TIMEOUT,
    in_worker: bool = False,
) -> _Server:
    """The server for ``library``, reviewing the repository at ``root``; ``site_url`` is where
    the rule pages are (links relative to the site root without it). ``found`` (the library's
    source and the repository's ``[tool.rlt-rules]``) makes the review context the one
    ``rlt-rules review-context`` prints there: where the library came from, and the places to
    look first. Each tool call runs in a worker process stopped after ``call_timeout`` seconds
    (``in_worker``: the server a worker builds, whose calls run where they are made)."""
    root = root.resolve()
    workspace = Workspace(root)
    index = RuleIndex(library)
    detectors = detector_set(library)
    file_timeout = (found.config.file_timeout if found is not None else None) or FILE_TIMEOUT
    server = _Server(
        NAME,
        title=f"{library.title} {library.version}",
        version=VERSION,
        instructions=f"{library.title} {library.version}: code-review rules "
        f"({library.id_span()}) cited by id. To review a change, call "
        f"`{mcp_names.REVIEW_CONTEXT}`, answer in the findings format it shows and check the "
        f"answer with `{mcp_names.CHECK_FINDINGS}`; the prompt `{mcp_names.REVIEW_PROMPT}` "
        "walks the loop. Paths are relative to the repository the server runs in, "
        f"{workspace.root}.",
        log_level="WARNING",
    )
    start = None if in_worker else partial(_worker_functions, library, site_url, root, found)
    server.calls = calls = Calls(start, timeout=call_timeout)

    def tool(name: str, description: str):
        register = server.tool(name=name, description=description, annotations=READ_ONLY)
        return lambda function: register(calls.bounded(name, function))

    @tool(
        mcp_names.LIST_RULES,
        "List the rules (id, title, category, status, tags, page), filtered by category, tag "
        "or status; filters combine.",
    )
    def list_rules(
        category: Annotated[str | None, Field(description="a category id")] = None,
        tag: Annotated[str | None, Field(description="a tag")] = None,
        status: Status | None = None,
    ) -> views.RuleListing:
        with _tool_errors():
            shown = str(status) if status is not None else None
            return views.listing(library, site_url, category, tag, shown)

    @tool(
        mcp_names.GET_RULE,
        "One rule as Markdown: `statement` (the authors' words), `guidance` (triggers and "
        "correction: what to spot and what to do) or `full` (its whole page: rationale, "
        "impact and runnable bad/good examples). Each trigger ends with its anchor; "
        "`triggers` gives each anchor (a finding's `trigger_anchor`) with its link and a "
        "Markdown citation.",
    )
    def get_rule(
        rule_id: Annotated[str, Field(description="the rule's id, e.g. R03")],
        detail: RuleDetail = RuleDetail.GUIDANCE,
    ) -> views.RuleView:
        with _tool_errors():
            return views.rule_view(library, site_url, rule_id, detail)

    @tool(
        mcp_names.SEARCH_RULES,
        "Find rules by words (ids, titles, tags, statements, triggers, search terms, "
        "corrections); most words matched first.",
    )
    def search_rules(
        query: Annotated[str, Field(description="words, e.g. 'preemption victim' or 'R07'")],
        limit: Annotated[int, Field(ge=1, le=100, description="at most this many rules")] = 10,
    ) -> views.SearchResults:
        with _tool_errors():
            return index.search(site_url, query, limit)

    @tool(
        mcp_names.REVIEW_CONTEXT,
        "What a review of one change needs, as one Markdown document (as `rlt-rules "
        "review-context` prints it): the preamble, the rules, the files and line ranges the "
        "change touches, the detectors' hints on it, and the findings format to answer in. "
        "The change: `diff`, or `git diff BASE` (default: the working tree against HEAD), "
        "limited to `paths`.",
    )
    def review_context_tool(
        diff: Diff = None,
        base: Base = None,
        paths: ChangePaths = None,
        max_chars: Annotated[
            int | None,
            Field(ge=1, description="keep the document within this many characters"),
        ] = None,
    ) -> str:
        with _tool_errors():
            text, source, top = _change_text(workspace, diff, base, paths)
            change = workspace.change(text, None)
            places = None
            if found is not None:
                try:
                    places = places_to_look(text, library, found.config, top)
                except (ConfigError, ScanDiffError) as error:
                    raise ViewError(str(error)) from None
            try:
                return review_context(
                    library,
                    site_url,
                    change,
                    max_chars=max_chars,
                    diff=source,
                    repo=os.path.relpath(top, workspace.root),
                    source=found.source.describe() if found is not None else None,
                    library_option=found.source.option() if found is not None else None,
                    places=places,
                )
            except ContextTooLong as error:
                raise ViewError(str(error).replace("--max-chars", "max_chars")) from None

    @tool(
        mcp_names.CHECK_FINDINGS,
        "Check a findings answer (YAML or JSON) against the findings format, the library, the "
        "repository's files and the change: every problem in one call, each at its line and "
        "column in the answer. `ok` is true when the answer has no errors.",
    )
    def check_findings(
        answer: Annotated[str, Field(description="the answer: a findings document")],
        diff: Diff = None,
        base: Base = None,
    ) -> CheckOutcome:
        with _tool_errors():
            change = workspace.change(diff, base)
        result = check_answer(answer.encode("utf-8"), ANSWER_NAME, library, workspace.root, change)
        review = result.review
        return {
            "ok": review is not None,
            "findings": len(review.findings) if review is not None else None,
            "errors": len(result.errors),
            "warnings": len(result.warnings),
            "problems": [
                {
                    "line": d.line,
                    "column": d.column,
                    "severity": str(d.severity),
                    "message": d.message,
                    "rule": d.rule_id,
                }
                for d in result.diagnostics
            ],
        }

    @tool(
        mcp_names.SCAN_CODE,
        "Point at code shaped like a rule's triggers (the rules' detectors): hints for you to "
        "judge, never verdicts. Give `paths` (files and folders of the repository), or `code` "
        "with a `file_name`. With a change (`diff`, or `base` for `git diff BASE`), only hints "
        "on the lines it adds are kept, as `rlt-rules scan --diff` keeps them; without "
        "`paths`, its files are scanned.",
    )
    def scan_code(
        paths: Annotated[
            list[str] | None, Field(description="files and folders, relative to the repository")
        ] = None,
        code: Annotated[str | None, Field(description="Python source to scan")] = None,
        file_name: Annotated[
            str | None, Field(description="the name `code` is reported under, e.g. sched.py")
        ] = None,
        diff: Diff = None,
        base: Base = None,
    ) -> dict[str, Any]:
        with _tool_errors():
            if diff is not None or base is not None:
                result = _scan_change(workspace, detectors, paths, code, diff, base, file_timeout)
            else:
                result = _scan(workspace, detectors, paths, code, file_name, file_timeout)
        return json_data(result, library, Output(site_url))

    @server.prompt(
        name=mcp_names.REVIEW_PROMPT,
        description=f"Start a review of a change with {library.title}'s preamble and the "
        "review loop through this server's tools.",
    )
    def review_change(base: str = "") -> str:
        return views.review_prompt(library, base.strip() or None)

    for rule in library.rules:
        server.add_resource(
            FunctionResource(
                uri=views.rule_uri(rule.id),
                name=rule.id,
                title=rule_heading(rule),
                description=views.resource_description(rule),
                mime_type="text/markdown",
                fn=partial(views.page_text, library, site_url, rule),
            )
        )
    return server


def serve(
    found: LibraryWorkspace,
    site_url: str | None,
    root: Path,
    *,
    call_timeout: float = mcp_names.CALL_TIMEOUT,
) -> None:
    """Serve the library ``found`` over stdio until the client closes the connection, each
    tool call stopped after ``call_timeout`` seconds."""
    server = build_server(found.library, site_url, root, found=found, call_timeout=call_timeout)
    # The wire first: the workers' fork server, started next, must not hold the client's pipes.
    with Wire() as wire, server.calls:
        wire.serve(partial(server.run, "stdio"))


def _worker_functions(
    library: Library, site_url: str | None, root: Path, found: LibraryWorkspace | None
) -> dict[str, Any]:
    """The tools' functions, for a worker process: the server built again there."""
    server = build_server(library, site_url, root, found=found, in_worker=True)
    return server.calls.functions


def _change_text(
    workspace: Workspace, diff: str | None, base: str | None, paths: list[str] | None
) -> tuple[str, DiffSource, Path]:
    """The change for ``review_context``: ``diff``, else ``git diff BASE -- PATH...`` (the
    working tree against HEAD by default); where it came from, and the root its paths are
    relative to."""
    if diff is not None:
        if base is not None:
            raise ViewError("give the change as `diff` or as `base`, not both")
        if paths:
            raise ViewError(
                "`paths` limit the change read from git; with `diff`, give the diff of those "
                "paths only"
            )
        return diff, DiffSource(), workspace.root
    read = workspace.git_change(base or DEFAULT_BASE, paths or ())
    return read.text, DiffSource(command=read.command()), read.top


def _scan_change(
    workspace: Workspace,
    detectors: DetectorSet,
    paths: list[str] | None,
    code: str | None,
    diff: str | None,
    base: str | None,
    file_timeout: float,
) -> ScanResult:
    """``scan --diff``: the hints on the lines the change adds, in ``paths`` or the change's
    files."""
    if code is not None:
        raise ViewError("a change (`diff` or `base`) goes with `paths` or alone, not with `code`")
    text = workspace.diff_text(diff, base)
    assert text is not None
    try:
        changed = changed_lines(text)
    except ScanDiffError as error:
        raise ViewError(f"diff: {error}") from None
    root = workspace.root
    if paths is not None:
        found = workspace.paths(paths)
    else:
        python = [path for path in sorted(changed) if path.endswith(PYTHON_SUFFIXES)]
        found = [root / path for path in python if (root / path).is_file()]
        if python and not found:
            raise ViewError(
                f"none of the {len(python)} Python file(s) the change names exists in {root}"
            )
    return scan(found, detectors, changed=changed, root=root, file_timeout=file_timeout)


def _scan(
    workspace: Workspace,
    detectors: DetectorSet,
    paths: list[str] | None,
    code: str | None,
    file_name: str | None,
    file_timeout: float,
) -> ScanResult:
    if paths is not None and code is not None:
        raise ViewError("give `paths` or `code`, not both")
    if paths is None and code is None:
        raise ViewError("give `paths` to scan (files and folders), or `code` with a `file_name`")
    if paths is not None:
        return scan(
            workspace.paths(paths), detectors, root=workspace.root, file_timeout=file_timeout
        )
    if not file_name or not file_name.endswith(PYTHON_SUFFIXES):
        raise ViewError(
            "give `file_name`, ending in .py: the detectors read Python, and hits name the file"
        )
    assert code is not None
    if len(code) > MAX_FILE_BYTES or len(code.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES:
        raise ViewError(
            f"code: over the {MAX_FILE_BYTES:,}-byte limit on a scanned file: not scanned; "
            "give the file by `paths`, or a part of it as `code`"
        )
    found = scan_text(detectors, code, timeout=file_timeout)
    hits = tuple(FileHit(file_name, hit) for hit in found.hits)
    problems = tuple(
        ScanProblem(
            file_name,
            f"detector {stalled} did not finish on this code within {file_timeout:g} s: its "
            "hints here are missing; the other detectors ran",
        )
        for stalled in found.stalled
    )
    return ScanResult(hits, problems, 1, found.suppressed, workspace.root)
