"""Going back by replay (gui/rewind.py, no Qt): a landing rebuilds exactly the state the live run had at
that instant, with every live setting of the recording; a new setting after a landing is a new branch;
rungs are refilled within a budget and consumed by landings."""

from __future__ import annotations

import itertools
import random
from typing import get_args

import pytest

from gui.rewind import (
    DENSE_REACH_NS,
    LONG_RUNGS,
    MAX_RUNGS,
    RUNG_EVENTS,
    SPACING_BASE_NS,
    Instance,
    Rewinder,
    spacing_for,
)
from model.fork import ForkError
from model.machine.trace import CHUNK, TRACE_LIMIT, TraceLog, pack_records, unpack_records
from model.scenario import load_scenario
from model.simulation import SetTunable, Simulation
from model.snapshot import (
    TRACE_RECORD_TYPES,
    YIELD_ALONE,
    CommandRecord,
    IrqRecord,
    SwitchRecord,
    TenureRecord,
    TraceRecord,
    WakeRecord,
    YieldOutcome,
    YieldRecord,
)
from model.stops import DequeuerChanges, NextRecord, YieldLands

MS = 1_000_000


def state(sim: Simulation) -> tuple[object, ...]:
    """Everything a landing must reproduce (the work counter aside: it counts sample events)."""
    summary = sim.summary()
    summary.pop("sim")
    snap = sim.snapshot()
    return (summary, snap.t_ns, snap.cpus, snap.tasks, snap.runqueues, snap.qdisc, snap.toggles)


def straight(name: str, commands: list[tuple[int, str, int | str]], to_ns: int) -> Simulation:
    """The recording replayed by hand: advance to each command, apply it, on to ``to_ns``."""
    sim = Simulation(load_scenario(name))
    for t, key, value in commands:
        if t > to_ns:
            break
        sim.advance(t - sim.now_ns)
        sim.apply(SetTunable(key, value))
    sim.advance(to_ns - sim.now_ns)
    return sim


def build(name: str):
    scenario = load_scenario(name)
    return lambda: Simulation(scenario, sample_ns=5 * MS, keep_rows=512)


def play(rw: Rewinder, live: Instance, frames: int, rng: random.Random) -> None:
    for _ in range(frames):
        rw.advance(live, rng.randrange(1, 4 * MS))


@pytest.mark.parametrize(
    ("name", "key", "values"),
    [
        ("cfs-yield-2007", "sched.compat_yield", (1, 0)),
        ("qdisc-fairness-2011", "qdisc.exit_rule", ("quota", "time")),
    ],
)
@pytest.mark.parametrize("spacing_ns", [None, 10 * MS])  # measured (few rungs, if any) or a dense ladder
def test_a_landing_is_the_state_the_run_had_there(
    name: str, key: str, values: tuple, spacing_ns: int | None
) -> None:
    rng = random.Random(7)
    rw = Rewinder(build(name), spacing_ns=spacing_ns)
    live = rw.fresh()
    commands = []
    for value in values:
        play(rw, live, 15, rng)
        live.sim.apply(SetTunable(key, value))
        rw.record(live, key, value)
        commands.append((live.t_ns, key, value))
    play(rw, live, 15, rng)
    end = live.t_ns
    assert rw.reach_ns == end
    while rw.work(0.05):
        pass
    assert rw.due() == []
    assert rw.rungs or rw.spacing_ns > end, "the ladder was filled"
    for target in (end - 1, commands[1][0], commands[0][0] - 1, 3 * MS + 17, 0, end):
        live = rw.land(target, live)
        assert live.t_ns == target
        assert state(live.sim) == state(straight(name, commands, target))
    # Playing on from a landing goes through the recorded settings again.
    live = rw.land(commands[0][0] - 5 * MS, live)
    rw.advance(live, end - live.t_ns)
    assert state(live.sim) == state(straight(name, commands, end))


def test_a_new_setting_after_a_landing_starts_a_new_branch() -> None:
    rw = Rewinder(build("cfs-yield-2007"))
    live = rw.fresh()
    rw.advance(live, 30 * MS)
    live.sim.apply(SetTunable("sched.compat_yield", 1))
    rw.record(live, "sched.compat_yield", 1)
    rw.advance(live, 30 * MS)
    assert rw.reach_ns == 60 * MS and len(rw.commands) == 1
    live = rw.land(10 * MS, live)
    assert live.applied == 0
    live.sim.apply(SetTunable("sched.compat_yield", 1))
    rw.record(live, "sched.compat_yield", 1)
    assert [c.t_ns for c in rw.commands] == [10 * MS] and rw.reach_ns == 10 * MS
    assert all(r.t_ns <= 10 * MS for r in rw.rungs.values())
    rw.advance(live, 5 * MS)
    assert state(live.sim) == state(straight("cfs-yield-2007", [(10 * MS, "sched.compat_yield", 1)], 15 * MS))


def test_a_setting_after_a_landing_with_no_later_command_drops_the_later_rungs() -> None:
    # The rungs after the landing were kept when no command followed it: they held the old branch
    # without the new setting, and the next landing past them resumed one whose next command lay in
    # its past ("run_to(5254417) is in the past (now 39062500 ns)").
    rw = Rewinder(build("cfs-yield-2007"), spacing_ns=10 * MS)
    live = rw.fresh()
    rw.advance(live, 50 * MS)
    assert 40 * MS in rw.rungs and rw.commands == []
    live = rw.land(5 * MS, live)
    live.sim.apply(SetTunable("sched.compat_yield", 1))
    rw.record(live, "sched.compat_yield", 1)
    assert rw.reach_ns == 5 * MS and all(r.t_ns <= 5 * MS for r in rw.rungs.values())
    rw.advance(live, 45 * MS)
    landed = rw.land(45 * MS, live)
    recorded = [(5 * MS, "sched.compat_yield", 1)]
    assert state(landed.sim) == state(straight("cfs-yield-2007", recorded, 45 * MS))


@pytest.mark.parametrize(
    ("name", "key", "values"),
    [
        ("cfs-yield-2007", "sched.compat_yield", (1, 0)),
        ("qdisc-fairness-2011", "qdisc.exit_rule", ("quota", "time", "quota+jiffy")),
    ],
)
@pytest.mark.parametrize("seed", range(4))
def test_any_mix_of_playing_landing_and_settings_is_the_recording_replayed(
    name: str, key: str, values: tuple, seed: int
) -> None:
    """Random use of the clock, as a class does it: play on, step to the next thing that happens, jump
    back or forward, change a setting (after a jump: a new branch), refill checkpoints; every instant
    is the state a straight run of the settings as last recorded has there."""
    rng = random.Random(seed)
    rw = Rewinder(build(name), spacing_ns=rng.choice([5 * MS, 10 * MS]))  # rungs to land on
    live = rw.fresh()
    truth: list[tuple[int, str, int | str]] = []  # the recording: a new setting drops what came after
    steps_hit = 0
    for _ in range(40):
        op = rng.choice(["play", "play", "step", "land", "land", "set", "work"])
        if op == "play":
            rw.advance(live, rng.randrange(1, 8 * MS))
        elif op == "step":  # the window's Step, or a lesson's "until the dequeuer changes"
            rule = rng.choice([NextRecord(), YieldLands(), DequeuerChanges()])
            _snap, hit = rw.advance(live, 20 * MS, rule)
            steps_hit += hit
        elif op == "land":
            live = rw.land(rng.randrange(0, rw.reach_ns + 1), live)
        elif op == "set":
            value = rng.choice(values)
            live.sim.apply(SetTunable(key, value))
            rw.record(live, key, value)
            truth = [c for c in truth if c[0] <= live.t_ns] + [(live.t_ns, key, value)]
        else:
            rw.work(0.002)
            continue
        assert rw.reach_ns >= live.t_ns
        assert state(live.sim) == state(straight(name, truth, live.t_ns)), (op, live.t_ns, truth)
    assert steps_hit, "a step stopped mid-run at least once"


def test_landing_forward_from_the_live_run_consumes_no_rung() -> None:
    rw = Rewinder(build("yield-playground"))
    live = rw.fresh()
    rw.advance(live, 50 * MS)
    live = rw.land(20 * MS, live)
    while rw.work(0.05):
        pass
    rungs = dict(rw.rungs)
    same = rw.land(40 * MS, live)
    assert same is live and rw.rungs == rungs


def test_the_live_run_parks_a_rung_at_every_rung_instant_it_passes_and_a_landing_keeps_it() -> None:
    rw = Rewinder(build("qdisc-fairness-2011"), spacing_ns=25 * MS)
    live = rw.fresh()
    rw.advance(live, 40 * MS)
    rw.advance(live, 40 * MS)
    assert sorted(rw.rungs) == [25 * MS, 50 * MS, 75 * MS] and rw.due() == []
    assert rw.copies == 3
    for t, rung in rw.rungs.items():
        resumed = rung.resume()
        assert rung.t_ns == t and resumed.sim is not live.sim
        assert state(resumed.sim) == state(straight("qdisc-fairness-2011", [], t))
    landed = rw.land(60 * MS, live)
    assert landed is not rw.rungs[50 * MS] and rw.rungs[50 * MS].t_ns == 50 * MS, "the rung stays"
    assert state(landed.sim) == state(straight("qdisc-fairness-2011", [], 60 * MS))
    # The window forgets its history at a landing: the landed run hands it the recent past again,
    # from before the rung it was copied from.
    events = landed.sim.advance(0).events
    assert events and min(e.t_ns for e in events) < 50 * MS and max(e.t_ns for e in events) <= 60 * MS
    assert landed.sim.advance(0).events == (), "handed out once"


def test_a_run_whose_state_cannot_be_parked_keeps_no_rung_and_lands_by_replay_from_the_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(self: Simulation, keep_events: int, keep_rows: int | None = None) -> object:
        raise ForkError("a lambda or closure in the state")

    monkeypatch.setattr(Simulation, "checkpoint", refuse)
    rw = Rewinder(build("qdisc-fairness-2011"), spacing_ns=25 * MS)
    live = rw.fresh()
    rw.advance(live, 40 * MS)  # passes the 25 ms rung instant: the park fails, the live run goes on
    rw.advance(live, 40 * MS)
    assert live.t_ns == 80 * MS and rw.reach_ns == 80 * MS
    assert rw.rungs == {} and rw.due() == [] and not rw.pending() and not rw.work(0.05)
    assert rw.unparkable is not None and "lambda" in rw.unparkable
    landed = rw.land(60 * MS, live)
    assert landed is not live and landed.t_ns == 60 * MS
    assert state(landed.sim) == state(straight("qdisc-fairness-2011", [], 60 * MS))


def test_a_finer_ladder_is_filled_by_one_replay_within_the_budget() -> None:
    ticks = itertools.count()
    rw = Rewinder(build("yield-playground"), clock=lambda: next(ticks) * 0.001, spacing_ns=20 * MS)
    live = rw.fresh()
    rw.advance(live, 70 * MS)
    assert sorted(rw.rungs) == [20 * MS, 40 * MS, 60 * MS]
    rw.spacing_ns = 10 * MS  # what a slower measured speed does
    assert rw.due() == [10 * MS, 30 * MS, 50 * MS, 70 * MS]
    copies = rw.copies
    while rw.work(0.5):
        pass
    assert sorted(rw.rungs) == [k * 10 * MS for k in range(1, 8)]
    assert rw.copies == copies + 4, "one replay from t = 0 parked every missing rung: no copy to start it"
    for t in (10 * MS, 50 * MS):
        assert state(rw.rungs[t].resume().sim) == state(straight("yield-playground", [], t))


def test_the_spacing_follows_the_model_speed_and_the_recording_length() -> None:
    assert spacing_for(1e8, 0) == SPACING_BASE_NS  # slow model: the finest ladder
    # 10 simulated s per wall s: a landing replays at most 0.1 wall s, so a rung every second, once the
    # recording is long enough to have 32 of them (a rung every 250 ms before).
    assert spacing_for(1e10, 100 * 10**9) == 1_000_000_000
    assert spacing_for(1e10, 0) == spacing_for(1e11, 0) == 250_000_000
    assert spacing_for(1e11, 1000 * 10**9) == 8_000_000_000
    # The 2011 story, compiled (about 0.15 simulated s per wall s): 7.8 ms, and 15.6 ms over 10 s (at
    # most 1024 rungs); where only 384 rungs fit the memory budget, 31 ms.
    assert spacing_for(1.5e8, 0) == SPACING_BASE_NS
    assert spacing_for(1.5e8, 10 * 10**9) == 15_625_000
    assert spacing_for(1.5e8, 10 * 10**9, max_rungs=384) == 31_250_000
    half_an_hour = 1800 * 10**9
    assert half_an_hour // spacing_for(1e10, half_an_hour) < MAX_RUNGS


def test_the_ladder_of_a_long_recording_stops_growing_and_a_slow_story_keeps_its_dense_one() -> None:
    """A fast story (100 simulated s per wall s) keeps fewer than ``LONG_RUNGS`` rungs however long the
    recording, a landing in half an hour of it still replaying less than 0.3 s; the 2011 story (0.15
    simulated s per wall s) keeps the ladder its landings need over ``DENSE_REACH_NS``."""
    fast = Rewinder(build("cfs-yield-2007"))
    fast.rate_ns_per_s = 1e11
    counts, replay_s = [], []
    for minutes in (2, 5, 10, 20, 30, 60, 120):
        fast.reached(minutes * 60 * 10**9)
        counts.append(fast.reach_ns // fast.spacing_ns)
        replay_s.append(fast.spacing_ns / fast.rate_ns_per_s)
    assert max(counts) < LONG_RUNGS <= 2 * min(counts[2:]), counts  # bounded, and never thinner than half
    assert max(replay_s[:5]) < 0.3, replay_s  # a half-hour lesson
    slow = Rewinder(build("qdisc-fairness-2011"))
    slow.rate_ns_per_s = 1.5e8
    slow.reached(DENSE_REACH_NS)
    assert slow.spacing_ns == spacing_for(1.5e8, DENSE_REACH_NS) == 31_250_000


def test_the_window_lands_past_two_seconds_of_nanoseconds(qtbot) -> None:
    """Simulated instants past 2^31 ns travel through the landing and scrubbing signals whole."""
    from gui.playback import Playback

    pb = Playback(load_scenario("cfs-yield-2007"), use_timer=False)
    pb.advance_to(3000 * MS)
    with qtbot.waitSignal(pb.landed) as blocker:
        snap = pb.seek(2_500_000_000)
    assert snap is not None and snap.t_ns == blocker.args[0] == 2_500_000_000
    pb.stop()


def test_the_window_opens_on_the_instant_a_landing_at_the_start_shows(qtbot) -> None:
    """The window's live run stood before its events at t = 0 (the CPU idle), a replay from the start
    after them (a task running): going back to the start showed another picture than the window opened
    on, and a setting applied before the first frame came before those events live, after them in a
    replay."""
    from gui.playback import Playback

    pb = Playback(load_scenario("cfs-yield-2007"), use_timer=False)
    opened = state(pb.simulation)
    assert opened[2][0].curr_tid != 0, "a task runs at t = 0"
    pb.advance_to(30 * MS)
    pb.seek(0)
    assert state(pb.simulation) == opened
    assert pb.apply_live("sched.compat_yield", 1)
    pb.advance_to(30 * MS)
    pb.seek(10 * MS)
    assert state(pb.simulation) == state(straight("cfs-yield-2007", [(0, "sched.compat_yield", 1)], 10 * MS))
    pb.stop()


def test_packed_records_come_back_equal_and_in_order() -> None:
    outcome = YieldOutcome("later_deadline", "", False, 120, -5, 3_000_000, 7, 2_800_000)
    records = [
        SwitchRecord(1, 0, 2, 0),
        WakeRecord(2, 1, 3),
        IrqRecord(10**12, 3, 5_000, 17_000),
        YieldRecord(10**12 + 1, 0, 2, outcome, True),
        YieldRecord(10**12 + 2, 0, 2, YIELD_ALONE, False),
        CommandRecord(5, -1, "qdisc.exit_rule", "quota"),
        CommandRecord(6, -1, "sched.compat_yield", 1),
        TenureRecord(7, 2, 40_000, 64, "quota", "ksoftirqd"),
    ]
    assert set(get_args(TraceRecord)) == set(TRACE_RECORD_TYPES) == {type(r) for r in records}
    back = unpack_records(pack_records(records))
    assert back == records
    assert [type(r) for r in back] == [type(r) for r in records]
    assert unpack_records(pack_records([])) == []


def test_checkpoints_of_a_drained_trace_reuse_its_packed_chunks_and_keep_its_newest_records() -> None:
    """As in the window: the live run is drained every frame and parked every few milliseconds. Each
    checkpoint keeps the newest records (at least ``RUNG_EVENTS``, at most a chunk more), equal to an
    uninterrupted full trace's, and a chunk of drained records is packed once, however many rungs keep
    it, across the trace's trims as well."""
    scenario = load_scenario("qdisc-fairness-2011")
    live = Simulation(scenario, sample_ns=5 * MS, trace="recent")
    full = Simulation(scenario, sample_ns=5 * MS, trace="full")
    trace = live.machine.trace
    earlier: set[int] = set()
    held: list[bytes] = []  # alive, so that no later blob takes an earlier one's id
    reused = 0
    for step in range(1, 40):
        live.advance(3 * MS)  # a frame: the window drains what it drew
        if step % 3:
            continue
        _resume, (_full, _appended, blobs) = trace.parked(RUNG_EVENTS)
        reused += sum(id(blob) in earlier for blob in blobs)
        earlier |= {id(blob) for blob in blobs}
        held += blobs
        kept = [record for blob in blobs for record in unpack_records(blob)]
        full.run_to(live.now_ns)
        made = full.machine.trace.records
        assert min(RUNG_EVENTS, len(made)) <= len(kept) <= RUNG_EVENTS + CHUNK
        assert kept == made[len(made) - len(kept) :], f"step {step}"
        resumed = Simulation.resume(live.checkpoint(RUNG_EVENTS, 16))
        resumed.rehand_events()
        assert list(resumed.drain_events())[-len(kept) :] == kept
    assert reused > 20, "chunks packed once serve the later rungs"


def test_a_trimmed_trace_parks_its_newest_records_from_chunks_packed_once() -> None:
    """Past ``TRACE_LIMIT`` records the trace lets its oldest drained ones go; the chunks numbered
    before the trim still hold the same records, and a chunk cut by the trim is packed as it is."""
    trace = TraceLog(full=False)
    made: list[SwitchRecord] = []
    earlier: set[int] = set()
    held: list[bytes] = []
    reused = parks = 0
    for t in range(1, 3 * TRACE_LIMIT):
        record = SwitchRecord(t, t % 4, t % 7, t % 5)
        trace.add(record)
        made.append(record)
        if t % 37 == 0:
            trace.drain()
        if t % 701 == 0:
            parks += 1
            _resume, (_full, _appended, blobs) = trace.parked(RUNG_EVENTS)
            reused += sum(id(blob) in earlier for blob in blobs)
            earlier |= {id(blob) for blob in blobs}
            held += blobs
            kept = [record for blob in blobs for record in unpack_records(blob)]
            assert min(RUNG_EVENTS, len(made)) <= len(kept) <= RUNG_EVENTS + CHUNK
            assert kept == made[-len(kept) :], f"at {t}"
    assert len(trace.records) < len(made), "the trace was trimmed"
    assert reused > parks * (RUNG_EVENTS // CHUNK) // 2


@pytest.mark.parametrize("name", ["cfs-yield-2007", "qdisc-fairness-2011"])
def test_a_landing_hands_the_window_the_recent_past_of_the_run(name: str) -> None:
    """A rung keeps its recent records packed; landed on, the run hands out the very records an
    uninterrupted run made up to that instant (its newest ones)."""
    scenario = load_scenario(name)
    rw = Rewinder(lambda: Simulation(scenario, sample_ns=5 * MS, trace="recent"), spacing_ns=10 * MS)
    live = rw.fresh()
    rw.advance(live, 95 * MS)
    assert rw.rungs, "the live run parked rungs"
    for rung in rw.rungs.values():
        trace = rung.resume().sim.machine.trace
        assert trace.records == [] and trace.packed, "a rung's records are packed"
    full = Simulation(scenario, sample_ns=5 * MS, trace="full")
    for target in (34 * MS + 5, 60 * MS, 81 * MS + 999):
        live = rw.land(target, live)
        handed = list(live.sim.drain_events())
        full.run_to(target)
        made = full.machine.trace.records
        assert len(handed) >= min(RUNG_EVENTS, len(made)) > 0
        assert handed == made[len(made) - len(handed) :]


def test_the_rungs_memory_is_measured_and_kept_within_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each rung's size is its blob's (the state pickled, its trace packed: tens of KB, not the megabyte
    of its records unpacked); the ladder thins itself to fit the budget."""
    import gui.rewind as rewind

    ticks = itertools.count()
    rw = Rewinder(
        lambda: Simulation(load_scenario("cfs-yield-2007"), sample_ns=5 * MS, trace="recent"),
        clock=lambda: next(ticks) * 0.002,  # every timed run "takes" 2 ms: a fast model, a coarse ladder
    )
    live = rw.fresh()
    rw.advance(live, 2000 * MS)
    sizes = [r.size for r in rw.rungs.values()]
    assert sizes and all(5_000 < s < 120_000 for s in sizes), sizes
    budget = 8 * sum(sizes) // len(sizes)
    monkeypatch.setattr(rewind, "RUNG_BUDGET_BYTES", budget)
    monkeypatch.setattr(rewind, "MIN_RUNGS", 2)
    for _ in range(40):
        rw.advance(live, 500 * MS)
        assert len(rw.rungs) < rw.max_rungs() <= 8
        assert rw.rung_bytes <= 1.5 * budget
    assert rw.spacing_ns > 1000 * MS, "a longer recording spread the rungs out"
