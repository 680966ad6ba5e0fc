"""Test doubles: a minimal round-robin policy, so the machine can be tested apart from the real policies."""

from __future__ import annotations

from collections import deque

from model.sched.base import RunqueueEntry, RunqueueView, select_cpu_per_rq
from model.task import Task


class RoundRobinPolicy:
    """Per-CPU FIFO, a fixed slice in ticks, yield to the tail. Not a kernel policy: a yardstick."""

    name = "rr"

    def __init__(self, ncpus: int, hz: int, slice_ticks: int = 2) -> None:
        self.ncpus = ncpus
        self.queues: list[deque[Task]] = [deque() for _ in range(ncpus)]
        self.curr: list[Task | None] = [None] * ncpus
        self.slice_ticks = slice_ticks
        self.ticks_left: dict[Task, int] = {}

    def nr_running(self, cpu: int) -> int:
        return len(self.queues[cpu]) + (self.curr[cpu] is not None)

    def select_task_rq(self, task: Task, now_ns: int) -> int:
        return select_cpu_per_rq(task, self.ncpus, self.nr_running)

    def task_new(self, task: Task, cpu: int, now_ns: int) -> None:
        task.se = True
        self.queues[cpu].append(task)

    def enqueue(self, task: Task, cpu: int, now_ns: int, wakeup: bool) -> None:
        self.queues[cpu].append(task)

    def dequeue(self, task: Task, cpu: int, now_ns: int) -> None:
        self.curr[cpu] = None

    def put_prev(self, task: Task, cpu: int, now_ns: int) -> None:
        self.curr[cpu] = None
        if self.ticks_left.get(task, 1) <= 0:
            self.queues[cpu].append(task)
        else:
            self.queues[cpu].appendleft(task)

    def pick_next(self, cpu: int, now_ns: int) -> Task | None:
        q = self.queues[cpu]
        task = q.popleft() if q else None
        self.curr[cpu] = task
        if task is not None and self.ticks_left.get(task, 0) <= 0:
            self.ticks_left[task] = self.slice_ticks
        return task

    def update_curr(self, cpu: int, now_ns: int) -> None:
        pass

    def task_tick(self, cpu: int, now_ns: int) -> bool:
        task = self.curr[cpu]
        assert task is not None
        self.ticks_left[task] -= 1
        return self.ticks_left[task] <= 0 and bool(self.queues[cpu])

    def check_preempt_wakeup(self, cpu: int, woken: Task, now_ns: int) -> bool:
        return False

    def yield_task(self, cpu: int, now_ns: int) -> str:
        task = self.curr[cpu]
        assert task is not None
        self.ticks_left[task] = 0  # to the tail
        return "tail"

    def yield_noop_budget_ns(self, cpu: int, now_ns: int) -> int | None:
        return None if not self.queues[cpu] else 0

    def set_tunable(self, key: str, value: int) -> None:
        raise KeyError(key)

    def runqueue_view(self, cpu: int, now_ns: int) -> RunqueueView:
        rows = [RunqueueEntry(t.tid, "queued", "pos", i) for i, t in enumerate(self.queues[cpu])]
        return RunqueueView(cpu, tuple(rows))
