"""Scripted tasks (``kind = "script"``): a task whose program is a list of steps (``model.script_steps``)
run in a loop, with the named mutexes, condition variables, barriers and timers the tasks share.

``Scripts`` holds those shared resources for one machine and makes each scripted task's program. The
steps follow rt-app's own code (rt-app.c, ``run_event``), since rt-app workloads are what they come
from: a ``runtime`` step works in 32 µs pieces and checks the clock after each, a timer's next expiry
is its previous one plus the period, a barrier counts the references to it in the whole workload.
Mutexes are futex-style: ``unlock`` wakes one waiter, who takes the mutex if it is still free when it
runs (no hand-over). Lock, unlock, signal and broadcast cost no CPU time: they are instant, like the
model's other synchronisation, and a release and the block that follows it in ``pthread_cond_wait``
happen at one instant, as the kernel makes them atomic.
"""

from __future__ import annotations

from collections.abc import Callable, Generator

from model import script_steps as st
from model.actions import Compute, CondVar, Nanosleep, Program, SchedYield, Wait
from model.machine import Machine
from model.scenario import ScenarioError, TaskSpec
from model.task import Task

US = 1_000
# rt-app.c run_event(), rtapp_runtime: loadwait(32) between clock reads, so a runtime step ends at the
# first check past its duration.
RUNTIME_CHUNK_NS = 32_000


class Mutex:
    __slots__ = ("owner", "waiters")

    def __init__(self, name: str) -> None:
        self.owner: Task | None = None
        self.waiters = CondVar(f"{name} (mutex)")


class TimerState:
    """rt-app's timer resource: the next expiry, set from the task's start at its first use."""

    __slots__ = ("absolute", "started", "t_next_ns")

    def __init__(self, absolute: bool) -> None:
        self.absolute = absolute
        self.started = False
        self.t_next_ns = 0


class BarrierState:
    """rt-app's barrier: ``waiting`` starts at the number of users less one; the last to arrive wakes all."""

    __slots__ = ("cond", "waiting")

    def __init__(self, name: str, users: int) -> None:
        self.waiting = users - 1
        self.cond = CondVar(f"{name} (barrier)")


class Scripts:
    """The shared resources of a machine's scripted tasks, and their programs."""

    def __init__(self, machine: Machine, specs: tuple[TaskSpec, ...]) -> None:
        self.machine = machine
        self.mutexes: dict[str, Mutex] = {}
        self.conds: dict[str, CondVar] = {}
        self.timers: dict[str, TimerState] = {}
        self.barriers: dict[str, BarrierState] = {}
        self.absolute: set[str] = set()  # rt-app: one "absolute" use makes the timer absolute
        users: dict[str, int] = {}
        for spec in specs:
            if spec.kind != "script":
                continue
            if not spec.script.steps:
                raise ScenarioError(f"tasks '{spec.name}': kind = script needs script.steps")
            for step in st.walk(spec.script.steps):
                if isinstance(step, st.Barrier):  # rt-app parse_task_event_data: += num_instances
                    users[step.name] = users.get(step.name, 0) + spec.count
                elif isinstance(step, st.Timer) and step.absolute:
                    self.absolute.add(step.ref)
        for name, n in users.items():
            self.barriers[name] = BarrierState(name, n)

    def program(self, spec: TaskSpec) -> Callable[[Task], Program]:
        script = spec.script

        def program(task: Task) -> Program:
            own_timers: dict[str, TimerState] = {}  # "unique..." timers: this instance's own
            t_first = script.delay_us * US  # rt-app: t_zero + delay, with t_zero the start of the run
            if t_first > 0:
                yield Nanosleep(t_first)
            n = 0
            while script.loop < 0 or n < script.loop:
                yield from self._steps(script.steps, task, t_first, own_timers)
                n += 1

        return program

    def _steps(
        self, steps: tuple[st.Step, ...], task: Task, t_first: int, own: dict[str, TimerState]
    ) -> Generator[Compute | Nanosleep | SchedYield | Wait, None, None]:
        m = self.machine
        for step in steps:
            if isinstance(step, st.Run):
                # SIMPLIFICATION: rt-app's run is a count of calibrated loops; every CPU here runs at
                # the calibration CPU's speed, so it is that much CPU time.
                yield Compute(step.ns)
            elif isinstance(step, st.Runtime):
                start = m.now_ns
                yield Compute(RUNTIME_CHUNK_NS)
                while m.now_ns - start < step.ns:
                    yield Compute(RUNTIME_CHUNK_NS)
            elif isinstance(step, st.Sleep):
                yield Nanosleep(step.ns)
            elif isinstance(step, st.Timer):
                timer = self._timer(step.ref, own)
                if not timer.started:
                    timer.started = True
                    timer.t_next_ns = t_first
                timer.t_next_ns += step.period_ns
                now = m.now_ns
                if now < timer.t_next_ns:
                    # rt-app: clock_nanosleep(TIMER_ABSTIME) to t_next; it ends when due with
                    # machine.hrtimers (the default), on the first tick after it without.
                    yield Nanosleep(timer.t_next_ns - now)
                elif not timer.absolute:
                    timer.t_next_ns = now  # late: a relative timer restarts from now
            elif isinstance(step, st.Yield):
                yield SchedYield()
            elif isinstance(step, st.Lock):
                yield from self._lock(step.mutex, task)
            elif isinstance(step, st.Unlock):
                self._unlock(step.mutex, task)
            elif isinstance(step, st.Signal):
                self._wake_one(self._cond(step.cond))
            elif isinstance(step, st.Broadcast):
                m.wake_all(self._cond(step.cond))
            elif isinstance(step, st.Wait | st.Sync):
                cond = self._cond(step.cond)
                if isinstance(step, st.Sync):
                    self._wake_one(cond)  # rt-app rtapp_sig_and_wait: signal, then wait
                yield from self._cond_wait(cond, step.mutex, task)
            elif isinstance(step, st.Barrier):
                b = self.barriers[step.name]
                if b.waiting == 0:
                    m.wake_all(b.cond)  # the last to arrive
                else:
                    b.waiting -= 1
                    yield Wait(b.cond)
                    b.waiting += 1
            elif isinstance(step, st.Repeat):
                for _ in range(step.count):
                    yield from self._steps(step.steps, task, t_first, own)

    def _timer(self, ref: str, own: dict[str, TimerState]) -> TimerState:
        timers = own if ref.startswith("unique") else self.timers
        timer = timers.get(ref)
        if timer is None:
            timer = timers[ref] = TimerState(ref in self.absolute)
        return timer

    def _cond(self, name: str) -> CondVar:
        cond = self.conds.get(name)
        if cond is None:
            cond = self.conds[name] = CondVar(name)
        return cond

    def _mutex(self, name: str) -> Mutex:
        mutex = self.mutexes.get(name)
        if mutex is None:
            mutex = self.mutexes[name] = Mutex(name)
        return mutex

    def _wake_one(self, cond: CondVar) -> None:
        """``pthread_cond_signal``: the longest waiter, at once (as the machine's Signal action does)."""
        if cond.tasks:
            self.machine.wake(cond.tasks.pop(0))

    def _lock(self, name: str, task: Task) -> Generator[Wait, None, None]:
        mutex = self._mutex(name)
        # SIMPLIFICATION: no adaptive spinning and no priority inheritance (pi_enabled is refused);
        # a task that takes a mutex it holds waits for ever, as a default pthread mutex does.
        while mutex.owner is not None:
            yield Wait(mutex.waiters)
        mutex.owner = task

    def _unlock(self, name: str, task: Task) -> None:
        mutex = self._mutex(name)
        if mutex.owner is task:
            mutex.owner = None
            self._wake_one(mutex.waiters)

    def _cond_wait(self, cond: CondVar, mutex: str, task: Task) -> Generator[Wait, None, None]:
        if mutex:
            self._unlock(mutex, task)
        yield Wait(cond)
        if mutex:
            yield from self._lock(mutex, task)
