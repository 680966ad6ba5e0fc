"""Snapshots: what the GUI is handed each frame, as frozen dataclasses and read-only arrays.

A snapshot is built from the machine at one instant; panels only read it. The run queues come
from the policy (``RunqueueView``), the transmit path's state from ``model.net.view``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from model.machine import SPINNING, Cpu, Machine, TraceRecord
from model.net.view import QdiscView
from model.sched.base import RunqueueView
from model.task import TaskState


@dataclass(frozen=True, slots=True)
class CpuView:
    index: int
    curr_tid: int  # 0 when idle
    state: str  # "idle", "task", "hardirq", "softirq"
    need_resched: bool
    task_ns: int
    hardirq_ns: int
    softirq_ns: int
    switches: int


@dataclass(frozen=True, slots=True)
class TaskView:
    tid: int
    name: str
    role: str
    state: str  # "running", "runnable", "sleeping", "dead"
    cpu: int
    nice: int
    exec_ns: int
    yields: int
    nvcsw: int
    nivcsw: int
    spinning: bool


@dataclass(frozen=True, slots=True)
class Snapshot:
    t_ns: int
    cpu_curr: NDArray[np.int64]  # per CPU: tid of the running task, 0 when idle
    cpus: tuple[CpuView, ...]
    tasks: tuple[TaskView, ...]
    runqueues: tuple[RunqueueView, ...]
    events: tuple[TraceRecord, ...]  # since the previous snapshot
    series_columns: tuple[str, ...]
    series: NDArray[np.int64]  # rows of cumulative counters (see model.metrics.Series)
    toggles: tuple[tuple[int, str, int | str], ...]  # (t_ns, key, value) of every live command
    acked_bytes: int
    events_dispatched: int
    qdisc: QdiscView | None = None  # the transmit path, when the scenario has one


def _cpu_state(cpu: Cpu, now_ns: int) -> str:
    if cpu.irq_until_ns > now_ns:
        return "hardirq" if cpu.hardirq_until_ns > now_ns else "softirq"
    return "task" if cpu.curr is not None else "idle"


def cpu_views(m: Machine) -> tuple[CpuView, ...]:
    now = m.now_ns
    return tuple(
        CpuView(
            c.index,
            c.curr.tid if c.curr else 0,
            _cpu_state(c, now),
            c.need_resched,
            c.task_ns,
            *m.irq_ns(c),
            c.switches,
        )
        for c in m.cpus
    )


def task_views(m: Machine) -> tuple[TaskView, ...]:
    return tuple(
        TaskView(
            t.tid,
            t.name,
            t.role,
            t.state.name.lower(),
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
