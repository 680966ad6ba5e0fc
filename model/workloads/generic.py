"""Generic tasks for what-if scenarios: CPU hogs, yield loops, sleepers, producer/consumer pairs.

A producer makes an item every ``run_us`` of CPU and puts it in a bounded channel; its consumer
takes items, spending ``run_us`` on each, and waits for more in one of three ways (``sync``): on a
condition variable, by polling with ``sched_yield()``, or by polling with ``usleep(0)`` (which waits
for the next tick without high-resolution timers and returns at once with them: a busy poll). The
producer blocks on a condition variable while the channel is full. Every task is forked by the
scenario's spawning context (``Machine.spawn``).
"""

from __future__ import annotations

from collections.abc import Callable

from model.actions import (
    Action,
    Compute,
    CondVar,
    Nanosleep,
    Program,
    ProgramState,
    SchedYield,
    Signal,
    Spin,
    Wait,
    Watchable,
)
from model.copyable import mypyc_attr
from model.machine import Machine
from model.scenario_sections import TaskSpec
from model.task import Task
from model.workloads.script import Scripts

US = 1_000
POLL_CHECK_NS = 500  # CPU of one poll of the channel


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class Channel(Watchable):
    """A bounded FIFO of items between producers and consumers."""

    __slots__ = ("capacity", "consumed", "count", "not_empty", "not_full")

    def __init__(self, name: str, capacity: int) -> None:
        super().__init__()
        self.capacity = capacity
        self.count = 0
        self.consumed = 0
        self.not_empty = CondVar(f"{name}.not_empty")
        self.not_full = CondVar(f"{name}.not_full")

    def has_items(self) -> bool:
        return self.count > 0


# Each program makes its actions once and returns them again at every pass (``ProgramState``).


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class Hog(ProgramState):
    """``for (;;) compute(run_us);``"""

    __slots__ = ("work",)

    def __init__(self, spec: TaskSpec) -> None:
        self.work = Compute(spec.run_us * US)

    def __next__(self) -> Action:
        return self.work


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class Alternate(ProgramState):
    """``for (;;) { first; second; }``: a yield loop (compute, sched_yield) or a sleeper (compute, sleep)."""

    __slots__ = ("first", "first_next", "second")

    def __init__(self, first: Action, second: Action) -> None:
        self.first = first
        self.second = second
        self.first_next = True

    def __next__(self) -> Action:
        first = self.first_next
        self.first_next = not first
        return self.first if first else self.second


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class Producer(ProgramState):
    """Make an item (``run_us`` of CPU), wait on ``not_full`` while the channel is full, put it in and
    signal ``not_empty``; again."""

    __slots__ = ("ch", "made", "signal", "wait", "work")

    def __init__(self, spec: TaskSpec, ch: Channel) -> None:
        self.ch = ch
        self.work, self.wait, self.signal = Compute(spec.run_us * US), Wait(ch.not_full), Signal(ch.not_empty)
        self.made = False  # an item is made and not yet in the channel

    def __next__(self) -> Action:
        if not self.made:
            self.made = True
            return self.work
        ch = self.ch
        if ch.count >= ch.capacity:
            return self.wait
        ch.count += 1
        ch.changed()
        self.made = False
        return self.signal


CONSUMER_TAKE, CONSUMER_POLLED, CONSUMER_TOOK = 0, 1, 2  # a consumer's phases


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class Consumer(ProgramState):
    """Take an item when there is one (signal ``not_full``, spend ``run_us`` on it); while there is none,
    wait the ``sync`` way: on ``not_empty``, polling with sched_yield(), or polling with usleep(0)."""

    __slots__ = (
        "busy_spin",
        "ch",
        "machine",
        "phase",
        "poll",
        "rest",
        "signal",
        "spin",
        "sync",
        "wait",
        "work",
    )

    def __init__(self, spec: TaskSpec, ch: Channel, machine: Machine) -> None:
        self.ch, self.machine, self.sync = ch, machine, spec.sync
        self.phase = CONSUMER_TAKE
        self.wait = Wait(ch.not_empty)
        self.spin = Spin(ch.has_items, ch, POLL_CHECK_NS)
        self.poll, self.rest = Compute(POLL_CHECK_NS), Nanosleep(0)
        # usleep(0) with high-resolution timers returns at once (Machine._nanosleep): a busy poll.
        self.busy_spin = Spin(ch.has_items, ch, POLL_CHECK_NS + machine.syscall_ns, yield_each=False)
        self.signal, self.work = Signal(ch.not_full), Compute(spec.run_us * US)

    def __next__(self) -> Action:
        phase = self.phase
        self.phase = CONSUMER_TAKE
        if phase == CONSUMER_POLLED:
            return self.rest
        if phase == CONSUMER_TOOK:
            return self.work
        ch = self.ch
        if ch.count == 0:
            if self.sync == "condvar":
                return self.wait
            if self.sync == "sched_yield":
                return self.spin
            if self.machine.usleep0_sleeps():
                self.phase = CONSUMER_POLLED
                return self.poll
            return self.busy_spin
        ch.count -= 1
        ch.consumed += 1
        ch.changed()
        self.phase = CONSUMER_TOOK
        return self.signal


def _program(spec: TaskSpec, channels: dict[str, Channel], machine: Machine) -> ProgramState:
    if spec.kind == "hog":
        return Hog(spec)
    if spec.kind == "yielder":
        return Alternate(Compute(spec.run_us * US), SchedYield())
    if spec.kind == "sleeper":
        return Alternate(Compute(spec.run_us * US), Nanosleep(spec.sleep_us * US))
    ch = channels.get(spec.channel)
    if ch is None:
        ch = channels[spec.channel] = Channel(spec.channel, spec.slots)
        machine.watch(ch)
    return Producer(spec, ch) if spec.kind == "producer" else Consumer(spec, ch, machine)


def _handing(program: ProgramState) -> Callable[[Task], Program]:
    return lambda _task: program


def spawn_tasks(
    machine: Machine, specs: tuple[TaskSpec, ...], senders: Callable[[TaskSpec], Callable[[Task], Program]]
) -> dict[str, Channel]:
    """Spawn every ``[[tasks]]`` entry; ``senders`` builds a packet sender's program. Returns the channels."""
    channels: dict[str, Channel] = {}
    scripts = Scripts(machine, specs)
    for spec in specs:
        for i in range(spec.count):
            name = spec.name if spec.count == 1 else f"{spec.name}.{i}"
            cpu = None if spec.cpu < 0 else spec.cpu
            if spec.kind == "sender":
                # One sender per CPU: `count` senders pinned from `cpu` (or from CPU 0) onwards.
                cpu = (0 if cpu is None else cpu) + i
                machine.spawn(name, senders(spec), spec.nice, cpu, role="sender")
                continue
            if spec.kind == "script":
                machine.spawn(name, scripts.program(spec), spec.nice, cpu, role=spec.kind)
                continue
            program = _program(spec, channels, machine)  # made before the task, as the channel is
            machine.spawn(name, _handing(program), spec.nice, cpu, role=spec.kind)
    return channels
