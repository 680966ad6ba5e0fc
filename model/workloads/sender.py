"""Packet senders for the transmit path: one task per CPU, each looping sendmsg() -> dev_queue_xmit().

The loop is handed to the transmit path (``model.net.txpath``), which runs it in closed form; the
task itself stays an ordinary task of the CPU scheduler (it can be preempted, and ticks and
wakeups set need_resched on its CPU).
"""

from __future__ import annotations

from collections.abc import Callable

from model.actions import Driven, Program
from model.net.txpath import TxPath
from model.task import Task


def sender_program(path: TxPath, band: int, sndbuf_pkts: int) -> Callable[[Task], Program]:
    def program(task: Task) -> Program:
        yield Driven(lambda cpu: path.attach(cpu, band, sndbuf_pkts), path.detach)

    return program
