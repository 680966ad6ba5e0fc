"""The machine: CPUs that run tasks' programs under a scheduler policy, with ticks, interrupts and timers.

It owns simulated time (through ``EventQueue``), the CPUs and the tasks; the policy owns the run
queues. Everything happens at integer-nanosecond instants and in a total order, so a run is a pure
function of its inputs. Spinning tasks (``Spin``) cost events only when something can change the
outcome: a tick, a wakeup, an interrupt, the watched state changing, or the policy's no-op budget
running out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from model.actions import (
    Block,
    Compute,
    CondVar,
    Driven,
    Nanosleep,
    SchedYield,
    Signal,
    Spin,
    Wait,
    WaitQueue,
    Watchable,
)
from model.events import PRIO_IRQ, PRIO_TASK, PRIO_TICK, PRIO_TIMER, EventQueue
from model.sched.base import NSEC_PER_SEC, SchedPolicy
from model.task import Task, TaskState

MAX_SYNC_DEPTH = 8  # nested context switches handled at once before deferring to an event
TRACE_LIMIT = 20_000  # recent trace records kept for snapshots when nobody drains them


# What a CPU's current segment is; its end event fires ``_on_segment_end``. Plain ints, read on every event.
SEG_NONE = 0
SEG_BEGIN = 1  # start (or resume) the current task at once
SEG_OVERHEAD = 2  # context-switch cost before the incoming task runs
SEG_COMPUTE = 3
SEG_SPIN = 4  # spinning with no pending end (ends on an event)
SEG_SPIN_YIELD = 5  # spinning; at the end, a yield that may switch
SEG_SPIN_EXIT = 6  # spinning; at the end, the check that finds the condition true
SEG_DRIVEN = 7  # a driver runs the task's loop (model.actions.Driven); no end of its own
SPINNING = (SEG_SPIN, SEG_SPIN_YIELD)
IRQ_HARD, IRQ_SOFT = 0, 1  # kinds of an open-ended interrupt context (Machine.irq_enter)
IRQ_OPEN = 1 << 60  # irq_until_ns while an open-ended context runs: "until irq_exit()" (an unboxed int)
RUNNING, RUNNABLE, SLEEPING, DEAD = TaskState.RUNNING, TaskState.RUNNABLE, TaskState.SLEEPING, TaskState.DEAD


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


@dataclass(frozen=True, slots=True)
class TraceRecord:
    t_ns: int
    cpu: int
    kind: str  # "switch", "yield", "wake", "irq", "command" (the network adds "tenure")
    tid: int  # the task concerned (the incoming one for a switch; 0 for idle)
    prev_tid: int = 0
    info: str = ""  # irq: "HARDIRQ_NS SOFTIRQ_NS"; yield: where the yielder landed
    dur_ns: int = 0  # for records that span time (irq, tenure)


class Machine:
    """N CPUs, a periodic tick at ``hz``, a policy, and tasks running programs."""

    def __init__(
        self,
        ncpus: int,
        hz: int,
        policy: SchedPolicy,
        context_switch_ns: int = 0,
        syscall_ns: int = 0,
        trace: str = "recent",
    ) -> None:
        self.q = EventQueue()
        self.cpus = [Cpu(i) for i in range(ncpus)]
        self.hz = hz
        self.tick_ns = NSEC_PER_SEC // hz
        self.policy = policy
        self.context_switch_ns = context_switch_ns
        self.syscall_ns = syscall_ns  # one sched_yield() round trip when nothing switches
        self.tasks: list[Task] = []
        if trace not in ("off", "recent", "full"):
            raise ValueError(f"trace must be off, recent or full, not {trace!r}")
        self.tracing = trace != "off"  # "recent" keeps the last TRACE_LIMIT records, "full" all
        self.full_trace = trace == "full"
        self.trace: list[TraceRecord] = []
        self._spinners: dict[Watchable, list[Task]] = {}
        self._irq_exiting: Cpu | None = None
        self._depth = 0
        self._segment_end = self._on_segment_end  # bound once: it is posted for every segment

    @property
    def now_ns(self) -> int:
        return self.q.now_ns

    # ---- building -------------------------------------------------------------------------------

    def spawn(
        self,
        name: str,
        program: Callable[[Task], Any],
        nice: int = 0,
        cpu: int | None = None,
        role: str = "",
    ) -> Task:
        """Create a runnable task whose behaviour is ``program(task)`` (a generator of actions)."""
        task = Task(tid=len(self.tasks) + 1, name=name, nice=nice, pinned_cpu=cpu, role=role)
        task.program = program(task)
        self.tasks.append(task)
        target = self.policy.select_task_rq(task, self.now_ns)
        task.cpu = target
        self.policy.task_new(task, target, self.now_ns)
        self._kick(self.cpus[target])
        self._kick_idle(task)
        return task

    def _kick_idle(self, task: Task) -> None:
        """Idle CPUs that can run ``task`` look at their queue (a global run queue offers it to all)."""
        for cpu in self.cpus:
            if cpu.curr is None and task.allowed_on(cpu.index) and self.policy.nr_running(cpu.index) > 0:
                self._kick(cpu)

    def watch(self, w: Watchable) -> None:
        w.on_change = self._watch_changed

    def irq_ns(self, cpu: Cpu) -> tuple[int, int]:
        """Hardirq and softirq time ``cpu`` has spent so far (an interrupt in progress counts up to now)."""
        now = self.q.now_ns
        hard, soft = cpu.hardirq_ns, cpu.softirq_ns
        for start, hard_end, end in cpu.irq_spans:
            if end > now:  # the parts of a charged interval that lie after now
                hard -= max(hard_end - max(start, now), 0)
                soft -= end - max(hard_end, now)
        if cpu.open_irq:
            if cpu.open_irq[-1] == IRQ_HARD:
                hard += now - cpu.open_mark_ns
            else:
                soft += now - cpu.open_mark_ns
        return hard, soft

    def idle_ns(self, cpu: Cpu) -> int:
        """Time ``cpu`` has spent with no task and no interrupt, up to now."""
        mark = cpu.idle_mark_ns
        return cpu.idle_ns + (self.q.now_ns - mark if mark >= 0 else 0)

    def _idle_begin(self, cpu: Cpu) -> None:
        if cpu.idle_mark_ns < 0 and cpu.curr is None and cpu.irq_until_ns <= self.q.now_ns:
            cpu.idle_mark_ns = self.q.now_ns

    def _idle_end(self, cpu: Cpu) -> None:
        mark = cpu.idle_mark_ns
        if mark >= 0:
            cpu.idle_ns += self.q.now_ns - mark
            cpu.idle_mark_ns = -1

    # ---- running --------------------------------------------------------------------------------

    def run_until(self, t_end_ns: int, max_events: int | None = None) -> bool:
        """Run up to ``t_end_ns``, then charge every CPU's current segment up to that instant."""
        finished = self.q.run_until(t_end_ns, max_events)
        for cpu in self.cpus:
            if cpu.irq_until_ns <= self.q.now_ns:
                self._account(cpu)
        return finished

    def record(
        self,
        cpu: int,
        kind: str,
        tid: int,
        prev_tid: int = 0,
        info: str = "",
        dur_ns: int = 0,
        t_ns: int = -1,
    ) -> None:
        """Append a trace record (at ``t_ns``, default now); without a full trace, only recent ones stay."""
        trace = self.trace
        trace.append(TraceRecord(self.q.now_ns if t_ns < 0 else t_ns, cpu, kind, tid, prev_tid, info, dur_ns))
        if not self.full_trace and len(trace) > TRACE_LIMIT:
            del trace[: TRACE_LIMIT // 2]

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
        now = self.q.now_ns
        elapsed = now - cpu.seg_start_ns
        cpu.seg_start_ns = now
        task = cpu.curr
        if elapsed <= 0 or task is None or cpu.seg == SEG_NONE or cpu.seg == SEG_BEGIN or cpu.open_irq:
            return
        task.exec_ns += elapsed
        cpu.task_ns += elapsed
        seg = cpu.seg
        if seg == SEG_COMPUTE:
            task.left_ns -= elapsed
        elif seg == SEG_OVERHEAD:
            cpu.overhead_left_ns -= elapsed
        elif task.spin is not None and task.spin.yield_each:
            # Yields fall every `period` of spinning; count those strictly before now.
            period = max(task.spin.iter_ns + self.syscall_ns, 1)
            total = task.spin_phase_ns + elapsed
            done = (total - 1) // period
            task.yields += done
            task.spin_phase_ns = total - done * period

    def _stop(self, cpu: Cpu) -> None:
        self._account(cpu)
        cpu.gen += 1
        cpu.seg = SEG_NONE

    def _on_segment_end(self, arg: tuple[Cpu, int]) -> None:
        cpu, gen = arg
        if gen != cpu.gen:
            return
        seg = cpu.seg
        task = cpu.curr
        assert task is not None
        if seg == SEG_COMPUTE:  # the common case, inline
            elapsed = self.q.now_ns - cpu.seg_start_ns
            task.exec_ns += elapsed
            cpu.task_ns += elapsed
            task.left_ns = 0
            self._step(cpu)
            return
        self._account(cpu)
        if seg == SEG_SPIN_YIELD:
            self._spin_yield(cpu)
        elif seg == SEG_SPIN_EXIT:
            self._end_spin(task)
            self._step(cpu)
        else:  # BEGIN, OVERHEAD
            cpu.overhead_left_ns = 0
            self._run(cpu)

    def _run(self, cpu: Cpu) -> None:
        """(Re)start the current task of ``cpu`` where it left off."""
        task = cpu.curr
        if task is None:
            cpu.seg = SEG_NONE
            return
        now = self.q.now_ns
        if cpu.overhead_left_ns > 0 and task.left_ns > 0:
            # The switch's cost runs first: charge it with the compute it precedes, as one segment.
            task.left_ns += cpu.overhead_left_ns
            cpu.overhead_left_ns = 0
            self._post_seg(cpu, SEG_COMPUTE, now + task.left_ns)
        elif cpu.overhead_left_ns > 0 and task.spin is not None and task.spin.until():
            # Back from its yield, the spinner's check succeeds: the switch cost joins what follows.
            self._end_spin(task)
            self._step(cpu)
        elif cpu.overhead_left_ns > 0 and (task.spin is not None or task.driven is not None):
            self._post_seg(cpu, SEG_OVERHEAD, now + cpu.overhead_left_ns)
        elif task.left_ns > 0:
            self._post_seg(cpu, SEG_COMPUTE, now + task.left_ns)
        elif task.spin is not None:
            self._spin_resume(cpu)
        elif task.driven is not None:
            self._open_seg(cpu, SEG_DRIVEN)
            task.driven.attach(cpu.index)
        else:
            self._step(cpu)

    def _step(self, cpu: Cpu) -> None:
        """Run the current task's program through instant actions up to the next one that takes time."""
        task = cpu.curr
        assert task is not None
        cpu.seg_start_ns = self.q.now_ns
        cpu.seg = SEG_NONE
        while True:
            if cpu.need_resched:  # return to user space: the kernel reschedules here
                self._preempt(cpu)
                return
            try:
                act = next(task.program)
            except StopIteration:
                task.state = DEAD
                self._schedule(cpu, blocking=True)
                return
            kind = type(act)
            if kind is Compute:
                if act.ns > 0:
                    task.left_ns = act.ns + cpu.overhead_left_ns  # a pending switch cost runs first
                    cpu.overhead_left_ns = 0
                    self._post_seg(cpu, SEG_COMPUTE, self.q.now_ns + task.left_ns)
                    return
            elif kind is Signal:
                self._signal(act.cond)
            elif kind is SchedYield:
                task.yields += 1
                if not self._sys_yield(cpu):
                    return
            elif kind is Spin:
                if act.yield_first or not act.until():
                    task.spin = act
                    task.spin_phase_ns = 0
                    self._spinners.setdefault(act.watch, []).append(task)
                    if act.yield_first and act.yield_each:
                        self._spin_yield(cpu)
                    else:
                        self._spin_resume(cpu)
                    return
            elif kind is Wait:
                act.cond.tasks.append(task)
                self._schedule(cpu, blocking=True)
                return
            elif kind is Block:
                act.waitq.tasks.append(task)
                self._schedule(cpu, blocking=True)
                return
            elif kind is Nanosleep:
                self._nanosleep(cpu, task, act.ns)
                return
            elif kind is Driven:
                task.driven = act
                self._open_seg(cpu, SEG_DRIVEN)
                act.attach(cpu.index)
                return
            else:
                raise TypeError(f"task {task.name} yielded {act!r}, which is not an action")

    # ---- scheduling -----------------------------------------------------------------------------

    def _schedule(self, cpu: Cpu, blocking: bool, voluntary: bool = True, arm_same: bool = True) -> bool:
        """``schedule()`` on ``cpu``. Returns True if the previous task was picked again."""
        now = self.q.now_ns
        policy = self.policy
        prev = cpu.curr
        if prev is not None:
            if prev.driven is not None and cpu.seg == SEG_DRIVEN:
                prev.driven.detach(cpu.index)
            self._stop(cpu)
            policy.update_curr(cpu.index, now)
            if blocking:
                policy.dequeue(prev, cpu.index, now)
                if prev.state != DEAD:
                    prev.state = SLEEPING
                prev.sleep_start_ns = now
            else:
                policy.put_prev(prev, cpu.index, now)
                prev.state = RUNNABLE
        nxt = policy.pick_next(cpu.index, now)
        cpu.need_resched = False
        if nxt is None and prev is None:
            return False
        if prev is None:
            self._idle_end(cpu)
        if nxt is prev and prev is not None:
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
            self.record(cpu.index, "switch", nxt.tid if nxt else 0, prev.tid if prev else 0)
        if nxt is None:
            cpu.seg = SEG_NONE
            self._idle_begin(cpu)
            return False
        nxt.state = RUNNING
        nxt.cpu = cpu.index
        if not cpu.tick_armed:
            cpu.tick_armed = True
            self.q.push((now // self.tick_ns + 1) * self.tick_ns, PRIO_TICK, self._on_tick, cpu)
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

    # ---- what a driver (model.actions.Driven) asks of the machine -----------------------------------

    def block_driven(self, cpu_index: int) -> None:
        """The driven task on ``cpu_index`` goes to sleep (``wake()`` makes it runnable again)."""
        cpu = self.cpus[cpu_index]
        task = cpu.curr
        if task is None or task.driven is None:
            raise RuntimeError(f"block_driven: cpu{cpu_index} does not run a driven task")
        if cpu.irq_until_ns > self.q.now_ns:
            raise RuntimeError(f"block_driven: cpu{cpu_index} is in an interrupt, its task is not running")
        self._schedule(cpu, blocking=True)

    def preempt_point(self, cpu_index: int) -> None:
        """The driven task on ``cpu_index`` reached a point where the kernel reschedules if asked to."""
        cpu = self.cpus[cpu_index]
        if cpu.need_resched and cpu.curr is not None and cpu.irq_until_ns <= self.q.now_ns:
            self._schedule(cpu, blocking=False, voluntary=False)

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
        if cpu.open_irq[-1] == IRQ_HARD:
            cpu.hardirq_ns += now - cpu.open_mark_ns
        else:
            cpu.softirq_ns += now - cpu.open_mark_ns
        cpu.open_mark_ns = now

    def _sys_yield(self, cpu: Cpu) -> bool:
        """``sys_sched_yield()``; True if the yielder keeps the CPU."""
        now = self.q.now_ns
        task = cpu.curr
        assert task is not None
        self.policy.update_curr(cpu.index, now)
        where = self.policy.yield_task(cpu.index, now)
        if self.tracing:
            self.record(cpu.index, "yield", task.tid, info=where)
        return self._schedule(cpu, blocking=False, voluntary=True, arm_same=False)

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
        period = max(spin.iter_ns + self.syscall_ns, 1)
        self._post_seg(cpu, SEG_SPIN_YIELD, self.q.now_ns + max(period - task.spin_phase_ns, 1))

    def _spin_yield(self, cpu: Cpu) -> None:
        """The spinner yields for real now (its budget ran out, or something happened on its CPU)."""
        task = cpu.curr
        assert task is not None and task.spin is not None
        q = self.q
        while True:
            self._account(cpu)
            task.yields += 1
            task.spin_phase_ns = 0
            if not self._sys_yield(cpu):
                return
            spin: Spin = task.spin
            if spin.until():
                self._end_spin(task)
                self._step(cpu)
                return
            period = max(spin.iter_ns + self.syscall_ns, 1)
            budget = self.policy.yield_noop_budget_ns(cpu.index, q.now_ns)
            if budget is None:
                self._open_seg(cpu, SEG_SPIN)  # no pending end: the next event on this CPU yields again
                return
            end = q.now_ns + max(1, -(-budget // period)) * period
            nxt = q.next_time()
            if (nxt is not None and nxt <= end) or end > q.horizon_ns:
                self._post_seg(cpu, SEG_SPIN_YIELD, end)
                return
            # Nothing else can happen before that yield: take it without a round trip through the queue.
            cpu.seg, cpu.seg_start_ns = SEG_SPIN_YIELD, q.now_ns
            cpu.gen += 1
            q.now_ns = end

    def _end_spin(self, task: Task) -> None:
        spin = task.spin
        task.spin = None
        if spin is not None:
            self._spinners[spin.watch].remove(task)

    def _watch_changed(self, w: Watchable) -> None:
        """Polled state changed: a running spinner whose condition now holds exits at its next check."""
        for task in self._spinners.get(w, ()):
            if task.state != RUNNING or not task.spin.until():
                continue
            cpu = self.cpus[task.cpu]
            if cpu.seg not in SPINNING or cpu.irq_until_ns > self.q.now_ns:
                continue
            self._account(cpu)
            period = task.spin.iter_ns + (self.syscall_ns if task.spin.yield_each else 0)
            wait = period - task.spin_phase_ns if task.spin.yield_each else task.spin.iter_ns
            self._post_seg(cpu, SEG_SPIN_EXIT, self.q.now_ns + max(wait, 0))

    def _kick(self, cpu: Cpu) -> None:
        """Ask ``cpu`` to look at its run queue at the current instant (deferred, like an IPI)."""
        if cpu is self._irq_exiting:
            return  # the interrupt's exit path looks at the run queue anyway
        if not cpu.kick_pending:
            cpu.kick_pending = True
            self.q.push(self.q.now_ns, PRIO_TASK, self._on_kick, cpu)

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
        elif cpu.seg in SPINNING and cpu.curr.spin is not None and cpu.curr.spin.yield_each:
            self._spin_yield(cpu)

    # ---- sleeping and waking --------------------------------------------------------------------

    def wake(self, task: Task) -> None:
        """``try_to_wake_up()``: make a sleeping task runnable and see whether it preempts."""
        if task.state != SLEEPING:
            return
        now = self.q.now_ns
        policy = self.policy
        task.state = RUNNABLE
        target = policy.select_task_rq(task, now)
        task.cpu = target
        policy.enqueue(task, target, now, True)
        cpu = self.cpus[target]
        if self.tracing:
            self.record(target, "wake", task.tid)
        if cpu.curr is None:
            cpu.need_resched = True  # 3.0 check_preempt_curr_idle(): resched_task(rq->idle)
            self._kick(cpu)
        elif policy.check_preempt_wakeup(target, task, now):
            cpu.need_resched = True
            self._kick(cpu)
        elif cpu.seg in SPINNING:
            self._kick(cpu)  # the spinner's next yield may let the woken task in
        for other in self.cpus:
            # A global run queue (BFS) offers the woken task to every CPU: spinners elsewhere yield anew.
            if other is not cpu and other.seg in SPINNING and task.allowed_on(other.index):
                self._kick(other)
        self._kick_idle(task)

    def wake_all(self, waitq: WaitQueue) -> None:
        tasks, waitq.tasks = waitq.tasks, []
        for task in tasks:
            self.wake(task)

    def _signal(self, cond: CondVar) -> None:
        if cond.tasks:
            self.wake(cond.tasks.pop(0))

    def _nanosleep(self, cpu: Cpu, task: Task, ns: int) -> None:
        tick = self.tick_ns
        now = self.q.now_ns
        expiry = ((now + ns - 1) // tick + 1) * tick if ns > 0 else (now // tick + 1) * tick
        task.timer_gen += 1
        self.q.push(expiry, PRIO_TIMER, self._on_timer, (task, task.timer_gen))
        self._schedule(cpu, blocking=True)

    def _on_timer(self, arg: tuple[Task, int]) -> None:
        task, gen = arg
        if gen == task.timer_gen:
            self.wake(task)

    # ---- ticks and interrupts -------------------------------------------------------------------

    def _on_tick(self, cpu: Cpu) -> None:
        task = cpu.curr
        if task is None:
            cpu.tick_armed = False  # NO_HZ: an idle CPU stops its tick
            return
        now = self.q.now_ns
        self.q.push(now + self.tick_ns, PRIO_TICK, self._on_tick, cpu)
        self._account(cpu)
        self.policy.update_curr(cpu.index, now)
        if self.policy.task_tick(cpu.index, now):
            cpu.need_resched = True
        if cpu.irq_until_ns > now or cpu.seg == SEG_NONE:
            return  # resched at interrupt exit / at the end of the program step
        if cpu.need_resched:
            self._preempt(cpu)
        elif cpu.seg in SPINNING and task.spin is not None and task.spin.yield_each:
            self._spin_yield(cpu)

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
            spans[:] = [span for span in spans if span[2] > now]
        spans.append((start, start + hardirq_ns, start + hardirq_ns + softirq_ns))
        cpu.hardirq_until_ns = start + hardirq_ns
        cpu.irq_until_ns = start + hardirq_ns + softirq_ns
        if self.tracing:
            self.record(
                cpu_index,
                "irq",
                0,
                info=f"{hardirq_ns} {softirq_ns}",
                dur_ns=hardirq_ns + softirq_ns,
                t_ns=start,
            )
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
