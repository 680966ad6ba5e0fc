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

from model.actions import Compute, CondVar, Nanosleep, Program, SchedYield, Signal, Spin, Wait, Watchable
from model.machine import Machine
from model.scenario import TaskSpec
from model.task import Task
from model.workloads.script import Scripts

US = 1_000
POLL_CHECK_NS = 500  # CPU of one poll of the channel


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


# Each program makes its actions once and yields them again at every pass: the machine never changes an
# action, and a loop that runs ten thousand times a simulated second then allocates nothing.


def _hog(spec: TaskSpec) -> Callable[[Task], Program]:
    def program(task: Task) -> Program:
        work = Compute(spec.run_us * US)
        while True:
            yield work

    return program


def _yielder(spec: TaskSpec) -> Callable[[Task], Program]:
    def program(task: Task) -> Program:
        work, rest = Compute(spec.run_us * US), SchedYield()
        while True:
            yield work
            yield rest

    return program


def _sleeper(spec: TaskSpec) -> Callable[[Task], Program]:
    def program(task: Task) -> Program:
        work, sleep = Compute(spec.run_us * US), Nanosleep(spec.sleep_us * US)
        while True:
            yield work
            yield sleep

    return program


def _producer(spec: TaskSpec, ch: Channel) -> Callable[[Task], Program]:
    def program(task: Task) -> Program:
        work, wait, signal = Compute(spec.run_us * US), Wait(ch.not_full), Signal(ch.not_empty)
        while True:
            yield work
            while ch.count >= ch.capacity:
                yield wait
            ch.count += 1
            ch.changed()
            yield signal

    return program


def _consumer(spec: TaskSpec, ch: Channel, machine: Machine) -> Callable[[Task], Program]:
    # usleep(0) with high-resolution timers returns at once (Machine._nanosleep): a busy poll.
    busy_poll_ns = POLL_CHECK_NS + machine.syscall_ns

    def program(task: Task) -> Program:
        while True:
            while ch.count == 0:
                if spec.sync == "condvar":
                    yield Wait(ch.not_empty)
                elif spec.sync == "sched_yield":
                    yield Spin(ch.has_items, ch, POLL_CHECK_NS)
                elif machine.usleep0_sleeps():
                    yield Compute(POLL_CHECK_NS)
                    yield Nanosleep(0)
                else:
                    yield Spin(ch.has_items, ch, busy_poll_ns, yield_each=False)
            ch.count -= 1
            ch.consumed += 1
            ch.changed()
            yield Signal(ch.not_full)
            yield Compute(spec.run_us * US)

    return program


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
            if spec.kind in ("producer", "consumer"):
                ch = channels.get(spec.channel)
                if ch is None:
                    ch = channels[spec.channel] = Channel(spec.channel, spec.slots)
                    machine.watch(ch)
                program = _producer(spec, ch) if spec.kind == "producer" else _consumer(spec, ch, machine)
            elif spec.kind == "script":
                program = scripts.program(spec)
            else:
                program = {"hog": _hog, "yielder": _yielder, "sleeper": _sleeper}[spec.kind](spec)
            machine.spawn(name, program, spec.nice, cpu, role=spec.kind)
    return channels
