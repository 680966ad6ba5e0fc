"""The transmit path's tasks: one UDP sender per CPU, and ksoftirqd/N on every CPU.

Both are ordinary tasks of the CPU scheduler whose loops the transmit path drives
(``model.actions.Driven``): they are preempted, sleep and wake through the machine, and a sender
cannot be preempted while it is inside ``dev_queue_xmit`` (bottom halves off), nor ksoftirqd inside
``__do_softirq``. Each program hands its loop over at its first step and has nothing more to do; the
driver's callbacks are bound methods of model objects, so that a copy of the run (``model.fork``)
calls the copy's transmit path.
"""

from __future__ import annotations

from collections.abc import Callable

from model.actions import Action, Driven, Program, ProgramState
from model.copyable import mypyc_attr
from model.net.txpath import TxPath
from model.task import Task


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class SenderDriver:
    """What the machine's ``Driven`` calls for one sender: the transmit path, told which sender it is."""

    __slots__ = ("band", "path", "sender", "task")

    def __init__(self, path: TxPath, sender: int, task: Task, band: int) -> None:
        self.path, self.sender, self.task, self.band = path, sender, task, band

    def attach(self, cpu: int) -> None:
        self.path.attach_sender(self.sender, self.task, self.band, cpu)

    def detach(self, cpu: int) -> None:
        self.path.detach_sender(self.sender, cpu)

    def preemptible(self, cpu: int) -> bool:
        return self.path.sender_preemptible(self.sender)


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class SenderProgram(ProgramState):
    """A sender pinned to a CPU: its sender id is that CPU (the ring ixgbe_select_queue() picks)."""

    __slots__ = ("band", "handed", "path", "task")

    def __init__(self, path: TxPath, band: int, task: Task) -> None:
        self.path, self.band, self.task = path, band, task
        self.handed = False

    def __next__(self) -> Action:
        if self.handed:
            raise StopIteration
        self.handed = True
        task = self.task
        sender = task.pinned_cpu if task.pinned_cpu is not None else 0
        driver = SenderDriver(self.path, sender, task, self.band)
        return Driven(driver.attach, driver.detach, preemptible=driver.preemptible)


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class KsoftirqdProgram(ProgramState):
    """kernel/softirq.c run_ksoftirqd(), bound to its CPU (kthread_bind), nice 0."""

    __slots__ = ("handed", "path", "task")

    def __init__(self, path: TxPath, task: Task) -> None:
        self.path, self.task = path, task
        self.handed = False

    def __next__(self) -> Action:
        if self.handed:
            raise StopIteration
        self.handed = True
        task, path = self.task, self.path
        path.ksoftirqd[task.pinned_cpu if task.pinned_cpu is not None else 0] = task
        return Driven(path.attach_ksoftirqd, path.detach_ksoftirqd, preemptible=path.ksoftirqd_preemptible)


def sender_program(path: TxPath, band: int) -> Callable[[Task], Program]:
    return lambda task: SenderProgram(path, band, task)


def ksoftirqd_program(path: TxPath) -> Callable[[Task], Program]:
    return lambda task: KsoftirqdProgram(path, task)
