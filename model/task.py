"""Tasks: the schedulable entities of the machine, with kernel-style state and per-task statistics.

A task's behaviour is a program (a generator of actions, see ``model.actions``); the machine drives it.
Each scheduler policy keeps its private per-task state in ``task.se`` (the kernel's sched entity).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any


class TaskState(IntEnum):
    RUNNING = 0  # on a CPU
    RUNNABLE = 1  # on a run queue, waiting for a CPU
    SLEEPING = 2  # blocked: timer, condition variable, socket
    DEAD = 3


@dataclass(eq=False, slots=True)
class Task:
    """One thread. Identity is the object (``eq=False``), so tasks hash by id and can key dicts."""

    tid: int
    name: str
    nice: int = 0
    pinned_cpu: int | None = None
    cpu: int = 0  # the CPU it runs on, or last ran on
    state: TaskState = TaskState.RUNNABLE
    se: Any = None  # policy-private scheduling state (the kernel's sched_entity)
    # Statistics, all maintained by the machine.
    exec_ns: int = 0  # time spent executing the task itself (excludes hardirq/softirq)
    yields: int = 0
    nvcsw: int = 0  # voluntary context switches (blocked or yielded away)
    nivcsw: int = 0  # involuntary context switches (preempted)
    sleep_start_ns: int = 0
    role: str = ""  # free label shown by the GUI ("data", "reporter", "sender", ...)
    # Execution state, owned by the machine.
    program: Any = None  # the generator of actions (model.actions.Program)
    left_ns: int = 0  # what remains of the current Compute action
    spin: Any = None  # the Spin action in progress, if any
    spin_phase_ns: int = 0  # time since the spinner's last yield
    driven: Any = None  # the Driven action whose driver runs this task's loop, if any
    timer_gen: int = 0  # invalidates stale sleep timers
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def switches(self) -> int:
        return self.nvcsw + self.nivcsw

    def allowed_on(self, cpu: int) -> bool:
        return self.pinned_cpu is None or self.pinned_cpu == cpu
