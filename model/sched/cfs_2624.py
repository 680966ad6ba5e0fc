"""CFS as rewritten for Linux 2.6.24: the ``vruntime`` / ``min_vruntime`` design.

Each task's ``vruntime`` advances by ``delta * NICE_0_LOAD / weight`` while it runs; each CPU's
cfs_rq keeps an rbtree of its waiting tasks ordered by vruntime (the current task is taken out by
``set_next_entity`` and put back by ``put_prev_entity``) and a monotonic ``min_vruntime``. A tick
preempts once the current task has run its ``sched_slice`` (its weight's share of the period); a
wakeup preempts if the woken task's vruntime is more than the wakeup granularity behind; woken
sleepers are placed at ``min_vruntime - latency`` at best (NEW_FAIR_SLEEPERS) and new tasks one
vslice after ``min_vruntime`` (START_DEBIT). Source: ``kernel/sched_fair.c`` of 2.6.24
(KERNEL.md §B.5, B.6).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from model.copyable import mypyc_attr
from model.sched.base import (
    NICE_0_LOAD,
    NSEC_PER_MSEC,
    SchedPolicy,
    calc_delta_fair,
    cpu_scale_factor,
    nice_to_weight,
    select_cpu_per_rq,
)
from model.sched.cfs_2623 import COMPAT_YIELD, check_tunable
from model.sched.registry import PolicyInfo, landing_words
from model.sched.timeline import Node, Timeline
from model.snapshot import YIELD_ALONE, Cfs2624Entry, Cfs2624View, YieldOutcome
from model.task import Task

LATENCY_NS: Final = 20 * NSEC_PER_MSEC  # sysctl_sched_latency before boot-time scaling
MIN_GRANULARITY_NS: Final = 4 * NSEC_PER_MSEC  # sysctl_sched_min_granularity
WAKEUP_GRANULARITY_NS: Final = 10 * NSEC_PER_MSEC  # sysctl_sched_wakeup_granularity
BATCH_WAKEUP_GRANULARITY_NS: Final = 10 * NSEC_PER_MSEC  # kept for the tunables table; no SCHED_BATCH here
GRANULARITY_LIMIT_NS: Final = 200 * NSEC_PER_MSEC  # the clamp in 2.6.24 sched_init_granularity()
SCHED_NR_LATENCY: Final = 5  # latency / min_granularity; not rescaled with the CPU count


@dataclass(slots=True)
class Se2624:
    """2.6.24 ``struct sched_entity`` (the fields this model uses)."""

    weight: int
    cpu: int
    vruntime: int = 0
    sum_exec_ns: int = 0
    prev_sum_exec_ns: int = 0
    exec_start_ns: int = 0
    node: Node | None = None  # position in the timeline while waiting (never while current)


@dataclass(slots=True)
class CfsRq2624:
    min_vruntime: int = 0
    load: int = 0  # total weight of the runnable tasks, current included
    nr_running: int = 0  # runnable tasks, current included
    curr: Task | None = None
    timeline: Timeline = field(default_factory=Timeline)


def _se(task: Task) -> Se2624:
    if not isinstance(task.se, Se2624):
        raise TypeError(f"task {task.name} is not scheduled by cfs-2.6.24")
    return task.se


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class Cfs2624Policy(SchedPolicy):
    name = "cfs-2.6.24"

    def __init__(self, ncpus: int, hz: int) -> None:
        self.ncpus = ncpus
        self.hz = hz
        # 2.6.24 sched_init_granularity(): scale by 1 + ilog2(ncpus); latency and min_granularity
        # are clamped at 200 ms, the wakeup granularities are not; sched_nr_latency stays 5.
        factor = cpu_scale_factor(ncpus)
        self.min_granularity_ns = min(MIN_GRANULARITY_NS * factor, GRANULARITY_LIMIT_NS)
        self.latency_ns = min(LATENCY_NS * factor, GRANULARITY_LIMIT_NS)
        self.wakeup_granularity_ns = WAKEUP_GRANULARITY_NS * factor
        self.batch_wakeup_granularity_ns = BATCH_WAKEUP_GRANULARITY_NS * factor
        self.nr_latency = SCHED_NR_LATENCY
        self.compat_yield = 0
        self.rqs = [CfsRq2624() for _ in range(ncpus)]

    # ---- arithmetic (kernel/sched_fair.c) --------------------------------------------------------

    def sched_period(self, nr: int) -> int:
        # __sched_period(): stretch the latency once more than nr_latency tasks share the CPU.
        return self.latency_ns * nr // self.nr_latency if nr > self.nr_latency else self.latency_ns

    def sched_slice(self, rq: CfsRq2624, se: Se2624) -> int:
        # The wall-time share of the period that this task's weight buys.
        return self.sched_period(rq.nr_running) * se.weight // rq.load

    def sched_vslice_add(self, rq: CfsRq2624, se: Se2624) -> int:
        # The virtual slice of the period as it will be once ``se`` has joined the queue.
        return self.sched_period(rq.nr_running + 1) * NICE_0_LOAD // (rq.load + se.weight)

    def _place_entity(self, rq: CfsRq2624, se: Se2624, initial: bool) -> None:
        vruntime = rq.min_vruntime
        if initial:
            # START_DEBIT: "the 'current' period is already promised to the current tasks".
            vruntime += self.sched_vslice_add(rq, se)
        else:
            # NEW_FAIR_SLEEPERS: "sleeps upto a single latency don't count" ...
            vruntime -= self.latency_ns
            # ... "ensure we never gain time by being placed backwards".
            vruntime = max(se.vruntime, vruntime)
        se.vruntime = vruntime

    def _enqueue_entity(self, rq: CfsRq2624, task: Task, se: Se2624) -> None:
        se.node = rq.timeline.insert(task, se.vruntime)
        rq.load += se.weight
        rq.nr_running += 1

    # ---- SchedPolicy -------------------------------------------------------------------------------

    def select_task_rq(self, task: Task, now_ns: int) -> int:
        return select_cpu_per_rq(task, self.ncpus, self)

    def task_new(self, task: Task, cpu: int, now_ns: int, parent: Task | None = None) -> None:
        rq = self.rqs[cpu]
        se = Se2624(weight=nice_to_weight(task.nice), cpu=cpu)
        task.se = se
        self.update_curr(cpu, now_ns)
        self._place_entity(rq, se, initial=True)
        # SIMPLIFICATION: no child-runs-first vruntime swap with the parent, and no resched: every
        # task is created before anything runs (no parent is current) and task_new cannot ask for
        # a reschedule.
        self._enqueue_entity(rq, task, se)

    def enqueue(self, task: Task, cpu: int, now_ns: int, wakeup: bool, from_irq: bool = False) -> None:
        rq = self.rqs[cpu]
        se = _se(task)
        if se.cpu != cpu:
            # set_task_cpu(): keep the task's distance to min_vruntime across the move.
            se.vruntime -= self.rqs[se.cpu].min_vruntime - rq.min_vruntime
            se.cpu = cpu
        self.update_curr(cpu, now_ns)
        if wakeup:
            self._place_entity(rq, se, initial=False)
        self._enqueue_entity(rq, task, se)

    def dequeue(self, task: Task, cpu: int, now_ns: int) -> None:
        rq = self.rqs[cpu]
        se = _se(task)
        self.update_curr(cpu, now_ns)
        if task is rq.curr:
            rq.curr = None  # the current task is not in the tree
        else:
            assert se.node is not None
            rq.timeline.remove(se.node)
            se.node = None
        rq.load -= se.weight
        rq.nr_running -= 1

    def put_prev(self, task: Task, cpu: int, now_ns: int) -> None:
        # put_prev_entity(): "Put 'current' back into the tree" at its vruntime.
        rq = self.rqs[cpu]
        self.update_curr(cpu, now_ns)
        se = _se(task)
        se.node = rq.timeline.insert(task, se.vruntime)
        rq.curr = None

    def pick_next(self, cpu: int, now_ns: int) -> Task | None:
        rq = self.rqs[cpu]
        task = rq.timeline.leftmost()
        if task is None:
            return None
        se = _se(task)
        assert se.node is not None
        rq.timeline.remove(se.node)  # set_next_entity(): "'current' is not kept within the tree"
        se.node = None
        se.exec_start_ns = now_ns
        se.prev_sum_exec_ns = se.sum_exec_ns
        rq.curr = task
        return task

    def update_curr(self, cpu: int, now_ns: int) -> None:
        rq = self.rqs[cpu]
        if rq.curr is None:
            return
        se = _se(rq.curr)
        delta = now_ns - se.exec_start_ns
        if delta <= 0:
            return
        se.exec_start_ns = now_ns
        se.sum_exec_ns += delta
        se.vruntime += calc_delta_fair(delta, se.weight)
        # "maintain cfs_rq->min_vruntime to be a monotonic increasing" value.
        left = rq.timeline.leftmost()
        vruntime = se.vruntime if left is None else min(se.vruntime, _se(left).vruntime)
        rq.min_vruntime = max(rq.min_vruntime, vruntime)

    def task_tick(self, cpu: int, now_ns: int) -> bool:
        # entity_tick() -> check_preempt_tick(): resched once this stint exceeds sched_slice().
        rq = self.rqs[cpu]
        assert rq.curr is not None
        self.update_curr(cpu, now_ns)
        if rq.nr_running <= 1:
            return False
        se = _se(rq.curr)
        return se.sum_exec_ns - se.prev_sum_exec_ns > self.sched_slice(rq, se)

    def check_preempt_wakeup(self, cpu: int, woken: Task, now_ns: int) -> bool:
        # WAKEUP_PREEMPT: the granularity is converted to the current task's virtual time.
        rq = self.rqs[cpu]
        if rq.curr is None:
            return True
        curr = _se(rq.curr)
        gran = calc_delta_fair(self.wakeup_granularity_ns, curr.weight)
        return _se(woken).vruntime + gran < curr.vruntime

    def yield_task(self, cpu: int, now_ns: int, describe: bool = True) -> YieldOutcome | None:
        rq = self.rqs[cpu]
        assert rq.curr is not None
        se = _se(rq.curr)
        if rq.nr_running == 1:
            return YIELD_ALONE
        if not self.compat_yield:
            # 2.6.24 yield_task_fair(): only update_curr(); put_prev re-inserts by vruntime.
            self.update_curr(cpu, now_ns)
            return YieldOutcome("in_place", key_ns=se.vruntime) if describe else None
        rightmost = rq.timeline.rightmost()
        assert rightmost is not None
        right_vruntime = _se(rightmost).vruntime
        if right_vruntime < se.vruntime:
            return YieldOutcome("rightmost", "already_rightmost", noop=True, key_ns=se.vruntime)
        # compat: the yielder permanently forfeits its lead: "minimally necessary key value".
        se.vruntime = right_vruntime + 1
        return YieldOutcome("rightmost", key_ns=se.vruntime) if describe else None

    def yield_noop_budget_ns(self, cpu: int, now_ns: int) -> int | None:
        rq = self.rqs[cpu]
        if rq.nr_running <= 1:
            return None
        rival = rq.timeline.leftmost()
        if self.compat_yield or rq.curr is None or rival is None:
            return 0
        se = _se(rq.curr)
        # Re-picked while vruntime < rival's (an equal key goes to the right and loses). vruntime
        # grows by at most T*1024/w over T ns of running, however update_curr() splits it, so
        # T*1024 < gap*w keeps it below; exact for a single charge.
        gap = _se(rival).vruntime - se.vruntime
        if gap <= 0:
            return 0
        budget = (gap * se.weight - 1) // NICE_0_LOAD
        return max(budget - (now_ns - se.exec_start_ns), 0)

    def set_tunable(self, key: str, value: int) -> None:
        check_tunable(key, value)
        self.compat_yield = value

    def nr_running(self, cpu: int) -> int:
        return self.rqs[cpu].nr_running

    def runqueue_view(self, cpu: int, now_ns: int) -> Cfs2624View:
        """Current task first, then the tree; vruntimes projected to ``now_ns`` without charging. At
        ``schedule()`` the current task goes back in by vruntime, after equal keys, and the leftmost
        runs: it is picked again only with a vruntime below every other."""
        rq = self.rqs[cpu]
        min_vruntime = rq.min_vruntime
        rows: list[Cfs2624Entry] = []
        left = rq.timeline.leftmost()
        left_vruntime = _se(left).vruntime if left is not None else 0
        curr_next = False
        if rq.curr is not None:
            se = _se(rq.curr)
            ran = max(now_ns - se.exec_start_ns, 0)
            vruntime = se.vruntime + calc_delta_fair(ran, se.weight)
            floor = vruntime if left is None else min(vruntime, left_vruntime)
            min_vruntime = max(min_vruntime, floor)
            curr_next = left is None or vruntime < left_vruntime
            stint = se.sum_exec_ns + ran - se.prev_sum_exec_ns
            rows.append(Cfs2624Entry(rq.curr.tid, True, curr_next, vruntime, stint, self.sched_slice(rq, se)))
        for task in rq.timeline.tasks():
            picked = task is left and not curr_next
            rows.append(Cfs2624Entry(task.tid, False, picked, _se(task).vruntime, 0, 0))
        return Cfs2624View(cpu, tuple(rows), min_vruntime)


# ---- the registry entry ---------------------------------------------------------------------------


def describe_yield(tunables: Mapping[str, int]) -> str:
    if tunables.get(COMPAT_YIELD.key, COMPAT_YIELD.default):
        return (
            "CFS 2.6.24 with sched_compat_yield: a yield sets vruntime just past the rightmost task: "
            "the yielder gives up its whole lead."
        )
    return (
        "CFS 2.6.24: a yield only updates statistics; the task loses the CPU only to a task with a "
        "smaller vruntime."
    )


def describe_landing(outcome: YieldOutcome, brief: bool = False) -> str:
    return landing_words(outcome, "vruntime", brief)


INFO = PolicyInfo(
    name="cfs-2.6.24",
    label="CFS: Linux 2.6.24",
    kernel="2.6.24",
    source="kernel/sched_fair.c: update_curr(), place_entity(), check_preempt_tick(), yield_task_fair()",
    factory=Cfs2624Policy,
    view_kind="cfs-2.6.24",
    describe_yield=describe_yield,
    describe_landing=describe_landing,
    tunables=(COMPAT_YIELD,),  # the same sysctl, declared once in cfs_2623
)
