"""The shapes the detectors were widened to, and the new detectors, on code beyond the examples.

Each row: code a detector must flag (the shape a rule's trigger states) and code it must leave
alone (the look-alikes the SGLang corpus showed, each named by a comment). The proof against
the library's examples is ``tests/test_detectors.py``; the precision on real code is the corpus
tests'.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_detectors import check_shapes

from rlt_rules import load_library
from rlt_rules.library.model import Library

RULES = Path(__file__).resolve().parents[1] / "rules"


@pytest.fixture(scope="module")
def library() -> Library:
    return load_library(RULES)


def _indented(text: str) -> str:
    return "".join(f"        {line}\n" for line in text.splitlines())


def _class(init: str, method: str) -> str:
    """A class whose __init__ body is ``init`` and which has one more method, ``method``."""
    return (
        "class A:\n    def __init__(self, given):\n"
        f"{_indented(init)}\n    def f(self, x):\n{_indented(method)}"
    )


SHAPES = [
    (
        "R02",
        "foreign-field-write",
        [
            # A private field of a component self holds, however it came.
            _class("self.skipper = Skipper()", "self.skipper._counter = 0"),
        ],
        [
            _class("self._counter = 0", "self._counter = 0"),
            # A test fixture setting up a half-built object on purpose.
            "class T:\n    def setUp(self):\n        self.stage._cache = {}\n",
            # A public field of a component the class built itself: its own record.
            _class("self.window = Window()", "self.window.size = 0"),
        ],
    ),
    (
        "R02",
        "foreign-field-advance",
        ["queue = self.queue\nqueue._num_published -= n\n", "self.reporter._count += 1"],
        [
            "self._count += 1",
            # A descriptor's __set__ manages the instance it is given.
            "class D:\n    def __set__(self, obj, value):\n        obj._epoch += 1\n",
            "def test_x(pool):\n    pool._count += 1\n",
        ],
    ),
    (
        "R06",
        "state-literal",
        [
            'if layout.value != "v4":\n    pass\n',
            "def poll(self):\n    status = self.req.restore_status.value\n"
            '    if status == "pending":\n        return 1\n',
            "label = batch.forward_mode.name.lower()",
            'kind = type(self).__name__.split("_", 1)[1].lower()',
        ],
        [
            # An Enum's own string form is the one place the mapping lives.
            "class K(Enum):\n    A = 1\n    def __str__(self):\n        return self.name.lower()\n",
            "def poll(self):\n    status = compute()\n"
            '    if status == "pending":\n        return 1\n',
            'if layout.value != f"{x}":\n    pass\n',
            "name = user_name.lower()",
        ],
    ),
    (
        "R06",
        "three-valued-bool",
        [
            "def resume(self, rid) -> bool | None:\n    return None\n",
            "def evict(self, n) -> Optional[bool]:\n    return True\n",
        ],
        [
            "def resume(self, rid) -> bool:\n    return True\n",
            # A getter of an optional setting: None means not set, not an outcome.
            "def get_override() -> Optional[bool]:\n    return _override\n",
            "def f(x: Optional[bool]) -> int:\n    return 1\n",
        ],
    ),
    (
        "R07",
        "count-as-failure",
        ["if not max_new_tokens:\n    abort()\n    max_new_tokens = 0\n"],
        [
            "if max_new_tokens is None:\n    abort()\n    max_new_tokens = 0\n",
            # Without the reset, `not` only skips an empty count.
            "if not num_layers:\n    continue\n",
            "if not ready:\n    ready = 0\n",
        ],
    ),
    (
        "R07",
        "query-with-side-effect",
        [
            "def can_schedule(self, req, running):\n    running.add(req.lora_id)\n"
            "    return True\n",
            "def _should_defer(self, batch):\n    self._remaining -= 1\n    return True\n",
            "def plan_admission(self, p):\n    self._lru.move_to_end(p)\n",
        ],
        [
            # A plan building its own result.
            "def plan_prefill(self, waiting):\n    batch = []\n    batch.append(waiting[0])\n"
            "    return batch\n",
            # A cache's get refreshing its LRU order, and a poll consuming finished work.
            "def get(self, key):\n    self._lru.move_to_end(key)\n",
            "def check_progress(self, rid):\n    self._ongoing.pop(rid, None)\n",
            "def can_schedule(self, req):\n    return req.id in self.running\n",
        ],
    ),
    (
        "R10",
        "hasattr-guard",
        [
            # Set on both paths of an if/else at the top level of __init__.
            _class(
                "if given:\n    self.manager = Manager()\nelse:\n    self.manager = None",
                'if getattr(self, "manager", None) is not None:\n    pass',
            ),
            # A dataclass field without a default: the generated __init__ sets it.
            "@dataclass\nclass P:\n    coordinator: Optional[Coordinator]\n"
            '    def f(self):\n        return getattr(self, "coordinator", None)\n',
            # A required, empty container built on first use.
            _class(
                "self._window = None",
                "if self._window is None:\n    self._window = deque(maxlen=4)",
            ),
        ],
        [
            # Set on one path only: the field really may be missing.
            _class(
                "if given:\n    self.manager = Manager()",
                'if getattr(self, "manager", None) is not None:\n    pass',
            ),
            "@dataclass\nclass P:\n    coordinator: Optional[Coordinator] = None\n"
            '    def f(self):\n        return getattr(self, "coordinator", None)\n',
            # A container copied from another object, or a component built with arguments.
            _class(
                "self._window = None",
                "if self._window is None:\n    self._window = list(x.items)",
            ),
            _class("self._pool = None", "if self._pool is None:\n    self._pool = Pool(x)"),
        ],
    ),
    (
        "R11",
        "internal-container-getter",
        [
            "class T:\n    def __init__(self):\n        self._pending = {}\n"
            "    @property\n    def pending(self):\n        return self._pending\n",
            "class T:\n    def __init__(self):\n        self._snapshots: dict = dict()\n"
            "    def get_snapshots(self):\n        return self._snapshots\n",
        ],
        [
            "class T:\n    def __init__(self):\n        self._pending = {}\n"
            "    @property\n    def pending(self):\n        return dict(self._pending)\n",
            "class T:\n    def __init__(self, pending):\n        self._pending = pending\n"
            "    @property\n    def pending(self):\n        return self._pending\n",
            "class T:\n    def __init__(self):\n        self._count = 0\n"
            "    @property\n    def count(self):\n        return self._count\n",
        ],
    ),
    (
        "R13",
        "version-as-capability",
        [
            'model_runner.prefill_attention_backend_str == "dsv4"',
            'runner.decode_backend_name not in ("trtllm_mha", "dsv4")',
            'runner.attention_backend_str.startswith("flash")',
        ],
        [
            'self.attention_backend_str == "triton"',
            # A selector validating a choice, and a backend reading its own role.
            'assert runner.prefill_attention_backend_str == "ascend"',
            "class TrtllmBackend:\n    def __init__(self, runner):\n"
            '        self.p = runner.prefill_attention_backend_str == "trtllm"\n',
            'server_args.attention_backend == "fa3"',
        ],
    ),
    (
        "R14",
        "substitute-backend",
        [
            'def select(requested):\n    if requested != "auto":\n'
            '        if not ok:\n            requested = "triton"\n',
            "def build(name, runner):\n    try:\n        return BACKENDS[name](runner)\n"
            '    except ImportError:\n        return BACKENDS["triton"](runner)\n',
            'def pick(name):\n    if importlib.util.find_spec("fast_core") is None:\n'
            '        return "python"\n    return name\n',
        ],
        [
            'def select(requested):\n    if requested != "auto":\n'
            '        raise ValueError(f"{requested} cannot run")\n',
            "def build(name, runner):\n    try:\n        return BACKENDS[name](runner)\n"
            "    except ImportError:\n        raise\n",
            "def probe():\n    try:\n        import x\n    except Exception:\n"
            '        backend = "unavailable"\n',
            'if importlib.util.find_spec("triton") is None:\n    install_stub()\n',
        ],
    ),
    (
        "R17",
        "id-only-result-lookup",
        [
            "async def release(self, req_id):\n    state = self.states.get(req_id)\n"
            "    await state.done.wait()\n    self.states.pop(req_id, None)\n",
        ],
        [
            "async def release(self, req_id):\n    state = self.states.get(req_id)\n"
            "    await state.done.wait()\n    if self.states.get(req_id) is not state:\n"
            "        return\n    self.states.pop(req_id, None)\n",
            # Nothing awaited between the lookup and the removal.
            "async def release(self, req_id):\n    state = self.states.get(req_id)\n"
            "    self.states.pop(req_id, None)\n    await state.close()\n",
        ],
    ),
    (
        "R11",
        "foreign-table-write",
        ["retries._pending.pop(req.rid, None)", "cache._prefetch_wait.clear()"],
        ["self._pending.pop(rid, None)", "retries.pending.pop(rid, None)", "x._pending.get(r)"],
    ),
]


@pytest.mark.parametrize(
    ("rule_id", "detector_id", "flagged", "not_flagged"),
    SHAPES,
    ids=[f"{rule}-{detector}" for rule, detector, _, _ in SHAPES],
)
def test_widened_and_new_detectors_on_code_beyond_the_examples(
    library: Library, rule_id: str, detector_id: str, flagged: list[str], not_flagged: list[str]
) -> None:
    check_shapes(library, rule_id, detector_id, flagged, not_flagged)
