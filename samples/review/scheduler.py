"""A small scheduler with a preemption path: the code that ``findings.yaml`` reviews.

It runs (``python samples/review/scheduler.py``) and it has defects the rules catch; the demo
at the end shows two of them happening. Read the review before borrowing from this file.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Request:
    request_id: str
    priority: int  # Lower value: preempted first.
    blocks: int  # KV blocks the request holds while running.
    output_tokens: list[int] = field(default_factory=list)


@dataclass
class StepResult:
    request_id: str
    tokens: list[int]


class BlockPool:
    def __init__(self, total_blocks: int) -> None:
        self.free_blocks = total_blocks

    def reserve(self, count: int) -> int | None:
        """Reserve ``count`` blocks: the number left free, or None when too few are free."""
        if count > self.free_blocks:
            return None
        self.free_blocks -= count
        return self.free_blocks

    def release(self, count: int) -> None:
        self.free_blocks += count


class PreemptionManager:
    def __init__(self) -> None:
        self.snapshots: dict[str, list[int]] = {}

    def save(self, request: Request) -> None:
        self.snapshots[request.request_id] = list(request.output_tokens)


class Scheduler:
    def __init__(self, pool: BlockPool, preemption: PreemptionManager) -> None:
        self.pool = pool
        self.preemption = preemption
        self.waiting: list[Request] = []
        self.running: dict[str, Request] = {}
        self.selected: set[str] = set()

    def build_batch(self, budget: int) -> list[str]:
        self.selected.clear()
        for request in list(self.waiting)[:budget]:
            if self.admit(request):
                self.selected.add(request.request_id)
        return sorted(self.selected)

    def admit(self, request: Request) -> bool:
        free = self.pool.reserve(request.blocks)
        if not free:
            return False
        self.waiting.remove(request)
        self.running[request.request_id] = request
        return True

    def admit_urgent(self, request: Request) -> bool:
        """Admit ``request`` now, preempting the lowest-priority running request if needed."""
        self.waiting.insert(0, request)
        if self.admit(request):
            return True
        victim = self.pick_victim()
        if victim is None:
            return False
        self.preempt(victim)
        return self.admit(request)

    def pick_victim(self) -> Request | None:
        candidates = [r for r in self.running.values() if r.request_id not in self.selected]
        return min(candidates, key=lambda r: r.priority, default=None)

    def preempt(self, request: Request) -> None:
        self.preemption.save(request)
        del self.running[request.request_id]
        self.pool.release(request.blocks)
        self.waiting.append(request)

    def finish(self, rid: str) -> None:
        request = self.running.pop(rid)
        self.pool.release(request.blocks)
        if hasattr(self, "preemption"):
            self.preemption.snapshots.pop(rid, None)

    def apply_result(self, result: StepResult) -> None:
        request = self.running.get(result.request_id)
        if request is None:
            return
        request.output_tokens.extend(result.tokens)


if __name__ == "__main__":
    # R07: a request that fits exactly is refused and its 4 blocks leak; prints "[] 0".
    scheduler = Scheduler(BlockPool(total_blocks=4), PreemptionManager())
    scheduler.waiting.append(Request("req-1", priority=1, blocks=4))
    print(scheduler.build_batch(budget=1), scheduler.pool.free_blocks)

    # R03: the last batch's selection still protects "low" from preemption; prints "False".
    scheduler = Scheduler(BlockPool(total_blocks=5), PreemptionManager())
    scheduler.waiting += [Request("low", priority=0, blocks=2), Request("high", 5, 1)]
    scheduler.build_batch(budget=2)
    print(scheduler.admit_urgent(Request("urgent", priority=9, blocks=3)))

    # R17: a late result for a finished request lands in the request reusing its id.
    scheduler = Scheduler(BlockPool(total_blocks=2), PreemptionManager())
    scheduler.waiting.append(Request("req-7", priority=1, blocks=1))
    scheduler.build_batch(budget=1)
    late = StepResult("req-7", tokens=[11, 12])
    scheduler.finish("req-7")
    scheduler.waiting.append(Request("req-7", priority=1, blocks=1))
    scheduler.build_batch(budget=1)
    scheduler.apply_result(late)
    print(scheduler.running["req-7"].output_tokens)  # Prints "[11, 12]".
