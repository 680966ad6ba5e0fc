"""Spin loops in closed form: a task polling shared state, calling ``sched_yield()`` between checks.

``Spinning`` is the fourth layer of ``Machine`` (``model.machine``). A spinner costs events only when
something can change the outcome: a tick, a wakeup, an interrupt, the watched state changing, or the
policy's no-op budget running out (``SchedPolicy.yield_noop_budget_ns``). Yields in between are counted
(``model.machine.cpu.charge``), not simulated. When no event can come before the next real yield, that
yield is taken at once, the clock jumped to it through the event queue (``EventQueue.jump_to``).
"""

from __future__ import annotations

from model.actions import Spin, Watchable
from model.copyable import mypyc_attr
from model.machine.cpu import SEG_SPIN, SEG_SPIN_EXIT, SEG_SPIN_YIELD, SPINNING, Cpu, charge
from model.machine.interrupts import Interrupts
from model.machine.switching import RUNNING
from model.sched.base import SchedPolicy
from model.task import Task


@mypyc_attr(allow_interpreted_subclasses=True)  # Machine is copied (model.copyable)
class Spinning(Interrupts):
    def __init__(
        self,
        ncpus: int,
        hz: int,
        policy: SchedPolicy,
        context_switch_ns: int = 0,
        syscall_ns: int = 0,
        trace: str = "recent",
        hrtimers: bool = True,
        tick_skew: bool = False,
    ) -> None:
        super().__init__(ncpus, hz, policy, context_switch_ns, syscall_ns, trace, hrtimers, tick_skew)
        self._spinners: dict[Watchable, list[Task]] = {}

    def watch(self, w: Watchable) -> None:
        """Spinners polling ``w`` learn of its changes (``Watchable.changed()``)."""
        w.on_change = self._watch_changed

    def _spin_resume(self, cpu: Cpu) -> None:
        """The spinner (re)gains the CPU: its loop checks the condition, then yields."""
        task = cpu.curr
        assert task is not None and task.spin is not None
        spin: Spin = task.spin
        if spin.until():
            self._end_spin(task)
            self._step(cpu)
            return
        if not spin.yield_each:
            self._open_seg(cpu, SEG_SPIN)  # no end: only an event ends a busy spin
            return
        if self.policy.nr_running(cpu.index) == 1:
            # Alone: the yield cannot switch, so take it now and ask the policy how long that lasts.
            # SIMPLIFICATION: this first yield comes one loop iteration (a few µs) early.
            self._spin_yield(cpu)
            return
        period = spin.iter_ns + self.syscall_ns  # comparisons, not max(): a hot path
        if period < 1:
            period = 1
        wait = period - task.spin_phase_ns
        self._post_seg(cpu, SEG_SPIN_YIELD, self.q.now_ns + (wait if wait > 1 else 1))

    def _spin_yield(self, cpu: Cpu) -> None:
        """The spinner yields for real now (its budget ran out, or something happened on its CPU)."""
        task = cpu.curr
        assert task is not None and task.spin is not None
        q = self.q
        syscall_ns = self.syscall_ns
        while True:
            charge(cpu, q.now_ns, syscall_ns)
            task.yields += 1
            task.spin_phase_ns = 0
            if not self._sys_yield(cpu):
                return
            spin: Spin = task.spin
            if spin.until():
                self._end_spin(task)
                self._step(cpu)
                return
            period = spin.iter_ns + syscall_ns
            if period < 1:
                period = 1
            budget = self.policy.yield_noop_budget_ns(cpu.index, q.now_ns)
            if budget is None:
                self._open_seg(cpu, SEG_SPIN)  # no pending end: the next event on this CPU yields again
                return
            loops = -(-budget // period)  # at least one
            end = q.now_ns + (loops if loops > 1 else 1) * period
            nxt = q.next_time()
            if (nxt is not None and nxt <= end) or end > q.horizon_ns:
                self._post_seg(cpu, SEG_SPIN_YIELD, end)
                return
            # Nothing else can happen before that yield: take it without a round trip through the queue.
            cpu.seg, cpu.seg_start_ns = SEG_SPIN_YIELD, q.now_ns
            cpu.gen += 1
            q.jump_to(end)

    def _end_spin(self, task: Task) -> None:
        spin = task.spin
        task.spin = None
        if spin is not None:
            self._spinners[spin.watch].remove(task)

    def _watch_changed(self, w: Watchable) -> None:
        """Polled state changed: a running spinner whose condition now holds exits at its next check."""
        for task in self._spinners.get(w, ()):
            spin: Spin = task.spin
            if task.state is not RUNNING or not spin.until():
                continue
            cpu = self.cpus[task.cpu]
            if cpu.seg not in SPINNING or cpu.irq_until_ns > self.q.now_ns:
                continue
            self._account(cpu)
            period = spin.iter_ns + (self.syscall_ns if spin.yield_each else 0)
            wait = period - task.spin_phase_ns if spin.yield_each else spin.iter_ns
            self._post_seg(cpu, SEG_SPIN_EXIT, self.q.now_ns + max(wait, 0))

    # ---- what the layer above provides ------------------------------------------------------------

    def _step(self, cpu: Cpu) -> None:
        """Run the current task's program on to its next action that takes time (``programs``)."""
        raise NotImplementedError
