"""One CPU of the machine: what it runs, its current segment, and the time it has spent.

A CPU runs its current task in *segments*: a stretch of one kind (the task's own compute, a context
switch's cost, a spin loop, a driven send loop) that starts at ``seg_start_ns`` and ends with an event
(or, for an open segment, when something happens on the CPU). ``charge`` moves a segment's elapsed time
into the task's and the CPU's accounts; interrupts are accounted apart (``irq_ns``). CPU time is thus
conserved: every nanosecond of a CPU is task time, hardirq, softirq or idle.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from model.task import Task

# What a CPU's current segment is; its end event fires the machine's ``_on_segment_end``. Plain ints, read
# on every event.
SEG_NONE = 0
SEG_BEGIN = 1  # start (or resume) the current task at once
SEG_OVERHEAD = 2  # context-switch cost before the incoming task runs
SEG_COMPUTE = 3
SEG_SPIN = 4  # spinning with no pending end (ends on an event)
SEG_SPIN_YIELD = 5  # spinning; at the end, a yield that may switch
SEG_SPIN_EXIT = 6  # spinning; at the end, the check that finds the condition true
SEG_DRIVEN = 7  # a driver runs the task's loop (model.actions.Driven); no end of its own
SPINNING = (SEG_SPIN, SEG_SPIN_YIELD)


@dataclass(eq=False, slots=True)
class Cpu:
    index: int
    curr: Task | None = None
    need_resched: bool = False
    seg: int = SEG_NONE
    gen: int = 0  # bumps to invalidate the pending segment end
    seg_start_ns: int = 0
    overhead_left_ns: int = 0
    irq_until_ns: int = 0  # hard interrupt then softirq run until this instant
    hardirq_until_ns: int = 0
    irq_gen: int = 0
    irq_handlers: list[tuple[Callable[[Any], None], Any]] = field(default_factory=list)
    tick_armed: bool = False
    kick_pending: bool = False
    # Accounting, in ns since the start of the run.
    task_ns: int = 0
    hardirq_ns: int = 0
    softirq_ns: int = 0
    switches: int = 0


def charge(cpu: Cpu, now_ns: int, syscall_ns: int) -> None:
    """Charge ``cpu``'s current segment up to ``now_ns`` (its pending end event stays valid).

    A spin segment also counts the spinner's yields in closed form: one per loop period
    (``iter_ns`` plus a ``sched_yield()`` round trip of ``syscall_ns``), those strictly before now.
    """
    elapsed = now_ns - cpu.seg_start_ns
    cpu.seg_start_ns = now_ns
    task = cpu.curr
    if elapsed <= 0 or task is None or cpu.seg == SEG_NONE or cpu.seg == SEG_BEGIN:
        return
    task.exec_ns += elapsed
    cpu.task_ns += elapsed
    seg = cpu.seg
    if seg == SEG_COMPUTE:
        task.left_ns -= elapsed
    elif seg == SEG_OVERHEAD:
        cpu.overhead_left_ns -= elapsed
    elif task.spin is not None and task.spin.yield_each:
        period = max(task.spin.iter_ns + syscall_ns, 1)
        total = task.spin_phase_ns + elapsed
        done = (total - 1) // period
        task.yields += done
        task.spin_phase_ns = total - done * period


def irq_ns(cpu: Cpu, now_ns: int) -> tuple[int, int]:
    """Hardirq and softirq time ``cpu`` has spent by ``now_ns`` (an interrupt in progress counts up to
    now: ``raise_irq`` books an interrupt's whole cost when it is raised)."""
    left = max(cpu.irq_until_ns - now_ns, 0)
    hard_left = min(max(cpu.hardirq_until_ns - now_ns, 0), left)
    return cpu.hardirq_ns - hard_left, cpu.softirq_ns - (left - hard_left)
