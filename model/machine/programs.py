"""The machine: CPUs that run tasks' programs under a scheduler policy, with ticks, interrupts and timers.

``Machine`` is the top layer (``model.machine`` names the others): it creates tasks and runs their
programs, action by action (``model.actions``), in simulated time. It owns simulated time through its
``EventQueue``, the CPUs and the tasks; the policy owns the run queues. Everything happens at
integer-nanosecond instants and in a total order, so a run is a pure function of its inputs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from model.actions import Block, Compute, Driven, Nanosleep, SchedYield, Signal, Spin, Wait
from model.copyable import mypyc_attr
from model.events import PRIO_TASK
from model.machine.cpu import (
    SEG_COMPUTE,
    SEG_DRIVEN,
    SEG_NONE,
    SEG_OVERHEAD,
    SEG_SPIN_EXIT,
    SEG_SPIN_YIELD,
    Cpu,
    charge,
)
from model.machine.spinning import Spinning
from model.machine.switching import DEAD
from model.task import Task

_next: Final = next  # a C static in the compiled model, not a lookup in builtins at every action


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class Machine(Spinning):
    """N CPUs, a periodic tick at ``hz``, a policy, and tasks running programs."""

    def spawn(
        self,
        name: str,
        program: Callable[[Task], Any],
        nice: int = 0,
        cpu: int | None = None,
        role: str = "",
        parent: Task | None = None,
    ) -> Task:
        """Create a runnable task whose behaviour is ``program(task)`` (a generator of actions).

        ``parent`` is the task that forks it (``clone()``); None is the scenario's spawning context, a
        thread the model does not run (iperf's main thread, the shell that starts the tasks).
        """
        task = Task(tid=len(self.tasks) + 1, name=name, nice=nice, pinned_cpu=cpu, role=role)
        task.program = program(task)
        self.tasks.append(task)
        target = self.policy.select_task_rq(task, self.now_ns)
        task.cpu = target
        self.policy.task_new(task, target, self.now_ns, parent)
        self._kick(self.cpus[target])
        self._kick_idle(task)
        return task

    def run_until(self, t_end_ns: int, max_events: int | None = None) -> bool:
        """Run up to ``t_end_ns``, then charge every CPU's current segment up to that instant."""
        finished = self.q.run_until(t_end_ns, max_events)
        self.charge_all()
        return finished

    def charge_all(self) -> None:
        """Charge every CPU's current segment up to now, so that the task-time counters are as current
        as the interrupt ones (a charge splits a segment without changing what it does)."""
        for cpu in self.cpus:
            if cpu.irq_until_ns <= self.q.now_ns:
                self._account(cpu)

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

    def _on_segment_end(self, arg: tuple[Cpu, int]) -> None:
        cpu, gen = arg
        if gen != cpu.gen:
            return
        seg = cpu.seg
        task = cpu.curr
        assert task is not None
        now = self.q.now_ns
        if seg == SEG_COMPUTE:  # the common case, inline
            elapsed = now - cpu.seg_start_ns
            task.exec_ns += elapsed
            cpu.task_ns += elapsed
            task.left_ns = 0
            self._step(cpu)
            return
        charge(cpu, now, self.syscall_ns)
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
        spin: Spin | None = task.spin
        driven: Driven | None = task.driven
        if cpu.overhead_left_ns > 0 and task.left_ns > 0:
            # The switch's cost runs first: charge it with the compute it precedes, as one segment.
            task.left_ns += cpu.overhead_left_ns
            cpu.overhead_left_ns = 0
            self._post_seg(cpu, SEG_COMPUTE, now + task.left_ns)
        elif cpu.overhead_left_ns > 0 and spin is not None and spin.until():
            # Back from its yield, the spinner's check succeeds: the switch cost joins what follows.
            self._end_spin(task)
            self._step(cpu)
        elif cpu.overhead_left_ns > 0 and (spin is not None or driven is not None):
            self._post_seg(cpu, SEG_OVERHEAD, now + cpu.overhead_left_ns)
        elif task.left_ns > 0:
            self._post_seg(cpu, SEG_COMPUTE, now + task.left_ns)
        elif spin is not None:
            self._spin_resume(cpu)
        elif driven is not None:
            self._open_seg(cpu, SEG_DRIVEN)
            driven.attach(cpu.index)
        else:
            self._step(cpu)

    def _step(self, cpu: Cpu) -> None:
        """Run the current task's program through instant actions up to the next one that takes time."""
        task = cpu.curr
        assert task is not None
        q = self.q
        cpu.seg_start_ns = q.now_ns
        cpu.seg = SEG_NONE
        program = task.program
        while True:
            if cpu.need_resched:  # return to user space: the kernel reschedules here
                self._preempt(cpu)
                return
            try:
                act = _next(program)
            except StopIteration:
                task.state = DEAD
                self._schedule(cpu, blocking=True)
                return
            # Each branch names the action with its type: compiled, its fields are then read natively.
            kind = type(act)
            if kind is Compute:
                compute: Compute = act
                if compute.ns > 0:
                    left = compute.ns + cpu.overhead_left_ns  # a pending switch cost runs first
                    task.left_ns = left
                    cpu.overhead_left_ns = 0
                    # _post_seg(cpu, SEG_COMPUTE, now + left), inline: the most common action of all.
                    gen = cpu.gen + 1
                    cpu.gen = gen
                    cpu.seg = SEG_COMPUTE
                    now = q.now_ns
                    cpu.seg_start_ns = now
                    q.push(now + left, PRIO_TASK, self._segment_end, (cpu, gen))
                    return
            elif kind is Signal:
                signal: Signal = act
                self._signal(signal.cond)
            elif kind is SchedYield:
                task.yields += 1
                if self.tracing:
                    if not self._sys_yield(cpu):
                        return
                else:  # _sys_yield(cpu) with no trace, inline: a yield loop's every other action
                    policy, now = self.policy, q.now_ns
                    policy.update_curr(cpu.index, now)
                    policy.yield_task(cpu.index, now, False)
                    if not self._schedule(cpu, False, True, False, True):
                        return
            elif kind is Spin:
                spin: Spin = act
                if spin.yield_first or not spin.until():
                    task.spin = spin
                    task.spin_phase_ns = 0
                    self._spinners.setdefault(spin.watch, []).append(task)
                    if spin.yield_first and spin.yield_each:
                        self._spin_yield(cpu)
                    else:
                        self._spin_resume(cpu)
                    return
            elif kind is Wait:
                wait: Wait = act
                wait.cond.tasks.append(task)
                self._schedule(cpu, blocking=True)
                return
            elif kind is Block:
                block: Block = act
                block.waitq.tasks.append(task)
                self._schedule(cpu, blocking=True)
                return
            elif kind is Nanosleep:
                sleep: Nanosleep = act
                if self._nanosleep(cpu, task, sleep.ns):
                    return
            elif kind is Driven:
                driven: Driven = act
                task.driven = driven
                self._open_seg(cpu, SEG_DRIVEN)
                driven.attach(cpu.index)
                return
            else:
                raise TypeError(f"task {task.name} yielded {act!r}, which is not an action")
