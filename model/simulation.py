"""The facade the CLI and the GUI use: build a machine from a scenario (its workloads: ``model.assembly``),
advance it, apply live commands.

``Simulation(scenario, seed).advance(dt_ns) -> Snapshot``, carrying the trace records since the
previous advance (``drain_events``); ``snapshot()`` is the state now and changes nothing. Same scenario
and seed give the same trace, and ``advance(a); advance(b)`` is the same run as ``advance(a + b)``. Live
settings (``LIVE_KEYS``: the policies' live tunables, the qdisc's exit rule) take effect at the current
simulated instant, like a sysctl, and are recorded with their time so graphs can mark them; a policy
gets only its own tunables. Sampling only observes: the window may retune the sampling interval
(``set_sample_ns``) and keep a bounded number of rows (``keep_rows``) without changing the run.
``run_to`` advances without building a snapshot or draining the trace (replays that land later keep
the recent records); ``advance_until`` stops at the first instant a stop rule (``model.stops``) hits.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from model.assembly import assemble
from model.copyable import mypyc_attr
from model.events import PRIO_SAMPLE
from model.fork import Parked, fork_state, park, unpark
from model.keyspec import shown
from model.machine import Machine
from model.machine.trace import TraceLog
from model.metrics import Series, bandwidth_mbps, seconds
from model.net.qdisc import Qdisc
from model.net.rx import NicRx, RxSocket
from model.net.tcp import LinkDevice
from model.net.txconfig import EXIT_RULES
from model.net.txpath import TxPath
from model.net.view import QdiscView, qdisc_view
from model.observe import AttrProbe, IrqProbe, ItemProbe, SwitchesProbe, cpu_views, task_views
from model.scenario import Scenario, ScenarioError
from model.sched import POLICIES, TUNABLES
from model.snapshot import CommandRecord, CpuView, SeriesLayout, Snapshot, TaskView, TraceRecord, Value
from model.stops import StopRule, run_until_stop
from model.summary import machine_summary, qdisc_summary, rx_summary
from model.workloads.iperf import Iperf

__all__ = [
    "LIVE_KEYS",
    "CpuView",
    "SetTunable",
    "Simulation",
    "Snapshot",
    "TaskView",
    "live_allowed",
    "live_command",
]

DEFAULT_SAMPLE_NS = 100_000_000

# Settings that apply mid-run, with their allowed values; everything else restarts the run.
LIVE_KEYS: dict[str, tuple[int, ...] | tuple[str, ...] | range] = {
    **{f"sched.{key}": t.allowed() for key, t in TUNABLES.items() if t.live},
    "qdisc.exit_rule": EXIT_RULES,
    "qdisc.weight_p": range(1, 100_001),
}


def live_allowed(key: str) -> str:
    """What the live setting ``key`` allows, in words ("1..100000", "time, quota+jiffy, quota")."""
    allowed = LIVE_KEYS[key]
    if isinstance(allowed, range):
        return f"{allowed.start}..{allowed.stop - 1}"
    return ", ".join(map(str, allowed))


@dataclass(frozen=True, slots=True)
class SetTunable:
    """A live command: set a sysctl-like key at the current simulated instant."""

    key: str
    value: int | str


def live_command(key: str, value: object) -> SetTunable:
    """The live command setting ``key`` to ``value`` (as ``--set`` reads it: a float, a list or a bool
    may come from a typed field), checked first: a ScenarioError of one line names what is allowed."""
    allowed = LIVE_KEYS.get(key)
    if allowed is None:
        raise ScenarioError(f"{shown(key)} is not a live setting; live settings: {', '.join(LIVE_KEYS)}")
    # type(), not isinstance(): True is an int, and 2.0 == 2 would pass ``in range`` as well.
    if (type(value) is not int and type(value) is not str) or value not in allowed:
        raise ScenarioError(f"{key} = {shown(value)}; allowed: {live_allowed(key)}")
    return SetTunable(key, value)


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class Simulation:
    def __init__(
        self,
        scenario: Scenario,
        seed: int | None = None,
        sample_ns: int = DEFAULT_SAMPLE_NS,
        trace: str = "recent",
        keep_rows: int | None = None,
    ) -> None:
        self.scenario = scenario
        self.seed = scenario.seed if seed is None else seed
        self.rng = np.random.default_rng(self.seed)
        m = scenario.machine
        self.policy_info = POLICIES[scenario.sched.policy]
        self.policy = self.policy_info.factory(m.cpus, m.hz)
        for tunable in self.policy_info.tunables:  # its own only; the others are kept and do nothing
            self.policy.set_tunable(tunable.key, scenario.sched.tunable(tunable.key))
        self.machine = Machine(
            m.cpus, m.hz, self.policy, m.context_switch_ns, m.syscall_ns, trace, m.hrtimers, m.tick_skew
        )
        self._settings: dict[str, Value] = scenario.settings()
        self._settings_view: Mapping[str, Value] = MappingProxyType(dict(self._settings))
        self.toggles: list[tuple[int, str, int | str]] = []
        built = assemble(scenario, self.machine, self.rng)
        self.links: list[LinkDevice] = built.links
        self.iperf: Iperf | None = built.iperf
        self.rx_socket: RxSocket | None = built.rx_socket
        self.nic_rx: NicRx | None = built.nic_rx
        self.txpath: TxPath | None = built.txpath
        self.qdisc: Qdisc | None = built.qdisc
        probes = self._probes()
        self.series = Series(probes, keep_rows=keep_rows)
        self.series_layout = self._series_layout(list(probes))
        self.sample_ns = sample_ns
        self._sample_gen = 0  # a retuned interval leaves the pending sample stale (lazy cancel)
        self.machine.q.push(sample_ns, PRIO_SAMPLE, self._on_sample, 0)

    def _probes(self) -> dict[str, Any]:
        probes: dict[str, Any] = {"acked_bytes": self.acked_bytes}
        for cpu in self.machine.cpus:
            probes[f"cpu{cpu.index}_task_ns"] = AttrProbe(cpu, "task_ns")
            probes[f"cpu{cpu.index}_hardirq_ns"] = IrqProbe(self.machine, cpu, 0)
            probes[f"cpu{cpu.index}_softirq_ns"] = IrqProbe(self.machine, cpu, 1)
        for task in self.machine.tasks:
            probes[f"{task.name}_exec_ns"] = AttrProbe(task, "exec_ns")
            probes[f"{task.name}_yields"] = AttrProbe(task, "yields")
        probes["switches"] = SwitchesProbe(self.machine)
        if self.txpath is not None:
            counts = self.txpath.c.per_cpu_dequeued
            for i in range(len(self.machine.cpus)):
                probes[f"cpu{i}_dequeued"] = ItemProbe(counts, i)
        return probes

    def _series_layout(self, names: list[str]) -> SeriesLayout:
        """Where ``_probes`` put each counter (column 0 is the time)."""
        col = {name: i for i, name in enumerate(names, start=1)}
        cpus = range(len(self.machine.cpus))
        return SeriesLayout(
            acked_bytes=col["acked_bytes"],
            switches=col["switches"],
            cpu_task_ns=tuple(col[f"cpu{i}_task_ns"] for i in cpus),
            cpu_hardirq_ns=tuple(col[f"cpu{i}_hardirq_ns"] for i in cpus),
            cpu_softirq_ns=tuple(col[f"cpu{i}_softirq_ns"] for i in cpus),
            task_exec_ns=tuple(col[f"{t.name}_exec_ns"] for t in self.machine.tasks),
            task_yields=tuple(col[f"{t.name}_yields"] for t in self.machine.tasks),
            cpu_dequeued=tuple(col[f"cpu{i}_dequeued"] for i in cpus if f"cpu{i}_dequeued" in col),
        )

    def _on_sample(self, gen: int) -> None:
        if gen != self._sample_gen:
            return
        # Task time is booked when a segment ends: a row taken without this charge counts a task's run
        # in the interval where it ends (a 1 ms interval of the 2007 story read 690 % of one CPU busy).
        self.machine.charge_all()
        self.series.sample(self.machine.now_ns)
        self.machine.q.push(self.machine.now_ns + self.sample_ns, PRIO_SAMPLE, self._on_sample, gen)

    def set_sample_ns(self, sample_ns: int) -> None:
        """Sample the series every ``sample_ns`` from now on (the next row at now + ``sample_ns``).
        Sampling only reads counters: the run itself is the same at any interval."""
        if sample_ns <= 0:
            raise ValueError("sample_ns must be > 0")
        if sample_ns == self.sample_ns:
            return
        self.sample_ns = sample_ns
        self._sample_gen += 1
        self.machine.q.push(self.machine.now_ns + sample_ns, PRIO_SAMPLE, self._on_sample, self._sample_gen)

    # ---- the facade -----------------------------------------------------------------------------

    @property
    def now_ns(self) -> int:
        return self.machine.now_ns

    def acked_bytes(self) -> int:
        """Goodput so far: bytes acknowledged to the local sender (as the wire carries them:
        ``LinkDevice.carried_bytes``), or delivered to the local receiver, or sent by the transmit path."""
        received = self.rx_socket.delivered_bytes if self.rx_socket is not None else 0
        sent = self.txpath.transmitted() * self.scenario.xmit.packet_bytes if self.txpath is not None else 0
        now = self.machine.now_ns
        return sum(link.carried_bytes(now) for link in self.links) + received + sent

    def fork(self) -> Simulation:
        """An independent twin of the run now: the same state, sharing nothing either of them changes, so
        its future (with the same live settings at the same instants) is this run's (``model.fork``)."""
        twin: Simulation = fork_state(self)
        return twin

    def checkpoint(self, keep_events: int, keep_rows: int | None = None) -> Parked:
        """This run now, parked (``model.fork.park``), to be made runs of by ``resume``: it keeps only the
        newest ``keep_events`` trace records, packed, and shares the series' rows with this run, or with
        ``keep_rows`` keeps a copy of the newest that many (``Series.parked``)."""
        reducers: dict[type, Callable[[Any], tuple[Any, ...]]] = {
            Series: lambda series: series.parked(keep_rows),
            TraceLog: lambda trace: trace.parked(keep_events),
        }
        return park(self, reducers)

    @staticmethod
    def resume(parked: Parked) -> Simulation:
        """A run made of a checkpoint (``checkpoint``): an independent twin of the run it was parked from,
        as it was then (its trace holds the records kept, packed, until ``rehand_events``)."""
        sim: Simulation = unpark(parked)
        return sim

    def advance(self, dt_ns: int, max_events: int | None = None) -> Snapshot:
        """Run ``dt_ns`` of simulated time (or until ``max_events`` events) and return a snapshot."""
        if dt_ns < 0:
            raise ValueError("dt_ns must be >= 0")
        self.machine.run_until(self.machine.now_ns + dt_ns, max_events)
        if self.txpath is not None:
            self.txpath.settle()
        return self._snapshot(self.drain_events())

    def run_to(self, t_ns: int, rule: StopRule | None = None) -> bool:
        """Run to ``t_ns`` like ``advance`` does, or with a ``rule`` stop at the first instant after which
        it hits (True), without building a snapshot or draining the trace: a replay that lands later
        hands the recent records to the window in one snapshot. The rule's ``begin`` is the caller's,
        once, where it starts."""
        if t_ns < self.machine.now_ns:
            raise ValueError(f"run_to({t_ns}) is in the past (now {self.machine.now_ns} ns)")
        if rule is None:
            self.machine.run_until(t_ns)
            hit = False
        else:
            hit = run_until_stop(self.machine, t_ns, rule, self)
        if self.txpath is not None:
            self.txpath.settle()
        return hit

    def advance_until(self, dt_ns: int, rule: StopRule) -> tuple[Snapshot, bool]:
        """``advance(dt_ns)`` that stops early where ``rule`` hits (``run_to``); says whether it hit."""
        if dt_ns < 0:
            raise ValueError("dt_ns must be >= 0")
        hit = self.run_to(self.machine.now_ns + dt_ns, rule)
        return self._snapshot(self.drain_events()), hit

    def dequeuer_cpu(self) -> int:
        """The CPU holding the qdisc's dequeuer role now, -1 when none (or without a transmit path)."""
        if self.txpath is None:
            return -1
        return self.txpath.dequeuer_cpu()

    def step_event(self) -> Snapshot:
        """Run exactly up to and including the next event."""
        t = self.machine.q.next_time()
        if t is not None:
            self.machine.run_until(t, max_events=1)
        return self._snapshot(self.drain_events())

    def drain_events(self) -> tuple[TraceRecord, ...]:
        """The trace records since the previous drain (or advance), handed out once."""
        return self.machine.trace.drain()

    def rehand_events(self) -> None:
        """The next drain (or snapshot of ``advance``) carries every trace record the run keeps, those
        handed out already too: a window that lands on this run draws its recent past from them."""
        self.machine.trace.rehand()

    def release(self) -> None:
        """This run is done with (a landing replaced it): its trace records go now, freed as their count
        drops, where the run itself, a graph of objects that refer to each other, waits for a full
        garbage collection; thousands of records there would make those collections come sooner and
        take longer. The run's counters and state stay as they were."""
        self.machine.trace.clear()

    def settings(self) -> Mapping[str, Value]:
        """Every effective dotted key: the scenario's, with the live settings as set now (read-only)."""
        return self._settings_view

    def apply(self, command: SetTunable) -> None:
        live_command(command.key, command.value)  # checked: raises before anything changes
        section, _, name = command.key.partition(".")
        if section == "sched":
            if self.policy_info.tunable(name) is not None:  # another policy's: kept, does nothing
                self.policy.set_tunable(name, int(command.value))
        elif self.txpath is None:
            raise ScenarioError(f"{command.key}: this scenario has no qdisc (no [[tasks]] of kind 'sender')")
        elif command.key == "qdisc.exit_rule":
            self.txpath.set_exit_rule(str(command.value), self.txpath.weight_p)
        else:
            self.txpath.set_exit_rule(self.txpath.exit_rule, int(command.value))
        self._settings[command.key] = command.value
        self._settings_view = MappingProxyType(dict(self._settings))
        self.toggles.append((self.now_ns, command.key, command.value))
        if self.machine.tracing:
            self.machine.record(CommandRecord(self.now_ns, 0, command.key, command.value))
        self.series.mark(self.now_ns)  # the counters at the change: "since the last change" starts here

    def snapshot(self) -> Snapshot:
        """The state now, without events (``drain_events`` hands those out); changes nothing."""
        return self._snapshot(())

    def _snapshot(self, events: tuple[TraceRecord, ...]) -> Snapshot:
        m = self.machine
        now = m.now_ns
        cpus = cpu_views(m)
        tasks = task_views(m)
        cpu_curr = np.array([c.curr_tid for c in cpus], dtype=np.int64)
        cpu_curr.flags.writeable = False
        return Snapshot(
            t_ns=now,
            cpu_curr=cpu_curr,
            cpus=cpus,
            tasks=tasks,
            runqueues=tuple(self.policy.runqueue_view(c.index, now) for c in m.cpus),
            events=events,
            series_columns=tuple(self.series.columns),
            series=self.series.view(),
            series_layout=self.series_layout,
            toggles=tuple(self.toggles),
            settings=self._settings_view,
            acked_bytes=self.acked_bytes(),
            events_dispatched=m.q.dispatched,
            qdisc=self.qdisc_view(),
            series_anchor=self.series.anchor,
        )

    def metrics(self) -> dict[str, Any]:
        """The whole-run metrics (DESIGN.md's name for ``summary``)."""
        return self.summary()

    def summary(self) -> dict[str, Any]:
        """The whole-run metrics of ``schedlab run --json`` (the caller adds ``sim.wall_s``)."""
        m = self.machine
        duration_ns = max(m.now_ns, 1)
        return {
            "scenario": self.scenario.name,
            "seed": self.seed,
            "duration_s": seconds(duration_ns),
            "settings": {k: list(v) if isinstance(v, tuple) else v for k, v in self._settings.items()},
            "bandwidth_mbps": bandwidth_mbps(self.acked_bytes(), duration_ns),
            **machine_summary(m, duration_ns),
            "toggles": [{"t_s": seconds(t), "key": k, "value": v} for t, k, v in self.toggles],
            "sim": {"events": m.q.dispatched},
            **({} if self.nic_rx is None else rx_summary(self.nic_rx)),
            **({} if self.txpath is None or self.qdisc is None else qdisc_summary(self.txpath, self.qdisc)),
        }

    def qdisc_view(self) -> QdiscView | None:
        if self.txpath is None or self.qdisc is None:
            return None
        return qdisc_view(self.txpath, self.qdisc, len(self.machine.cpus))
