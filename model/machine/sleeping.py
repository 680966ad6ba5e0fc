"""Sleeping and waking: timers (``nanosleep``), wait queues, condition variables, ``try_to_wake_up()``.

``Sleeping`` is the second layer of ``Machine`` (``model.machine``), on top of ``schedule()``: a task
that sleeps leaves its CPU through ``schedule(blocking)``; a wakeup queues it with the policy, may set
need_resched on the CPU it lands on, and kicks the CPUs that should look at their queues again.
"""

from __future__ import annotations

from model.actions import CondVar, WaitQueue
from model.events import PRIO_TIMER
from model.machine.cpu import SPINNING, Cpu
from model.machine.switching import RUNNABLE, SLEEPING, Switching
from model.snapshot import WakeRecord
from model.task import Task


class Sleeping(Switching):
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
            self.trace.add(WakeRecord(now, target, task.tid))
        if cpu.curr is None:
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
