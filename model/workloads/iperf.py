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
    Action,
    Block,
    Compute,
    CondVar,
    Nanosleep,
    Program,
    ProgramState,
    Signal,
    Spin,
    Wait,
    Watchable,
)
from model.copyable import mypyc_attr
from model.machine import Machine
from model.net.rx import NicRx, RxSocket
from model.net.tcp import TcpSendSocket
from model.scenario_sections import IperfSpec
from model.task import Task

REPORTER_SLEEP_NS = 10_000_000  # the fixed reporter's usleep(10000) per pass
TIMEDWAIT_NS = 1_000_000_000  # Condition_TimedWait(&ReportCond, 1): whole seconds of the wall clock


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
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


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
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
        return DataThread(self)

    def _reporter_thread(self, task: Task) -> Program:
        return ReporterThread(self)


# The data thread's phases: where its loop stopped for the action it returned.
DATA_WRITE, DATA_WROTE, DATA_RING, DATA_SIGNALLED, DATA_POLLED = 0, 1, 2, 3, 4


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class DataThread(ProgramState):
    """The client's data thread: ``write()`` a buffer (blocking while the send buffer is full), then
    ``ReportPacket()``: while the ring is full, signal the reporter and rest (``thread_rest()``, the
    build's way), then push the report."""

    __slots__ = (
        "block",
        "busy_spin",
        "machine",
        "phase",
        "poll",
        "rest",
        "ring",
        "signal",
        "sock",
        "spin",
        "thread_rest",
        "wait",
        "write",
        "write_bytes",
    )

    def __init__(self, iperf: Iperf) -> None:
        spec, ring = iperf.spec, iperf.ring
        self.machine, self.sock, self.ring = iperf.machine, iperf.sock, ring
        self.thread_rest, self.write_bytes = spec.thread_rest, spec.write_bytes
        self.phase = DATA_WRITE
        self.write, self.block = Compute(spec.loop_ns), Block(iperf.sock.waitq)
        self.signal, self.wait = Signal(iperf.report_cond), Wait(iperf.report_done)
        self.spin = Spin(ring.not_full, ring, spec.signal_ns)
        self.poll, self.rest = Compute(spec.signal_ns), Nanosleep(0)
        # usleep(0) with high-resolution timers returns at once: its poll is a busy loop.
        self.busy_spin = Spin(
            ring.not_full, ring, spec.signal_ns + iperf.machine.syscall_ns, yield_each=False
        )

    def __next__(self) -> Action:
        ring = self.ring
        while True:
            phase = self.phase
            if phase == DATA_WRITE:
                if not self.sock.reserve(self.write_bytes):  # write() blocks in sk_stream_wait_memory()
                    return self.block
                self.phase = DATA_WROTE
                return self.write
            if phase == DATA_WROTE:
                self.sock.commit(self.write_bytes)
                self.phase = DATA_RING
            elif phase == DATA_RING:
                # ReportPacket(): wait while the reporter would be lapped (ring.full, without the property).
                if ring.count >= ring.capacity:
                    self.phase = DATA_SIGNALLED
                    return self.signal
                ring.push()
                self.phase = DATA_WRITE
            elif phase == DATA_SIGNALLED:
                self.phase = DATA_RING
                if self.thread_rest == "fixed":
                    return self.wait
                if self.thread_rest == "sched_yield":
                    return self.spin
                if self.machine.usleep0_sleeps():
                    self.phase = DATA_POLLED
                    return self.poll
                return self.busy_spin
            else:  # DATA_POLLED
                self.phase = DATA_RING
                return self.rest


# The reporter's phases.
REPORTER_PASS, REPORTER_POLL, REPORTER_REPORTED, REPORTER_SIGNALLED = 0, 1, 2, 3


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class ReporterThread(ProgramState):
    """The client's reporter thread: a pass over the ring (what it finds costs ``report_entry_ns`` each),
    then ``thread_rest()``: polling (``sched_yield``, or ``usleep0`` with high-resolution timers) pass
    after pass until there is something to report, or sleeping (``usleep0`` until the next tick;
    ``fixed`` signals the data thread and sleeps 10 ms)."""

    __slots__ = (
        "entry_ns",
        "fixed",
        "pass_ns",
        "phase",
        "poll",
        "polls",
        "ring",
        "signal",
        "sleep",
        "tick_sleep",
    )

    def __init__(self, iperf: Iperf) -> None:
        spec, ring, machine = iperf.spec, iperf.ring, iperf.machine
        self.ring, self.phase = ring, REPORTER_PASS
        self.pass_ns, self.entry_ns = spec.reporter_pass_ns, spec.report_entry_ns
        self.fixed = spec.thread_rest == "fixed"
        usleep0_polls = spec.thread_rest == "usleep0" and not machine.usleep0_sleeps()
        self.polls = spec.thread_rest == "sched_yield" or usleep0_polls
        # The poll loop, one action returned again at every pass.
        if usleep0_polls:
            self.poll = Spin(
                ring.nonempty, ring, spec.reporter_pass_ns + machine.syscall_ns, yield_each=False
            )
        else:
            self.poll = Spin(ring.nonempty, ring, spec.reporter_pass_ns, yield_first=True)
        self.signal, self.sleep = Signal(iperf.report_done), Nanosleep(REPORTER_SLEEP_NS)
        self.tick_sleep = Nanosleep(0)  # usleep(0): until the next tick

    def __next__(self) -> Action:
        phase = self.phase
        if phase == REPORTER_POLL:
            self.phase = REPORTER_PASS
            return self.poll
        if phase == REPORTER_REPORTED:
            if self.fixed:
                self.phase = REPORTER_SIGNALLED
                return self.signal
            self.phase = REPORTER_PASS
            return self.tick_sleep
        if phase == REPORTER_SIGNALLED:
            self.phase = REPORTER_PASS
            return self.sleep
        n = self.ring.take_all()
        if self.polls:
            # thread_rest(), then pass after pass (each one a yield, or a usleep(0) that returns at once)
            # until there is something to report.
            if n:
                self.phase = REPORTER_POLL
                return Compute(self.pass_ns + n * self.entry_ns)
            return self.poll
        self.phase = REPORTER_REPORTED
        return Compute(self.pass_ns + n * self.entry_ns)


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
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
        return ServerReporter(self)

    def _server_thread(self, task: Task) -> Program:
        return ServerThread(self)


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class ServerReporter(ProgramState):
    """reporter_spawn() with the server's report active: a pass over ReportRoot (nothing to handle: a
    TCP server reports at the end), then 2.0.4's timed wait on ReportCond (nobody signals it before the
    end) or, ``fixed``, 2.0.5's usleep(10000)."""

    __slots__ = ("fixed", "machine", "passed", "sleep", "work")

    def __init__(self, server: IperfServer) -> None:
        self.machine = server.machine
        self.fixed = server.spec.thread_rest == "fixed"
        self.work, self.sleep = Compute(server.spec.reporter_pass_ns), Nanosleep(REPORTER_SLEEP_NS)
        self.passed = False

    def __next__(self) -> Action:
        if not self.passed:
            self.passed = True
            return self.work
        self.passed = False
        if self.fixed:
            return self.sleep
        return Nanosleep(TIMEDWAIT_NS - self.machine.now_ns % TIMEDWAIT_NS)


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class ServerThread(ProgramState):
    """The server thread: block in ``recv()`` until data arrives, read it all (which opens the receive
    window), spend ``recv_ns_per_kb`` on it; again."""

    __slots__ = ("block", "nic", "recv_ns_per_kb", "sock")

    def __init__(self, server: IperfServer) -> None:
        self.sock, self.nic = server.sock, server.nic
        self.block = Block(server.sock.waitq)
        self.recv_ns_per_kb = server.spec.recv_ns_per_kb

    def __next__(self) -> Action:
        sock = self.sock
        if sock.unread_bytes == 0:
            return self.block
        n = sock.read_all()
        self.nic.window_opened()
        return Compute(max(1, n * self.recv_ns_per_kb // 1024))
