"""The machine's trace records."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TraceRecord:
    t_ns: int
    cpu: int
    kind: str  # "switch", "yield", "wake", "irq", "command" (the network adds "tenure")
    tid: int  # the task concerned (the incoming one for a switch; 0 for idle)
    prev_tid: int = 0
    info: str = ""  # irq: "HARDIRQ_NS SOFTIRQ_NS"; yield: where the yielder landed
    dur_ns: int = 0  # for records that span time (irq, tenure)
