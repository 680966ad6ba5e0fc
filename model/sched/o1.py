"""The O(1) scheduler of Linux 2.6.22 (``kernel/sched.c``, KERNEL.md §A), behind ``SchedPolicy``.

Each CPU has an active and an expired priority array of 140 FIFO lists. As in the kernel, the running
task stays queued in its list: ``pick_next`` takes the head of the best non-empty list of the active
array, swapping the arrays first when active is empty. Time slices are counted in jiffies by
``task_tick`` and depend on nice only; ``sleep_avg`` (ns) rises with sleep at wakeup and falls with run
time at every schedule-out, and gives the dynamic prio ``static_prio ∓ 5`` that orders the lists and
decides wakeup preemption and "interactive" reinsertion. ``sched_yield()`` moves the caller to the tail
of its list in the expired array.
# SIMPLIFICATION: SCHED_OTHER only (no RT round-robin, no SCHED_BATCH); every task is a user task
# (``p->mm`` set); sleeps are interruptible; no load balancing (``select_cpu_per_rq``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from model.sched.base import NSEC_PER_SEC, select_cpu_per_rq
from model.sched.registry import PolicyInfo, landing_words
from model.snapshot import O1Entry, O1View, YieldOutcome
from model.task import Task

MAX_RT_PRIO = 100
MAX_PRIO = 140
MAX_USER_PRIO = 40
NICE_0_PRIO = MAX_RT_PRIO + 20  # NICE_TO_PRIO(0)
PRIO_BONUS_RATIO = 25
MAX_BONUS = MAX_USER_PRIO * PRIO_BONUS_RATIO // 100  # 10
INTERACTIVE_DELTA = 2


def nice_to_prio(nice: int) -> int:
    return MAX_RT_PRIO + nice + 20


def delta(static_prio: int) -> int:
    """``DELTA(p)``: how far below static_prio the dynamic prio must be for the task to be interactive.

    2.6.22: ``SCALE(TASK_NICE(p) + 20, 40, MAX_BONUS) - 20 * MAX_BONUS / 40 + INTERACTIVE_DELTA``,
    i.e. -3 at nice -20, 2 at nice 0, 6 at nice 19 (which can then never be interactive).
    """
    nice = static_prio - NICE_0_PRIO
    return (nice + 20) * MAX_BONUS // 40 - 20 * MAX_BONUS // 40 + INTERACTIVE_DELTA


def task_interactive(prio: int, static_prio: int) -> bool:
    return prio <= static_prio - delta(static_prio)  # TASK_INTERACTIVE(p)


@dataclass(frozen=True, slots=True)
class O1Params:
    """The HZ-dependent "tuning knobs" of 2.6.22, in jiffies unless the name says ns."""

    tick_ns: int
    min_timeslice: int  # max(5 * HZ / 1000, 1)
    def_timeslice: int  # 100 * HZ / 1000
    max_sleep_avg: int  # DEF_TIMESLICE * MAX_BONUS; also STARVATION_LIMIT
    granularity: int  # 10 * HZ / 1000 ? : 1

    @classmethod
    def for_hz(cls, hz: int) -> O1Params:
        def_timeslice = 100 * hz // 1000
        return cls(
            tick_ns=NSEC_PER_SEC // hz,
            min_timeslice=max(5 * hz // 1000, 1),
            def_timeslice=def_timeslice,
            max_sleep_avg=def_timeslice * MAX_BONUS,
            granularity=10 * hz // 1000 or 1,
        )

    @property
    def ns_max_sleep_avg(self) -> int:
        return self.max_sleep_avg * self.tick_ns  # NS_MAX_SLEEP_AVG

    def timeslice(self, static_prio: int) -> int:
        """``static_prio_timeslice()``: SCALE_PRIO(x, prio) = max(x * (140 - prio) / 20, MIN_TIMESLICE)."""
        x = self.def_timeslice * 4 if static_prio < NICE_0_PRIO else self.def_timeslice
        return max(x * (MAX_PRIO - static_prio) // (MAX_USER_PRIO // 2), self.min_timeslice)

    def current_bonus(self, sleep_avg_ns: int) -> int:
        return (sleep_avg_ns // self.tick_ns) * MAX_BONUS // self.max_sleep_avg  # CURRENT_BONUS(p)

    def normal_prio(self, static_prio: int, sleep_avg_ns: int) -> int:
        """``__normal_prio()``: static_prio - (CURRENT_BONUS - MAX_BONUS/2), clamped to [100, 139]."""
        prio = static_prio - (self.current_bonus(sleep_avg_ns) - MAX_BONUS // 2)
        return min(max(prio, MAX_RT_PRIO), MAX_PRIO - 1)

    def interactive_sleep_ns(self, static_prio: int) -> int:
        """``INTERACTIVE_SLEEP(p)``: the most one long sleep may raise sleep_avg to (799 ms at nice 0)."""
        jiffies = self.max_sleep_avg * (MAX_BONUS // 2 + delta(static_prio) + 1) // MAX_BONUS - 1
        return jiffies * self.tick_ns

    def timeslice_granularity(self, sleep_avg_ns: int, ncpus: int) -> int:
        """``TIMESLICE_GRANULARITY(p)`` of a CONFIG_SMP build (the UP formula times num_online_cpus())."""
        shift = ((MAX_BONUS - self.current_bonus(sleep_avg_ns)) or 1) - 1
        return self.granularity * (1 << shift) * ncpus


@dataclass(slots=True, eq=False)
class O1Entity:
    """The O(1) fields of a task_struct that this model keeps (``task.se``)."""

    static_prio: int
    prio: int
    time_slice: int  # jiffies left in the current slice
    sleep_avg_ns: int = 0
    array: PrioArray | None = None
    timestamp_ns: int = 0  # p->timestamp: when last picked, start of the run charged at schedule-out


class PrioArray:
    """``struct prio_array``: one FIFO list per prio and a bitmap of the non-empty ones."""

    __slots__ = ("bitmap", "nr_active", "queue")

    def __init__(self) -> None:
        self.queue: list[deque[Task]] = [deque() for _ in range(MAX_PRIO)]
        self.bitmap = 0
        self.nr_active = 0

    def enqueue(self, task: Task) -> None:
        se: O1Entity = task.se
        self.queue[se.prio].append(task)
        self.bitmap |= 1 << se.prio
        self.nr_active += 1
        se.array = self

    def dequeue(self, task: Task) -> None:
        se: O1Entity = task.se
        q = self.queue[se.prio]
        q.remove(task)
        if not q:
            self.bitmap &= ~(1 << se.prio)
        self.nr_active -= 1
        se.array = None

    def requeue(self, task: Task) -> None:
        q = self.queue[task.se.prio]  # requeue_task(): list_move_tail within the same prio list
        q.remove(task)
        q.append(task)

    def first(self) -> Task:
        idx = (self.bitmap & -self.bitmap).bit_length() - 1  # sched_find_first_bit()
        return self.queue[idx][0]

    def tasks(self) -> Iterator[Task]:
        """In pick order: by prio, then FIFO."""
        for q in self.queue:
            yield from q


class O1Runqueue:
    __slots__ = ("active", "best_expired_prio", "curr", "expired", "expired_timestamp", "nr_running")

    def __init__(self) -> None:
        self.active = PrioArray()
        self.expired = PrioArray()
        self.curr: Task | None = None
        self.nr_running = 0  # runnable tasks, the current one included (it stays in its array)
        # jiffies of the first expiry since the last swap; None stands for the kernel's 0 ("unset"),
        # because simulated jiffies start at 0 while the kernel's start far from it.
        self.expired_timestamp: int | None = None
        self.best_expired_prio = MAX_PRIO  # best *static* prio in expired (2.6.22 compares static_prio)


class O1Policy:
    """Linux 2.6.22 O(1): per-CPU active/expired arrays, jiffy slices, sleep_avg interactivity."""

    name: str = "o1"

    def __init__(self, ncpus: int, hz: int) -> None:
        self.ncpus = ncpus
        self.params = O1Params.for_hz(hz)
        self._rqs = [O1Runqueue() for _ in range(ncpus)]

    # ---- placement and queueing -------------------------------------------------------------------

    def select_task_rq(self, task: Task, now_ns: int) -> int:
        return select_cpu_per_rq(task, self.ncpus, self.nr_running)

    def task_new(self, task: Task, cpu: int, now_ns: int) -> None:
        # SIMPLIFICATION: the child gets a full task_timeslice() and sleep_avg 0 (prio static + 5). The
        # kernel (sched_fork/wake_up_new_task) halves the parent's slice between parent and child,
        # inherits sleep_avg scaled by CHILD_PENALTY, and may queue the child ahead of the parent.
        static_prio = nice_to_prio(task.nice)
        task.se = O1Entity(
            static_prio=static_prio,
            prio=self.params.normal_prio(static_prio, 0),
            time_slice=self.params.timeslice(static_prio),
            timestamp_ns=now_ns,
        )
        self._activate(task, cpu)

    def enqueue(self, task: Task, cpu: int, now_ns: int, wakeup: bool) -> None:
        # 2.6.22 activate_task(): recalc_task_prio() from the sleep, then the tail of the ACTIVE array.
        if wakeup:
            self._recalc_task_prio(task.se, now_ns - task.sleep_start_ns)
        self._activate(task, cpu)

    def dequeue(self, task: Task, cpu: int, now_ns: int) -> None:
        rq = self._rqs[cpu]
        if rq.curr is task:
            self._charge_run(task, now_ns)  # schedule() charges prev before deactivate_task()
        se: O1Entity = task.se
        if se.array is not None:
            se.array.dequeue(task)
            rq.nr_running -= 1
        if rq.curr is task:
            rq.curr = None

    def put_prev(self, task: Task, cpu: int, now_ns: int) -> None:
        # The task stays where it is in its list: a preempted task keeps its place at the head.
        self._charge_run(task, now_ns)
        self._rqs[cpu].curr = None

    def pick_next(self, cpu: int, now_ns: int) -> Task | None:
        rq = self._rqs[cpu]
        if rq.nr_running == 0:
            rq.expired_timestamp = None  # schedule() going idle
            rq.curr = None
            return None
        if rq.active.nr_active == 0:
            # 2.6.22 schedule(): switch the active and expired arrays.
            rq.active, rq.expired = rq.expired, rq.active
            rq.expired_timestamp = None
            rq.best_expired_prio = MAX_PRIO
        nxt = rq.active.first()
        nxt.se.timestamp_ns = now_ns
        rq.curr = nxt
        return nxt

    def update_curr(self, cpu: int, now_ns: int) -> None:
        """Nothing to do: O(1) charges whole jiffies in ``task_tick`` and run time at schedule-out."""

    # ---- tick, preemption, yield ------------------------------------------------------------------

    def task_tick(self, cpu: int, now_ns: int) -> bool:
        rq = self._rqs[cpu]
        p = rq.curr
        if p is None:
            return False
        se: O1Entity = p.se
        if se.array is not rq.active:
            return True  # 2.6.22 task_running_tick(): "Task has expired but was not scheduled yet"
        se.time_slice -= 1
        if se.time_slice == 0:
            self._expire(rq, p, now_ns // self.params.tick_ns)
            return True
        # Long slices are cut into TIMESLICE_GRANULARITY pieces for interactive tasks: round-robin with
        # tasks of equal prio, without losing any of the slice.
        gran = self.params.timeslice_granularity(se.sleep_avg_ns, self.ncpus)
        used = self.params.timeslice(se.static_prio) - se.time_slice
        if task_interactive(se.prio, se.static_prio) and used % gran == 0 and se.time_slice >= gran:
            rq.active.requeue(p)
            return True
        return False

    def check_preempt_wakeup(self, cpu: int, woken: Task, now_ns: int) -> bool:
        # TASK_PREEMPTS_CURR: strictly better dynamic prio.
        # SIMPLIFICATION: no sync wakeups (a sync wakeup on the same CPU never preempts).
        curr = self._rqs[cpu].curr
        return curr is None or woken.se.prio < curr.se.prio

    def yield_task(self, cpu: int, now_ns: int) -> YieldOutcome:
        # 2.6.22 sys_sched_yield(): SCHED_OTHER goes to the tail of its prio list in the EXPIRED array,
        # unconditionally; time_slice, prio, expired_timestamp and best_expired_prio are left alone.
        rq = self._rqs[cpu]
        p = rq.curr
        if p is None:
            raise RuntimeError(f"yield on cpu {cpu} with no current task")
        se: O1Entity = p.se
        if se.array is rq.expired:
            rq.expired.requeue(p)
        else:
            if se.array is not None:
                se.array.dequeue(p)
            rq.expired.enqueue(p)
        return YieldOutcome("expired_array", prio=se.prio)

    def yield_noop_budget_ns(self, cpu: int, now_ns: int) -> int | None:
        # A re-pick means active was empty after the yield, so the swap put the yielder back in active
        # together with every other runnable task and left expired empty. Alone, each further yield
        # swaps and re-picks it again: no bound. With others, the next yield leaves them in active
        # and one of them runs: that yield is real.
        return None if self._rqs[cpu].nr_running <= 1 else 0

    def set_tunable(self, key: str, value: int) -> None:
        raise KeyError(f"O(1) has no tunable {key!r}")

    # ---- views ------------------------------------------------------------------------------------

    def nr_running(self, cpu: int) -> int:
        return self._rqs[cpu].nr_running

    def runqueue_view(self, cpu: int, now_ns: int) -> O1View:
        rq = self._rqs[cpu]
        nxt = self._next_pick(rq)
        rows: list[O1Entry] = []
        if rq.curr is not None:
            rows.append(self._entry(rq, rq.curr, nxt))
        for array in (rq.active, rq.expired):
            rows.extend(self._entry(rq, t, nxt) for t in array.tasks() if t is not rq.curr)
        tick = self.params.tick_ns
        return O1View(cpu, tuple(rows), jiffies=now_ns // tick, tick_ns=tick)

    # ---- helpers ----------------------------------------------------------------------------------

    @staticmethod
    def _next_pick(rq: O1Runqueue) -> Task | None:
        """What ``pick_next`` would take now: the head of the best active list, else (after the swap)
        of the best expired one. The running task stays in its list, so it may be the one."""
        if rq.nr_running == 0:
            return None
        return rq.active.first() if rq.active.nr_active else rq.expired.first()

    def _entry(self, rq: O1Runqueue, task: Task, nxt: Task | None) -> O1Entry:
        se: O1Entity = task.se
        tick = self.params.tick_ns
        return O1Entry(
            tid=task.tid,
            running=task is rq.curr,
            picks_next=task is nxt,
            array="active" if se.array is rq.active else "expired",
            prio=se.prio,
            static_prio=se.static_prio,
            time_slice_ns=se.time_slice * tick,
            full_slice_ns=self.params.timeslice(se.static_prio) * tick,
            sleep_avg_ns=se.sleep_avg_ns,
        )

    def _activate(self, task: Task, cpu: int) -> None:
        self._rqs[cpu].active.enqueue(task)
        self._rqs[cpu].nr_running += 1

    def _recalc_task_prio(self, se: O1Entity, sleep_ns: int) -> None:
        """2.6.22 ``recalc_task_prio()``: sleep_avg += time slept, then prio from the new sleep_avg."""
        if sleep_ns > 0:
            ceiling = self.params.interactive_sleep_ns(se.static_prio)
            if sleep_ns > ceiling and se.sleep_avg_ns < ceiling:
                se.sleep_avg_ns = ceiling  # one long sleep must not earn the best prio at once
            else:
                # SIMPLIFICATION: no SLEEP_NONINTERACTIVE limit for uninterruptible (I/O) sleeps.
                se.sleep_avg_ns += sleep_ns
            se.sleep_avg_ns = min(se.sleep_avg_ns, self.params.ns_max_sleep_avg)
        se.prio = self.params.normal_prio(se.static_prio, se.sleep_avg_ns)

    def _charge_run(self, task: Task, now_ns: int) -> None:
        """2.6.22 ``schedule()``: sleep_avg -= run_time / (CURRENT_BONUS ? : 1), run_time ≤ NS_MAX_SLEEP_AVG.

        # SIMPLIFICATION: no on-runqueue credit at pick (sleep_type, ON_RUNQUEUE_WEIGHT): the protocol
        # does not say whether a wakeup came from an interrupt.
        """
        se: O1Entity = task.se
        run_ns = min(max(now_ns - se.timestamp_ns, 0), self.params.ns_max_sleep_avg)
        run_ns //= self.params.current_bonus(se.sleep_avg_ns) or 1
        se.sleep_avg_ns = max(se.sleep_avg_ns - run_ns, 0)
        se.timestamp_ns = now_ns

    def _expire(self, rq: O1Runqueue, p: Task, now_jiffies: int) -> None:
        """The slice ran out (2.6.22 task_running_tick()): new prio and slice, then expired or active."""
        se: O1Entity = p.se
        rq.active.dequeue(p)
        se.prio = self.params.normal_prio(se.static_prio, se.sleep_avg_ns)
        se.time_slice = self.params.timeslice(se.static_prio)
        if rq.expired_timestamp is None:
            rq.expired_timestamp = now_jiffies
        if not task_interactive(se.prio, se.static_prio) or self._expired_starving(rq, now_jiffies):
            rq.expired.enqueue(p)
            rq.best_expired_prio = min(rq.best_expired_prio, se.static_prio)
        else:
            rq.active.enqueue(p)  # interactive: back to the tail of its active list

    def _expired_starving(self, rq: O1Runqueue, now_jiffies: int) -> bool:
        """``expired_starving()``: a better static prio waits in expired, or expired has waited too long."""
        assert rq.curr is not None
        if rq.curr.se.static_prio > rq.best_expired_prio:
            return True
        if rq.expired_timestamp is None:
            return False
        starvation_limit = self.params.max_sleep_avg  # STARVATION_LIMIT = MAX_SLEEP_AVG
        return now_jiffies - rq.expired_timestamp > starvation_limit * rq.nr_running


# ---- the registry entry ---------------------------------------------------------------------------


def describe_yield(tunables: Mapping[str, int]) -> str:
    return (
        "O(1): a yield moves the task to the expired array; it waits until every other task "
        "has used up its time slice."
    )


def describe_landing(outcome: YieldOutcome) -> str:
    if outcome.landing != "expired_array":
        return landing_words(outcome, "prio")
    return f"expired array (prio {outcome.prio})"


INFO = PolicyInfo(
    name="o1",
    label="O(1): Linux 2.6.22",
    kernel="2.6.22",
    source="kernel/sched.c: schedule(), scheduler_tick(), recalc_task_prio(), sys_sched_yield()",
    factory=O1Policy,
    view_kind="o1",
    describe_yield=describe_yield,
    describe_landing=describe_landing,
)
