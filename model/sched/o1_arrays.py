"""The O(1) scheduler's data (Linux 2.6.22 ``kernel/sched.c``, KERNEL.md §A): its constants and the
HZ-dependent knobs (``O1Params``), the per-task fields (``O1Entity``), the priority arrays and run
queues, and the fork arithmetic of ``sched_fork()`` / ``wake_up_new_task()``. ``o1.py`` holds the policy.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from model.sched.base import NSEC_PER_SEC
from model.task import Task

MAX_RT_PRIO: Final = 100
MAX_PRIO: Final = 140
MAX_USER_PRIO: Final = 40
NICE_0_PRIO: Final = MAX_RT_PRIO + 20  # NICE_TO_PRIO(0)
PRIO_BONUS_RATIO: Final = 25
MAX_BONUS: Final = MAX_USER_PRIO * PRIO_BONUS_RATIO // 100  # 10
INTERACTIVE_DELTA: Final = 2
ON_RUNQUEUE_WEIGHT: Final = 30  # % of a process-context wakeup's run-queue wait credited as sleep
CHILD_PENALTY: Final = 95  # % of the parent's bonus a child starts with (wake_up_new_task)
PARENT_PENALTY: Final = 100  # % of its bonus a forking parent keeps

# enum sleep_type (2.6.22 include/linux/sched.h): how the last wakeup happened.
SLEEP_NORMAL: Final = 0
SLEEP_NONINTERACTIVE: Final = 1  # one long sleep hit the INTERACTIVE_SLEEP ceiling (or uninterruptible)
SLEEP_INTERACTIVE: Final = 2  # woken from process context: its run-queue wait counts ON_RUNQUEUE_WEIGHT %
SLEEP_INTERRUPTED: Final = 3  # woken from interrupt context (in_interrupt()): its whole run-queue wait counts


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
    # p->timestamp: when it was last picked or switched out (the run charged at schedule-out starts
    # here), or, queued after a wakeup, when it was activated (the start of its run-queue wait).
    timestamp_ns: int = 0
    sleep_type: int = SLEEP_NORMAL


@dataclass(slots=True)
class SpawnContext:
    """The parent of the tasks a scenario creates, which the model does not run: iperf's main thread,
    or the shell that starts a what-if's tasks. It is a nice-0 user thread that has just woken from a
    long sleep (waiting for its user), so recalc_task_prio() has set its sleep_avg to the
    INTERACTIVE_SLEEP ceiling, and it holds a full time slice. Each fork takes from it as sched_fork()
    and wake_up_new_task() take from ``current``."""

    sleep_avg_ns: int
    time_slice: int  # jiffies

    @classmethod
    def fresh(cls, params: O1Params) -> SpawnContext:
        return cls(params.interactive_sleep_ns(NICE_0_PRIO), params.timeslice(NICE_0_PRIO))


def fork_sleep_avg(params: O1Params, parent_sleep_avg_ns: int, penalty: int) -> int:
    """2.6.22 wake_up_new_task(): ``JIFFIES_TO_NS(CURRENT_BONUS(p) * PENALTY / 100 * MAX_SLEEP_AVG /
    MAX_BONUS)``, in integer steps: the child (which copied its parent's sleep_avg) with CHILD_PENALTY,
    the parent with PARENT_PENALTY. Both keep a whole number of bonus levels."""
    bonus = params.current_bonus(parent_sleep_avg_ns)
    return bonus * penalty // 100 * params.max_sleep_avg // MAX_BONUS * params.tick_ns


def split_time_slice(parent_slice: int) -> tuple[int, int]:
    """2.6.22 sched_fork(): ``p->time_slice = (current->time_slice + 1) >> 1; current->time_slice >>=
    1``, the parent left with at least one jiffy. Returns (child's, parent's).
    # SIMPLIFICATION: a parent left with 0 gets 1 jiffy but not the task_running_tick() that would
    # expire it at once."""
    return (parent_slice + 1) >> 1, max(parent_slice >> 1, 1)


class PrioArray:
    """``struct prio_array``: one FIFO list per prio and a bitmap of the non-empty ones.

    Only the SCHED_OTHER prios occur (MAX_RT_PRIO..MAX_PRIO-1: ``O1Params.normal_prio`` clamps to them,
    o1.py's SIMPLIFICATION), so bit ``prio - MAX_RT_PRIO`` stands for a prio: 40 bits, an int the
    compiled model keeps unboxed, where the kernel's 140-bit map would be a Python long.
    """

    __slots__ = ("bitmap", "nr_active", "queue")

    def __init__(self) -> None:
        self.queue: list[list[Task]] = [[] for _ in range(MAX_PRIO)]
        self.bitmap = 0
        self.nr_active = 0

    def enqueue(self, task: Task) -> None:
        se: O1Entity = task.se
        prio = se.prio
        self.queue[prio].append(task)
        self.bitmap |= 1 << (prio - MAX_RT_PRIO)
        self.nr_active += 1
        se.array = self

    def dequeue(self, task: Task) -> None:
        se: O1Entity = task.se
        prio = se.prio
        q = self.queue[prio]
        q.remove(task)
        if not q:
            self.bitmap &= ~(1 << (prio - MAX_RT_PRIO))
        self.nr_active -= 1
        se.array = None

    def requeue(self, task: Task) -> None:
        se: O1Entity = task.se
        q = self.queue[se.prio]  # requeue_task(): list_move_tail within the same prio list
        q.remove(task)
        q.append(task)

    def first(self) -> Task:
        bitmap = self.bitmap
        idx = (bitmap & -bitmap).bit_length() - 1  # sched_find_first_bit()
        return self.queue[idx + MAX_RT_PRIO][0]

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
