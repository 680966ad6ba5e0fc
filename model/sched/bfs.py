"""BFS, the Brain Fuck Scheduler of Con Kolivas, as in September 2009 (KERNEL.md §D).

Every CPU works off ONE global run queue, a FIFO list of the runnable tasks that are not running
(``grq.queue``; a running task is out of it). A task's virtual deadline, in jiffies, is set each time
its ``rr_interval`` slice runs out: ``jiffies + prio_deadline_diff(nice)``. ``pick_next`` scans the
queue: the first task whose deadline has already passed is taken FIFO, otherwise the earliest
deadline wins. Sleeping keeps the old (early) deadline, so a task that slept a while wins the CPU back
on wakeup. Nice changes only the deadline offset, never the slice. The slice is charged from
``rq_last_ran``, which ``set_rq_task()`` copies from the task's ``last_ran`` (when it last left a
CPU): the first charge after a switch spans the task's whole wait, clamped to one jiffy.

Which ``sched_yield()`` depends on the version (``YIELD_EXPIRES``). The Sept-2009 benchmarks ran a
v0.2xx for 2.6.30/2.6.31, whose yield ends the slice: the deadline moves a whole
``prio_deadline_diff`` away. Its source was not found; the evidence is the 2.6.29 backport this
module follows (erasmux/hero-2.6.29-flykernel 146e67f6, banner "v0.318 by Con Kolivas by
darchstar": ``rq->rq_time_slice = 0``) and the v0.2xx changelog line "sched_yield broke when we moved
accounting into the local rq data, fix it" (the zeroing moved to ``rq_time_slice``). Con Kolivas's
own v0.318 (8b9e290f in the same tree, 2010) only requeues the yielder: "If it still has the
earliest deadline it will be scheduled again as the next task".
# SIMPLIFICATION: SCHED_NORMAL only (no RT, ISO or IDLEPRIO queues), so every task has the same prio
# and try_preempt() compares deadlines alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from model.copyable import mypyc_attr
from model.sched.base import NSEC_PER_SEC, SchedPolicy, cpu_scale_factor
from model.sched.registry import PolicyInfo, Tunable, landing_words
from model.snapshot import BfsEntry, BfsView, YieldOutcome
from model.task import Task

RR_INTERVAL_MS: Final = 6  # BFS: int rr_interval = 6; /* "Scales with number of cpus" */
PRIO_RANGE: Final = 40
YIELD_EXPIRES = Tunable(
    key="yield_expires",
    default=1,
    title="BFS sched_yield()",
    help="sched_yield() in BFS: 1 is v0.2xx-v0.30x (2009: the slice is zeroed, so the yielder gets a "
    "new deadline a whole prio_deadline_diff away), 0 is Con Kolivas's v0.318 (2010: the yielder is "
    "requeued and keeps its deadline)",
    choices=(
        (0, "v0.318: keeps its deadline"),
        (1, "v0.2xx (2009): a new deadline"),
    ),
    control="radios",
    about_yield=True,
)


def _prio_ratios() -> tuple[int, ...]:
    # BFS sched_init(): prio_ratios[0] = 100; prio_ratios[i] = prio_ratios[i - 1] * 11 / 10 (integers).
    ratios = [100]
    for _ in range(1, PRIO_RANGE):
        ratios.append(ratios[-1] * 11 // 10)
    return tuple(ratios)


PRIO_RATIOS: Final[tuple[int, ...]] = _prio_ratios()  # index nice + 20: 100 ... 655 (nice 0) ... 3987


@dataclass(slots=True, eq=False)
class BfsEntity:
    """The BFS fields of a task_struct that this model keeps (``task.se``)."""

    deadline: int  # jiffies
    time_slice_us: int  # what is left of the rr_interval slice (may go negative before the tick sees it)
    last_ran_ns: int = 0  # p->last_ran: when schedule() last switched it out (or it was created)


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class BfsPolicy(SchedPolicy):
    """BFS: one global queue, earliest virtual deadline first, old deadlines FIFO."""

    name: str = "bfs"

    def __init__(self, ncpus: int, hz: int) -> None:
        self.ncpus = ncpus
        self.hz = hz
        self.tick_ns = NSEC_PER_SEC // hz
        # BFS sched_init_smp(): rr_interval *= 1 + ilog2(num_online_cpus()) (no cap at 8 CPUs).
        self.rr_interval_ms = RR_INTERVAL_MS * cpu_scale_factor(ncpus)
        self.queue: list[Task] = []  # grq.queue[NORMAL_PRIO]: tail append, queued and not running
        self._curr: list[Task | None] = [None] * ncpus
        self._last_ran_ns = [0] * ncpus  # rq->rq_last_ran: where the next slice charge starts
        self.yield_expires = YIELD_EXPIRES.default
        # prio_deadline_diff() per nice level (index nice + 20), worked out once: it is read at every yield.
        self._deadline_diffs = tuple(self._deadline_diff(nice) for nice in range(-20, PRIO_RANGE - 20))

    # ---- constants --------------------------------------------------------------------------------

    def jiffies(self, now_ns: int) -> int:
        return now_ns // self.tick_ns

    def timeslice_us(self) -> int:
        return self.rr_interval_ms * 1000  # timeslice(): MS_TO_US(rr_interval), whatever the nice

    def prio_deadline_diff(self, nice: int) -> int:
        """``(prio_ratios[user_prio] * rr_interval * HZ / (1000 * 100)) ?: 1``, in jiffies."""
        return self._deadline_diffs[nice + 20]

    def _deadline_diff(self, nice: int) -> int:
        return PRIO_RATIOS[nice + 20] * self.rr_interval_ms * self.hz // (1000 * 100) or 1

    # ---- placement and queueing -------------------------------------------------------------------

    def select_task_rq(self, task: Task, now_ns: int) -> int:
        # One pass over the allowed CPUs (this runs at every wakeup), for both answers below.
        curr, pinned = self._curr, task.pinned_cpu
        first_idle = latest = -1
        latest_deadline = 0
        for cpu in range(self.ncpus):
            if pinned is not None and pinned != cpu:
                continue
            p = curr[cpu]
            if p is None:
                # BFS resched_best_idle(): the idle CPU closest in cache, the task's own first.
                # SIMPLIFICATION: cache_distance() = 0, all CPUs share a cache, so any other idle CPU
                # is as good.
                if cpu == task.cpu:
                    return cpu
                if first_idle < 0:
                    first_idle = cpu
            elif latest < 0 or p.se.deadline > latest_deadline:
                latest, latest_deadline = cpu, p.se.deadline
        if first_idle >= 0:
            return first_idle
        if latest < 0:
            raise ValueError(f"task {task.name} may run on no CPU of {self.ncpus}")
        # BFS try_preempt(): the CPU whose current task has the worst prio (all equal here) and, among
        # equals, the latest deadline; the first such CPU wins ties (deadline_after() is strict).
        return latest

    def task_new(self, task: Task, cpu: int, now_ns: int, parent: Task | None = None) -> None:
        # SIMPLIFICATION: the child starts as if time_slice_expired() had just run (full slice, deadline
        # jiffies + diff). BFS sched_fork() splits the parent's remaining slice with the child instead.
        # SIMPLIFICATION: last_ran is the creation time; dup_task_struct() copies the parent's.
        task.se = BfsEntity(deadline=0, time_slice_us=0, last_ran_ns=now_ns)
        self._time_slice_expired(task, now_ns)
        self.queue.append(task)

    def enqueue(self, task: Task, cpu: int, now_ns: int, wakeup: bool, from_irq: bool = False) -> None:
        # BFS activate_task(): tail of the global queue; deadline and slice stay what they were.
        self.queue.append(task)

    def dequeue(self, task: Task, cpu: int, now_ns: int) -> None:
        if self._curr[cpu] is task:
            self._check_deadline(task, now_ns)  # schedule() checks prev's deadline before return_task()
            task.se.last_ran_ns = now_ns  # schedule(): prev->last_ran = rq->clock
            self._curr[cpu] = None
        else:
            self.queue.remove(task)

    def put_prev(self, task: Task, cpu: int, now_ns: int) -> None:
        # BFS schedule(): check_deadline(prev), then return_task() puts it back at the tail.
        self._check_deadline(task, now_ns)
        task.se.last_ran_ns = now_ns
        self._curr[cpu] = None
        self.queue.append(task)

    def pick_next(self, cpu: int, now_ns: int) -> Task | None:
        best = self._earliest_deadline(cpu, self.jiffies(now_ns))
        if best is not None:
            self.queue.remove(best)
            # set_rq_task(): rq->rq_last_ran = p->last_ran, the instant it last left a CPU; so its
            # first charge below also covers the time it waited since (clamped to one jiffy).
            self._last_ran_ns[cpu] = best.se.last_ran_ns
        self._curr[cpu] = best
        return best

    def update_curr(self, cpu: int, now_ns: int) -> None:
        """BFS ``update_cpu_clock()``: ``time_diff = rq->clock - rq->rq_last_ran``, at most one jiffy
        ("There should be less than or equal to one jiffy worth"), taken off the slice in µs.
        # SIMPLIFICATION: a time_diff of 0 charges nothing. The kernel charges half a jiffy for a
        # time_diff <= 0, its guard against a bogus sched_clock(); simulated time may stand still
        # between two calls where a real clock never does. And a yield loop collapsed in closed form
        # is charged once, so the sub-µs rests the kernel drops at each yield are kept.
        """
        p = self._curr[cpu]
        if p is None:
            return
        delta_ns = now_ns - self._last_ran_ns[cpu]
        self._last_ran_ns[cpu] = now_ns
        if delta_ns > 0:
            se: BfsEntity = p.se
            tick = self.tick_ns  # at most one jiffy (a comparison, not min(): a hot path)
            se.time_slice_us -= (delta_ns if delta_ns < tick else tick) // 1000

    # ---- tick, preemption, yield ------------------------------------------------------------------

    def task_tick(self, cpu: int, now_ns: int) -> bool:
        # BFS task_running_tick(): nothing while rq_time_slice > 0, else set_tsk_need_resched().
        p = self._curr[cpu]
        return p is not None and p.se.time_slice_us <= 0

    def check_preempt_wakeup(self, cpu: int, woken: Task, now_ns: int) -> bool:
        # BFS try_preempt() -> can_preempt(): same prio, so a strictly earlier deadline preempts.
        curr = self._curr[cpu]
        return curr is None or woken.se.deadline < curr.se.deadline

    def yield_task(self, cpu: int, now_ns: int, describe: bool = True) -> YieldOutcome | None:
        """BFS ``sys_sched_yield()``, then ``schedule()`` at this same instant: ``check_deadline()``
        renews an empty slice (``time_slice_expired()``: deadline jiffies + prio_deadline_diff) and
        ``return_task()`` puts the yielder at the tail of the queue. v0.2xx-v0.30x first zeroes the
        slice ("zeroing the rq timeslice, which will reset the deadline"); v0.318 does not."""
        p = self._curr[cpu]
        if p is None:
            raise RuntimeError(f"yield on cpu {cpu} with no current task")
        se: BfsEntity = p.se
        if self.yield_expires:
            se.time_slice_us = 0
        if se.time_slice_us <= 0:
            deadline = self.jiffies(now_ns) + self.prio_deadline_diff(p.nice)
            return YieldOutcome("new_deadline", deadline_jiffies=deadline) if describe else None
        return YieldOutcome("requeued", deadline_jiffies=se.deadline) if describe else None

    def yield_noop_budget_ns(self, cpu: int, now_ns: int) -> int | None:
        """How long every further yield re-picks the yielder. The others' deadlines do not move while
        they wait (min D), and the first of them to pass wins FIFO, so nothing re-picks the yielder
        after jiffy min D. A yield in jiffy J that ends the slice gives it deadline J + diff at the
        tail, which wins while J + diff < min D: the last such jiffy is min D - diff - 1. A yield that
        keeps its deadline D_y (v0.318) re-picks it while D_y < min D, until jiffy min D, and only
        until its slice runs out (then the yield that finds it empty gives it a new deadline).
        The queue is global, so this holds only while no other CPU adds to it (a wakeup kicked
        elsewhere, a requeue at slice expiry): the machine must ask again after those too, not only
        after events on this CPU.
        """
        p = self._curr[cpu]
        if p is None:
            return 0
        se: BfsEntity = p.se
        others: list[int] = [q.se.deadline for q in self.queue if q.allowed_on(cpu)]
        if not others:
            return None
        first = min(others)
        if self.yield_expires:
            last_jiffy = first - self.prio_deadline_diff(p.nice) - 1
            slice_ns = None
        else:
            last_jiffy = first if se.deadline < first else -1
            slice_ns = se.time_slice_us * 1000 - 1
        if last_jiffy < self.jiffies(now_ns):
            return 0
        budget = (last_jiffy + 1) * self.tick_ns - 1 - now_ns
        return budget if slice_ns is None else max(min(budget, slice_ns), 0)

    def set_tunable(self, key: str, value: int) -> None:
        if key != YIELD_EXPIRES.key:
            raise KeyError(f"BFS has no tunable {key!r}; its tunable: {YIELD_EXPIRES.key}")
        if value not in YIELD_EXPIRES.allowed():
            raise ValueError(f"{key} must be 0 or 1, got {value!r}")
        self.yield_expires = value

    # ---- views ------------------------------------------------------------------------------------

    def nr_running(self, cpu: int) -> int:
        n = 0 if self._curr[cpu] is None else 1
        for p in self.queue:
            pinned = p.pinned_cpu  # p.allowed_on(cpu), inline: this runs at every spin and wakeup
            if pinned is None or pinned == cpu:
                n += 1
        return n

    def runqueue_view(self, cpu: int, now_ns: int) -> BfsView:
        """The global queue, the same for every CPU: all running tasks first, then the queue by deadline.
        ``picks_next`` is what ``cpu`` would run if it rescheduled now, its current task put back at the
        tail as ``schedule()`` puts it (with a new deadline if its slice is used up)."""
        jiffies = self.jiffies(now_ns)
        curr = self._curr[cpu]
        back = 0
        if curr is not None:
            back = (
                curr.se.deadline
                if curr.se.time_slice_us > 0
                else jiffies + self.prio_deadline_diff(curr.nice)
            )
        nxt = self._earliest_deadline(cpu, jiffies, curr, back)
        rows = [self._entry(p, nxt, jiffies, c) for c, p in enumerate(self._curr) if p is not None]
        rows += [self._entry(p, nxt, jiffies, -1) for p in sorted(self.queue, key=_deadline)]
        return BfsView(cpu, tuple(rows), jiffies)

    # ---- helpers ----------------------------------------------------------------------------------

    def _earliest_deadline(
        self, cpu: int, jiffies: int, tail: Task | None = None, tail_deadline: int = 0
    ) -> Task | None:
        """BFS ``earliest_deadline_task()``: an O(n) scan of the global queue in FIFO order (``tail``,
        with ``tail_deadline``, as if queued after it). The first task whose deadline has passed wins;
        otherwise the earliest deadline, the earlier in the queue on ties."""
        best: Task | None = None
        best_deadline = 0
        for p in self.queue:
            pinned = p.pinned_cpu  # not p.allowed_on(cpu), inline
            if pinned is not None and pinned != cpu:
                continue
            dl: int = p.se.deadline  # + cache_distance(), 0 here (see select_task_rq)
            if dl < jiffies:  # time_is_before_jiffies(dl): old deadlines are taken first come, first served
                return p
            if best is None or dl < best_deadline:  # time_before(): the earlier in the queue wins ties
                best, best_deadline = p, dl
        if tail is not None and (tail_deadline < jiffies or best is None or tail_deadline < best_deadline):
            return tail
        return best

    def _entry(self, p: Task, nxt: Task | None, jiffies: int, on_cpu: int) -> BfsEntry:
        se: BfsEntity = p.se
        return BfsEntry(
            tid=p.tid,
            running=on_cpu >= 0,
            picks_next=p is nxt,
            deadline_jiffies=se.deadline,
            deadline_passed=se.deadline < jiffies,
            time_slice_ns=se.time_slice_us * 1000,
            on_cpu=on_cpu,
            pinned_cpu=-1 if p.pinned_cpu is None else p.pinned_cpu,
        )

    def _time_slice_expired(self, task: Task, now_ns: int) -> None:
        # BFS time_slice_expired(): a fresh slice and a new deadline = jiffies + prio_deadline_diff.
        se: BfsEntity = task.se
        se.time_slice_us = self.timeslice_us()
        se.deadline = self.jiffies(now_ns) + self.prio_deadline_diff(task.nice)

    def _check_deadline(self, task: Task, now_ns: int) -> None:
        # BFS check_deadline(): "Is the time slice expired?" (time_slice <= 0, e.g. zeroed by a yield).
        if task.se.time_slice_us <= 0:
            self._time_slice_expired(task, now_ns)


def _deadline(task: Task) -> int:
    return int(task.se.deadline)


# ---- the registry entry ---------------------------------------------------------------------------


def describe_yield(tunables: Mapping[str, int]) -> str:
    if tunables.get(YIELD_EXPIRES.key, YIELD_EXPIRES.default):
        return (
            "BFS (2009): a yield ends the time slice and gives the task a new, later virtual deadline, "
            "so every task with an earlier deadline runs first."
        )
    return (
        "BFS v0.318: a yield puts the task back in the queue with the deadline it had; if that is "
        "still the earliest, it runs again at once."
    )


def describe_landing(outcome: YieldOutcome, brief: bool = False) -> str:
    jiffy = "" if brief else f": jiffy {outcome.deadline_jiffies}"
    if outcome.landing == "new_deadline":
        return f"new deadline{jiffy}"
    if outcome.landing == "requeued":
        return f"requeued, deadline kept{jiffy}"
    return landing_words(outcome, "deadline", brief)


INFO = PolicyInfo(
    name="bfs",
    label="BFS: 2009",
    kernel="BFS v0.2xx (Sept 2009, for 2.6.30/2.6.31); sched.yield_expires = 0 is v0.318's yield",
    source="kernel/sched_bfs.c of the 2.6.29 backport 146e67f6: earliest_deadline_task(), "
    "update_cpu_clock(), set_rq_task(), time_slice_expired(), sys_sched_yield()",
    factory=BfsPolicy,
    view_kind="bfs",
    describe_yield=describe_yield,
    describe_landing=describe_landing,
    tunables=(YIELD_EXPIRES,),
    global_queue=True,
)
