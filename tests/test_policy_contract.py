"""One contract for every registered policy: its registry entry, its tunables, and what it tells snapshots.

Each check runs the same way for every entry of ``model.sched.POLICIES``, so a new policy module is held
to all of it by being registered. ``picks_next`` is checked against the policy itself: at an instant of
a real run, the CPU is rescheduled by hand (update_curr, put_prev, pick_next, in the machine's order) and
must pick the task its view said.
"""

from __future__ import annotations

import typing

import pytest
from fakes import TWO_CPUS

from model.scenario import ScenarioError, load_scenario, parse_scenario
from model.sched import POLICIES, TUNABLES, owners
from model.simulation import LIVE_KEYS, SetTunable, Simulation
from model.snapshot import (
    VIEW_KINDS,
    SwitchRecord,
    TaskView,
    YieldLanding,
    YieldOutcome,
    YieldReason,
    YieldRecord,
)

MS = 1_000_000
NAMES = list(POLICIES)
INSTANTS_NS = (3_700_000, 17_300_000, 41_900_000, 120_100_000)


def scenario(policy: str, cpus: int):  # type: ignore[no-untyped-def]
    base = load_scenario("yield-playground") if cpus == 1 else parse_scenario(TWO_CPUS, "two-cpus.toml")
    return base.with_overrides({"sched.policy": policy})


@pytest.mark.parametrize("name", NAMES)
def test_registry_entry_is_complete(name: str) -> None:
    info = POLICIES[name]
    assert info.name == name and info.label and info.kernel and info.source
    policy = info.factory(2, 250)
    assert policy.name == name
    assert info.view_kind in VIEW_KINDS
    for t in info.tunables:
        assert TUNABLES[t.key] is t and info in owners(t.key)
        assert t.default in t.allowed() and t.title and t.help
        assert f"sched.{t.key}" in LIVE_KEYS if t.live else f"sched.{t.key}" not in LIVE_KEYS
    defaults = {t.key: t.default for t in info.tunables}
    assert info.describe_yield(defaults)
    for t in info.tunables:  # every choice of every tunable has its own words where they matter
        texts = {info.describe_yield({**defaults, t.key: value}) for value in t.allowed()}
        assert len(texts) == len(list(t.allowed())) or not t.about_yield


@pytest.mark.parametrize("name", NAMES)
def test_a_policy_takes_its_own_tunables_only(name: str) -> None:
    info = POLICIES[name]
    policy = info.factory(1, 250)
    for key, t in TUNABLES.items():
        if info.tunable(key) is None:
            with pytest.raises(KeyError):
                policy.set_tunable(key, t.default)
        else:
            for value in t.allowed():
                policy.set_tunable(key, value)
                assert int(getattr(policy, key)) == value  # a tunable is the policy's field of its name


@pytest.mark.parametrize("name", NAMES)
def test_tunables_reach_the_policy_from_a_scenario_and_live(name: str) -> None:
    info = POLICIES[name]
    others = {f"sched.{k}": t.allowed()[-1] for k, t in TUNABLES.items() if info.tunable(k) is None}
    for t in info.tunables:
        value = next(v for v in t.allowed() if v != t.default)
        sim = Simulation(scenario(name, 1).with_overrides({f"sched.{t.key}": value, **others}))
        assert int(getattr(sim.policy, t.key)) == value
        sim.advance(5 * MS)
        sim.apply(SetTunable(f"sched.{t.key}", t.default))
        assert int(getattr(sim.policy, t.key)) == t.default
    sim = Simulation(scenario(name, 1).with_overrides(others))
    sim.advance(5 * MS)
    for key, value in others.items():  # another policy's: kept in the settings, never sent
        assert sim.settings()[key] == value
        sim.apply(SetTunable(key, value))
    assert sim.summary()["settings"]["sched.policy"] == name


def _check_views(sim: Simulation, kind: type) -> None:
    snap = sim.snapshot()
    on: dict[int, TaskView] = {t.tid: t for t in snap.tasks if t.state in ("running", "runnable")}
    seen: set[int] = set()
    for cpu, view in zip(snap.cpus, snap.runqueues, strict=True):
        assert isinstance(view, kind) and view.cpu == cpu.index
        running = {e.tid for e in view.entries if e.running}
        if POLICIES[sim.scenario.sched.policy].global_queue:
            assert running == {c.curr_tid for c in snap.cpus} - {0}
        else:
            assert running == ({cpu.curr_tid} - {0})
            assert all(on[e.tid].cpu == cpu.index for e in view.entries)
        assert len({e.tid for e in view.entries}) == len(view.entries)
        assert sum(e.picks_next for e in view.entries) == (1 if sim.policy.nr_running(cpu.index) else 0)
        seen |= {e.tid for e in view.entries}
    assert seen == set(on)


@pytest.mark.parametrize("cpus", [1, 2])
@pytest.mark.parametrize("name", NAMES)
def test_runs_keep_the_views_consistent_and_the_yields_typed(name: str, cpus: int) -> None:
    kind = VIEW_KINDS[POLICIES[name].view_kind]
    sim = Simulation(scenario(name, cpus), trace="full")
    for t in INSTANTS_NS:
        sim.advance(t - sim.now_ns)
        _check_views(sim, kind)
    records = sim.machine.trace.records
    yields = [(i, r) for i, r in enumerate(records) if isinstance(r, YieldRecord)]
    assert yields, "the yielder yields"
    for i, r in yields:
        o = r.outcome
        assert isinstance(o, YieldOutcome)
        assert o.landing in typing.get_args(YieldLanding) and o.reason in typing.get_args(YieldReason)
        assert o.noop == (o.reason != "") and POLICIES[name].describe_landing(o)
        brief = POLICIES[name].describe_landing(o, brief=True)  # a narrow footer's: the numbers left out
        assert brief and not any(c.isdigit() for c in brief), brief
        after = next((x for x in records[i + 1 :] if x.cpu == r.cpu and x.t_ns == r.t_ns), None)
        switched = isinstance(after, SwitchRecord) and after.prev_tid == r.tid
        assert r.switched == switched


@pytest.mark.parametrize("t_ns", INSTANTS_NS)
@pytest.mark.parametrize("cpus", [1, 2])
@pytest.mark.parametrize("name", NAMES)
def test_picks_next_is_what_the_policy_picks(name: str, cpus: int, t_ns: int) -> None:
    sim = Simulation(scenario(name, cpus), trace="off")
    sim.advance(t_ns)
    policy, now = sim.policy, sim.now_ns
    cpu = sim.machine.cpus[-1]
    if cpu.curr is None:
        pytest.skip("the CPU is idle at this instant")
    policy.update_curr(cpu.index, now)  # what schedule() does first: the view is then exact
    view = policy.runqueue_view(cpu.index, now)
    (expected,) = [e.tid for e in view.entries if e.picks_next]
    policy.put_prev(cpu.curr, cpu.index, now)
    picked = policy.pick_next(cpu.index, now)
    assert picked is not None and picked.tid == expected


def test_bad_sched_settings_are_one_line_errors() -> None:
    sc = load_scenario("yield-playground")
    with pytest.raises(ScenarioError, match=r"sched.yield_forfeit = 2 is not allowed; allowed: one of 0, 1"):
        sc.with_overrides({"sched.yield_forfeit": "2"})
    with pytest.raises(
        ScenarioError, match="allowed keys in \\[sched\\]: policy, compat_yield, yield_expires, yield_forfeit"
    ):
        sc.with_overrides({"sched.latency_ns": "1"})
    toml = "[sched]\npolicy = 'eevdf'\nyield_forfeit = 0\nrun_to_parity = 0\n"
    parsed = parse_scenario(toml, "x.toml")
    assert (parsed.sched.tunable("yield_forfeit"), parsed.sched.tunable("run_to_parity")) == (0, 0)
    assert parsed.sched.tunable("compat_yield") == 0  # every registered tunable, with its default
