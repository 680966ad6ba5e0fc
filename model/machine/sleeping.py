"""Sleeping and waking: timers (``nanosleep``), wait queues, condition variables, ``try_to_wake_up()``.

``Sleeping`` is the second layer of ``Machine`` (``model.machine``), on top of ``schedule()``: a task
that sleeps leaves its CPU through ``schedule(blocking)``; a wakeup queues it with the policy, may set
need_resched on the CPU it lands on, and kicks the CPUs that should look at their queues again.
"""

from __future__ import annotations

from model.actions import CondVar, WaitQueue
from model.copyable import mypyc_attr
from model.events import PRIO_TIMER
from model.machine.cpu import SPINNING, Cpu
from model.machine.switching import RUNNABLE, SLEEPING, Switching
from model.snapshot import WakeRecord
from model.task import Task


@mypyc_attr(allow_interpreted_subclasses=True)  # Machine is copied (model.copyable)
class Sleeping(Switching):
    def wake(self, task: Task, from_irq: bool | None = None) -> None:
        """``try_to_wake_up()``: make a sleeping task runnable and see whether it preempts.

        ``from_irq``: the wakeup runs in interrupt context (``in_interrupt()``: a hard interrupt, a
        softirq, a timer); by default, whether an interrupt's handler is running now.
        """
        if task.state is not SLEEPING:
            return
        now = self.q.now_ns
        policy = self.policy
        task.state = RUNNABLE
        target = policy.select_task_rq(task, now)
        task.cpu = target
        in_irq = self._irq_exiting is not None if from_irq is None else from_irq
        policy.enqueue(task, target, now, True, in_irq)
        cpu = self.cpus[target]
        if self.tracing:
            self.trace.add(WakeRecord(now, target, task.tid))
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

    def _nanosleep(self, cpu: Cpu, task: Task, ns: int) -> bool:
        """``sys_nanosleep()``, which is ``hrtimer_nanosleep()`` since 2.6.16. True if the task sleeps.

        With high-resolution timers the sleeper's hrtimer fires when due, at now + ns. A 0 ns sleep is
        already expired when hrtimer_start() enqueues it, and 2.6.22's hrtimer_enqueue_reprogram()
        then runs its HRTIMER_CB_IRQSAFE_NO_RESTART callback (hrtimer_wakeup()) at once: t->task is
        cleared, so do_nanosleep() never calls schedule() and usleep(0) just returns. Without them
        (no clock-event device: hres never active), hrtimer_run_queues() runs expired hrtimers from
        the tick's timer softirq: the sleep ends at the first tick at or after now + ns, and
        usleep(0) waits for the next tick.
        # SIMPLIFICATION: the hrtimer code of 2.6.21-2.6.27 for every kernel, without timer slack
        # (from 2.6.28 a task's hrtimer sleeps may end up to timer_slack_ns, 50 us by default, late, so
        # there usleep(0) does sleep that long).
        """
        now = self.q.now_ns
        if self.hrtimers:
            if ns <= 0:
                return False
            expiry = now + ns
        else:
            expiry = self.next_tick_ns(cpu.index, now + ns - 1 if ns > 0 else now)  # this CPU's tick
        task.timer_gen += 1
        self.q.push(expiry, PRIO_TIMER, self._on_timer, (task, task.timer_gen))
        self._schedule(cpu, blocking=True)
        return True

    def usleep0_sleeps(self) -> bool:
        """Whether ``usleep(0)`` gives the CPU up (until the next tick): only without high-resolution
        timers. With them it returns at once, so a usleep(0) poll is a busy loop (``_nanosleep``)."""
        return not self.hrtimers

    def _on_timer(self, arg: tuple[Task, int]) -> None:
        task, gen = arg
        if gen == task.timer_gen:
            # hrtimer_wakeup() from the hrtimer interrupt, or the tick's timer softirq: interrupt context.
            self.wake(task, from_irq=True)
