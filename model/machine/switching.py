"""The machine's state and ``schedule()``: context switches, preemption, ``sched_yield()``, kicks, ticks.

``Switching`` is the first layer of ``Machine`` (``model.machine``): it owns the event queue (and so
simulated time), the CPUs, the tasks, the policy and the trace, posts each CPU's segments, and does what
the kernel's ``schedule()`` does, calling the policy in the kernel's order (``model.sched.base``). The
layers above it add sleeping and waking, interrupts, spin loops and task programs; the two hooks at the
end of this class are theirs, as ``schedule()`` starts the task it picks and a tick or a kick makes a
spinner yield anew.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from model.actions import Driven, Spin
from model.copyable import mypyc_attr
from model.events import PRIO_TASK, PRIO_TICK, EventQueue
from model.machine.cpu import SEG_BEGIN, SEG_DRIVEN, SEG_NONE, SPINNING, Cpu, charge, idle_ns, irq_ns
from model.machine.trace import TraceLog
from model.sched.base import NSEC_PER_SEC, SchedPolicy
from model.snapshot import SwitchRecord, TraceRecord, YieldRecord
from model.task import Task, TaskState

MAX_SYNC_DEPTH: Final = 8  # nested context switches handled at once before deferring to an event
# The states, Final (the compiled model keeps them in C statics); each is one object, so the machine
# compares them with ``is``.
RUNNING: Final = TaskState.RUNNING
RUNNABLE: Final = TaskState.RUNNABLE
SLEEPING: Final = TaskState.SLEEPING
DEAD: Final = TaskState.DEAD


@mypyc_attr(allow_interpreted_subclasses=True)  # Machine is copied (model.copyable)
class Switching:
    """N CPUs, a periodic tick at ``hz``, a policy, tasks, and ``schedule()`` between them."""

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
        self.q = EventQueue()
        self.cpus = [Cpu(i) for i in range(ncpus)]
        self.hz = hz
        self.tick_ns = NSEC_PER_SEC // hz
        # Where each CPU's tick falls in a jiffy. jiffies moves on the jiffy (the do_timer CPU's tick,
        # cpu0's); kernels before 3.5 offset the other CPUs' ticks to spare jiffies' lock
        # (tick_setup_sched_timer(): offset = tick_period >> 1; do_div(offset, num_possible_cpus());
        # offset *= smp_processor_id()), 3.5+ only with skew_tick=1.
        half = self.tick_ns >> 1
        self.tick_offset_ns = [half // ncpus * i if tick_skew else 0 for i in range(ncpus)]
        self.policy = policy
        self.context_switch_ns = context_switch_ns
        self.syscall_ns = syscall_ns  # one sched_yield() round trip when nothing switches
        # CONFIG_HIGH_RES_TIMERS with a clock-event device (2.6.21+ on x86): sleeps end when they are
        # due; without, hrtimers run from the tick (model.machine.sleeping).
        self.hrtimers = hrtimers
        self.tasks: list[Task] = []
        if trace not in ("off", "recent", "full"):
            raise ValueError(f"trace must be off, recent or full, not {trace!r}")
        self.tracing = trace != "off"  # "recent" keeps the last records (TRACE_LIMIT), "full" all
        self.trace = TraceLog(full=trace == "full")
        self._irq_exiting: Cpu | None = None
        self._depth = 0
        self._segment_end: Callable[[tuple[Cpu, int]], None] = self._on_segment_end  # bound once

    @property
    def now_ns(self) -> int:
        return self.q.now_ns

    def next_tick_ns(self, cpu_index: int, t: int) -> int:
        """The first tick of CPU ``cpu_index`` after ``t`` (``tick_offset_ns`` into a jiffy)."""
        off = self.tick_offset_ns[cpu_index]
        return ((t - off) // self.tick_ns + 1) * self.tick_ns + off

    def irq_ns(self, cpu: Cpu) -> tuple[int, int]:
        """Hardirq and softirq time ``cpu`` has spent so far (an interrupt in progress counts up to now)."""
        return irq_ns(cpu, self.q.now_ns)

    def idle_ns(self, cpu: Cpu) -> int:
        """Time ``cpu`` has spent with no task and no interrupt, up to now (task + hardirq + softirq +
        idle = elapsed, on every CPU)."""
        return idle_ns(cpu, self.q.now_ns)

    def _idle_begin(self, cpu: Cpu) -> None:
        if cpu.idle_mark_ns < 0 and cpu.curr is None and cpu.irq_until_ns <= self.q.now_ns:
            cpu.idle_mark_ns = self.q.now_ns

    def _idle_end(self, cpu: Cpu) -> None:
        mark = cpu.idle_mark_ns
        if mark >= 0:
            cpu.idle_ns += self.q.now_ns - mark
            cpu.idle_mark_ns = -1

    def record(self, record: TraceRecord) -> None:
        """Add a trace record; callers build one only ``if machine.tracing``."""
        self.trace.add(record)

    # ---- segments -------------------------------------------------------------------------------

    def _post_seg(self, cpu: Cpu, seg: int, end_ns: int) -> None:
        cpu.gen += 1
        cpu.seg = seg
        q = self.q
        cpu.seg_start_ns = q.now_ns
        q.push(end_ns, PRIO_TASK, self._segment_end, (cpu, cpu.gen))

    def _open_seg(self, cpu: Cpu, seg: int) -> None:
        """Start a segment with no end event: only something happening on the CPU ends it."""
        cpu.gen += 1
        cpu.seg = seg
        cpu.seg_start_ns = self.q.now_ns

    def _account(self, cpu: Cpu) -> None:
        """Charge the current segment up to now (the pending end event stays valid)."""
        charge(cpu, self.q.now_ns, self.syscall_ns)

    def _stop(self, cpu: Cpu) -> None:
        charge(cpu, self.q.now_ns, self.syscall_ns)
        cpu.gen += 1
        cpu.seg = SEG_NONE

    # ---- scheduling -----------------------------------------------------------------------------

    def _schedule(
        self, cpu: Cpu, blocking: bool, voluntary: bool = True, arm_same: bool = True, charged: bool = False
    ) -> bool:
        """``schedule()`` on ``cpu``. Returns True if the previous task was picked again. ``charged``:
        the caller has just made the policy's ``update_curr`` at this instant (a yield), so another
        would charge nothing."""
        q = self.q
        now = q.now_ns
        policy = self.policy
        index = cpu.index
        prev = cpu.curr
        if prev is not None:
            if cpu.seg == SEG_DRIVEN and prev.driven is not None:
                driven: Driven = prev.driven
                driven.detach(index)
            if cpu.seg_start_ns != now:  # _stop(), inline on this hot path (else nothing to charge)
                charge(cpu, now, self.syscall_ns)
            cpu.gen += 1
            cpu.seg = SEG_NONE
            if not charged:
                policy.update_curr(index, now)
            if blocking:
                policy.dequeue(prev, index, now)
                if prev.state is not DEAD:
                    prev.state = SLEEPING
                prev.sleep_start_ns = now
            else:
                policy.put_prev(prev, index, now)
                prev.state = RUNNABLE
        nxt = policy.pick_next(index, now)
        cpu.need_resched = False
        if nxt is None and prev is None:
            return False
        if prev is None:
            self._idle_end(cpu)
        elif nxt is prev:
            prev.state = RUNNING
            if arm_same:
                self._post_seg(cpu, SEG_BEGIN, now)
            return True
        if prev is not None:
            if voluntary or blocking:
                prev.nvcsw += 1
            else:
                prev.nivcsw += 1
        cpu.curr = nxt
        cpu.switches += 1
        if self.tracing:
            self.trace.add(SwitchRecord(now, cpu.index, nxt.tid if nxt else 0, prev.tid if prev else 0))
        if nxt is None:
            cpu.seg = SEG_NONE
            self._idle_begin(cpu)
            return False
        nxt.state = RUNNING
        nxt.cpu = index
        if not cpu.tick_armed:
            cpu.tick_armed = True
            q.push(self.next_tick_ns(index, now), PRIO_TICK, self._on_tick, cpu)
        cpu.overhead_left_ns = self.context_switch_ns if prev is not None else 0
        if self._depth < MAX_SYNC_DEPTH:
            # Start the incoming task now; a chain of instant switches falls back to an event.
            self._depth += 1
            try:
                self._run(cpu)
            finally:
                self._depth -= 1
        else:
            self._post_seg(cpu, SEG_BEGIN, now)
        return False

    def _preempt(self, cpu: Cpu) -> None:
        task = cpu.curr
        driven = task.driven if task is not None else None
        if driven is not None and driven.preemptible is not None and not driven.preemptible(cpu.index):
            # Preemption is off where the driver is (BH-disabled kernel code): it reschedules at its
            # next preempt_point(); until then need_resched stays set.
            if cpu.seg == SEG_BEGIN:
                self._run(cpu)
            if driven.resched is not None:
                driven.resched(cpu.index)
            return
        self._schedule(cpu, blocking=False, voluntary=False)

    def _sys_yield(self, cpu: Cpu) -> bool:
        """``sys_sched_yield()``; True if the yielder keeps the CPU."""
        now = self.q.now_ns
        task = cpu.curr
        assert task is not None
        policy = self.policy
        policy.update_curr(cpu.index, now)
        if not self.tracing:  # nothing records where the yielder landed: the policy need not say
            policy.yield_task(cpu.index, now, False)
            return self._schedule(cpu, False, True, False, True)  # not blocking, voluntary, no re-arm
        outcome = policy.yield_task(cpu.index, now)
        assert outcome is not None  # asked for (describe)
        mark = self.trace.appended
        kept = self._schedule(cpu, False, True, False, True)
        self.trace.insert(mark, YieldRecord(now, cpu.index, task.tid, outcome, not kept))
        return kept

    def _kick(self, cpu: Cpu) -> None:
        """Ask ``cpu`` to look at its run queue at the current instant (deferred, like an IPI)."""
        if cpu is self._irq_exiting:
            return  # the interrupt's exit path looks at the run queue anyway
        if not cpu.kick_pending:
            cpu.kick_pending = True
            self.q.push(self.q.now_ns, PRIO_TASK, self._on_kick, cpu)

    def _kick_idle(self, task: Task) -> None:
        """Idle CPUs that can run ``task`` look at their queue (a global run queue offers it to all)."""
        for cpu in self.cpus:
            if cpu.curr is None and task.allowed_on(cpu.index) and self.policy.nr_running(cpu.index) > 0:
                self._kick(cpu)

    def _on_kick(self, cpu: Cpu) -> None:
        cpu.kick_pending = False
        if cpu.irq_until_ns > self.q.now_ns:
            return  # the interrupt's exit looks again
        if cpu.curr is None:
            if self.policy.nr_running(cpu.index) > 0:
                self._schedule(cpu, blocking=False)
        elif cpu.need_resched:
            if cpu.seg != SEG_NONE:  # not in the middle of the task's own program step
                self._preempt(cpu)
        elif cpu.seg in SPINNING:
            spin: Spin | None = cpu.curr.spin
            if spin is not None and spin.yield_each:
                self._spin_yield(cpu)

    def _on_tick(self, cpu: Cpu) -> None:
        task = cpu.curr
        if task is None:
            cpu.tick_armed = False  # NO_HZ: an idle CPU stops its tick
            return
        q = self.q
        now = q.now_ns
        q.push(now + self.tick_ns, PRIO_TICK, self._on_tick, cpu)
        charge(cpu, now, self.syscall_ns)
        policy = self.policy
        policy.update_curr(cpu.index, now)
        if policy.task_tick(cpu.index, now):
            cpu.need_resched = True
        if cpu.irq_until_ns > now or cpu.seg == SEG_NONE:
            return  # resched at interrupt exit / at the end of the program step
        if cpu.need_resched:
            self._preempt(cpu)
        elif cpu.seg in SPINNING:
            spin: Spin | None = task.spin
            if spin is not None and spin.yield_each:
                self._spin_yield(cpu)

    # ---- what the layers above provide ------------------------------------------------------------

    def _on_segment_end(self, arg: tuple[Cpu, int]) -> None:
        """A posted segment ended (``model.machine.programs``)."""
        raise NotImplementedError

    def _run(self, cpu: Cpu) -> None:
        """(Re)start the current task of ``cpu`` where it left off (``model.machine.programs``)."""
        raise NotImplementedError

    def _spin_yield(self, cpu: Cpu) -> None:
        """The spinner on ``cpu`` yields for real now (``model.machine.spinning``)."""
        raise NotImplementedError
