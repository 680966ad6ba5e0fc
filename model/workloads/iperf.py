"""iperf 2.0.2's TCP client: a data thread and a reporter thread sharing a 700-slot report ring.

Three builds of ``thread_rest()`` (KERNEL.md §G): ``usleep0`` (stock 2.0.2: ``usleep(0)``),
``sched_yield`` (the patched build of the 2007 thread) and ``fixed`` (Ingo Molnar's patch in the
2007 thread: a full ring makes the data thread wait on ``ReportDoneCond``; the reporter signals it
after each pass and sleeps 10 ms instead of polling).
"""

from __future__ import annotations

from model.actions import (
    Block,
    Compute,
    CondVar,
    Nanosleep,
    Program,
    Signal,
    Spin,
    Wait,
    Watchable,
)
from model.machine import Machine
from model.net.rx import NicRx, RxSocket
from model.net.tcp import TcpSendSocket
from model.scenario import IperfSpec
from model.task import Task

REPORTER_SLEEP_NS = 10_000_000  # the fixed reporter's usleep(10000) per pass


class ReportRing(Watchable):
    """The per-connection ring of ReportStructs: ``NUM_REPORT_STRUCTS`` slots, one always empty."""

    __slots__ = ("capacity", "count", "pushed")

    def __init__(self, slots: int) -> None:
        super().__init__()
        self.capacity = slots - 1  # reporterindex may never be lapped: 699 usable entries
        self.count = 0
        self.pushed = 0

    @property
    def full(self) -> bool:
        return self.count >= self.capacity

    def not_full(self) -> bool:
        return self.count < self.capacity

    def nonempty(self) -> bool:
        return self.count > 0

    def push(self) -> None:
        self.count += 1
        self.pushed += 1
        self.changed()

    def take_all(self) -> int:
        n, self.count = self.count, 0
        if n:
            self.changed()
        return n


class Iperf:
    """The two threads of one iperf client connection, spawned on ``machine``."""

    def __init__(self, machine: Machine, sock: TcpSendSocket, spec: IperfSpec) -> None:
        self.machine = machine
        self.sock = sock
        self.spec = spec
        self.ring = ReportRing(spec.ring_slots)
        machine.watch(self.ring)
        self.report_cond = CondVar("ReportCond")
        self.report_done = CondVar("ReportDoneCond")
        cpu = None if spec.cpu < 0 else spec.cpu
        self.data = machine.spawn("iperf-data", self._data_thread, spec.nice, cpu, role="data")
        self.reporter = machine.spawn(
            "iperf-reporter", self._reporter_thread, spec.nice, cpu, role="reporter"
        )

    def _data_thread(self, task: Task) -> Program:
        spec, sock, ring = self.spec, self.sock, self.ring
        while True:
            while not sock.reserve(spec.write_bytes):  # write() blocks in sk_stream_wait_memory()
                yield Block(sock.waitq)
            yield Compute(spec.loop_ns)
            sock.commit(spec.write_bytes)
            # ReportPacket(): wait while the reporter would be lapped.
            while ring.full:
                yield Signal(self.report_cond)
                if spec.thread_rest == "fixed":
                    yield Wait(self.report_done)
                elif spec.thread_rest == "sched_yield":
                    yield Spin(ring.not_full, ring, spec.signal_ns)
                else:
                    yield Compute(spec.signal_ns)
                    yield Nanosleep(0)
            ring.push()

    def _reporter_thread(self, task: Task) -> Program:
        spec, ring = self.spec, self.ring
        while True:
            n = ring.take_all()
            if spec.thread_rest == "sched_yield":
                if n:
                    yield Compute(spec.reporter_pass_ns + n * spec.report_entry_ns)
                # thread_rest(), then pass after pass (each one a yield) until there is something to report.
                yield Spin(ring.nonempty, ring, spec.reporter_pass_ns, yield_first=True)
                continue
            yield Compute(spec.reporter_pass_ns + n * spec.report_entry_ns)
            if spec.thread_rest == "fixed":
                yield Signal(self.report_done)
                yield Nanosleep(REPORTER_SLEEP_NS)
            else:
                yield Nanosleep(0)  # usleep(0)


class IperfServer:
    """iperf's server thread: blocks in ``recv()`` until data arrives, reads it all, repeats."""

    def __init__(self, machine: Machine, sock: RxSocket, nic: NicRx, spec: IperfSpec) -> None:
        self.sock = sock
        self.nic = nic
        self.spec = spec
        cpu = None if spec.cpu < 0 else spec.cpu
        self.thread = machine.spawn("iperf-server", self._server_thread, spec.nice, cpu, role="server")

    def _server_thread(self, task: Task) -> Program:
        sock = self.sock
        while True:
            while sock.unread_bytes == 0:
                yield Block(sock.waitq)
            n = sock.read_all()
            self.nic.window_opened()
            yield Compute(max(1, n * self.spec.recv_ns_per_kb // 1024))
