"""The transmit path: closed-form tenures equal the per-packet reference; conservation; one dequeuer."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model.metrics import jain_index
from model.scenario import load_scenario
from model.simulation import SetTunable, Simulation
from model.snapshot import TenureRecord

MS = 1_000_000


def run(overrides: dict[str, object], duration_ns: int, trace: str = "full") -> Simulation:
    sim = Simulation(load_scenario("qdisc-fairness-2011").with_overrides(overrides), trace=trace)
    sim.advance(duration_ns)
    return sim


def tenures(sim: Simulation) -> list[tuple[int, int, int, int, str]]:
    records = sim.machine.trace.records
    return [
        (r.t_ns, r.cpu, r.dur_ns, r.packets, r.exit_reason) for r in records if isinstance(r, TenureRecord)
    ]


@pytest.mark.parametrize("rule", ["time", "quota"])
@pytest.mark.parametrize("device", ["nic", "dummy"])
def test_closed_form_equals_per_packet_reference(rule: str, device: str) -> None:
    base = {"qdisc.exit_rule": rule, "net.device": device}
    fast = run({**base, "qdisc.per_packet": False}, 8 * MS)
    slow = run({**base, "qdisc.per_packet": True}, 8 * MS)
    assert tenures(fast) and tenures(fast) == tenures(slow)
    assert fast.summary()["qdisc"] == slow.summary()["qdisc"]
    assert fast.machine.q.dispatched * 5 < slow.machine.q.dispatched  # and it is the cheaper one


@pytest.mark.parametrize("rule", ["time", "quota"])
def test_packets_are_conserved_per_band_and_in_total(rule: str) -> None:
    sim = run({"qdisc.exit_rule": rule}, 20 * MS, trace="off")
    q = sim.summary()["qdisc"]
    assert q["enqueued"] == q["dequeued"] + q["dropped"] + q["backlog"]
    st = sim.qdisc.stats()  # type: ignore[union-attr]
    for band in st.bands:
        assert band.enqueued == band.sent + band.dropped + band.backlog
    assert sum(q["per_cpu_dequeued"]) == q["dequeued"]


def test_exactly_one_dequeuer_at_a_time() -> None:
    sim = run({}, 20 * MS)
    spans = sorted((t, t + d, cpu) for t, cpu, d, _, _ in tenures(sim))
    for (_, end, _), (start, _, _) in itertools.pairwise(spans):
        assert start >= end


def test_quota_ends_tenures_at_weight_p_and_toggles_live() -> None:
    sim = run({"qdisc.exit_rule": "time"}, 5 * MS, trace="full")
    sim.apply(SetTunable("qdisc.exit_rule", "quota"))
    sim.apply(SetTunable("qdisc.weight_p", 16))
    sim.machine.trace.records.clear()
    sim.advance(5 * MS)
    sizes = [packets for _, _, _, packets, _ in tenures(sim)]
    assert sizes and max(sizes[1:]) <= 16
    assert "quota" in {reason for *_, reason in tenures(sim)}


def test_dequeuer_role_follows_the_nic_interrupt_cpus_under_the_time_rule() -> None:
    # Mechanism, not figures: the CPUs that clean the TX ring take the role after each wake.
    sim = run({"qdisc.exit_rule": "time", "net.irq_cpus": [1, 2]}, 200 * MS, trace="off")
    counts = sim.summary()["qdisc"]["per_cpu_dequeued"]
    assert min(counts[1], counts[2]) > 3 * max(counts[0], counts[3])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_quota_evens_out_what_the_time_rule_skews_over_seeds(seed: int) -> None:
    def counts(rule: str) -> list[int]:
        sc = load_scenario("qdisc-fairness-2011").with_overrides({"qdisc.exit_rule": rule})
        sim = Simulation(sc, seed=seed, trace="off")
        sim.advance(300 * MS)
        return list(sim.summary()["qdisc"]["per_cpu_dequeued"])

    time_counts, quota_counts = counts("time"), counts("quota")
    irq = [time_counts[0], time_counts[3]]  # the scenario's net.irq_cpus
    others = [time_counts[1], time_counts[2]]
    assert min(irq) > 5 * max(others)
    assert max(quota_counts) < 2 * min(quota_counts)
    assert jain_index(quota_counts) > jain_index(time_counts) + 0.2
    assert sum(quota_counts) == pytest.approx(sum(time_counts), rel=0.1)


def test_timed_busylock_sends_served_senders_away_and_matches_the_reference() -> None:
    base = {"xmit.busylock": "timed", "xmit.user_ns": 2000}
    fast = run({**base, "qdisc.per_packet": False}, 5 * MS)
    slow = run({**base, "qdisc.per_packet": True}, 5 * MS)
    assert tenures(fast) == tenures(slow)
    assert fast.summary()["qdisc"] == slow.summary()["qdisc"]
    # With senders away between packets, tenures can run the queue dry: "empty" exits appear.
    long = run(base, 50 * MS, trace="off")
    assert long.summary()["qdisc"]["exit_reasons"]["empty"] > 0


def test_user_jitter_spreads_timed_arrivals_and_keeps_the_reference() -> None:
    base = {"xmit.busylock": "timed", "xmit.user_ns": 2000, "xmit.user_jitter": 0.3}
    fast = run({**base, "qdisc.per_packet": False}, 5 * MS)
    slow = run({**base, "qdisc.per_packet": True}, 5 * MS)
    assert tenures(fast) == tenures(slow)
    assert fast.summary()["qdisc"] == slow.summary()["qdisc"]
    steady = run({**base, "xmit.user_jitter": 0.0}, 5 * MS)
    assert tenures(fast) != tenures(steady)


@settings(max_examples=12, deadline=None)
@given(
    rule=st.sampled_from(["time", "quota"]),
    device=st.sampled_from(["nic", "dummy"]),
    busylock=st.sampled_from(["saturated", "timed"]),
    user_ns=st.integers(100, 20_000),
    weight_p=st.integers(1, 200),
    sndbuf=st.integers(1, 3000),
    irq=st.lists(st.integers(0, 3), min_size=1, max_size=3, unique=True),
    seed=st.integers(0, 1000),
)
def test_random_settings_keep_the_books(
    rule: str, device: str, busylock: str, user_ns: int, weight_p: int, sndbuf: int, irq: list[int], seed: int
) -> None:
    sets = {
        "qdisc.exit_rule": rule, "net.device": device, "xmit.busylock": busylock, "xmit.user_ns": user_ns,
        "qdisc.weight_p": weight_p, "xmit.sndbuf_pkts": sndbuf, "net.irq_cpus": irq,
    }  # fmt: skip
    sim = Simulation(load_scenario("qdisc-fairness-2011").with_overrides(sets), seed=seed, trace="full")
    sim.advance(2 * MS)
    q = sim.summary()["qdisc"]
    assert q["enqueued"] == q["dequeued"] + q["dropped"] + q["backlog"]
    spans = sorted((t, t + d) for t, _, d, _, _ in tenures(sim))
    assert all(b[0] >= a[1] for a, b in itertools.pairwise(spans))
