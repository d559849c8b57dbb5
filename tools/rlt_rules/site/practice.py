"""Spot the rule: the practice items, built from the model at build time.

Two sources give items. The practice bank (each rule's ``practice`` programs) comes first:
programs that appear nowhere else on the site, each the rule broken in a setting its lessons
do not use, so practice tests whether the rule transfers. Then every example pair gives one
item, its bad program: a lesson's own program, offered only after the bank's items
(:func:`practice_items` lists them so, and ``site/js/practice/order.js`` orders them so).

An item is a program as a reviewer meets it in a diff (:func:`shown_program`):
without its ``#>`` output lines, without its ``# Rnn:`` markers (a marker on a line of its own
goes with the comment lines that continue it; an inline one is cut from its line), without
any other comment naming a rule id, and with a rule id inside a name or a string replaced by
``rule``. The question "Which rule does this break?" offers the rule and up to three others,
at least one of them from the rule's category when it has another (:func:`choices_for`):
chosen from the item's own seed, so a build always asks the same.

The answer reveals what the reader could not see before: the lines the rule's markers cover
(numbered in the shown program), the explanation (for a pair, also its bad example's title and
the diff to the good program) and the rule's page. The site loads the items of a category as
one JSON file (:func:`items_json`), escaped like ``rules/filter-text.json``:
``site/js/practice.js`` puts every text in the page as text, never as HTML.

Only active rules are taught (:func:`taught_rules`): a deprecated or retired rule's page says
what replaces it, and a newcomer practises that instead.
"""

from __future__ import annotations

import hashlib
import io
import json
import random
import re
import tokenize
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..library.model import OUTPUT_LINE, Library, PracticeProgram, Rule, Status
from ..library.pairs import MARKER, ExamplePair, Marker, marked_lines, markers, pairs_of
from .cache import PageCache
from .highlight import Line, PythonHighlighter
from .listing import _JSON_MARKUP_ESCAPES
from .titles import text_segments

#: How many rules an item offers (the right one and three others).
CHOICES = 4
#: A rule id as a word of code or text: ``R03``, ``r03`` in ``check_r03``, not ``ERR01``.
RULE_ID_WORD = re.compile(r"(?<![A-Za-z0-9])[Rr]\d{2,}(?![0-9])")
#: What a rule id inside a name or a string becomes in the shown program.
ID_STAND_IN = "rule"


def taught_rules(library: Library) -> tuple[Rule, ...]:
    """The rules the Learn path teaches and practises: the active ones, in reading order."""
    return tuple(rule for rule in library.rules if rule.status is Status.ACTIVE)


# --- the shown program -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ShownProgram:
    """A bad program as the item shows it, and the lines (1-based, of ``code``) its rule's
    markers cover, highlighted once the reader has answered."""

    code: str
    marked: tuple[int, ...]


def shown_program(code: str, rule_id: str) -> ShownProgram:
    """``code`` without what would give its rule away (see the module doc), lines kept in
    order so that the marked lines of the original map onto it."""
    lines = code.split("\n")
    dropped: set[int] = set()  # 1-based lines left out
    cut: dict[int, int] = {}  # line -> column (0-based) where its revealing comment starts
    for number, line in enumerate(lines, start=1):
        if "#>" in line and OUTPUT_LINE.match(line):
            dropped.add(number)
    for line_number, column in _revealing_comments(code, lines, markers(code)):
        before = lines[line_number - 1][:column]
        if before.strip():
            cut[line_number] = column
            continue
        dropped.add(line_number)
        if MARKER.match(lines[line_number - 1][column:]):
            # The comment lines that continue a marker's sentence go with it.
            for following in range(line_number + 1, len(lines) + 1):
                text = lines[following - 1]
                if not (text.startswith(before + "#") and not text.startswith(before + "#>")):
                    break
                dropped.add(following)
    shown: list[str] = []
    position: dict[int, int] = {}
    for number, line in enumerate(lines, start=1):
        if number in dropped:
            continue
        if number in cut:
            line = line[: cut[number]].rstrip()
        shown.append(line)
        position[number] = len(shown)
    while shown and not shown[-1].strip():
        shown.pop()
    marked = sorted(
        position[line]
        for line in marked_lines(code, rule_id)
        if line in position and position[line] <= len(shown)
    )
    # A rule id never spans lines: one substitution over the whole program.
    return ShownProgram(RULE_ID_WORD.sub(ID_STAND_IN, "\n".join(shown)), tuple(marked))


def _revealing_comments(
    code: str, lines: list[str], found: tuple[Marker, ...]
) -> Iterable[tuple[int, int]]:
    """Where each marker, and each other comment naming a rule id, starts: (line, column).

    ``found`` are the markers (:func:`rlt_rules.library.pairs.markers`, whose tokenizing is kept for
    the rule page's highlighting too); the code is tokenized again only when a rule id is left
    outside them, which an example rarely has."""
    positions = {(marker.line, marker.column - 1) for marker in found}
    yield from sorted(positions)
    cut = dict(positions)
    rest = "\n".join(
        line[: cut[number]] if number in cut else line for number, line in enumerate(lines, 1)
    )
    if RULE_ID_WORD.search(rest) is None:
        return
    for start, text in _comments(code, lines):
        if start not in positions and _reveals(text):
            yield start


def _comments(code: str, lines: list[str]) -> Iterable[tuple[tuple[int, int], str]]:
    """Each comment's start (line, column) and text."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError):
        # Not Python (examples are run in CI, so it does not happen): any "#" will do.
        for number, line in enumerate(lines, start=1):
            column = line.find("#")
            if column >= 0:
                yield (number, column), line[column:]
        return
    for token in tokens:
        if token.type == tokenize.COMMENT:
            yield token.start, token.string


def _reveals(comment: str) -> bool:
    return MARKER.match(comment) is not None or RULE_ID_WORD.search(comment) is not None


# --- choices --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Pool:
    """The taught rules' ids, all and by category, with each id's place in its category."""

    ids: tuple[str, ...]
    by_category: dict[str, tuple[str, ...]]
    place: dict[str, int]

    @classmethod
    def of(cls, rules: tuple[Rule, ...]) -> _Pool:
        grouped: dict[str, list[str]] = {}
        place: dict[str, int] = {}
        for rule in rules:
            group = grouped.setdefault(rule.category, [])
            place[rule.id] = len(group)
            group.append(rule.id)
        by_category = {category: tuple(ids) for category, ids in grouped.items()}
        return cls(tuple(rule.id for rule in rules), by_category, place)


def choices_for(rule: Rule, pair_name: str, pool: _Pool) -> tuple[str, ...]:
    """The rule ids an item offers, in the order shown: ``rule`` and up to three others, one of
    them from ``rule``'s category when it has another taught rule. Constant time per item (a
    library of 5,000 rules asks 8,000 questions), and the same for the same rule and pair."""
    rng = random.Random(f"{rule.id}/{pair_name}")
    chosen = [rule.id]
    same = pool.by_category.get(rule.category, ())
    if rule.id in pool.place and len(same) > 1:
        index = rng.randrange(len(same) - 1)
        chosen.append(same[index + 1 if index >= pool.place[rule.id] else index])
    wanted = min(CHOICES, len(pool.ids) + (rule.id not in pool.place))
    if len(pool.ids) <= 2 * CHOICES:
        rest = [rule_id for rule_id in pool.ids if rule_id not in chosen]
        chosen += rng.sample(rest, min(len(rest), wanted - len(chosen)))
    else:
        while len(chosen) < wanted:
            candidate = pool.ids[rng.randrange(len(pool.ids))]
            if candidate not in chosen:
                chosen.append(candidate)
    rng.shuffle(chosen)
    return tuple(chosen)


# --- items --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PracticeItem:
    """One question: a program shown (:func:`shown_program`) and the rules offered.

    ``source`` is the program's origin: a program of the practice bank, or an example pair
    (whose bad program is shown). ``key`` names the item in the page and in the reader's saved
    progress without naming its rule: a hash of the rule id and the source's name.
    """

    key: str
    rule: Rule
    source: ExamplePair | PracticeProgram
    shown: ShownProgram
    choices: tuple[str, ...]

    @property
    def pair(self) -> ExamplePair | None:
        """The example pair the item comes from; None for a program of the practice bank."""
        return self.source if isinstance(self.source, ExamplePair) else None

    @property
    def from_bank(self) -> bool:
        return isinstance(self.source, PracticeProgram)

    @property
    def code(self) -> str:
        """The program as written, markers and output included."""
        return source_code(self.source)

    def to_dict(
        self,
        library: Library,
        rule_url: Callable[[str], str],
        highlighted: Callable[[str], list[Line]],
        diff: Callable[[ExamplePair], str],
    ) -> dict[str, object]:
        """The item as ``practice.js`` reads it; ``rule_url`` gives a rule page's URL relative
        to the JSON file. ``lines`` is the program highlighted by Pygments, as tokens
        (``highlighted``); ``diff`` gives a pair's diff from bad to good. A bank item has no
        title, no good program and no diff: ``bank`` is true, ``title`` empty, ``good_title``
        null and ``diff`` empty, and its explanation says the correction."""
        source = self.source
        data: dict[str, object] = {
            "key": self.key,
            "bank": isinstance(source, PracticeProgram),
            "code": self.shown.code,
            "lines": highlighted(self.shown.code),
            "choices": [
                {"id": rule_id, "title": library.rule(rule_id).title} for rule_id in self.choices
            ],
            "answer": self.rule.id,
            "url": rule_url(self.rule.id),
            "marked": list(self.shown.marked),
        }
        if isinstance(source, PracticeProgram):
            data.update(
                title=[],
                explanation=text_segments(source.explanation),
                good_title=None,
                diff="",
            )
        else:
            data.update(
                title=text_segments(source.bad.title),
                explanation=text_segments(source.bad.explanation),
                good_title=text_segments(source.good.title),
                diff=diff(source),
            )
        return data


def pair_diff(pair: ExamplePair) -> str:
    return "\n".join(pair.diff())


def item_key(rule_id: str, pair_name: str) -> str:
    return hashlib.sha256(f"{rule_id}/{pair_name}".encode()).hexdigest()[:12]


def practice_items(library: Library, cache: PageCache | None = None) -> tuple[PracticeItem, ...]:
    """Every program of the practice bank, then exactly one item per pair, of every taught
    rule in reading order. ``cache`` keeps the shown programs for the next build."""
    shown_programs = (cache or PageCache()).shown_programs
    rules = taught_rules(library)
    pool = _Pool.of(rules)
    items: list[PracticeItem] = []
    keys: set[str] = set()

    def add(rule: Rule, source: ExamplePair | PracticeProgram, seed_name: str) -> None:
        key = item_key(rule.id, seed_name)
        while key in keys:  # two of one name: the record checks report it
            key = item_key(key, seed_name)
        keys.add(key)
        shown = shown_programs.get((source_code(source), rule.id), _shown)
        items.append(PracticeItem(key, rule, source, shown, choices_for(rule, seed_name, pool)))

    for rule in rules:
        for program in rule.practice:
            add(rule, program, bank_seed_name(program.name))
    for rule in rules:
        for pair in pairs_of(rule):
            add(rule, pair, pair.name)
    return tuple(items)


def source_code(source: ExamplePair | PracticeProgram) -> str:
    """The code an item shows: a bank program's, or a pair's bad program."""
    return source.code if isinstance(source, PracticeProgram) else source.bad.code


def bank_seed_name(name: str) -> str:
    """What a bank program's key and choices are drawn from: its name in a space of its own
    (``practice/<name>``; a slug has no ``/``), so it never takes a pair's."""
    return f"practice/{name}"


def _shown(key: tuple[str, str]) -> ShownProgram:
    return shown_program(*key)


def items_json(
    library: Library,
    items: Iterable[PracticeItem],
    rule_url: Callable[[str], str],
    cache: PageCache | None = None,
) -> str:
    """One JSON file of items for the practice pages, with no markup character in it (``<``,
    ``>`` and ``&`` as ``\\u003c``…, like ``rules/filter-text.json``). ``cache`` keeps each
    item's JSON for the next build (keyed by everything it is made from), so a rebuild
    encodes only the items an edit changed."""
    cache = cache or PageCache()
    highlighter = PythonHighlighter()

    def highlighted(code: str) -> list[Line]:
        return cache.highlighted.get(code, highlighter.lines)

    def diff(pair: ExamplePair) -> str:
        return cache.pair_diffs.get(pair, pair_diff)

    def encoded(key: tuple[PracticeItem, tuple[str, ...], str]) -> str:
        return _inert_json(key[0].to_dict(library, rule_url, highlighted, diff))

    # The JSON of {"library": ..., "items": [...]}, compact, made of the items' own.
    parts = []
    for item in items:
        titles = tuple(library.rule(rule_id).title for rule_id in item.choices)
        parts.append(cache.item_json.get((item, titles, rule_url(item.rule.id)), encoded))
    return f'{{"library":{_inert_json(library.version)},"items":[{",".join(parts)}]}}\n'


def _inert_json(value: object) -> str:
    """``value`` as compact JSON with no markup character in it."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    # str.replace, not str.translate: a megabyte of items took translate a quarter second.
    for char, escape in _JSON_MARKUP_ESCAPES.items():
        text = text.replace(chr(char), escape)
    return text
