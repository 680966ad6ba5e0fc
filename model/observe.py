"""What a snapshot shows of the machine itself: a view of each CPU and of each task, built from the
live objects at one instant (``model.simulation`` adds the run queues, series, settings and events)."""

from __future__ import annotations

from model.copyable import mypyc_attr
from model.machine import SPINNING, Cpu, Machine
from model.machine.cpu import irq_ns
from model.snapshot import CpuState, CpuView, TaskStateName, TaskView
from model.task import TaskState

TASK_STATES: dict[TaskState, TaskStateName] = {
    TaskState.RUNNING: "running",
    TaskState.RUNNABLE: "runnable",
    TaskState.SLEEPING: "sleeping",
    TaskState.DEAD: "dead",
}


def cpu_state(cpu: Cpu, now_ns: int) -> CpuState:
    if cpu.irq_until_ns > now_ns:
        return "hardirq" if cpu.hardirq_until_ns > now_ns else "softirq"
    return "task" if cpu.curr is not None else "idle"


def cpu_views(m: Machine) -> tuple[CpuView, ...]:
    now = m.now_ns
    views = []
    for c in m.cpus:
        hard, soft = irq_ns(c, now)
        tid = c.curr.tid if c.curr else 0
        views.append(
            CpuView(
                c.index,
                tid,
                cpu_state(c, now),
                c.need_resched,
                c.task_ns,
                hard,
                soft,
                c.switches,
                c.open_mark_ns if c.open_irq else -1,
            )
        )
    return tuple(views)


def task_views(m: Machine) -> tuple[TaskView, ...]:
    return tuple(
        TaskView(
            t.tid,
            t.name,
            t.role,
            TASK_STATES[t.state],
            t.cpu,
            t.nice,
            t.exec_ns,
            t.yields,
            t.nvcsw,
            t.nivcsw,
            t.spin is not None and t.state == TaskState.RUNNING and m.cpus[t.cpu].seg in SPINNING,
        )
        for t in m.tasks
    )


# ---- the series' probes: counters read at every sample ------------------------------------------------
# Objects rather than lambdas: a copy of the run (``model.fork``) must read the copy's counters, and a
# lambda would keep reading the original's.


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class AttrProbe:
    """``obj.name``: a CPU's or a task's cumulative counter."""

    __slots__ = ("name", "obj")

    def __init__(self, obj: object, name: str) -> None:
        self.obj, self.name = obj, name

    def __call__(self) -> int:
        value: int = getattr(self.obj, self.name)
        return value


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class ItemProbe:
    """``counts[index]``: one CPU's entry of a per-CPU list of counters."""

    __slots__ = ("counts", "index")

    def __init__(self, counts: list[int], index: int) -> None:
        self.counts, self.index = counts, index

    def __call__(self) -> int:
        return self.counts[self.index]


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class IrqProbe:
    """A CPU's hardirq (``part`` 0) or softirq (``part`` 1) time so far."""

    __slots__ = ("cpu", "machine", "part")

    def __init__(self, machine: Machine, cpu: Cpu, part: int) -> None:
        self.machine, self.cpu, self.part = machine, cpu, part

    def __call__(self) -> int:
        return self.machine.irq_ns(self.cpu)[self.part]


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class SwitchesProbe:
    """Every context switch on every CPU so far."""

    __slots__ = ("machine",)

    def __init__(self, machine: Machine) -> None:
        self.machine = machine

    def __call__(self) -> int:
        return sum(c.switches for c in self.machine.cpus)
