"""A run as Chrome trace-event JSON events, the format Perfetto UI (and chrome://tracing) opens.

``trace_events(sim, from_ns, to_ns, sample_ns)`` drives a simulation of its own (built with
``trace="recent"``) to ``to_ns`` and yields, step by step, lists of events made from the model's typed
trace records and typed views, never from text:

* process "CPUs": per CPU a lane of the running task (complete events, ``X``), a lane of its hard and
  soft interrupts, and where there is a qdisc a lane of its dequeuer tenures (packets and exit reason);
* process "tasks": per task a lane of its thread states (Running, Runnable, Runnable (preempted),
  Sleeping), with its ``sched_yield()`` calls as instants;
* counters (``C``): bandwidth, run-queue length per CPU, every numeric key of each task's run-queue
  entry (vruntime, lag, deadline, ... as the policy's view has them), qdisc backlog per band and
  dequeues per CPU, sampled every ``sample_ns`` and written only when they change;
* flows (version 2: ``bind_id`` with ``flow_out`` / ``flow_in`` on complete events): a wakeup, from the
  woken task's Runnable slice to the CPU slice it then ran in; a dequeuer hand-over, from one CPU's
  tenure to the next CPU's.

Record types or fields this module does not know (the transmit path is being rewritten) still come
out: an unknown record as an instant with its fields as ``args``, a new field of a known record in
its event's ``args``. Timestamps are microseconds (``ts``, ``dur``); events are not sorted by time
(Perfetto sorts them).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from typing import Any

from model.metrics import bandwidth_mbps
from model.simulation import Simulation
from model.snapshot import (
    CommandRecord,
    IrqRecord,
    Snapshot,
    SwitchRecord,
    TenureRecord,
    WakeRecord,
    YieldRecord,
)

Event = dict[str, Any]

PID_CPUS = 1
PID_TASKS = 2
CPU_LANE = 1000  # tid of cpu N's task lane: CPU_LANE + N; its interrupts and dequeuer tenures below
IRQ_LANE = 2000
DEQUEUER_LANE = 3000
WAKE_FLOW = 1  # flow ids: wakeups count up from here, hand-overs from HANDOVER_FLOW
HANDOVER_FLOW = 1 << 40
ENTRY_IDENTITY = ("tid", "cpu", "on_cpu", "pinned_cpu", "running", "picks_next")  # not counters


class TraceLost(Exception):
    """More records came in one step than the trace keeps (``TRACE_LIMIT``): a smaller step is needed."""


def us(t_ns: int) -> float:
    return round(t_ns / 1000, 3)


def record_args(record: object, skip: tuple[str, ...]) -> dict[str, Any]:
    """A record's fields as JSON values, except those the event itself carries (``skip``)."""
    out: dict[str, Any] = {}
    if not dataclasses.is_dataclass(record):
        return out  # not a typed record: its name alone
    for f in dataclasses.fields(record):
        if f.name in skip:
            continue
        value = getattr(record, f.name)
        out[f.name] = value if isinstance(value, int | float | str | bool) else repr(value)
    return out


class TraceBuilder:
    """Turns a simulation's records and snapshots, in time order, into trace events."""

    def __init__(self, sim: Simulation, from_ns: int, to_ns: int) -> None:
        self.sim = sim
        self.from_ns = from_ns
        self.to_ns = to_ns
        self.names = {t.tid: t.name for t in sim.machine.tasks}
        self.cpu_slice: dict[int, tuple[int, int, int]] = {}  # cpu -> (tid, since_ns, flow id in or 0)
        self.state: dict[int, tuple[str, int, int]] = {}  # tid -> (state, since_ns, wake flow id or 0)
        self.tenure: TenureRecord | None = None  # the last tenure, written once the next one is known
        self.tenure_flow = 0  # the hand-over flow the last tenure came in by (0: none)
        self.last_counter: dict[tuple[int, int, str], dict[str, float]] = {}
        self.series_rows = 0
        self.entry_keys: dict[type, tuple[str, ...]] = {}
        self.next_flow = WAKE_FLOW
        self.next_handover = HANDOVER_FLOW

    # ---- the start and the end of the window ------------------------------------------------------

    def metadata(self) -> list[Event]:
        ev: list[Event] = [
            {"ph": "M", "name": "process_name", "pid": PID_CPUS, "tid": 0, "args": {"name": "CPUs"}},
            {"ph": "M", "name": "process_name", "pid": PID_TASKS, "tid": 0, "args": {"name": "tasks"}},
        ]
        for cpu in range(len(self.sim.machine.cpus)):
            lanes = [(CPU_LANE, f"cpu{cpu}"), (IRQ_LANE, f"cpu{cpu} interrupts")]
            if self.sim.txpath is not None:
                lanes.append((DEQUEUER_LANE, f"cpu{cpu} dequeuer"))
            for base, name in lanes:
                ev.append(self._thread_name(PID_CPUS, base + cpu, name, cpu * 3 + base // 1000))
        for tid, name in self.names.items():
            ev.append(self._thread_name(PID_TASKS, tid, name, tid))
        return ev

    @staticmethod
    def _thread_name(pid: int, tid: int, name: str, order: int) -> Event:
        return {
            "ph": "M",
            "name": "thread_name",
            "pid": pid,
            "tid": tid,
            "args": {"name": name, "order": order},
        }

    def start(self, snap: Snapshot) -> list[Event]:
        """Open every lane at the window's start, as the snapshot there shows the machine."""
        for cpu in snap.cpus:
            if cpu.curr_tid:
                self.cpu_slice[cpu.index] = (cpu.curr_tid, snap.t_ns, 0)
        names = {"running": "Running", "runnable": "Runnable", "sleeping": "Sleeping", "dead": "Dead"}
        for task in snap.tasks:
            self.state[task.tid] = (names[task.state], snap.t_ns, 0)
        self.series_rows = len(snap.series)
        return self.counters(snap)

    def finish(self, snap: Snapshot) -> list[Event]:
        """Close every open slice at the window's end."""
        end = self.to_ns
        ev: list[Event] = []
        for cpu, (tid, since, flow) in sorted(self.cpu_slice.items()):
            ev.append(self._cpu_run(cpu, tid, since, end, flow))
        final = {t.tid: t.state for t in snap.tasks}
        for tid, (state, since, _) in sorted(self.state.items()):
            if state == "pending":
                state = "Sleeping" if final.get(tid) in ("sleeping", "dead") else "Runnable (preempted)"
            ev.append(self._state(tid, state, since, end, 0))
        if self.tenure is not None:
            ev.append(self._tenure(self.tenure, self.tenure_flow, 0))
            self.tenure = None
        return ev

    # ---- records -----------------------------------------------------------------------------------

    def records(self, records: Sequence[object]) -> list[Event]:
        """Events of the trace records, in their order (typed as objects: any record type is taken)."""
        ev: list[Event] = []
        for r in records:
            t_ns = int(getattr(r, "t_ns", self.from_ns))
            if t_ns < self.from_ns and not isinstance(r, IrqRecord):
                continue
            if isinstance(r, SwitchRecord):
                self._switch(r, ev)
            elif isinstance(r, WakeRecord):
                self._wake(r, ev)
            elif isinstance(r, IrqRecord):
                self._irq(r, ev)
            elif isinstance(r, TenureRecord):
                self._tenure_record(r, ev)
            elif isinstance(r, YieldRecord):
                o = r.outcome
                args = {"landing": o.landing, "reason": o.reason, "noop": o.noop, "switched": r.switched}
                ev.append(self._instant(PID_TASKS, r.tid, "sched_yield", r.t_ns, args, "t"))
            elif isinstance(r, CommandRecord):
                ev.append(self._instant(PID_CPUS, 0, f"set {r.key}={r.value}", r.t_ns, {}, "g"))
            else:  # a record type this module does not know yet: kept, with its fields
                args = record_args(r, ("t_ns",))
                lane = CPU_LANE + int(args.get("cpu", 0))
                ev.append(self._instant(PID_CPUS, lane, type(r).__name__, t_ns, args, "t"))
        return ev

    def _switch(self, r: SwitchRecord, ev: list[Event]) -> None:
        old = self.cpu_slice.pop(r.cpu, None)
        if old is not None:
            ev.append(self._cpu_run(r.cpu, old[0], old[1], r.t_ns, old[2]))
        if r.prev_tid:
            state, since, flow = self.state.get(r.prev_tid, ("Running", self.from_ns, 0))
            ev.append(self._state(r.prev_tid, "Running", since, r.t_ns, 0))
            self.state[r.prev_tid] = ("pending", r.t_ns, 0)  # Sleeping if a wakeup follows, else preempted
        if r.tid:
            state, since, flow = self.state.get(r.tid, ("Runnable", self.from_ns, 0))
            name = "Runnable (preempted)" if state == "pending" else state
            ev.append(self._state(r.tid, name, since, r.t_ns, flow))
            self.state[r.tid] = ("Running", r.t_ns, 0)
            self.cpu_slice[r.cpu] = (r.tid, r.t_ns, flow)

    def _wake(self, r: WakeRecord, ev: list[Event]) -> None:
        state, since, _ = self.state.get(r.tid, ("Sleeping", self.from_ns, 0))
        if state in ("pending", "Sleeping"):
            ev.append(self._state(r.tid, "Sleeping", since, r.t_ns, 0))
        flow = self.next_flow
        self.next_flow += 1
        self.state[r.tid] = ("Runnable", r.t_ns, flow)

    def _irq(self, r: IrqRecord, ev: list[Event]) -> None:
        lane = IRQ_LANE + r.cpu
        hard_end = r.t_ns + r.hardirq_ns
        for name, a, b in (("hardirq", r.t_ns, hard_end), ("softirq", hard_end, hard_end + r.softirq_ns)):
            a, b = max(a, self.from_ns), min(b, self.to_ns)
            if b > a:
                ev.append(self._slice(PID_CPUS, lane, name, a, b, record_args(r, ("t_ns", "cpu"))))

    def _tenure_record(self, r: TenureRecord, ev: list[Event]) -> None:
        prev = self.tenure
        self.tenure = r
        flow_in = 0
        if prev is not None:
            flow_out = 0
            if prev.cpu != r.cpu:  # the dequeuer role moved: an arrow from the old CPU to the new one
                flow_out = self.tenure_flow or self.next_handover
                if not self.tenure_flow:
                    self.next_handover += 1
                flow_in = flow_out
            ev.append(self._tenure(prev, self.tenure_flow, flow_out))
        self.tenure_flow = flow_in

    # ---- events ------------------------------------------------------------------------------------

    def _slice(self, pid: int, tid: int, name: str, a: int, b: int, args: dict[str, Any]) -> Event:
        return {"ph": "X", "name": name, "pid": pid, "tid": tid, "ts": us(a), "dur": us(b - a), "args": args}

    def _instant(self, pid: int, tid: int, name: str, t: int, args: dict[str, Any], scope: str) -> Event:
        return {"ph": "i", "name": name, "pid": pid, "tid": tid, "ts": us(t), "s": scope, "args": args}

    def _cpu_run(self, cpu: int, tid: int, a: int, b: int, flow_in: int) -> Event:
        e = self._slice(PID_CPUS, CPU_LANE + cpu, self.names.get(tid, f"tid {tid}"), a, b, {"tid": tid})
        if flow_in:
            e["bind_id"] = flow_in
            e["flow_in"] = True
        return e

    def _state(self, tid: int, state: str, a: int, b: int, flow_out: int) -> Event:
        e = self._slice(PID_TASKS, tid, state, a, b, {})
        if flow_out:
            e["bind_id"] = flow_out
            e["flow_out"] = True
        return e

    def _tenure(self, r: TenureRecord, flow_in: int, flow_out: int) -> Event:
        a = max(r.t_ns, self.from_ns)
        b = min(r.t_ns + r.dur_ns, self.to_ns)
        e = self._slice(
            PID_CPUS,
            DEQUEUER_LANE + r.cpu,
            "dequeue",
            a,
            max(a, b),
            record_args(r, ("t_ns", "cpu", "dur_ns")),
        )
        if flow_in or flow_out:
            e["bind_id"] = flow_in or flow_out  # in and out on one slice: the same flow, a step
            if flow_in:
                e["flow_in"] = True
            if flow_out:
                e["flow_out"] = True
        return e

    # ---- counters ----------------------------------------------------------------------------------

    def counters(self, snap: Snapshot) -> list[Event]:
        ev: list[Event] = []
        t = snap.t_ns
        rq = {f"cpu{v.cpu}": float(len(v.entries)) for v in snap.runqueues}
        self._counter(ev, PID_CPUS, 0, "runqueue length", t, rq)
        seen: set[int] = set()
        for view in snap.runqueues:
            for entry in view.entries:
                if entry.tid in seen:
                    continue
                seen.add(entry.tid)
                values = {name: float(getattr(entry, name)) for name in self._entry_keys(entry)}
                self._counter(ev, PID_TASKS, entry.tid, self.names.get(entry.tid, str(entry.tid)), t, values)
        q = snap.qdisc
        if q is not None:
            self._counter(
                ev, PID_CPUS, 0, "qdisc backlog", t, {f"band{b.band}": float(b.backlog) for b in q.bands}
            )
            dq = {f"cpu{i}": float(n) for i, n in enumerate(q.per_cpu_dequeued)}
            self._counter(ev, PID_CPUS, 0, "dequeued", t, dq)
        rows = snap.series
        col = snap.series_layout.acked_bytes
        for i in range(self.series_rows, len(rows)):
            t0, b0 = (int(rows[i - 1, 0]), int(rows[i - 1, col])) if i > 0 else (0, 0)
            t1 = int(rows[i, 0])
            if t1 > self.from_ns:
                mbps = float(bandwidth_mbps(int(rows[i, col]) - b0, max(t1 - t0, 1)))
                self._counter(ev, PID_CPUS, 0, "bandwidth", t1, {"Mbit/s": mbps}, always=True)
        self.series_rows = len(rows)
        return ev

    def _entry_keys(self, entry: object) -> tuple[str, ...]:
        """The numeric fields of a run-queue entry's type, whatever the policy put there."""
        kind = type(entry)
        keys = self.entry_keys.get(kind)
        if keys is None:
            keys = self.entry_keys[kind] = tuple(
                f.name
                for f in dataclasses.fields(entry)  # type: ignore[arg-type]
                if f.name not in ENTRY_IDENTITY and isinstance(getattr(entry, f.name), int | float)
            )
        return keys

    def _counter(
        self,
        ev: list[Event],
        pid: int,
        tid: int,
        name: str,
        t: int,
        values: dict[str, float],
        always: bool = False,
    ) -> None:
        key = (pid, tid, name)
        if not always and self.last_counter.get(key) == values:
            return  # unchanged since the last sample: the counter holds its value
        self.last_counter[key] = values
        ev.append({"ph": "C", "name": name, "pid": pid, "tid": tid, "ts": us(t), "args": values})


def trace_events(sim: Simulation, from_ns: int, to_ns: int, sample_ns: int) -> Iterator[list[Event]]:
    """The trace of ``sim`` from ``from_ns`` to ``to_ns``, a list of events per step of ``sample_ns``.

    ``sim`` must be fresh (at time 0) and keep recent records (``trace="recent"``); the generator
    drives it, so the caller may stop early (Ctrl-C, a size limit) and lose nothing but the rest.
    """
    if sim.now_ns != 0 or not sim.machine.tracing:
        raise ValueError("trace_events needs a fresh simulation built with trace='recent'")
    builder = TraceBuilder(sim, from_ns, to_ns)
    yield builder.metadata()
    log = sim.machine.trace
    while sim.now_ns < from_ns:  # to the window's start, records dropped step by step
        sim.advance(min(sample_ns * 100, from_ns - sim.now_ns))
    sim.drain_events()
    mark = log.appended
    yield builder.start(sim.snapshot())
    while sim.now_ns < to_ns:
        snap = sim.advance(min(sample_ns, to_ns - sim.now_ns))
        if log.appended - mark != len(snap.events):
            raise TraceLost(f"{log.appended - mark - len(snap.events)} trace records dropped in one step")
        mark = log.appended
        yield builder.records(snap.events) + builder.counters(snap)
    yield builder.finish(sim.snapshot())
