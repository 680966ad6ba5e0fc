"""The scheduler-policy protocol (the kernel's ``sched_class``) and the constants policies share.

The machine (``model.machine``) owns CPUs, tasks and time; a policy owns only run-queue state. The
machine calls a policy in the kernel's order:

* creation:  ``select_task_rq`` -> ``task_new`` (the task is then queued, runnable; ``parent`` forked it);
* wakeup:    ``select_task_rq`` -> ``enqueue(wakeup=True, from_irq)`` -> ``check_preempt_wakeup`` (CPU busy);
* schedule:  ``update_curr`` -> (``dequeue`` if prev blocks, else ``put_prev``) -> ``pick_next``;
* tick:      ``update_curr`` -> ``task_tick`` (returns need_resched);
* yield:     ``update_curr`` -> ``yield_task`` -> schedule as above -> ``yield_noop_budget_ns`` (schedule
  makes no second ``update_curr``: at the same instant it would charge nothing, and a policy's
  ``yield_task`` and ``put_prev`` need not call it again either).

``now_ns`` is integer nanoseconds; jiffies are ``now_ns // tick_ns``. A policy tracks which task is
current on each CPU through ``pick_next`` (the kernel's ``set_next_entity``) and the time it last
charged it (``exec_start``), exactly as ``update_curr`` does in the kernel. Runtime charged by a
policy includes interrupt time spent on the CPU while the task was current: before 2.6.37 the kernel
charged irq time to the interrupted task.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, TypeVar

from model.snapshot import RunqueueView, YieldOutcome
from model.task import Task

T = TypeVar("T")

try:
    from mypy_extensions import mypyc_attr
except ImportError:  # the pure sources, installed without mypy: only mypyc reads the decorator

    def mypyc_attr(*attrs: str, **kwattrs: object) -> Callable[[T], T]:
        return lambda cls: cls


NSEC_PER_SEC: Final = 1_000_000_000
NSEC_PER_MSEC: Final = 1_000_000
NICE_0_LOAD: Final = 1024

# kernel/sched.c (2.6.23 onward, unchanged since): weight per nice level, index nice + 20.
PRIO_TO_WEIGHT: Final[tuple[int, ...]] = (
    88761, 71755, 56483, 46273, 36291,
    29154, 23254, 18705, 14949, 11916,
    9548, 7620, 6100, 4904, 3906,
    3121, 2501, 1991, 1586, 1277,
    1024, 820, 655, 526, 423,
    335, 272, 215, 172, 137,
    110, 87, 70, 56, 45,
    36, 29, 23, 18, 15,
)  # fmt: skip


def nice_to_weight(nice: int) -> int:
    return PRIO_TO_WEIGHT[nice + 20]


def calc_delta_fair(delta: int, weight: int) -> int:
    """``delta * NICE_0_LOAD / weight``: real time as virtual time for a task of that weight.
    SIMPLIFICATION: exact division instead of inv_weight."""
    return delta if weight == NICE_0_LOAD else delta * NICE_0_LOAD // weight


def ilog2(n: int) -> int:
    return n.bit_length() - 1


def cpu_scale_factor(ncpus: int, cap: int | None = None) -> int:
    """``1 + ilog2(ncpus)``: the boot-time factor of ``sched_init_granularity`` (capped at 8 CPUs in 3.x+)."""
    n = min(ncpus, cap) if cap is not None else ncpus
    return 1 + ilog2(max(n, 1))


@mypyc_attr(allow_interpreted_subclasses=True)
class SchedPolicy:
    """One scheduling policy: a subclass per module in ``model/sched/``, overriding every method.

    A base class, not a Protocol: compiled with mypyc, the machine's calls into its policy (several per
    context switch) then go through the class's method table instead of a Python-level method call.
    Interpreted subclasses (test doubles) are allowed.
    """

    name: str

    def select_task_rq(self, task: Task, now_ns: int) -> int:
        """CPU a new or woken task goes to (the CPU to kick, for a global-queue policy)."""
        raise NotImplementedError

    def task_new(self, task: Task, cpu: int, now_ns: int, parent: Task | None = None) -> None:
        """Initialise ``task.se`` and queue the new task on ``cpu`` (``sched_fork`` and
        ``wake_up_new_task``). ``parent`` forked it; None is the scenario's spawning context, a thread
        the model does not run (``Machine.spawn``)."""
        raise NotImplementedError

    def enqueue(self, task: Task, cpu: int, now_ns: int, wakeup: bool, from_irq: bool = False) -> None:
        """Queue a task that became runnable (``wakeup``: asleep since ``task.sleep_start_ns``;
        ``from_irq``: woken in interrupt context, ``in_interrupt()``)."""
        raise NotImplementedError

    def dequeue(self, task: Task, cpu: int, now_ns: int) -> None:
        """The current task of ``cpu`` blocks: take it off the run queue (it is no longer current)."""
        raise NotImplementedError

    def put_prev(self, task: Task, cpu: int, now_ns: int) -> None:
        """The still-runnable current task of ``cpu`` is being switched out (or re-picked): requeue it."""
        raise NotImplementedError

    def pick_next(self, cpu: int, now_ns: int) -> Task | None:
        """Choose and take the next task for ``cpu``, which becomes current; None means idle."""
        raise NotImplementedError

    def update_curr(self, cpu: int, now_ns: int) -> None:
        """Charge the current task of ``cpu`` for the time since it was last charged."""
        raise NotImplementedError

    def task_tick(self, cpu: int, now_ns: int) -> bool:
        """Scheduler tick on ``cpu`` with a task current. Returns True to set need_resched."""
        raise NotImplementedError

    def check_preempt_wakeup(self, cpu: int, woken: Task, now_ns: int) -> bool:
        """Should the task just woken onto busy ``cpu`` preempt its current task?"""
        raise NotImplementedError

    def yield_task(self, cpu: int, now_ns: int, describe: bool = True) -> YieldOutcome | None:
        """``sys_sched_yield`` body for the current task of ``cpu``, before ``schedule()``: where the
        yielder lands, typed (its words are the registry's, ``PolicyInfo.describe_landing``). With
        ``describe`` False (the machine keeps no trace) it may return None instead: nothing would
        read the outcome, and a yield loop then builds none."""
        raise NotImplementedError

    def yield_noop_budget_ns(self, cpu: int, now_ns: int) -> int | None:
        """After a yield that re-picked the yielder: how much longer (ns of it running) every further
        yield stays a no-op, if nothing else happens on the CPU (no tick, no wakeup). ``None``: no bound.
        ``0``: the next yield may switch, so the machine performs it for real.
        """
        raise NotImplementedError

    def set_tunable(self, key: str, value: int) -> None:
        """One of the policy's own tunables (its ``PolicyInfo.tunables``), like a sysctl write: takes
        effect at the current instant. Any other key is a KeyError."""
        raise NotImplementedError

    def nr_running(self, cpu: int) -> int:
        """Runnable tasks that ``cpu`` may run, the current one included."""
        raise NotImplementedError

    def runqueue_view(self, cpu: int, now_ns: int) -> RunqueueView:
        """The run queue of ``cpu`` (current task first), as the policy's view kind, for snapshots. It
        must not change the policy's state: a snapshot never changes the run."""
        raise NotImplementedError


def select_cpu_per_rq(task: Task, ncpus: int, policy: SchedPolicy) -> int:
    """Placement shared by the per-CPU run-queue policies (O(1), CFS, EEVDF).

    Pinned tasks go to their CPU. A new task (``task.se is None``) goes to the allowed CPU with the
    fewest runnable tasks. A woken task goes back to its last CPU unless that CPU is busy and another
    allowed CPU is idle (the kernel's ``wake_idle``).
    # SIMPLIFICATION: no periodic load balancing and no migration of runnable tasks.
    """
    if task.pinned_cpu is not None:
        return task.pinned_cpu
    if ncpus == 1:
        return 0  # what every rule below comes to on one CPU (a wakeup's common case, without a call)
    if task.se is None:
        return min(range(ncpus), key=lambda c: (policy.nr_running(c), c))
    if policy.nr_running(task.cpu) == 0:
        return task.cpu
    for cpu in range(ncpus):
        if policy.nr_running(cpu) == 0:
            return cpu
    return task.cpu
