"""Test doubles and fixtures: a minimal round-robin policy (the machine tested apart from the real policies)
and a small two-CPU user scenario for the GUI tests."""

from __future__ import annotations

from collections import deque

from model.sched.base import SchedPolicy, select_cpu_per_rq
from model.snapshot import BfsEntry, BfsView, YieldOutcome
from model.task import Task

# A small user scenario for the GUI tests: two CPUs, two hogs, a yield-poller and a niced sleeper.
TWO_CPUS = """
[scenario]
name = "two-cpus"
title = "Two CPUs: two hogs, a yielder and a sleeper"
description = "A small machine for the tests."
[machine]
cpus = 2
hz = 250
[[tasks]]
name = "hog"
kind = "hog"
count = 2
[[tasks]]
name = "yielder"
kind = "yielder"
run_us = 300
[[tasks]]
name = "sleeper"
kind = "sleeper"
nice = -5
run_us = 500
sleep_us = 3000
"""


class RoundRobinPolicy(SchedPolicy):
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
        return select_cpu_per_rq(task, self.ncpus, self)

    def task_new(self, task: Task, cpu: int, now_ns: int, parent: Task | None = None) -> None:
        task.se = True
        self.queues[cpu].append(task)

    def enqueue(self, task: Task, cpu: int, now_ns: int, wakeup: bool, from_irq: bool = False) -> None:
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

    def yield_task(self, cpu: int, now_ns: int, describe: bool = True) -> YieldOutcome | None:
        task = self.curr[cpu]
        assert task is not None
        self.ticks_left[task] = 0  # to the tail
        return YieldOutcome("rightmost")

    def yield_noop_budget_ns(self, cpu: int, now_ns: int) -> int | None:
        return None if not self.queues[cpu] else 0

    def set_tunable(self, key: str, value: int) -> None:
        raise KeyError(key)

    def runqueue_view(self, cpu: int, now_ns: int) -> BfsView:
        """A FIFO drawn as BFS's list: position i as deadline i."""
        queue = self.queues[cpu]
        rows = [BfsEntry(t.tid, False, i == 0, i, False, 0, -1, -1) for i, t in enumerate(queue)]
        return BfsView(cpu, tuple(rows), jiffies=0)
