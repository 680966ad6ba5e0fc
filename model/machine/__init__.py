"""The machine, in layers, one responsibility each (every layer builds on the one before):

* ``cpu``: a CPU's state, its segments and their accounting (CPU time is conserved);
* ``switching``: the machine's state and ``schedule()``: context switches, preemption, yields, ticks;
* ``sleeping``: timers, wait queues and wakeups;
* ``interrupts``: hard interrupts and softirqs, and what a CPU does when they end;
* ``spinning``: yield-polling loops in closed form;
* ``programs``: ``Machine`` itself, which creates tasks and runs their programs;
* ``trace``: the typed records of what happened (``model.snapshot``), kept recent, full or not at all.

Only the event queue moves the clock (``model.events``).
"""

from model.machine.cpu import IRQ_HARD, IRQ_OPEN, IRQ_SOFT, SPINNING, Cpu
from model.machine.programs import Machine
from model.machine.switching import MAX_SYNC_DEPTH
from model.machine.trace import TRACE_LIMIT, TraceLog

__all__ = [
    "IRQ_HARD",
    "IRQ_OPEN",
    "IRQ_SOFT",
    "MAX_SYNC_DEPTH",
    "SPINNING",
    "TRACE_LIMIT",
    "Cpu",
    "Machine",
    "TraceLog",
]
