"""``reviewers``: the library as the instruction files AI reviewers read from the reviewed
repository, one tree to copy into it.

Each tool has its own file, front matter and limits (as documented in late 2026):

========================================================  ==========================================
``AGENTS.md``                                              the open convention (Codex, Copilot's
                                                           agent, CodeRabbit, Windsurf…): plain
                                                           Markdown; Codex reads at most 32 KiB of
                                                           all AGENTS.md files together
``.github/instructions/rlt-rules.instructions.md``         Copilot: ``applyTo`` globs; code review
                                                           reads the first 4,000 characters
``.cursor/rules/rlt-rules.mdc``                            Cursor: ``description``, ``globs``,
                                                           ``alwaysApply``; under 500 lines
``.claude/agents/rlt-reviewer.md``                         a Claude Code review subagent: ``name``,
                                                           ``description``, read-only ``tools``
                                                           (the MCP server's among them)
``.mcp.json``                                              Claude Code's project MCP servers: the
                                                           library's (``rlt-rules mcp``)
``.github/skills/<name>/SKILL.md``                         the Agent Skill, where Copilot code
                                                           review reads repository skills
``.coderabbit.yaml``                                       ``reviews.path_instructions``: up to
                                                           20,000 characters per instruction,
                                                           written once (a YAML alias per glob)
``.greptile/config.json``                                  ``rules`` with ids, scopes, severities
``.gemini/styleguide.md``                                  Gemini Code Assist's style guide
========================================================  ==========================================

Every file opens with a line saying it is generated, by which rlt-rules, from which library
version; every rule links its page. Where a file has a limit, the rules are listed in the most
detail that fits it (:func:`rlt_rules.render.digest.fit_rules`), never cut inside a rule; how
a file's blocks are joined and fitted is :mod:`.reviewer_documents`. ``apply_to`` globs
(default ``**/*.py``) scope every file that has scopes; the others say in words where the rules
apply. Retired rules are left out; a deprecated rule names its replacement. Rule text is the
inert library's (:mod:`rlt_rules.render.inert`).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..facts import mcp_names
from ..facts.about import NAME, VERSION
from ..files.jsonout import indented
from ..library.model import Library, Status
from ..render.answer import answer_blocks
from ..render.code import code_span
from ..render.digest import Detail, Measure, applicable_rules, line_breaks, rule_text, utf8_bytes
from ..render.inert import InertRules, inert_library, inert_text
from ..render.links import site_base
from ..render.yaml_text import yaml_text
from . import skill
from .astgrep import coderabbit_rule_dirs, exported
from .reviewer_documents import Listing, encoded, fitted_document, front_matter, known_rules

DEFAULT_APPLY_TO = ("**/*.py",)

AGENTS = "AGENTS.md"
COPILOT = ".github/instructions/rlt-rules.instructions.md"
CURSOR = ".cursor/rules/rlt-rules.mdc"
CLAUDE = ".claude/agents/rlt-reviewer.md"
CODERABBIT = ".coderabbit.yaml"
GREPTILE = ".greptile/config.json"
GEMINI = ".gemini/styleguide.md"
MCP_CONFIG = ".mcp.json"
#: Copilot code review reads repository skills from ``.github/skills/<name>/SKILL.md``.
SKILLS_DIR = ".github/skills"

#: Copilot code review reads only the first 4,000 characters of an instruction file.
COPILOT_MAX_CHARS = 4_000
#: CodeRabbit's schema: ``reviews.path_instructions[].instructions`` has ``maxLength`` 20,000.
CODERABBIT_MAX_CHARS = 20_000
#: Codex reads at most 32 KiB of all the AGENTS.md files on the way to the working directory
#: (the repository's own AGENTS.md files share it: merge, or keep theirs short).
AGENTS_MAX_BYTES = 32 * 1024
#: Cursor's guidance: keep a rule under 500 lines.
CURSOR_MAX_LINES = 500
#: The ``$schema`` the ``yaml-language-server`` line of ``.coderabbit.yaml`` names.
CODERABBIT_SCHEMA = "https://coderabbit.ai/integrations/schema.v2.json"
AGENT_NAME = "rlt-reviewer"
#: The subagent reads and searches, and asks the library's MCP server for the change's review
#: context and to check its answer; it never edits or runs anything.
AGENT_TOOLS = ", ".join(
    ["Read", "Grep", "Glob", *(mcp_names.claude_tool(tool) for tool in mcp_names.TOOLS)]
)
#: The server's entry in ``.mcp.json``: the installed ``rlt-rules``, started in the repository.
MCP_SERVER_ENTRY = {"type": "stdio", "command": NAME, "args": ["mcp"]}

_FORBIDDEN_IN_GLOB = (",", "\n", "\r", "`", '"')


def check_globs(apply_to: Sequence[str]) -> tuple[str, ...]:
    """The globs, in order without repeats; ``ValueError`` for one no tool could read (empty,
    or holding a comma, which separates globs in ``applyTo`` and ``globs``)."""
    globs = tuple(dict.fromkeys(glob.strip() for glob in apply_to))
    if not globs:
        raise ValueError("give at least one glob")
    for glob in globs:
        if not glob or any(char in glob for char in _FORBIDDEN_IN_GLOB):
            raise ValueError(
                f"{glob!r} is not a glob the tools can read: no commas, quotes, backticks or "
                "line breaks; give one glob per --apply-to"
            )
    return globs


def files(
    library: Library,
    site_url: str | None,
    apply_to: Sequence[str] = DEFAULT_APPLY_TO,
    inert: InertRules | None = None,
) -> dict[str, bytes]:
    """The tree, by path relative to the reviewed repository's root."""
    globs = check_globs(apply_to)
    inert = inert or InertRules()  # each rule made inert once, its pieces shared by the files
    shown = inert_library(library, inert)
    return {
        AGENTS: agents_md(library, shown, site_url, globs, inert=inert).encode("utf-8"),
        COPILOT: copilot(library, shown, site_url, globs, inert=inert).encode("utf-8"),
        CURSOR: cursor(library, shown, site_url, globs, inert=inert).encode("utf-8"),
        CLAUDE: claude_agent(library, shown, site_url, globs, inert=inert),
        CODERABBIT: coderabbit(library, shown, site_url, globs, inert=inert).encode("utf-8"),
        GREPTILE: greptile(library, shown, site_url, globs, inert=inert),
        GEMINI: gemini(library, shown, site_url, globs, inert=inert),
        MCP_CONFIG: mcp_config(),
        skill_path(library): skill.render(library, notice(library, site_url), inert),
    }


def skill_path(library: Library) -> str:
    """``.github/skills/rlt-refactor/SKILL.md``: the skill's folder is its name."""
    return f"{SKILLS_DIR}/{skill.skill_name(library)}/{skill.FILE_NAME}"


# --- shared pieces -------------------------------------------------------------------------


def generated(data: bytes) -> bool:
    """Whether a file's first lines say rlt-rules generated it (as :func:`notice` writes), or it
    is the ``.mcp.json`` :func:`mcp_config` writes (JSON has no comments to say so)."""
    head = data[:2048].decode("utf-8", errors="replace").split("\n")[:8]
    return any(f"Generated by {NAME} " in line for line in head) or data == mcp_config()


def notice(library: Library, site_url: str | None) -> str:
    """The first line of every file: generated, by what, from which library version."""
    where = f" ({site_base(site_url)})" if site_url else ""
    return (
        f"Generated by {NAME} {VERSION} from {inert_text(library.title)} {library.version}"
        f"{where}. Do not edit: regenerate with `{NAME} export --format reviewers`."
    )


def scope(globs: tuple[str, ...]) -> str:
    return (
        "These rules apply to files matching " + ", ".join(code_span(glob) for glob in globs) + "."
    )


def report_how() -> str:
    return (
        "Start each finding with the id of the rule it breaks, then its location, e.g. "
        "**R03** `src/scheduler.py:57`: the triggering condition, its impact, the correction. "
        "One rule per finding. Each rule's page has its triggers, impact, correction and examples."
    )


def heading(shown: Library) -> str:
    return f"# {shown.title} {shown.version}: code-review rules"


# --- the files -------------------------------------------------------------------------------


def agents_md(
    library: Library,
    shown: Library,
    site_url: str | None,
    globs,
    *,
    inert: InertRules | None = None,
) -> str:
    """``AGENTS.md``: plain Markdown, the preamble, then every rule's triggers and correction."""
    header = notice(library, site_url)
    return _guidance_document(
        header, library, shown, site_url, globs, AGENTS_MAX_BYTES, utf8_bytes, inert=inert
    )


def _guidance_document(
    header: str,
    library: Library,
    shown: Library,
    site_url: str | None,
    globs,
    budget: int,
    measure: Measure,
    *,
    inert: InertRules | None = None,
) -> str:
    """The preamble, the scope and how to report, then the rules by category in the most detail
    (triggers and correction, else statements, else one line each) that fits ``budget``."""
    before = [header, heading(shown), *shown.preamble, scope(globs) + " " + report_how()]
    return fitted_document(
        before,
        library,
        shown,
        site_url,
        budget,
        (Detail.GUIDANCE, Detail.STATEMENT, Detail.INDEX),
        measure,
        by_category=True,
        inert=inert,
    )


def copilot(
    library: Library,
    shown: Library,
    site_url: str | None,
    globs,
    *,
    inert: InertRules | None = None,
) -> str:
    """Copilot's path-specific instructions: how to report first, then one line per rule, all
    within the 4,000 characters code review reads."""
    before = [
        front_matter({"applyTo": ",".join(globs)}) + "\n" + notice(library, site_url),
        heading(shown),
        shown.preamble[0],
        report_how(),
    ]
    return fitted_document(
        before, library, shown, site_url, COPILOT_MAX_CHARS, (Detail.INDEX,), inert=inert
    )


def cursor(
    library: Library,
    shown: Library,
    site_url: str | None,
    globs,
    *,
    inert: InertRules | None = None,
) -> str:
    """A Cursor project rule attached to files matching the globs (not always applied)."""
    description = (
        f"{library.title} {library.version} code-review rules ({library.id_span()}): apply "
        "when reviewing or changing " + ", ".join(globs)
    )
    fields: dict[str, str | bool] = {
        "description": description,
        "globs": ",".join(globs),
        "alwaysApply": False,
    }
    header = front_matter(fields) + "\n" + notice(library, site_url)
    return _guidance_document(
        header, library, shown, site_url, globs, CURSOR_MAX_LINES, line_breaks, inert=inert
    )


def claude_agent(
    library: Library,
    shown: Library,
    site_url: str | None,
    globs,
    *,
    inert: InertRules | None = None,
) -> bytes:
    """A Claude Code subagent that reviews a change and answers in the findings format, each
    rule in full with its triggers' anchors, which a finding cites (as ``review-context``)."""
    description = (
        f"Reviews a code change against the {library.title} rules ({library.id_span()}) and "
        "answers with findings in the rlt-rules findings format (YAML). Use after changing "
        + ", ".join(globs)
        + " files, or when asked to review a diff or a pull request."
    )
    fields: dict[str, str | bool] = {
        "name": AGENT_NAME,
        "description": description,
        "tools": AGENT_TOOLS,
    }
    blocks = [
        front_matter(fields) + "\n" + notice(library, site_url),
        f"You review code changes against the {shown.title} {shown.version} rules below. You "
        "are given the change (a diff, a base revision, or the files and lines that changed); "
        "read the changed code and its callers with Read, Grep and Glob. You never modify "
        "files.",
        f"The `{mcp_names.SERVER}` MCP server (`.mcp.json`) serves the library: "
        f"`{mcp_names.REVIEW_CONTEXT}` gives the change's files and line ranges with the rules "
        "(pass the diff, or `base` for `git diff BASE`); "
        f"`{mcp_names.SCAN_CODE}` points at code shaped like a rule's triggers, for you to "
        f"judge; `{mcp_names.GET_RULE}`, `{mcp_names.SEARCH_RULES}` and "
        f"`{mcp_names.LIST_RULES}` find and read a rule before you cite it; "
        f"`{mcp_names.CHECK_FINDINGS}` checks your answer against the library, the "
        "code and the change and returns every problem with its line: call it before you "
        "answer and fix each problem.",
        *shown.preamble,
        scope(globs),
        "## Rules",
        Listing(library, shown, site_url, Detail.FULL, level=4, inert=inert, anchored=True),
        *answer_blocks(
            library,
            site_url,
            check=f"{NAME} findings check ANSWER.yaml --repo . --diff CHANGE",
            anchored=True,
        ),
    ]
    return encoded(blocks)


def coderabbit(
    library: Library,
    shown: Library,
    site_url: str | None,
    globs,
    *,
    inert: InertRules | None = None,
) -> str:
    """A ``.coderabbit.yaml`` fragment: one ``reviews.path_instructions`` entry per glob."""
    instructions = fitted_document(
        [heading(shown), *shown.preamble, report_how()],
        library,
        shown,
        site_url,
        CODERABBIT_MAX_CHARS,
        (Detail.FULL, Detail.GUIDANCE, Detail.STATEMENT, Detail.INDEX),
        inert=inert,
    ).rstrip("\n")
    reviews: dict[str, object] = {
        "path_instructions": [{"path": glob, "instructions": instructions} for glob in globs]
    }
    merge = "# Merge `reviews` into your .coderabbit.yaml."
    if exported(library):  # preview detectors are not in the ast-grep export
        # The detectors, as `rlt-rules export --format ast-grep -o rlt-ast-grep` writes them.
        reviews["tools"] = {"ast-grep": {"rule_dirs": coderabbit_rule_dirs()}}
        merge = (
            "# Merge `reviews` into your .coderabbit.yaml; `tools.ast-grep.rule_dirs` expects"
            " the folder `rlt-rules export --format ast-grep -o rlt-ast-grep` writes."
        )
    data = {"reviews": reviews}
    # The instructions are written once: an anchor on the first entry, an alias on the others.
    # Dumped again only when they change (at thousands of rules, the first rules' index lines).
    dumped = known_rules(library, shown, inert).part(
        ("coderabbit", instructions, tuple(globs), "tools" in reviews),
        lambda: yaml_text(data, width=10_000, shared_text_anchor="instructions"),
    )
    comments = [
        f"# {notice(library, site_url)}",
        merge,
        f"# yaml-language-server: $schema={CODERABBIT_SCHEMA}",
    ]
    return "\n".join(comments) + "\n" + dumped


def greptile(
    library: Library,
    shown: Library,
    site_url: str | None,
    globs,
    *,
    inert: InertRules | None = None,
) -> bytes:
    """``.greptile/config.json``: one rule per library rule, with its id, so a folder's
    ``disabledRules`` can turn one off."""
    known = known_rules(library, shown, inert)
    rules = [
        {
            "id": rule.id,
            "rule": known.part(
                ("rule_text", rule, Detail.FULL.value, site_url, 0),
                lambda rule=rule: rule_text(
                    rule, Detail.FULL, site_url, level=0, shown=known.rule(rule)
                ),
            ),
            "scope": list(globs),
            "severity": "low" if rule.status is Status.DEPRECATED else "medium",
        }
        for rule in applicable_rules(library)
    ]
    data = {
        "instructions": " ".join([notice(library, site_url), *shown.preamble, report_how()]),
        "rules": rules,
    }
    return indented(data)


def gemini(
    library: Library,
    shown: Library,
    site_url: str | None,
    globs,
    *,
    inert: InertRules | None = None,
) -> bytes:
    """Gemini Code Assist's ``.gemini/styleguide.md``: Markdown added to its review prompt."""
    blocks = [
        notice(library, site_url),
        f"# {shown.title} {shown.version}: style guide for code review",
        *shown.preamble,
        scope(globs) + " " + report_how(),
        Listing(library, shown, site_url, Detail.FULL, level=3, inert=inert),
    ]
    return encoded(blocks)


def mcp_config() -> bytes:
    """``.mcp.json``: Claude Code starts the library's MCP server for the repository."""
    return indented({"mcpServers": {mcp_names.SERVER: MCP_SERVER_ENTRY}})
