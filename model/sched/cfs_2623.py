"""CFS as merged in Linux 2.6.23: the ``fair_clock`` / ``wait_runtime`` / ``fair_key`` design.

Each CPU's cfs_rq has a ``fair_clock`` that advances by ``NICE_0_LOAD / total weight`` per ns of
execution, and an rbtree of its runnable tasks, the current one included, ordered by
``fair_key = fair_clock - wait_runtime``. ``wait_runtime`` is what the CPU owes a task: a waiting
task is credited the fair-clock advance of its wait when it is picked, the running task is debited
the time it ran beyond its weighted share, and a woken sleeper gets a capped credit (FAIR_SLEEPERS)
that ``sleeper_bonus`` tracks and the running task pays back. Keys change only when a task is
(re)queued: at enqueue, at each tick for the current task, and in ``sched_yield()``. Source:
``kernel/sched_fair.c`` of 2.6.23.17 (KERNEL.md §B.1, B.3, B.4). The sorted tree is ``timeline.Timeline``,
shared with ``cfs_2624``.

Nice levels come out far stronger than the design promised, faithfully: a nice-19 hog next to a nice-0
hog gets about one tick per 1.37 s of nice 0 (1/136, 1/341, 1/1365 of its CPU at HZ=100, 250, 1000), not
Documentation/sched-nice-design.txt's "HZ-independent 1.5%". Each turn debits nice 19 about a tick of
wait_runtime, while a wait credits it at most 2*runtime_limit of fair clock times 15/1024
(``_wait_credit``), so ``_limit`` pins it at -runtime_limit, and ``fair_key``
(``model.sched.cfs_2623_rq``) scales that by 1024/15: its key lands 1365 ms of fair clock past everyone
(tests/test_sched_cfs.py pins this).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from model.copyable import mypyc_attr
from model.sched.base import (
    NICE_0_LOAD,
    NSEC_PER_MSEC,
    SchedPolicy,
    cpu_scale_factor,
    nice_to_weight,
    select_cpu_per_rq,
)
from model.sched.cfs_2623_rq import (
    CfsRq2623,
    Se2623,
    fair_key,
    niced_granularity,
    noop_run_bound,
    se_of,
    weighted,
)
from model.sched.registry import PolicyInfo, Tunable, landing_words
from model.snapshot import YIELD_ALONE, Cfs2623Entry, Cfs2623View, YieldOutcome
from model.task import Task

LATENCY_NS: Final = 20 * NSEC_PER_MSEC  # sysctl_sched_latency before boot-time scaling
MIN_GRANULARITY_NS: Final = 2 * NSEC_PER_MSEC  # sysctl_sched_min_granularity
GRANULARITY_LIMIT_NS: Final = 100 * NSEC_PER_MSEC  # the clamp in 2.6.23 sched_init_granularity()
COMPAT_YIELD = Tunable(
    key="compat_yield",
    default=0,
    title="sched_compat_yield",
    help="echo 1 > /proc/sys/kernel/sched_compat_yield (2.6.23 to 2.6.38): "
    "sched_yield() moves the task behind all others",
    choices=(
        (0, "off: a yield re-sorts the task in place"),
        (1, "sched_compat_yield = 1\n(a yield goes to the back)"),
    ),
    about_yield=True,
)


def check_tunable(key: str, value: int) -> None:
    """Validate a ``set_tunable`` call: only ``compat_yield``, only 0 or 1 (like the sysctl)."""
    if key != COMPAT_YIELD.key:
        raise KeyError(f"CFS has no tunable {key!r}; its tunable: {COMPAT_YIELD.key}")
    if value not in COMPAT_YIELD.allowed():
        raise ValueError(f"{key} must be 0 or 1, got {value!r}")


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class Cfs2623Policy(SchedPolicy):
    name = "cfs-2.6.23"

    def __init__(self, ncpus: int, hz: int) -> None:
        self.ncpus = ncpus
        self.hz = hz
        # 2.6.23 sched_init_granularity(): scale by 1 + ilog2(ncpus), clamp at 100 ms.
        factor = cpu_scale_factor(ncpus)
        self.min_granularity_ns = min(MIN_GRANULARITY_NS * factor, GRANULARITY_LIMIT_NS)
        self.latency_ns = min(LATENCY_NS * factor, GRANULARITY_LIMIT_NS)
        self.runtime_limit_ns = self.latency_ns
        self.wakeup_granularity_ns = self.min_granularity_ns // 2
        self.compat_yield = 0
        self.rqs = [CfsRq2623() for _ in range(ncpus)]

    # ---- arithmetic (kernel/sched_fair.c) --------------------------------------------------------

    def sched_granularity(self, nr: int) -> int:
        # "gran = lat/nr - lat/nr/nr": every runnable task gets the CPU once per latency.
        gran = self.latency_ns
        if nr > 1:
            gran = max(gran // nr - gran // nr // nr, self.min_granularity_ns)
        return gran

    def _limit(self, wait_runtime: int) -> int:
        # limit_wait_runtime(): niced tasks have the same +-runtime_limit history range. Comparisons,
        # not min()/max(): this runs at every charge.
        limit = self.runtime_limit_ns
        return -limit if wait_runtime < -limit else (limit if wait_runtime > limit else wait_runtime)

    def _charge(self, rq: CfsRq2623, se: Se2623, delta: int) -> tuple[int, int, int]:
        """__update_curr() for ``delta`` ns: (fair_clock advance, new wait_runtime, new sleeper_bonus).

        SIMPLIFICATION: exact integer division instead of the kernel's inv_weight fixed point.
        """
        load = rq.load
        delta_fair = delta * NICE_0_LOAD // load
        delta_mine = delta * se.weight // load
        bonus = rq.sleeper_bonus
        if bonus > self.min_granularity_ns:  # the runner pays back credit handed to sleepers
            pay = min(delta_mine, bonus, self.runtime_limit_ns - se.wait_runtime)
            bonus -= pay
            delta_mine -= pay
        wait = se.wait_runtime + delta_mine - delta
        limit = self.runtime_limit_ns  # _limit(), inline on this hot path
        return delta_fair, -limit if wait < -limit else (limit if wait > limit else wait), bonus

    def _wait_credit(self, se: Se2623, fair_clock: int) -> int:
        # update_stats_wait_end(): the fair-clock advance of the wait, capped at 2*runtime_limit, then
        # weighted: at most 0.59 ms for nice 19, less than one tick's debit (the nice-19 clamp above).
        start = se.wait_start_fair
        if start is None:
            return 0
        cap = 2 * self.runtime_limit_ns
        waited = fair_clock - start
        delta_fair = cap if waited > cap else waited  # min(), as a comparison on this hot path
        return delta_fair if se.weight == NICE_0_LOAD else delta_fair * se.weight // NICE_0_LOAD

    # ---- tree operations -------------------------------------------------------------------------

    def _enqueue_entity(self, rq: CfsRq2623, task: Task, se: Se2623) -> None:
        if task is not rq.curr:
            se.wait_start_fair = rq.fair_clock  # update_stats_wait_start()
        se.fair_key = fair_key(rq, se)
        se.node = rq.timeline.insert(task, se.fair_key)
        rq.load += se.weight

    def _requeue(self, rq: CfsRq2623, task: Task, se: Se2623, key: int) -> None:
        """dequeue_entity() + enqueue_entity() of the current task: only its place changes."""
        assert se.node is not None
        se.fair_key = key
        se.node = rq.timeline.move(se.node, task, key)

    def _wait_end(self, rq: CfsRq2623, se: Se2623) -> None:
        # _limit(wait_runtime + _wait_credit()), inline: this runs at every pick.
        wait = se.wait_runtime
        start = se.wait_start_fair
        if start is not None:
            cap = 2 * self.runtime_limit_ns
            waited = rq.fair_clock - start
            delta_fair = cap if waited > cap else waited
            wait += delta_fair if se.weight == NICE_0_LOAD else delta_fair * se.weight // NICE_0_LOAD
        limit = self.runtime_limit_ns
        se.wait_runtime = -limit if wait < -limit else (limit if wait > limit else wait)
        se.wait_start_fair = None

    def _enqueue_sleeper(self, rq: CfsRq2623, se: Se2623) -> None:
        # enqueue_sleeper() (FAIR_SLEEPERS; SLEEPER_AVG is off in 2.6.23): credit the fair-clock
        # advance of the sleep, capped at 2*runtime_limit, unless too much bonus is in flight.
        if se.sleep_start_fair is None:
            return
        delta = min(2 * self.runtime_limit_ns, rq.fair_clock - se.sleep_start_fair)
        se.sleep_start_fair = None
        if rq.sleeper_bonus > self.runtime_limit_ns:
            return
        before = se.wait_runtime
        se.wait_runtime = self._limit(before + weighted(delta, se))
        rq.sleeper_bonus += se.wait_runtime - before

    def _check_preempt(self, rq: CfsRq2623, se: Se2623, curr: Se2623, gran: int) -> bool:
        # __check_preempt_curr_fair(). curr.fair_key is the key of its last requeue, not refreshed.
        ideal_runtime = max(self.latency_ns // len(rq.timeline), self.min_granularity_ns)
        if curr.sum_exec_ns - curr.prev_sum_exec_ns > ideal_runtime:
            gran = 0  # ran past its latency share: any key advantage preempts
        return curr.fair_key - se.fair_key > niced_granularity(curr, gran)

    # ---- SchedPolicy -------------------------------------------------------------------------------

    def select_task_rq(self, task: Task, now_ns: int) -> int:
        return select_cpu_per_rq(task, self.ncpus, self)

    def task_new(self, task: Task, cpu: int, now_ns: int, parent: Task | None = None) -> None:
        rq = self.rqs[cpu]
        se = Se2623(weight=nice_to_weight(task.nice), cpu=cpu)
        task.se = se
        self.update_curr(cpu, now_ns)
        # task_new_fair() START_DEBIT: "the statistical average of wait_runtime is about -gran/2".
        se.wait_runtime = -(self.sched_granularity(len(rq.timeline)) // 2)
        # SIMPLIFICATION: no child-runs-first key (curr.fair_key - gran - 1): every task is created
        # before anything runs, so no parent is current; the key is the one the first requeue would
        # give, debit included.
        self._enqueue_entity(rq, task, se)

    def enqueue(self, task: Task, cpu: int, now_ns: int, wakeup: bool, from_irq: bool = False) -> None:
        rq = self.rqs[cpu]
        se = se_of(task)
        if se.cpu != cpu:
            # set_task_cpu(): carry the fair-clock stamps over to the new CPU's clock.
            offset = self.rqs[se.cpu].fair_clock - rq.fair_clock
            if se.sleep_start_fair is not None:
                se.sleep_start_fair -= offset
            se.cpu = cpu
        self.update_curr(cpu, now_ns)
        if wakeup:
            self._enqueue_sleeper(rq, se)
        self._enqueue_entity(rq, task, se)

    def dequeue(self, task: Task, cpu: int, now_ns: int) -> None:
        rq = self.rqs[cpu]
        se = se_of(task)
        self.update_curr(cpu, now_ns)
        if task is not rq.curr:
            self._wait_end(rq, se)
        se.sleep_start_fair = rq.fair_clock
        assert se.node is not None
        rq.timeline.remove(se.node)
        se.node = None
        rq.load -= se.weight
        if task is rq.curr:
            rq.curr = None

    def put_prev(self, task: Task, cpu: int, now_ns: int) -> None:
        # put_prev_entity(): the task stays in the tree at its last key; its wait starts now. (Its
        # update_curr() is the one schedule() has just made, at this instant: model.sched.base.)
        rq = self.rqs[cpu]
        se: Se2623 = task.se
        se.wait_start_fair = rq.fair_clock
        rq.curr = None

    def pick_next(self, cpu: int, now_ns: int) -> Task | None:
        rq = self.rqs[cpu]
        task = rq.timeline.first  # leftmost()
        if task is None:
            return None
        se: Se2623 = task.se
        # set_next_entity(): credit the wait, start a new stint.
        self._wait_end(rq, se)
        se.exec_start_ns = now_ns
        se.prev_sum_exec_ns = se.sum_exec_ns
        rq.curr = task
        return task

    def update_curr(self, cpu: int, now_ns: int) -> None:
        rq = self.rqs[cpu]
        curr = rq.curr
        if curr is None:
            return
        se: Se2623 = curr.se
        delta = now_ns - se.exec_start_ns
        if delta <= 0:
            return
        se.exec_start_ns = now_ns
        se.sum_exec_ns += delta
        if rq.load:
            delta_fair, se.wait_runtime, rq.sleeper_bonus = self._charge(rq, se, delta)
            rq.fair_clock += delta_fair

    def task_tick(self, cpu: int, now_ns: int) -> bool:
        # entity_tick(): requeue the current task at its fresh key, then compare with the leftmost.
        rq = self.rqs[cpu]
        assert rq.curr is not None
        curr, se = rq.curr, se_of(rq.curr)
        self._requeue(rq, curr, se, fair_key(rq, se))
        nxt = rq.timeline.leftmost()
        if nxt is curr or nxt is None:
            return False
        return self._check_preempt(rq, se_of(nxt), se, self.sched_granularity(rq.timeline.size))

    def check_preempt_wakeup(self, cpu: int, woken: Task, now_ns: int) -> bool:
        # check_preempt_curr_fair(): SCHED_OTHER wakeups use the wakeup granularity.
        rq = self.rqs[cpu]
        if rq.curr is None:
            return True
        return self._check_preempt(rq, se_of(woken), se_of(rq.curr), self.wakeup_granularity_ns)

    def yield_task(self, cpu: int, now_ns: int, describe: bool = True) -> YieldOutcome | None:
        rq = self.rqs[cpu]
        curr = rq.curr
        assert curr is not None
        se: Se2623 = curr.se
        if rq.timeline.size == 1:
            return YIELD_ALONE
        if not self.compat_yield:
            # 2.6.23 yield_task_fair(): update_curr() (the machine's, just made: model.sched.base), then
            # dequeue + enqueue, i.e. requeue at fair_clock - wait_runtime (_requeue(fair_key()),
            # inline on this hot path).
            wait = se.wait_runtime
            if se.weight != NICE_0_LOAD:
                scaled = abs(wait) * NICE_0_LOAD // se.weight
                wait = scaled if wait >= 0 else -scaled
            key = rq.fair_clock - wait
            assert se.node is not None
            se.fair_key = key
            se.node = rq.timeline.move(se.node, curr, key)
            return YieldOutcome("in_place", key_ns=se.fair_key) if describe else None
        rightmost = rq.timeline.rightmost()
        assert rightmost is not None
        if rightmost is curr:
            return YieldOutcome("rightmost", "already_rightmost", noop=True, key_ns=se.fair_key)
        # compat: "minimally necessary key value to be last in the tree". Transient: the next
        # requeue (tick or enqueue) recomputes fair_clock - wait_runtime.
        self._requeue(rq, curr, se, se_of(rightmost).fair_key + 1)
        return YieldOutcome("rightmost", key_ns=se.fair_key) if describe else None

    def yield_noop_budget_ns(self, cpu: int, now_ns: int) -> int | None:
        rq = self.rqs[cpu]
        if rq.timeline.size <= 1:
            return None
        curr = rq.curr
        if self.compat_yield or curr is None or rq.timeline.leftmost() is not curr:
            return 0
        rival = rq.timeline.first_other(curr)
        assert rival is not None
        se = se_of(curr)
        # A yield re-picks the yielder while its requeued key stays below the rival's fixed key
        # (equal keys go to the right): headroom counted from the last charge (exec_start).
        headroom = se_of(rival).fair_key - 1 - fair_key(rq, se)
        return max(noop_run_bound(rq, se, headroom, self.min_granularity_ns) - (now_ns - se.exec_start_ns), 0)

    def set_tunable(self, key: str, value: int) -> None:
        check_tunable(key, value)
        self.compat_yield = value

    def nr_running(self, cpu: int) -> int:
        return self.rqs[cpu].timeline.size

    def runqueue_view(self, cpu: int, now_ns: int) -> Cfs2623View:
        """The tree with the current task first; values projected to ``now_ns`` without charging. Keys
        are those of the last (re)queue: ``schedule()`` picks the leftmost by them."""
        rq = self.rqs[cpu]
        fair_clock, curr = rq.fair_clock, rq.curr
        rows: list[Cfs2623Entry] = []
        nxt = rq.timeline.leftmost()
        if curr is not None:
            se = se_of(curr)
            wait, delta = se.wait_runtime, now_ns - se.exec_start_ns
            if delta > 0 and rq.load:
                delta_fair, wait, _ = self._charge(rq, se, delta)
                fair_clock += delta_fair
            rows.append(Cfs2623Entry(curr.tid, True, curr is nxt, se.fair_key, wait))
        for task in rq.timeline.tasks():
            if task is not curr:
                se = se_of(task)
                wait = self._limit(se.wait_runtime + self._wait_credit(se, fair_clock))
                rows.append(Cfs2623Entry(task.tid, False, task is nxt, se.fair_key, wait))
        return Cfs2623View(cpu, tuple(rows), fair_clock)


# ---- the registry entry ---------------------------------------------------------------------------


def describe_yield(tunables: Mapping[str, int]) -> str:
    if tunables.get(COMPAT_YIELD.key, COMPAT_YIELD.default):
        return "CFS 2.6.23 with sched_compat_yield: a yield puts the task rightmost, behind every other task."
    return (
        "CFS 2.6.23: a yield re-sorts the task in place by its fair key; if it has had less than its "
        "share it is still first in line and runs again at once."
    )


def describe_landing(outcome: YieldOutcome, brief: bool = False) -> str:
    return landing_words(outcome, "fair_key", brief)


INFO = PolicyInfo(
    name="cfs-2.6.23",
    label="CFS: Linux 2.6.23",
    kernel="2.6.23.17",
    source="kernel/sched_fair.c: __update_curr(), entity_tick(), enqueue_sleeper(), yield_task_fair()",
    factory=Cfs2623Policy,
    view_kind="cfs-2.6.23",
    describe_yield=describe_yield,
    describe_landing=describe_landing,
    tunables=(COMPAT_YIELD,),
)
