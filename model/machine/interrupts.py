"""Interrupts: a hard interrupt and its softirq freeze the CPU's current task, then run their handler.

``Interrupts`` is the third layer of ``Machine`` (``model.machine``). At interrupt exit the CPU looks at
its run queue, as the kernel does on the way back to user space: it reschedules if need_resched was set
meanwhile (or it was idle with work queued), else resumes the interrupted task. Two kinds: ``raise_irq``
books an interrupt of known length up front; ``irq_enter``/``irq_exit`` bracket a context of unknown
length that a driver runs event by event (a dequeue loop in NET_TX), hard or soft, nested.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from model.copyable import mypyc_attr
from model.events import PRIO_IRQ
from model.machine.cpu import IRQ_HARD, IRQ_OPEN, SEG_BEGIN, SEG_DRIVEN, SEG_NONE, Cpu
from model.machine.sleeping import Sleeping
from model.snapshot import IrqRecord


@mypyc_attr(allow_interpreted_subclasses=True)  # Machine is copied (model.copyable)
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
        if cpu.open_irq:
            raise RuntimeError(f"raise_irq on cpu{cpu_index} inside an open interrupt context (irq_enter)")
        cpu.hardirq_ns += hardirq_ns
        cpu.softirq_ns += softirq_ns
        cpu.irq_handlers.append((handler, arg))
        if cpu.irq_until_ns > now:
            start = cpu.irq_until_ns  # after the interrupt in progress
        else:
            self._idle_end(cpu)
            if cpu.curr is not None and cpu.seg != SEG_NONE:
                self._stop(cpu)
                cpu.seg = SEG_BEGIN  # resume at interrupt exit
            start = now
        spans = cpu.irq_spans
        if spans and spans[0][2] <= now:
            if len(spans) == 1:
                spans.clear()  # the usual case, without building a new list
            else:
                spans[:] = [span for span in spans if span[2] > now]
        spans.append((start, start + hardirq_ns, start + hardirq_ns + softirq_ns))
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
            else:
                self._idle_begin(cpu)
        elif cpu.seg == SEG_BEGIN:
            if cpu.need_resched:
                self._preempt(cpu)
            else:
                self._run(cpu)

    # ---- open-ended contexts (a driver's softirq or hard interrupt of unknown length) ---------------

    def irq_enter(self, cpu_index: int, kind: int) -> None:
        """An open-ended interrupt context (``IRQ_HARD`` or ``IRQ_SOFT``) begins on ``cpu_index``; it
        lasts until the matching ``irq_exit``, and nests. The task there is frozen meanwhile (its time
        still charged to it by the policy, as in raise_irq)."""
        cpu = self.cpus[cpu_index]
        now = self.q.now_ns
        if cpu.open_irq:
            self._charge_open(cpu)
        else:
            if cpu.irq_until_ns > now:
                raise RuntimeError(f"irq_enter on cpu{cpu_index} while a raise_irq interrupt runs")
            self._idle_end(cpu)
            if cpu.curr is not None and cpu.seg != SEG_NONE:
                if cpu.seg == SEG_DRIVEN:
                    self._account(cpu)
                else:
                    self._stop(cpu)
                    cpu.seg = SEG_BEGIN  # resume at interrupt exit
            cpu.irq_until_ns = IRQ_OPEN
        cpu.open_irq.append(kind)
        cpu.open_mark_ns = now
        cpu.hardirq_until_ns = IRQ_OPEN if kind == IRQ_HARD else now

    def irq_exit(self, cpu_index: int) -> None:
        """The innermost open-ended context on ``cpu_index`` ends; at the last one the CPU goes back
        to its task (or reschedules, or idles), as at the end of raise_irq's interrupt."""
        cpu = self.cpus[cpu_index]
        now = self.q.now_ns
        self._charge_open(cpu)
        cpu.open_irq.pop()
        if cpu.open_irq:
            cpu.hardirq_until_ns = IRQ_OPEN if cpu.open_irq[-1] == IRQ_HARD else now
            return
        cpu.irq_until_ns = now
        cpu.hardirq_until_ns = now
        cpu.seg_start_ns = now
        if cpu.curr is None:
            if self.policy.nr_running(cpu.index) > 0:
                self._schedule(cpu, blocking=False)
            else:
                self._idle_begin(cpu)
        elif cpu.seg == SEG_BEGIN or cpu.seg == SEG_DRIVEN:
            if cpu.need_resched:
                self._preempt(cpu)
            elif cpu.seg == SEG_BEGIN:
                self._run(cpu)

    def irq_switch(self, cpu_index: int, kind: int) -> None:
        """The innermost open context changes kind in place (a hard interrupt's irq_exit() running
        the softirqs it raised, before the CPU goes back to its task)."""
        cpu = self.cpus[cpu_index]
        self._charge_open(cpu)
        cpu.open_irq[-1] = kind
        cpu.hardirq_until_ns = IRQ_OPEN if kind == IRQ_HARD else self.q.now_ns

    def _charge_open(self, cpu: Cpu) -> None:
        now = self.q.now_ns
        mark, piece = cpu.open_mark_ns, now - cpu.open_mark_ns
        hard = cpu.open_irq[-1] == IRQ_HARD
        if hard:
            cpu.hardirq_ns += piece
        else:
            cpu.softirq_ns += piece
        cpu.open_mark_ns = now
        if self.tracing and piece > 0:  # the piece just charged, for the lanes and the trace
            self.trace.add(IrqRecord(mark, cpu.index, piece if hard else 0, 0 if hard else piece, True))
