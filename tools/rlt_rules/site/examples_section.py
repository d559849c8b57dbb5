"""A rule page's examples: each pair side by side with its marked lines, output and diff.

Pairs come from :func:`rlt_rules.library.pairs.pairs_of`; the lines a rule's ``# Rnn:`` markers
cover (:meth:`~rlt_rules.library.pairs.MarkerCache.marked_lines`) and the output lines that differ
between bad and good are highlighted, and the bad → good diff closes each pair. Examples without a
counterpart follow as tabs.
"""

from __future__ import annotations

import difflib
import html
import textwrap
from collections import Counter
from collections.abc import Iterable

from ..library.model import Example, ExampleKind, Rule
from ..library.pairs import ExamplePair, MarkerCache, pairs_of
from ..render.code import fenced
from ..render.text import OUTPUT_LINE, expected_output
from .cite import cite_marker
from .markup import markdown as inert
from .markup import md_text
from .titles import md_title, name_as_written, pair_heading

#: What the diff below each pair is titled.
CHANGES_TITLE = "What the correction changes"


def split_output(code: str) -> tuple[str, str]:
    """Split an example into the program without its ``#>`` lines and the output they state.

    Output lines are the ones CI checks (:data:`rlt_rules.render.text.OUTPUT_LINE`, as
    pytest-examples reads them: ``#>`` alone or followed by a space).
    """
    program: list[str] = []
    output: list[str] = []
    for line in code.split("\n"):
        match = OUTPUT_LINE.match(line) if "#>" in line else None
        if match is not None:
            output.append(match.group("text") or "")
        else:
            program.append(line)
    while program and not program[-1].strip():
        program.pop()
    return "\n".join(program), "\n".join(output)


def program_line_numbers(code: str) -> dict[int, int]:
    """For each line of an example's code (1-based), its line in the program as the page shows
    it (:func:`split_output`: without the ``#>`` output lines); output lines have none."""
    numbers: dict[int, int] = {}
    shown = 0
    for number, line in enumerate(code.split("\n"), start=1):
        if "#>" in line and OUTPUT_LINE.match(line):
            continue
        shown += 1
        numbers[number] = shown
    return numbers


def shown_marked_lines(
    code: str, rule_id: str, markers: MarkerCache | None = None
) -> tuple[int, ...]:
    """The lines of the shown program (:func:`split_output`) that ``rule_id``'s markers cover.

    ``markers``: where the code's markers are remembered (a fresh cache: none are).
    """
    program, _ = split_output(code)
    length = program.count("\n") + 1
    numbers = program_line_numbers(code)
    covered = (markers or MarkerCache()).marked_lines(code, rule_id)
    shown = (numbers.get(line) for line in covered)
    return tuple(sorted(line for line in shown if line is not None and line <= length))


def differing_lines(
    bad: tuple[str, ...], good: tuple[str, ...]
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The 1-based lines of two outputs that are not in both (a line diff of the two)."""
    matcher = difflib.SequenceMatcher(None, bad, good, autojunk=False)
    in_bad: list[int] = []
    in_good: list[int] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            in_bad.extend(range(i1 + 1, i2 + 1))
            in_good.extend(range(j1 + 1, j2 + 1))
    return tuple(in_bad), tuple(in_good)


def examples_section(rule: Rule, markers: MarkerCache | None = None) -> tuple[str, ...]:
    """A rule's examples section (Markdown lines): its pairs, then any example without a
    counterpart. A function of the rule's id and examples only."""
    markers = markers or MarkerCache()
    pairs = pairs_of(rule)
    in_pairs = {id(example) for pair in pairs for example in (pair.bad, pair.good)}
    unpaired = tuple(example for example in rule.examples if id(example) not in in_pairs)
    out = [
        "## Examples",
        "",
        (
            "Each pair shows one scenario with the rule broken (**Bad**) and applied "
            "(**Good**); the highlighted lines are the ones the rule is about, and "
            f"**{CHANGES_TITLE}** is the diff from one to the other. "
            if pairs
            else ""
        )
        + "Each example is a complete program; **Output** is what it prints, checked in CI.",
        "",
    ]
    for pair in pairs:
        out += [f"### {md_text(pair_heading(pair))}", ""]
        out += _pair_markdown(rule.id, pair, markers)
    if unpaired:
        if pairs:
            out += ["### Other examples", ""]
            out += _example_tabs(rule.id, _bad_first(unpaired), markers)
        else:
            for heading, group in _example_groups(unpaired):
                if heading:
                    out += [f"### {md_text(heading)}", ""]
                out += _example_tabs(rule.id, group, markers)
    return tuple(out)


def _pair_markdown(rule_id: str, pair: ExamplePair, markers: MarkerCache) -> list[str]:
    """One pair: bad and good as two tabs (side by side on a wide screen, see ``rules.css``),
    each output with the lines that differ from the other's highlighted, then the diff."""
    bad_changed, good_changed = differing_lines(
        expected_output(pair.bad.code), expected_output(pair.good.code)
    )
    bad = _example_body(rule_id, pair.bad, markers, bad_changed, paired=True)
    good = _example_body(rule_id, pair.good, markers, good_changed, paired=True)
    out = ['=== "Bad"', "", _indent(bad), "", '=== "Good"', "", _indent(good), ""]
    lines = pair.diff()
    diff = "\n".join(lines)
    # pair.changed_lines(), from the diff at hand (it would compute another one).
    removed = sum(1 for line in lines if line.startswith("-"))
    added = sum(1 for line in lines if line.startswith("+"))
    if diff:
        summary = f"{_lines(removed)} removed, {_lines(added)} added."
        shown = fenced(diff, "diff")
    else:
        summary = "The two programs are the same; only their output differs."
        shown = ""
    out += [
        f'<div class="rlt-diff" data-pair="{html.escape(pair.name)}" markdown="1">',
        "",
        f"**{CHANGES_TITLE}:** {summary}",
        "",
        *([shown, ""] if shown else []),
        "</div>",
        "",
    ]
    return out


def _lines(n: int) -> str:
    return f"{n} line" if n == 1 else f"{n} lines"


def _example_groups(
    examples: tuple[Example, ...],
) -> list[tuple[str | None, tuple[Example, ...]]]:
    """Bad/good pairs sharing a name form one group each; otherwise all examples form one."""
    by_name: dict[str, list[Example]] = {}
    for example in examples:
        by_name.setdefault(example.name, []).append(example)
    paired = all(
        sorted(str(example.kind) for example in group) == ["bad", "good"]
        for group in by_name.values()
    )
    if paired and len(by_name) > 1:
        return [
            (name_as_written(name, _texts(group)), _bad_first(group))
            for name, group in by_name.items()
        ]
    return [(None, _bad_first(examples))]


def _bad_first(examples: Iterable[Example]) -> tuple[Example, ...]:
    return tuple(sorted(examples, key=lambda example: example.kind is not ExampleKind.BAD))


def _texts(examples: Iterable[Example]) -> tuple[str, ...]:
    return tuple(text for example in examples for text in (example.title, example.explanation))


def _kind_label(kind: ExampleKind) -> str:
    return "Bad" if kind is ExampleKind.BAD else "Good"


def _example_tabs(rule_id: str, examples: tuple[Example, ...], markers: MarkerCache) -> list[str]:
    totals = Counter(example.kind for example in examples)
    seen: Counter[ExampleKind] = Counter()
    out: list[str] = []
    for example in examples:
        seen[example.kind] += 1
        label = _kind_label(example.kind)
        if totals[example.kind] > 1:
            label += f" {seen[example.kind]}"
        out += [f'=== "{label}"', "", _indent(_example_body(rule_id, example, markers)), ""]
    return out


def _example_body(
    rule_id: str,
    example: Example,
    markers: MarkerCache,
    output_changed: Iterable[int] = (),
    *,
    paired: bool = False,
) -> str:
    """An example: its kind and title, explanation, program (the lines its ``# Rnn:`` markers
    cover highlighted) and output (``output_changed`` highlighted).

    Exactly four blocks inside the example's ``div``, which a pair's grid lines up side by side.
    """
    program, output = split_output(example.code)
    shown_output = (
        fenced(output, "text", title="Output", hl_lines=output_changed)
        if output
        else "*This program prints nothing.*"
    )
    kind = html.escape(str(example.kind))
    classes = f"rlt-example rlt-example--{kind}" + (" rlt-example--paired" if paired else "")
    marked = shown_marked_lines(example.code, rule_id, markers)
    anchor = example.anchor()  # from its kind, name and code: Rule.anchors() lists it
    label = f"{kind} {example.title}"
    cite = cite_marker(rule_id, "example", label, anchor, target=False)
    return "\n\n".join(
        [
            f'<div class="{classes}" id="{anchor}" '
            f'data-example="{kind}-{html.escape(example.name)}" markdown="1">',
            f'<span class="rlt-kind">{_kind_label(example.kind)}:</span> '
            f"**{md_title(example.title)}** {cite}",
            '<div class="rlt-explanation" markdown="1">',
            inert(example.explanation),
            "</div>",
            fenced(program, "python", hl_lines=marked, numbered=True),
            f'<div class="rlt-output" markdown="1">\n\n{shown_output}\n\n</div>',
            "</div>",
        ]
    )


def _indent(text: str) -> str:
    return textwrap.indent(text, "    ")
