"""The seam: snapshots are pure, events are drained once, settings travel down as a snapshot field."""

from __future__ import annotations

import dataclasses

import pytest

from model.scenario import load_scenario
from model.sched import TUNABLES
from model.simulation import SetTunable, Simulation
from model.snapshot import CommandRecord, IrqRecord, SwitchRecord, YieldRecord

MS = 1_000_000


def story() -> Simulation:
    return Simulation(load_scenario("cfs-yield-2007"), trace="recent")


def test_snapshot_changes_nothing() -> None:
    sim = story()
    sim.advance(7 * MS)
    first, second = sim.snapshot(), sim.snapshot()
    assert first.events == () and second.events == ()
    assert (first.t_ns, first.cpus, first.tasks, first.runqueues) == (
        second.t_ns,
        second.cpus,
        second.tasks,
        second.runqueues,
    )
    assert first.events_dispatched == second.events_dispatched
    assert sim.advance(3 * MS).events  # what happened meanwhile is still handed out


def test_events_are_drained_once_and_a_split_advance_hands_out_the_same() -> None:
    one, two = story(), story()
    whole = one.advance(200 * MS).events
    assert one.drain_events() == ()
    parts = two.advance(77 * MS).events + two.drain_events() + two.advance(123 * MS).events
    assert whole == parts and len(whole) > 50
    kinds = {type(r) for r in whole}
    assert {SwitchRecord, IrqRecord, YieldRecord} <= kinds


def test_a_yield_record_precedes_the_switch_it_decided() -> None:
    sim = Simulation(load_scenario("yield-playground"), trace="full")
    sim.advance(50 * MS)
    records = sim.machine.trace.records
    switched = [i for i, r in enumerate(records) if isinstance(r, YieldRecord) and r.switched]
    assert switched
    for i in switched:
        nxt = records[i + 1]
        assert isinstance(nxt, SwitchRecord) and (nxt.t_ns, nxt.cpu, nxt.prev_tid) == (
            records[i].t_ns,
            records[i].cpu,
            records[i].tid,
        )


def test_settings_are_a_read_only_snapshot_field_that_changes_with_a_command() -> None:
    sim = story()
    snap = sim.advance(MS)
    assert dict(snap.settings) == sim.scenario.settings()
    assert {f"sched.{key}" for key in TUNABLES} <= set(snap.settings)
    with pytest.raises(TypeError):
        snap.settings["sched.compat_yield"] = 1  # type: ignore[index]
    sim.apply(SetTunable("sched.compat_yield", 1))
    later = sim.advance(MS)
    assert later.settings is not snap.settings and later.settings["sched.compat_yield"] == 1
    assert snap.settings["sched.compat_yield"] == 0  # the older snapshot still says what it said
    assert [r for r in later.events if isinstance(r, CommandRecord)] == [
        CommandRecord(MS, 0, "sched.compat_yield", 1)
    ]
    assert sim.summary()["settings"]["sched.compat_yield"] == 1


def test_series_layout_names_every_counter_column() -> None:
    sim = Simulation(load_scenario("qdisc-fairness-2011"), trace="off")
    snap = sim.advance(300 * MS)
    lay, columns = snap.series_layout, snap.series_columns
    assert columns[lay.acked_bytes] == "acked_bytes" and columns[lay.switches] == "switches"
    for n in range(len(snap.cpus)):
        assert columns[lay.cpu_task_ns[n]] == f"cpu{n}_task_ns"
        assert columns[lay.cpu_dequeued[n]] == f"cpu{n}_dequeued"
        assert snap.series[-1, lay.cpu_dequeued[n]] <= snap.qdisc.per_cpu_dequeued[n]  # type: ignore[union-attr]
    for task, column in zip(snap.tasks, lay.task_exec_ns, strict=True):
        assert columns[column] == f"{task.name}_exec_ns"
    assert dataclasses.is_dataclass(lay)


def test_the_qdisc_view_says_since_when_the_dequeuer_holds_its_role() -> None:
    # The tenure in progress: the trace records it only when it ends, at the instant the view gave.
    from model.snapshot import TenureRecord

    sim = Simulation(load_scenario("qdisc-fairness-2011"), trace="full")
    checked = 0
    for _ in range(40):
        q = sim.advance(250_000).qdisc
        assert q is not None
        if q.dequeuer_cpu < 0:
            assert q.dequeuer_since_ns == -1
            continue
        since, cpu = q.dequeuer_since_ns, q.dequeuer_cpu
        assert 0 <= since <= sim.now_ns
        for _ in range(200):
            ended = [r for r in sim.advance(250_000).events if isinstance(r, TenureRecord) and r.cpu == cpu]
            if ended:
                assert ended[0].t_ns == since
                checked += 1
                break
    assert checked > 5
