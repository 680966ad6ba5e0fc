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

from collections.abc import Callable

from model import script_steps as st
from model.actions import Action, Compute, CondVar, Nanosleep, Program, ProgramState, SchedYield, Wait
from model.copyable import mypyc_attr
from model.keyspec import ScenarioError
from model.machine import Machine
from model.scenario_sections import TaskSpec
from model.task import Task

US = 1_000
# rt-app.c run_event(), rtapp_runtime: loadwait(32) between clock reads, so a runtime step ends at the
# first check past its duration.
RUNTIME_CHUNK_NS = 32_000


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class Mutex:
    __slots__ = ("owner", "waiters")

    def __init__(self, name: str) -> None:
        self.owner: Task | None = None
        self.waiters = CondVar(f"{name} (mutex)")


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class TimerState:
    """rt-app's timer resource: the next expiry, set from the task's start at its first use."""

    __slots__ = ("absolute", "started", "t_next_ns")

    def __init__(self, absolute: bool) -> None:
        self.absolute = absolute
        self.started = False
        self.t_next_ns = 0


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class BarrierState:
    """rt-app's barrier: ``waiting`` starts at the number of users less one; the last to arrive wakes all."""

    __slots__ = ("cond", "waiting")

    def __init__(self, name: str, users: int) -> None:
        self.waiting = users - 1
        self.cond = CondVar(f"{name} (barrier)")


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
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
        return lambda task: ScriptProgram(self, spec, task)

    def timer(self, ref: str, own: dict[str, TimerState]) -> TimerState:
        timers = own if ref.startswith("unique") else self.timers
        timer = timers.get(ref)
        if timer is None:
            timer = timers[ref] = TimerState(ref in self.absolute)
        return timer

    def cond(self, name: str) -> CondVar:
        cond = self.conds.get(name)
        if cond is None:
            cond = self.conds[name] = CondVar(name)
        return cond

    def mutex(self, name: str) -> Mutex:
        mutex = self.mutexes.get(name)
        if mutex is None:
            mutex = self.mutexes[name] = Mutex(name)
        return mutex

    def wake_one(self, cond: CondVar) -> None:
        """``pthread_cond_signal``: the longest waiter, at once (as the machine's Signal action does)."""
        if cond.tasks:
            self.machine.wake(cond.tasks.pop(0))

    def unlock(self, name: str, task: Task) -> None:
        mutex = self.mutex(name)
        if mutex.owner is task:
            mutex.owner = None
            self.wake_one(mutex.waiters)


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class Frame:
    """A list of steps being run: the next one's index, and the passes left (-1: for ever)."""

    __slots__ = ("index", "left", "steps")

    def __init__(self, steps: tuple[st.Step, ...], left: int) -> None:
        self.steps, self.index, self.left = steps, 0, left


# What a scripted task does when it is resumed after the action it returned, before its next step.
RESUME_NEXT, RESUME_RUNTIME, RESUME_LOCK, RESUME_RELOCK, RESUME_BARRIER = 0, 1, 2, 3, 4


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class ScriptProgram(ProgramState):
    """One scripted task: its steps in a loop (``script.loop`` passes, -1 for ever) after ``delay_us``,
    as rt-app's thread body runs them; a ``repeat`` step is a frame of its own on ``frames``."""

    __slots__ = (
        "barrier",
        "frames",
        "mutex",
        "own",
        "resume",
        "runtime_ns",
        "runtime_start_ns",
        "scripts",
        "started",
        "t_first",
        "task",
    )

    def __init__(self, scripts: Scripts, spec: TaskSpec, task: Task) -> None:
        script = spec.script
        self.scripts, self.task = scripts, task
        self.own: dict[str, TimerState] = {}  # "unique..." timers: this instance's own
        self.t_first = script.delay_us * US  # rt-app: t_zero + delay, with t_zero the start of the run
        self.frames = [Frame(script.steps, script.loop)] if script.loop != 0 else []
        self.started = False
        self.resume = RESUME_NEXT
        self.runtime_start_ns = self.runtime_ns = 0
        self.mutex = ""  # the mutex a RESUME_LOCK / RESUME_RELOCK takes
        self.barrier: BarrierState | None = None  # the barrier a RESUME_BARRIER leaves

    def __next__(self) -> Action:
        if not self.started:
            self.started = True
            if self.t_first > 0:
                return Nanosleep(self.t_first)
        while True:
            act = self._resumed()
            if act is not None:
                return act
            step = self._next_step()
            if step is None:
                raise StopIteration
            act = self._start(step)
            if act is not None:
                return act

    def _next_step(self) -> st.Step | None:
        frames = self.frames
        while frames:
            frame = frames[-1]
            if frame.index < len(frame.steps):
                step = frame.steps[frame.index]
                frame.index += 1
                if not isinstance(step, st.Repeat):
                    return step
                if step.count > 0 and step.steps:
                    frames.append(Frame(step.steps, step.count))
                continue
            if frame.left > 0:
                frame.left -= 1
            if frame.left == 0:
                frames.pop()
            else:
                frame.index = 0
        return None

    def _resumed(self) -> Action | None:
        """The rest of the step that returned the last action, if it has more to do."""
        resume = self.resume
        self.resume = RESUME_NEXT
        if resume == RESUME_RUNTIME:
            if self.scripts.machine.now_ns - self.runtime_start_ns < self.runtime_ns:
                self.resume = RESUME_RUNTIME
                return Compute(RUNTIME_CHUNK_NS)
        elif resume == RESUME_LOCK:
            return self._lock(self.mutex)
        elif resume == RESUME_RELOCK:
            if self.mutex:
                return self._lock(self.mutex)
        elif resume == RESUME_BARRIER:
            assert self.barrier is not None
            self.barrier.waiting += 1
            self.barrier = None
        return None

    def _start(self, step: st.Step) -> Action | None:
        """Run ``step`` up to its first action (None: it was instant)."""
        scripts, m, task = self.scripts, self.scripts.machine, self.task
        if isinstance(step, st.Run):
            # SIMPLIFICATION: rt-app's run is a count of calibrated loops; every CPU here runs at the
            # calibration CPU's speed, so it is that much CPU time.
            return Compute(step.ns)
        if isinstance(step, st.Runtime):
            self.runtime_start_ns, self.runtime_ns = m.now_ns, step.ns
            self.resume = RESUME_RUNTIME
            return Compute(RUNTIME_CHUNK_NS)
        if isinstance(step, st.Sleep):
            return Nanosleep(step.ns)
        if isinstance(step, st.Timer):
            return self._timer(step)
        if isinstance(step, st.Yield):
            return SchedYield()
        if isinstance(step, st.Lock):
            return self._lock(step.mutex)
        if isinstance(step, st.Unlock):
            scripts.unlock(step.mutex, task)
        elif isinstance(step, st.Signal):
            scripts.wake_one(scripts.cond(step.cond))
        elif isinstance(step, st.Broadcast):
            m.wake_all(scripts.cond(step.cond))
        elif isinstance(step, st.Wait | st.Sync):
            cond = scripts.cond(step.cond)
            if isinstance(step, st.Sync):
                scripts.wake_one(cond)  # rt-app rtapp_sig_and_wait: signal, then wait
            if step.mutex:
                scripts.unlock(step.mutex, task)
            self.mutex, self.resume = step.mutex, RESUME_RELOCK
            return Wait(cond)
        elif isinstance(step, st.Barrier):
            b = scripts.barriers[step.name]
            if b.waiting == 0:
                m.wake_all(b.cond)  # the last to arrive
            else:
                b.waiting -= 1
                self.barrier, self.resume = b, RESUME_BARRIER
                return Wait(b.cond)
        return None

    def _timer(self, step: st.Timer) -> Action | None:
        timer = self.scripts.timer(step.ref, self.own)
        if not timer.started:
            timer.started = True
            timer.t_next_ns = self.t_first
        timer.t_next_ns += step.period_ns
        now = self.scripts.machine.now_ns
        if now < timer.t_next_ns:
            # rt-app: clock_nanosleep(TIMER_ABSTIME) to t_next; it ends when due with machine.hrtimers
            # (the default), on the first tick after it without.
            return Nanosleep(timer.t_next_ns - now)
        if not timer.absolute:
            timer.t_next_ns = now  # late: a relative timer restarts from now
        return None

    def _lock(self, name: str) -> Action | None:
        mutex = self.scripts.mutex(name)
        # SIMPLIFICATION: no adaptive spinning and no priority inheritance (pi_enabled is refused); a
        # task that takes a mutex it holds waits for ever, as a default pthread mutex does.
        if mutex.owner is not None:
            self.mutex, self.resume = name, RESUME_LOCK
            return Wait(mutex.waiters)
        mutex.owner = self.task
        return None
