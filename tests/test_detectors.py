"""Detectors: validated where they are written, proven against every example, fast and exact.

The proof (``test_every_detector_is_proven_against_every_example``) is the library's promise:
each detector flags its own rule's bad example on the lines that example marks, and nothing in
any other example, good or bad, of any rule. On failure it prints the whole matrix.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from rule_edits import edit, problems

from rlt_rules import load_library
from rlt_rules.detectors.detect import DetectorSet, pattern_problem, rule_kinds, run_detector
from rlt_rules.library.detector_checks import prove
from rlt_rules.library.model import Detector, HintSeverity, Library, Rule

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "rules"
SAMPLE = ROOT / "samples" / "review" / "scheduler.py"


@pytest.fixture(scope="module")
def library() -> Library:
    return load_library(RULES)


@pytest.fixture
def rules_dir(tmp_path: Path) -> Path:
    target = tmp_path / "rules"
    shutil.copytree(RULES, target)
    return target


# --- the proof ---------------------------------------------------------------------------


def test_every_detector_is_proven_against_every_example(library: Library) -> None:
    proof = prove(library)
    assert proof.failures() == [], "\n".join([*proof.failures(), "", proof.table()])


def test_at_least_eight_rules_have_detectors_and_each_says_what_it_misses(
    library: Library,
) -> None:
    with_detectors = [rule for rule in library.rules if rule.detectors]
    assert len(with_detectors) >= 8, [rule.id for rule in with_detectors]
    for rule in with_detectors:
        for detector in rule.detectors:
            assert detector.note and "miss" in detector.note, f"{rule.id}-{detector.id}"


def test_the_proof_reports_a_detector_that_flags_a_good_example(library: Library) -> None:
    """A detector that flags every return statement flags good code: the matrix says so,
    and where."""
    broad = Detector("any-return", "m", HintSeverity.HINT, {"kind": "return_statement"})
    rule = library.rule("R05")
    widened = replace(
        library,
        rules=tuple(replace(r, detectors=(broad,)) if r is rule else r for r in library.rules),
    )
    proof = prove(widened)
    failures = proof.failures()
    assert any("R05-any-return flags R01 good example 'monolithic-step'" in f for f in failures)
    assert any("outside its '# R05:' markers" in f for f in failures)
    assert "!" in proof.table()


def test_the_proof_reports_a_detector_that_flags_no_bad_example(library: Library) -> None:
    blind = Detector("never", "m", HintSeverity.HINT, {"pattern": "never_called_anywhere($A)"})
    widened = replace(
        library,
        rules=tuple(replace(r, detectors=(blind,)) if r.id == "R05" else r for r in library.rules),
    )
    assert prove(widened).failures() == ["R05-never flags no bad example of R05"]


# --- the engine --------------------------------------------------------------------------


def _all(library: Library) -> DetectorSet:
    return DetectorSet((rule.id, d) for rule in library.rules for d in rule.detectors)


def test_node_kinds_of_rules() -> None:
    assert rule_kinds({"pattern": "hasattr(self, $A)"}) == {"call"}
    assert rule_kinds({"pattern": "$A = $B"}) == {"assignment"}
    assert rule_kinds({"pattern": "return $A, $B"}) == {"return_statement"}
    assert rule_kinds({"pattern": "$X"}) is None
    assert rule_kinds({"has": {"kind": "call"}}) is None
    assert rule_kinds({"any": [{"kind": "call"}, {"pattern": "not $X"}]}) == {
        "call",
        "not_operator",
    }
    assert rule_kinds({"kind": "call", "pattern": "f($A)"}) == {"call"}


def test_hit_positions_count_characters_from_one() -> None:
    detector = Detector("h", "m", HintSeverity.HINT, {"pattern": "hasattr(self, $A)"})
    (hit,) = run_detector("R10", detector, 's = "é—"; hasattr(self, "x")\n')
    assert (hit.line, hit.column, hit.end_line, hit.end_column) == (1, 11, 1, 29)
    assert hit.qualified_id == "R10-h"


@pytest.mark.parametrize(
    ("rule_id", "detector_id", "flagged", "not_flagged"),
    [
        (
            "R07",
            "positional-switch",
            ["f(request, True, False)", "f(True, False)", "f(x, False)"],
            ["f(True)", "getattr(a, 'b', False)", "d.get(k, True)", "f(flag=True)", "f(g(True))"],
        ),
        (
            "R07",
            "count-as-failure",
            [
                "def reserve(n) -> int | None: ...\n"
                "free_blocks = pool.reserve(4)\nif not free_blocks:\n    pass\n",
                "def reserve(n) -> Optional[int]: ...\n"
                "free_blocks = reserve(4)\nif not free_blocks:\n    pass\n",
            ],
            [
                "def reserve(n) -> int | None: ...\n"
                "free_blocks = pool.reserve(4)\nif free_blocks is None:\n    pass\n",
                "def reserve(n) -> int | None: ...\n"
                "free_blocks = pool.reserve(4)\nif not other_count:\n    pass\n",
                "def reserve(n) -> int | None: ...\n"
                "ready = pool.reserve(4)\nif not ready:\n    pass\n",
                # Without a None in the signature, `not` only skips an empty count.
                "def num_layers(r) -> int: ...\n"
                "num_layers = self.num_layers(1)\nif not num_layers:\n"
                "    pass\n",
                "free_blocks = pool.reserve(4)\nif not free_blocks:\n    pass\n",
            ],
        ),
        (
            "R07",
            "minus-one-count",
            ["def free_blocks(self) -> int:\n    return -1\n"],
            [
                "def producer_id(self) -> int:\n    return -1\n",
                "def free_blocks(self) -> int | None:\n    return None\n",
                # An inclusive row bound: -1 admits nothing in `0 < rows <= bound`, as 0 would.
                "def gemv_max_tokens(n) -> int:\n    if n % 16:\n        return -1\n"
                "    return 64\n",
            ],
        ),
        (
            "R10",
            "hasattr-guard",
            [
                "class A:\n    def __init__(self):\n        self.pool = Pool()\n"
                '    def close(self):\n        if hasattr(self, "pool"):\n            pass\n',
                "class A:\n    def __init__(self):\n        self.pool = Pool()\n"
                "    def close(self):\n        if hasattr(self, 'pool'):\n            pass\n",
            ],
            [
                # reflection over names, cleanup of a half-built object, a deleted staging field
                "class A:\n    def __init__(self):\n        self.pool = Pool()\n"
                "    def f(self):\n        for n in dir(self):\n"
                "            getattr(self, n, None)\n",
                "class A:\n    def __init__(self):\n        self.pool = Pool()\n"
                '    def __del__(self):\n        if hasattr(self, "pool"):\n            pass\n',
                "class A:\n    def __init__(self):\n        self.buf = []\n"
                "    def drop(self):\n        del self.buf\n"
                '    def size(self):\n        return hasattr(self, "buf")\n',
                "class A:\n    def __init__(self):\n        if x:\n            self.pool = Pool()\n"
                '    def close(self):\n        if hasattr(self, "pool"):\n            pass\n',
            ],
        ),
        (
            "R10",
            "hasattr-owned-component",
            [
                "class Pool:\n    def free(self): ...\n"
                "class A:\n    def __init__(self):\n        self.pool = Pool()\n"
                '    def f(self):\n        return hasattr(self.pool, "free")\n',
                # Set at the top level of __init__, alone or in a tuple assignment.
                "class Model:\n    def __init__(self):\n"
                "        self.layers, self.start_layer = [], 0\n"
                "class A:\n    def __init__(self):\n        self.model = Model()\n"
                '    def f(self):\n        return hasattr(self.model, "start_layer")\n',
            ],
            [
                "class A:\n    def __init__(self):\n        self.pool = Pool()\n"
                '    def f(self):\n        return hasattr(self.pool, "free")\n',
                "class Pool:\n    def free(self): ...\n"
                "class A:\n    def __init__(self):\n        self.pool = Pool()\n"
                '    def f(self):\n        return hasattr(self.pool, "flush")\n',
                # A member the component builds only under a condition really may be missing.
                "class Pool:\n    def __init__(self, rank):\n        if rank:\n"
                "            self.spill = []\n"
                "class A:\n    def __init__(self):\n        self.pool = Pool(1)\n"
                '    def f(self):\n        return hasattr(self.pool, "spill")\n',
            ],
        ),
        (
            "R11",
            "foreign-container-mutation",
            [
                "class C:\n    def __init__(self, pool):\n        self.pool = pool\n"
                "    def f(self):\n        self.pool.free.pop()\n",
                "m.get_items().clear()",
            ],
            [
                "self._queue.append(x)",
                "other.queue.append(x)",
                # Another object's private container: foreign-table-write's.
                "other._queue.append(x)",
                "m.items().clear()",
                # A queue the class built itself: its own part, not a component it was given.
                "class C:\n    def __init__(self):\n        self.pending = Queue()\n"
                "    def f(self):\n        self.pending.queue.clear()\n",
            ],
        ),
        (
            "R11",
            "foreign-table-write",
            [
                "class C:\n    pool: Pool\n    def f(self, b):\n        self.pool.refs[b] = 0\n",
                "class C:\n    def __init__(self, pool):\n        self.pool = pool\n"
                "    def f(self, b):\n        self.pool.refs[b] -= 1\n",
                "class C:\n    def __init__(self, pool):\n        self.pool = pool\n"
                "    def f(self, b):\n        del self.pool.refs[b]\n",
                "class C:\n    def __init__(self, coordinator):\n"
                "        self.coordinator = coordinator\n"
                "    def f(self, n):\n        self.coordinator.num_reqs.fill_(n)\n",
                "coordinator._skip_first_backup[i] = True",
                "cache._stats['declined'] += 1",
                "other._queue.append(x)",
                "retries._pending.pop(req.rid, None)",
            ],
            [
                "self._refs[b] = 0",
                "other.refs[b] = 0",
                "class C:\n    def __init__(self):\n        self.buffers = Buffers()\n"
                "    def f(self, n):\n        self.buffers.seq_lens.fill_(n)\n",
                "class C:\n    pool: Pool = None\n"
                "    def f(self, b):\n        self.pool.refs[b] = 0\n",
                "class C:\n    def __init__(self, pool):\n        self.pool = pool\n"
                "    def f(self, b):\n        self.pool.refs.sum()\n",
            ],
        ),
        (
            "R02",
            "foreign-field-write",
            [
                "class C:\n    policy: Policy\n    def f(self):\n        self.policy.streak = 0\n",
                "class C:\n    def __init__(self, policy: Policy):\n        self.policy = policy\n"
                "    def f(self):\n        self.policy.streak = 0\n",
            ],
            [
                # An object initialising a sub-object it built itself.
                "class C:\n    def __init__(self):\n        self.root = Node()\n"
                "        self.root.lock_ref = 1\n",
                # A record held in a field with a default: the object's own payload.
                "class C:\n    output: Output | None = None\n    def f(self):\n"
                "        self.output.logprobs = None\n",
                "class C:\n    def __init__(self, policy):\n        self.policy = policy\n"
                "    def f(self):\n        self.policy.streak += 1\n",
            ],
        ),
        (
            "R02",
            "foreign-field-advance",
            [
                "class C:\n    def __init__(self, reporter):\n        self.reporter = reporter\n"
                "    def f(self, n):\n        self.reporter.generated_tokens += n\n",
            ],
            [
                "class C:\n    def __init__(self):\n        self.window = Window()\n"
                "    def f(self, n):\n        self.window.seconds += n\n",
                "class C:\n    def __init__(self, reporter):\n        self.reporter = reporter\n"
                "    def f(self, n):\n        self.generated_tokens += n\n",
            ],
        ),
        (
            "R17",
            "id-only-result-lookup",
            [
                "def f(self, result):\n    r = self.running.get(result.request_id)\n"
                "    if r is None:\n        return\n    r.tokens.append(result.token)\n"
            ],
            [
                "def f(self, result):\n    r = self.running.get(result.request_id)\n"
                "    if r is None:\n        return\n"
                "    if r.generation != result.generation:\n        return\n",
                "def f(self, result):\n    r = self.running.get(result.request_id)\n"
                "    if r is None or r.generation != result.generation:\n        return\n",
            ],
        ),
        (
            "R03",
            "one-method-reset",
            [
                "class S:\n    def __init__(self):\n        self.selected = set()\n"
                "    def step(self):\n        self.selected.clear()\n        return self.build()\n",
                "class S:\n    selected: set[str] = field(default_factory=set)\n"
                "    def step(self, r):\n        self.selected.clear()\n"
                "        self.selected.add(r)\n",
            ],
            [
                "class S:\n    def __init__(self):\n        self.selected = set()\n"
                "    def reset(self):\n        self.selected.clear()\n        self.build()\n",
                "class S:\n    def __init__(self):\n        self.selected = set()\n"
                "    def step(self):\n        if x:\n            self.selected.clear()\n"
                "        self.build()\n",
                # A threading.Event: not a collection of one operation's state.
                "class S:\n    def __init__(self):\n        self.stop = threading.Event()\n"
                "    def start(self):\n        self.stop.clear()\n        self.launch()\n",
                # A queue drained after its items are taken.
                "class S:\n    def __init__(self):\n        self.queue = []\n"
                "    def flush(self):\n        ops = list(self.queue)\n        self.queue.clear()\n"
                "        self.run(ops)\n",
                # A teardown: nothing uses the field or a helper afterwards.
                "class S:\n    def __init__(self):\n        self.graphs = {}\n"
                "    def cleanup(self):\n        self.graphs.clear()\n        self.pool = None\n",
            ],
        ),
        (
            "R09",
            "unitless-compare",
            [
                "def f(self, free_blocks):\n    return free_blocks >= self.watermark\n",
                "def f(config, used_tokens):\n    return used_tokens > config.limit\n",
            ],
            [
                # A local: its unit is in view where it is assigned.
                "def f(prefill_tokens):\n    capacity = env.MAX_DISPATCH_TOKENS\n"
                "    return prefill_tokens > capacity\n",
                "def f(self, free_blocks):\n    return free_blocks >= self.watermark_blocks\n",
                "def f(self, free_blocks):\n    return free_blocks >= self.pool.size\n",
            ],
        ),
        (
            "R13",
            "version-as-capability",
            ["b.generation == 4", "self.backend.arch >= 90", "device.version >= (2, 5)"],
            [
                "b.name == 'x'",
                # A component's own version, or a parameter or local: it informs the
                # implementation (a kernel's instructions, a capability probe), as R13 allows.
                "self.arch == 90",
                "arch < 100",
                "version >= (2, 5)",
                "generation == 0",
                "source_ip.version == 6",
            ],
        ),
    ],
)
def test_detectors_on_code_beyond_the_examples(
    library: Library, rule_id: str, detector_id: str, flagged: list[str], not_flagged: list[str]
) -> None:
    check_shapes(library, rule_id, detector_id, flagged, not_flagged)


def check_shapes(
    library: Library, rule_id: str, detector_id: str, flagged: list[str], not_flagged: list[str]
) -> None:
    """``rule_id``'s detector ``detector_id`` flags every code of ``flagged`` and none of
    ``not_flagged``."""
    (detector,) = [d for d in library.rule(rule_id).detectors if d.id == detector_id]
    for code in flagged:
        assert run_detector(rule_id, detector, code), code
    for code in not_flagged:
        assert not run_detector(rule_id, detector, code), code


def test_the_worked_review_sample_is_flagged_where_the_review_found_its_findings(
    library: Library,
) -> None:
    """``samples/review/scheduler.py`` has findings for R03, R07, R09, R10, R11 and R17: every
    hit falls inside a finding of the same rule (R09's abbreviation has no proven detector)."""
    import yaml

    review = yaml.safe_load((ROOT / "samples" / "review" / "findings.yaml").read_text())
    ranges = [
        (f["rule"], f["location"]["start_line"], f["location"]["end_line"])
        for f in review["findings"]
    ]
    hits = _all(library).run(SAMPLE.read_text(encoding="utf-8"))
    assert {hit.rule_id for hit in hits} == {"R03", "R07", "R10", "R11", "R17"}
    for hit in hits:
        assert any(r == hit.rule_id and s <= hit.line <= e for r, s, e in ranges), hit


# --- validation --------------------------------------------------------------------------


def test_an_invalid_pattern_is_reported_where_it_is_written(rules_dir: Path) -> None:
    edit(
        rules_dir / "R10.yaml",
        '- pattern: hasattr(self, "$NAME")',
        '- pattern: hasattr(self, "$NAME"',
    )
    text = (rules_dir / "R10.yaml").read_text().splitlines()
    line = next(n for n, t in enumerate(text, 1) if t.endswith('pattern: hasattr(self, "$NAME"'))
    column = text[line - 1].index("hasattr") + 1
    assert problems(rules_dir) == [
        f"rules/R10.yaml:{line}:{column}: detector 'hasattr-guard': pattern "
        "'hasattr(self, \"$NAME\"' does not parse as Python (from column 1), so ast-grep would "
        "silently match nothing"
    ]


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "        - kind: assignment\n",
            "        - kind: assignmentt\n",
            "detector 'foreign-field-write': kind 'assignmentt' is not a node kind of Python in "
            "ast-grep",
        ),
        (
            "        regex: ^get_\n",
            "        regex: ^get_[\n",
            "detector 'foreign-container-mutation': regex: invalid regular expression: unclosed "
            "character class",
        ),
        (
            "      GETTER:\n",
            "      GETER:\n",
            "detector 'foreign-container-mutation': constrains $GETER, which no pattern of the "
            "rule binds",
        ),
        (
            "            - kind: assignment\n",
            "            - kind: assignment\n              stopBy: end\n",
            "detector 'foreign-field-write': stopBy belongs in a relational rule (inside, has, "
            "follows, precedes)",
        ),
        (
            "            - kind: assignment\n",
            "            - kind: assignment\n              patern: x\n",
            "unknown field 'patern' in detectors[0].rule.any[0].all[0]; allowed fields: all, any, "
            "field, follows, has, inside, kind, not, pattern, precedes, regex, stopBy",
        ),
        (
            "    severity: hint\n",
            "    severity: error\n",
            "detectors[0].severity must be one of: hint, info, warning; got 'error'",
        ),
    ],
)
def test_detector_mistakes_are_reported_at_their_position(
    rules_dir: Path, old: str, new: str, message: str
) -> None:
    name = "R11.yaml" if "foreign-container-mutation" in message else "R02.yaml"
    edit(rules_dir / name, old, new)
    found = problems(rules_dir)
    assert len(found) == 1, found
    assert found[0].split(": ", 1)[1] == message, found
    assert found[0].startswith(f"rules/{name}:")


def test_a_repeated_detector_id_is_reported(rules_dir: Path) -> None:
    text = (rules_dir / "R10.yaml").read_text()
    end = text.index("  - id: hasattr-owned-component")
    block = text[text.index("  - id: hasattr-guard") : end]
    # inserted among the detectors (the record may end with another list, its practice bank)
    (rules_dir / "R10.yaml").write_text(text[:end] + block + text[end:])
    found = problems(rules_dir)
    assert len(found) == 1 and "two detectors are named 'hasattr-guard'" in found[0], found


def test_pattern_problems() -> None:
    assert pattern_problem("hasattr(self, $A)") is None
    assert pattern_problem("$$$ARGS") is None
    assert pattern_problem("def f($$$A):\n    $$$BODY") is None
    assert pattern_problem("if x") is not None


def test_detectors_round_trip_through_the_bundle(library: Library) -> None:
    rule = library.rule("R07")
    again = Rule.from_dict(rule.to_dict())
    assert again == rule and again.detectors == rule.detectors
    assert hash(again) == hash(rule)
    assert rule.to_dict()["detectors"][0] == {
        "id": "positional-switch",
        "message": rule.detectors[0].message,
        "severity": "hint",
        "rule": rule.detectors[0].rule,
        "measured": rule.detectors[0].measured.to_dict(),
        "note": rule.detectors[0].note,
    }


def test_detector_text_is_one_line(rules_dir: Path) -> None:
    edit(
        rules_dir / "R10.yaml",
        "    message: Guards on an attribute",
        "    message: |-\n      two\n      lines Guards on an attribute",
    )
    found = problems(rules_dir)
    assert len(found) == 1 and "detectors[0].message" in found[0], found
