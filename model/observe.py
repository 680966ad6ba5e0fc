"""What a snapshot shows of the machine itself: a view of each CPU and of each task, built from the
live objects at one instant (``model.simulation`` adds the run queues, series, settings and events)."""

from __future__ import annotations

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
            CpuView(c.index, tid, cpu_state(c, now), c.need_resched, c.task_ns, hard, soft, c.switches)
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
