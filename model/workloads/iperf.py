"""iperf's TCP client (2.0.2: a data thread and a reporter thread sharing a 700-slot report ring) and
its TCP server (2.0.4, the release of 2008-2010: a server thread and a reporter thread).

Three builds of ``thread_rest()`` (KERNEL.md §G): ``usleep0`` (stock 2.0.2: ``usleep(0)``),
``sched_yield`` (the patched build of the 2007 thread) and ``fixed`` (Ingo Molnar's patch in the
2007 thread: a full ring makes the data thread wait on ``ReportDoneCond``; the reporter signals it
after each pass and sleeps 10 ms instead of polling). ``main()`` starts the reporter thread, which
starts the client (or listener) thread: each is forked by the one before (``Machine.spawn``).

The server is 2.0.4's (esnet/iperf tag 2.0.4-RELEASE): a TCP ``Server::Run()`` reports once, at the
end (``ReportPacket`` per ``recv()`` is UDP only), and its reporter sleeps in
``Condition_TimedWait(&ReportCond, 1)`` after each pass (Andrew Gallatin's rework, 1efd8f8c), until
the next whole second of the wall clock (``time(NULL) + 1``, 0 ns). ``fixed`` is Ingo's patch as
iperf 2.0.5 shipped it (ChangeLog 2010-03-31): the reporter sleeps 10 ms per pass instead.
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
TIMEDWAIT_NS = 1_000_000_000  # Condition_TimedWait(&ReportCond, 1): whole seconds of the wall clock


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
        on_change = self.on_change  # changed(), inline: a push per write
        if on_change is not None:
            on_change(self)

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
        # main() starts the reporter, whose thread_run_wrapper() starts the client (runNow) first.
        self.reporter = machine.spawn(
            "iperf-reporter", self._reporter_thread, spec.nice, cpu, role="reporter"
        )
        self.data = machine.spawn(
            "iperf-data", self._data_thread, spec.nice, cpu, role="data", parent=self.reporter
        )

    def _data_thread(self, task: Task) -> Program:
        spec, sock, ring = self.spec, self.sock, self.ring
        # usleep(0) with high-resolution timers returns at once: its poll is a busy loop.
        busy_poll_ns = spec.signal_ns + self.machine.syscall_ns
        # One action object per kind, yielded again at every pass (the machine never changes an action).
        write = Compute(spec.loop_ns)
        write_bytes = spec.write_bytes
        while True:
            while not sock.reserve(write_bytes):  # write() blocks in sk_stream_wait_memory()
                yield Block(sock.waitq)
            yield write
            sock.commit(write_bytes)
            # ReportPacket(): wait while the reporter would be lapped (ring.full, without the property).
            while ring.count >= ring.capacity:
                yield Signal(self.report_cond)
                if spec.thread_rest == "fixed":
                    yield Wait(self.report_done)
                elif spec.thread_rest == "sched_yield":
                    yield Spin(ring.not_full, ring, spec.signal_ns)
                elif self.machine.usleep0_sleeps():
                    yield Compute(spec.signal_ns)
                    yield Nanosleep(0)
                else:
                    yield Spin(ring.not_full, ring, busy_poll_ns, yield_each=False)
            ring.push()

    def _reporter_thread(self, task: Task) -> Program:
        spec, ring = self.spec, self.ring
        usleep0_polls = spec.thread_rest == "usleep0" and not self.machine.usleep0_sleeps()
        polls = spec.thread_rest == "sched_yield" or usleep0_polls
        # The poll loop, one action yielded again at every pass (the machine never changes an action).
        if usleep0_polls:
            poll_ns = spec.reporter_pass_ns + self.machine.syscall_ns
            poll = Spin(ring.nonempty, ring, poll_ns, yield_each=False)
        else:
            poll = Spin(ring.nonempty, ring, spec.reporter_pass_ns, yield_first=True)
        while True:
            n = ring.take_all()
            if polls:
                if n:
                    yield Compute(spec.reporter_pass_ns + n * spec.report_entry_ns)
                # thread_rest(), then pass after pass (each one a yield, or a usleep(0) that returns at
                # once) until there is something to report.
                yield poll
                continue
            yield Compute(spec.reporter_pass_ns + n * spec.report_entry_ns)
            if spec.thread_rest == "fixed":
                yield Signal(self.report_done)
                yield Nanosleep(REPORTER_SLEEP_NS)
            else:
                yield Nanosleep(0)  # usleep(0): until the next tick


class IperfServer:
    """iperf 2.0.4's TCP server: its reporter thread, and a server thread that blocks in ``recv()``
    until data arrives, reads it all and repeats.
    # SIMPLIFICATION: the listener thread (blocked in accept() for the whole run) and main() (in
    # thread_joinall()) are left out: they never run, and the server thread is forked by the
    # spawning context.
    """

    def __init__(self, machine: Machine, sock: RxSocket, nic: NicRx, spec: IperfSpec) -> None:
        self.machine = machine
        self.sock = sock
        self.nic = nic
        self.spec = spec
        cpu = None if spec.cpu < 0 else spec.cpu
        self.reporter = machine.spawn(
            "iperf-reporter", self._reporter_thread, spec.nice, cpu, role="reporter"
        )
        self.thread = machine.spawn("iperf-server", self._server_thread, spec.nice, cpu, role="server")

    def _reporter_thread(self, task: Task) -> Program:
        """reporter_spawn() with the server's report active: a pass over ReportRoot (nothing to
        handle: a TCP server reports at the end), then 2.0.4's timed wait on ReportCond (nobody
        signals it before the end) or, ``fixed``, 2.0.5's usleep(10000)."""
        spec, machine = self.spec, self.machine
        while True:
            yield Compute(spec.reporter_pass_ns)
            if spec.thread_rest == "fixed":
                yield Nanosleep(REPORTER_SLEEP_NS)
            else:
                yield Nanosleep(TIMEDWAIT_NS - machine.now_ns % TIMEDWAIT_NS)

    def _server_thread(self, task: Task) -> Program:
        sock = self.sock
        while True:
            while sock.unread_bytes == 0:
                yield Block(sock.waitq)
            n = sock.read_all()
            self.nic.window_opened()
            yield Compute(max(1, n * self.spec.recv_ns_per_kb // 1024))
