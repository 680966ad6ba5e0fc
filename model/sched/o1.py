"""The O(1) scheduler of Linux 2.6.22 (``kernel/sched.c``, KERNEL.md §A), behind ``SchedPolicy``.

Each CPU has an active and an expired priority array of 140 FIFO lists. As in the kernel, the running
task stays queued in its list: ``pick_next`` takes the head of the best non-empty list of the active
array, swapping the arrays first when active is empty. Time slices are counted in jiffies by
``task_tick`` and depend on nice only; ``sleep_avg`` (ns) rises with sleep at wakeup (and with the
run-queue wait that follows it, ``ON_RUNQUEUE_WEIGHT``) and falls with run time at every schedule-out,
and gives the dynamic prio ``static_prio ∓ 5`` that orders the lists and decides wakeup preemption and
"interactive" reinsertion. A new task starts from its parent's bonus and half its slice
(``task_new``). ``sched_yield()`` moves the caller to the tail of its list in the expired array.
# SIMPLIFICATION: SCHED_OTHER only (no RT round-robin, no SCHED_BATCH); every task is a user task
# (``p->mm`` set); sleeps are interruptible; no load balancing (``select_cpu_per_rq``).
"""

from __future__ import annotations

from collections.abc import Mapping

from model.copyable import mypyc_attr
from model.sched.base import SchedPolicy, select_cpu_per_rq
from model.sched.o1_arrays import (
    CHILD_PENALTY,
    MAX_PRIO,
    ON_RUNQUEUE_WEIGHT,
    PARENT_PENALTY,
    SLEEP_INTERACTIVE,
    SLEEP_INTERRUPTED,
    SLEEP_NONINTERACTIVE,
    SLEEP_NORMAL,
    O1Entity,
    O1Params,
    O1Runqueue,
    SpawnContext,
    fork_sleep_avg,
    nice_to_prio,
    split_time_slice,
    task_interactive,
)
from model.sched.registry import PolicyInfo, landing_words
from model.snapshot import O1Entry, O1View, YieldOutcome
from model.task import Task


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class O1Policy(SchedPolicy):
    """Linux 2.6.22 O(1): per-CPU active/expired arrays, jiffy slices, sleep_avg interactivity."""

    name: str = "o1"

    def __init__(self, ncpus: int, hz: int) -> None:
        self.ncpus = ncpus
        self.params = O1Params.for_hz(hz)
        self._ns_max_sleep_avg = self.params.ns_max_sleep_avg  # read at every schedule-out
        self._rqs = [O1Runqueue() for _ in range(ncpus)]
        self.spawner = SpawnContext.fresh(self.params)  # the parent of tasks created with parent None

    # ---- placement and queueing -------------------------------------------------------------------

    def select_task_rq(self, task: Task, now_ns: int) -> int:
        return select_cpu_per_rq(task, self.ncpus, self)

    def task_new(self, task: Task, cpu: int, now_ns: int, parent: Task | None = None) -> None:
        """2.6.22 sched_fork() + wake_up_new_task() for a thread (CLONE_VM): the child takes half the
        parent's time slice and, from the sleep_avg it copied, CHILD_PENALTY % of the parent's bonus;
        the parent keeps PARENT_PENALTY % of its bonus and the other half of its slice. The child
        goes to the tail of the active array at its prio ("run child last").
        # SIMPLIFICATION: a fork without CLONE_VM would queue the child right before its running
        # parent (child-runs-first); the spawning context is not on a run queue, so that is the tail
        # too. first_time_slice (the slice given back at an early exit) is not kept: tasks never exit.
        """
        params = self.params
        parent_se: O1Entity | SpawnContext = self.spawner if parent is None else parent.se
        child_slice, parent_se.time_slice = split_time_slice(parent_se.time_slice)
        sleep_avg = fork_sleep_avg(params, parent_se.sleep_avg_ns, CHILD_PENALTY)
        parent_se.sleep_avg_ns = fork_sleep_avg(params, parent_se.sleep_avg_ns, PARENT_PENALTY)
        static_prio = nice_to_prio(task.nice)
        task.se = O1Entity(
            static_prio=static_prio,
            prio=params.normal_prio(static_prio, sleep_avg),  # effective_prio(p)
            time_slice=child_slice,
            sleep_avg_ns=sleep_avg,
            timestamp_ns=now_ns,  # p->timestamp = sched_clock()
        )
        self._activate(task, cpu)

    def enqueue(self, task: Task, cpu: int, now_ns: int, wakeup: bool, from_irq: bool = False) -> None:
        """2.6.22 activate_task(): recalc_task_prio() from the sleep, then the tail of the ACTIVE array.
        A wakeup that did not hit the one-long-sleep ceiling also earns credit for the time it will
        wait on the run queue (``pick_next``): all of it when woken from an interrupt (SLEEP_INTERRUPTED,
        "most likely of interactive nature"), ON_RUNQUEUE_WEIGHT % otherwise (SLEEP_INTERACTIVE)."""
        se: O1Entity = task.se
        if wakeup:
            se.prio = self._recalc_task_prio(se, now_ns - task.sleep_start_ns)
            if se.sleep_type == SLEEP_NORMAL:
                se.sleep_type = SLEEP_INTERRUPTED if from_irq else SLEEP_INTERACTIVE
            se.timestamp_ns = now_ns
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
        se: O1Entity = nxt.se
        if se.sleep_type in (SLEEP_INTERACTIVE, SLEEP_INTERRUPTED):
            self._credit_runqueue_wait(rq, nxt, now_ns)
        se.sleep_type = SLEEP_NORMAL
        se.timestamp_ns = now_ns
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

    def yield_task(self, cpu: int, now_ns: int, describe: bool = True) -> YieldOutcome | None:
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
        return YieldOutcome("expired_array", prio=se.prio) if describe else None

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

    def _credit_runqueue_wait(self, rq: O1Runqueue, nxt: Task, now_ns: int) -> None:
        """2.6.22 ``schedule()``, for a ``next`` woken since it last ran: its wait on the run queue since
        activation counts as sleep, weighted by ON_RUNQUEUE_WEIGHT for a process-context wakeup
        (``delta * (ON_RUNQUEUE_WEIGHT * 128 / 100) / 128``). If that changes its prio it moves to the
        tail of its new list, but it is still the task that runs now."""
        se: O1Entity = nxt.se
        wait_ns = max(now_ns - se.timestamp_ns, 0)
        if se.sleep_type == SLEEP_INTERACTIVE:
            wait_ns = wait_ns * (ON_RUNQUEUE_WEIGHT * 128 // 100) // 128
        new_prio = self._recalc_task_prio(se, wait_ns)
        array = se.array
        if new_prio != se.prio and array is not None:
            array.dequeue(nxt)  # from the list of its old prio
            se.prio = new_prio
            array.enqueue(nxt)

    def _activate(self, task: Task, cpu: int) -> None:
        self._rqs[cpu].active.enqueue(task)
        self._rqs[cpu].nr_running += 1

    def _recalc_task_prio(self, se: O1Entity, sleep_ns: int) -> int:
        """2.6.22 ``recalc_task_prio()``: sleep_avg += time slept; returns the prio of the new sleep_avg
        (``effective_prio()``), which the caller stores."""
        if sleep_ns > 0:
            ceiling = self.params.interactive_sleep_ns(se.static_prio)
            if sleep_ns > ceiling and se.sleep_avg_ns < ceiling:
                se.sleep_avg_ns = ceiling  # one long sleep must not earn the best prio at once
                se.sleep_type = SLEEP_NONINTERACTIVE  # and earns no run-queue credit on top
            else:
                # SIMPLIFICATION: no SLEEP_NONINTERACTIVE limit for uninterruptible (I/O) sleeps.
                se.sleep_avg_ns += sleep_ns
            if se.sleep_avg_ns > self._ns_max_sleep_avg:
                se.sleep_avg_ns = self._ns_max_sleep_avg
        return self.params.normal_prio(se.static_prio, se.sleep_avg_ns)

    def _charge_run(self, task: Task, now_ns: int) -> None:
        """2.6.22 ``schedule()``: sleep_avg -= run_time / (CURRENT_BONUS ? : 1), run_time at most
        NS_MAX_SLEEP_AVG."""
        se: O1Entity = task.se
        # Comparisons, not min()/max(): this runs at every context switch.
        run_ns = now_ns - se.timestamp_ns
        if run_ns < 0:
            run_ns = 0
        elif run_ns > self._ns_max_sleep_avg:
            run_ns = self._ns_max_sleep_avg
        run_ns //= self.params.current_bonus(se.sleep_avg_ns) or 1
        sleep_avg = se.sleep_avg_ns - run_ns
        se.sleep_avg_ns = sleep_avg if sleep_avg > 0 else 0
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


def describe_landing(outcome: YieldOutcome, brief: bool = False) -> str:
    if outcome.landing != "expired_array":
        return landing_words(outcome, "prio", brief)
    return "expired array" if brief else f"expired array (prio {outcome.prio})"


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
