"""Interrupts: a hard interrupt and its softirq freeze the CPU's current task, then run their handler.

``Interrupts`` is the third layer of ``Machine`` (``model.machine``). At interrupt exit the CPU looks at
its run queue, as the kernel does on the way back to user space: it reschedules if need_resched was set
meanwhile (or it was idle with work queued), else resumes the interrupted task.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from model.events import PRIO_IRQ
from model.machine.cpu import SEG_BEGIN, SEG_NONE, Cpu
from model.machine.sleeping import Sleeping
from model.snapshot import IrqRecord


class Interrupts(Sleeping):
    def raise_irq(
        self, cpu_index: int, hardirq_ns: int, softirq_ns: int, handler: Callable[[Any], None], arg: Any
    ) -> None:
        """An interrupt on ``cpu_index``: ``hardirq_ns`` then ``softirq_ns`` of CPU, then ``handler(arg)``.

        The current task is frozen meanwhile (its time still charged to it by the policy, as the
        kernel did before IRQ time accounting). # SIMPLIFICATION: the softirq runs right after its
        hard interrupt, and the handler's effects (wakeups) take place at the end of both.
        """
        cpu = self.cpus[cpu_index]
        now = self.q.now_ns
        cpu.hardirq_ns += hardirq_ns
        cpu.softirq_ns += softirq_ns
        cpu.irq_handlers.append((handler, arg))
        if cpu.irq_until_ns > now:
            start = cpu.irq_until_ns  # after the interrupt in progress
        else:
            if cpu.curr is not None and cpu.seg != SEG_NONE:
                self._stop(cpu)
                cpu.seg = SEG_BEGIN  # resume at interrupt exit
            start = now
        cpu.hardirq_until_ns = start + hardirq_ns
        cpu.irq_until_ns = start + hardirq_ns + softirq_ns
        if self.tracing:
            self.trace.add(IrqRecord(start, cpu_index, hardirq_ns, softirq_ns))
        cpu.irq_gen += 1
        self.q.push(cpu.irq_until_ns, PRIO_IRQ, self._on_irq_exit, (cpu, cpu.irq_gen))

    def _on_irq_exit(self, arg: tuple[Cpu, int]) -> None:
        cpu, gen = arg
        if gen != cpu.irq_gen:
            return
        handlers, cpu.irq_handlers = cpu.irq_handlers, []
        self._irq_exiting = cpu
        for handler, harg in handlers:
            handler(harg)
        self._irq_exiting = None
        if cpu.irq_until_ns > self.q.now_ns:
            return  # a handler raised the next interrupt (a NAPI poll after the hard interrupt)
        if cpu.curr is None:
            if self.policy.nr_running(cpu.index) > 0:
                self._schedule(cpu, blocking=False)
        elif cpu.seg == SEG_BEGIN:
            if cpu.need_resched:
                self._preempt(cpu)
            else:
                self._run(cpu)
