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
from typing import Any, Final

from model.actions import Spin
from model.task import Task

# What a CPU's current segment is; its end event fires the machine's ``_on_segment_end``. Plain ints, read
# on every event.
SEG_NONE: Final = 0
SEG_BEGIN: Final = 1  # start (or resume) the current task at once
SEG_OVERHEAD: Final = 2  # context-switch cost before the incoming task runs
SEG_COMPUTE: Final = 3
SEG_SPIN: Final = 4  # spinning with no pending end (ends on an event)
SEG_SPIN_YIELD: Final = 5  # spinning; at the end, a yield that may switch
SEG_SPIN_EXIT: Final = 6  # spinning; at the end, the check that finds the condition true
SEG_DRIVEN: Final = 7  # a driver runs the task's loop (model.actions.Driven); no end of its own
SPINNING: Final = (SEG_SPIN, SEG_SPIN_YIELD)
IRQ_HARD: Final = 0  # kinds of an open-ended interrupt context (``Interrupts.irq_enter``)
IRQ_SOFT: Final = 1
# irq_until_ns while an open-ended context runs: "until irq_exit()" (an unboxed int)
IRQ_OPEN: Final = 1 << 60


@dataclass(eq=False, slots=True)
class Cpu:
    index: int
    curr: Task | None = None
    need_resched: bool = False
    seg: int = SEG_NONE
    gen: int = 0  # bumps to invalidate the pending segment end
    seg_start_ns: int = 0
    overhead_left_ns: int = 0
    irq_until_ns: int = 0  # hard interrupt then softirq run until this instant (IRQ_OPEN: until irq_exit)
    hardirq_until_ns: int = 0
    irq_gen: int = 0
    irq_handlers: list[tuple[Callable[[Any], None], Any]] = field(default_factory=list)
    # raise_irq() intervals (start, hard_end, end) not yet wholly past: their time is charged up front,
    # and irq_ns() takes back the parts still to come. Queued interrupts run back to back.
    irq_spans: list[tuple[int, int, int]] = field(default_factory=list)
    # Open-ended contexts a driver entered with irq_enter() (IRQ_HARD / IRQ_SOFT), innermost last.
    open_irq: list[int] = field(default_factory=list)
    open_mark_ns: int = 0  # when the innermost open context's time was last charged
    idle_ns: int = 0
    idle_mark_ns: int = 0  # idle since this instant; -1 while the CPU runs a task or an interrupt
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
    seg = cpu.seg
    # SEG_NONE and SEG_BEGIN (the two lowest kinds): nothing of the task has run in this segment.
    if elapsed <= 0 or task is None or seg <= SEG_BEGIN or cpu.open_irq:
        return  # nothing ran, or an open interrupt context runs over the task (its own account)
    task.exec_ns += elapsed
    cpu.task_ns += elapsed
    if seg == SEG_COMPUTE:
        task.left_ns -= elapsed
    elif seg == SEG_OVERHEAD:
        cpu.overhead_left_ns -= elapsed
    else:
        spin: Spin | None = task.spin
        if spin is None or not spin.yield_each:
            return
        period = spin.iter_ns + syscall_ns  # at least 1 ns (comparisons, not max(): a hot path)
        if period < 1:
            period = 1
        total = task.spin_phase_ns + elapsed
        done = (total - 1) // period
        task.yields += done
        task.spin_phase_ns = total - done * period


def irq_ns(cpu: Cpu, now_ns: int) -> tuple[int, int]:
    """Hardirq and softirq time ``cpu`` has spent by ``now_ns`` (an interrupt in progress counts up to
    now: ``raise_irq`` books an interrupt's whole cost when it is raised, and the parts of each charged
    interval that lie after now are taken back; an open context counts since its last charge)."""
    hard, soft = cpu.hardirq_ns, cpu.softirq_ns
    for start, hard_end, end in cpu.irq_spans:
        if end > now_ns:
            hard -= max(hard_end - max(start, now_ns), 0)
            soft -= end - max(hard_end, now_ns)
    if cpu.open_irq:
        if cpu.open_irq[-1] == IRQ_HARD:
            hard += now_ns - cpu.open_mark_ns
        else:
            soft += now_ns - cpu.open_mark_ns
    return hard, soft


def idle_ns(cpu: Cpu, now_ns: int) -> int:
    """Time ``cpu`` has spent with no task and no interrupt, up to ``now_ns``."""
    mark = cpu.idle_mark_ns
    return cpu.idle_ns + (now_ns - mark if mark >= 0 else 0)
