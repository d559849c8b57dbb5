"""Code and rule text holding fence lines of backticks and tildes stay inside their blocks.

A fixed three-backtick fence around example code closes early at a code line of three
backticks, and what follows is live Markdown, raw HTML included. Every Markdown export is
parsed here by markdown-it-py (CommonMark with raw HTML allowed, the most permissive reader)
and the site is built by the real command: the payloads after the fence lines must show as
text, and each example's code must come back whole as one code block.
"""

from __future__ import annotations

import dataclasses
import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml
from markdown_it import MarkdownIt

from rlt_rules import Library, load_library
from rlt_rules.export import render
from rlt_rules.render.code import fenced

pytest.register_assert_rewrite("site_fixtures")
pytest_plugins = ["site_fixtures"]

from site_fixtures import FIXTURE_RULES, build_site, make_project  # noqa: E402

#: Example code with fence lines of every kind (inside a string, so the program stays valid
#: Python), each followed by a payload; ``{rule_id}`` is the pair contract's marker.
CODE = '''\
page = """
```
<img src=x onerror="window.__pwned=1">
````
~~~
<img src=x onerror="window.__pwned=2">
~~~~~
`````python
<img src=x onerror="window.__pwned=3">
"""  # {rule_id}: fence lines in the program's text stay inside its code block.
print("fenced")
#> fenced
'''
#: Markdown rule text with the same fence lines, outside code.
TEXT = (
    'Keep the fence.\n\n```\n<img src=x onerror="window.__pwned=4">\n````\n\n'
    '~~~\n<img src=x onerror="window.__pwned=5">\n~~~~\n'
)
MARKDOWN_EXPORTS = ("llms.txt", "llms-full.txt", "SKILL.md", "checklist.md")


def test_the_fence_outruns_every_backtick_run() -> None:
    assert fenced("plain", "") == "```\nplain\n```"
    assert fenced("a ``b`` c", "") == "```\na ``b`` c\n```"
    assert fenced("```\n`````", "") == "``````\n```\n`````\n``````"
    assert fenced("~~~\n```", "python") == "````python\n~~~\n```\n````"


def _hostile(library: Library) -> Library:
    """The library with fence lines in one rule's text and in every example's code."""
    first, *others = library.rules
    code = CODE.format(rule_id=first.id)
    examples = tuple(
        dataclasses.replace(example, code=code, explanation=TEXT) for example in first.examples
    )
    hostile = dataclasses.replace(
        first,
        title="Fences ``` and ~~~ in a title",
        statement=TEXT,
        rationale=TEXT,
        triggers=(TEXT, *first.triggers),
        impact=TEXT,
        correction=TEXT,
        examples=examples,
    )
    return dataclasses.replace(library, rules=(hostile, *others))


@pytest.fixture(scope="module")
def hostile_library() -> Library:
    return _hostile(load_library(FIXTURE_RULES))


def _live_html(tokens) -> list[str]:
    found = []
    for token in tokens:
        if token.type in ("html_block", "html_inline") and "<img" in token.content:
            found.append(token.content)
        found.extend(_live_html(token.children or ()))
    return found


def _markdown_documents(library: Library) -> dict[str, str]:
    files: dict[str, bytes] = {}
    for format_name in ("llms", "skill", "checklist"):
        files.update(render(format_name, library, "https://rlt.example/1.0.0/"))
    documents = {name: files[name].decode("utf-8") for name in MARKDOWN_EXPORTS}
    sarif = json.loads(render("sarif", library, None)["rules.sarif.json"])
    for descriptor in sarif["runs"][0]["tool"]["driver"]["rules"]:
        documents[f"sarif {descriptor['id']} help"] = descriptor["help"]["markdown"]
        documents[f"sarif {descriptor['id']} fullDescription"] = descriptor["fullDescription"][
            "markdown"
        ]
    return documents


def test_markdown_exports_keep_fence_lines_inert(hostile_library: Library) -> None:
    parser = MarkdownIt("commonmark", {"html": True})
    documents = _markdown_documents(hostile_library)
    for name, text in documents.items():
        tokens = parser.parse(text)
        assert _live_html(tokens) == [], f"{name}: raw HTML after a fence line"
        assert "<img" not in parser.render(text), name


def test_full_text_holds_each_example_whole_in_one_block(hostile_library: Library) -> None:
    text = render("llms", hostile_library, None)["llms-full.txt"].decode("utf-8")
    blocks = [t for t in MarkdownIt("commonmark").parse(text) if t.type == "fence"]
    code_blocks = [block.content for block in blocks if block.info == "python"]
    rule = hostile_library.rules[0]
    assert code_blocks.count(CODE.format(rule_id=rule.id)) == len(rule.examples)


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.live: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "img" or any(name.startswith("on") for name, _ in attrs):
            self.live.append(f"<{tag} {attrs}>")


def _write_rules(library: Library, source: Path, target: Path) -> None:
    """``source``'s rule files with the hostile rule written over its own file."""
    target.mkdir(parents=True)
    for path in source.iterdir():
        target.joinpath(path.name).write_bytes(path.read_bytes())
    rule = library.rules[0]
    record = {"id": rule.id, **rule.to_dict()}
    target.joinpath(f"{rule.id}.yaml").write_text(
        yaml.safe_dump(record, sort_keys=False, allow_unicode=True, width=10_000),
        encoding="utf-8",
    )


def test_site_keeps_fence_lines_inert(tmp_path: Path, hostile_library: Library) -> None:
    rules = tmp_path / "rules"
    _write_rules(hostile_library, FIXTURE_RULES, rules)
    assert load_library(rules) == hostile_library
    project = make_project(tmp_path / "project", rules)
    built = build_site(project / "rules", tmp_path / "site")
    rule = hostile_library.rules[0]
    page = (built.directory / "rules" / rule.id / "index.html").read_text(encoding="utf-8")
    elements = _Elements()
    elements.feed(page)
    assert elements.live == []
    assert page.count("window.__pwned=1") == len(rule.examples)
    for name in ("llms-full.txt", "skill/SKILL.md", "checklist.md"):
        published = (built.directory / name).read_text(encoding="utf-8")
        assert _live_html(MarkdownIt("commonmark", {"html": True}).parse(published)) == [], name
