"""The stop rules that run the model until something happens (Step, the lessons' "run until"), and
``run_to``, the replay's advance that keeps the trace."""

from __future__ import annotations

import pytest

from model.scenario import load_scenario
from model.simulation import Simulation
from model.snapshot import TenureRecord, YieldRecord
from model.stops import DequeuerChanges, NextRecord, YieldLands

MS = 1_000_000


def _summary(sim: Simulation) -> dict:
    out = sim.summary()
    out.pop("sim")  # the work counter counts sample events too
    return out


def test_run_to_is_advance_without_a_snapshot_and_keeps_the_trace_for_the_next_one() -> None:
    sc = load_scenario("cfs-yield-2007")
    a, b = Simulation(sc), Simulation(sc)
    events = a.advance(40 * MS).events
    b.run_to(40 * MS)
    assert b.advance(0).events == events
    assert _summary(a) == _summary(b)
    with pytest.raises(ValueError):
        b.run_to(MS)


def test_advance_until_a_yield_stops_at_a_clean_instant_of_the_same_run() -> None:
    sc = load_scenario("cfs-yield-2007")
    sim = Simulation(sc, trace="full")
    sim.advance(20 * MS)
    rule = YieldLands()
    rule.begin(sim)
    snap, hit = sim.advance_until(50 * MS, rule)
    assert hit and any(isinstance(r, YieldRecord) for r in snap.events)
    stop = sim.now_ns
    assert 20 * MS < stop < 70 * MS
    plain = Simulation(sc, trace="full")
    plain.advance(stop)
    assert _summary(plain) == _summary(sim)
    assert plain.machine.trace.records == sim.machine.trace.records
    yields = [r for r in plain.machine.trace.records if isinstance(r, YieldRecord) and r.t_ns > 20 * MS]
    assert yields and yields[0].t_ns <= stop


def test_advance_until_that_never_hits_is_advance() -> None:
    sim = Simulation(load_scenario("bfs-saturated-2009"))
    snap, hit = sim.advance_until(10 * MS, YieldLands(tid=99))
    assert not hit and snap.t_ns == 10 * MS


def test_next_record_steps_to_the_next_thing_that_happens() -> None:
    sim = Simulation(load_scenario("yield-playground"))
    sim.advance(5 * MS)
    snap, hit = sim.advance_until(10 * MS, NextRecord())
    assert hit and snap.events and all(r.t_ns <= snap.t_ns for r in snap.events)


def test_the_dequeuer_rule_stops_when_another_cpu_holds_the_role() -> None:
    sim = Simulation(load_scenario("qdisc-fairness-2011"), trace="full")
    sim.advance(30 * MS)
    rule = DequeuerChanges()
    rule.begin(sim)
    holder = sim.dequeuer_cpu()
    _snap, hit = sim.advance_until(200 * MS, rule)
    assert hit
    now = sim.dequeuer_cpu()
    assert now >= 0 and (holder < 0 or now != holder)
    assert any(isinstance(r, TenureRecord) for r in sim.machine.trace.records)


def test_a_step_in_the_2011_story_stops_at_the_dequeuers_turns_not_at_every_softirq() -> None:
    from model.snapshot import IrqRecord, TenureRecord
    from model.stops import NextRecord, steps_at

    assert not steps_at(IrqRecord(0, 0, 0, 100, open_context=True))
    assert steps_at(IrqRecord(0, 0, 100, 100))  # an interrupt raised whole (2007, 2009) still is one
    sim = Simulation(load_scenario("qdisc-fairness-2011"), trace="recent")
    sim.advance(20 * MS)
    kinds = set()
    for _ in range(5):
        snap, hit = sim.advance_until(5 * MS, NextRecord())
        stopped_at = [r for r in snap.events if steps_at(r)]
        assert hit and stopped_at
        kinds |= {type(r) for r in stopped_at}
    assert TenureRecord in kinds  # the story's events, where each step used to end on a softirq's stretch
