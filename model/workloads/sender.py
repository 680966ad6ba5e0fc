"""The transmit path's tasks: one UDP sender per CPU, and ksoftirqd/N on every CPU.

Both are ordinary tasks of the CPU scheduler whose loops the transmit path drives
(``model.actions.Driven``): they are preempted, sleep and wake through the machine, and a sender
cannot be preempted while it is inside ``dev_queue_xmit`` (bottom halves off), nor ksoftirqd inside
``__do_softirq``.
"""

from __future__ import annotations

from collections.abc import Callable

from model.actions import Driven, Program
from model.net.txpath import TxPath
from model.task import Task


def sender_program(path: TxPath, band: int) -> Callable[[Task], Program]:
    """A sender pinned to a CPU: its sender id is that CPU (the ring ixgbe_select_queue() picks)."""

    def program(task: Task) -> Program:
        sender = task.pinned_cpu if task.pinned_cpu is not None else 0
        yield Driven(
            lambda cpu: path.attach_sender(sender, task, band, cpu),
            lambda cpu: path.detach_sender(sender, cpu),
            preemptible=lambda cpu: path.sender_preemptible(sender),
        )

    return program


def ksoftirqd_program(path: TxPath) -> Callable[[Task], Program]:
    """kernel/softirq.c run_ksoftirqd(), bound to its CPU (kthread_bind), nice 0."""

    def program(task: Task) -> Program:
        cpu = task.pinned_cpu if task.pinned_cpu is not None else 0
        path.ksoftirqd[cpu] = task
        yield Driven(path.attach_ksoftirqd, path.detach_ksoftirqd, preemptible=path.ksoftirqd_preemptible)

    return program
