"""The 3.0 transmit path: the closed form equals the per-packet reference, the books balance, and each
mechanism does what the kernel's code says. Checked on the model's own outputs (no seed figure).
"""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from model.scenario import load_scenario
from model.simulation import SetTunable, Simulation
from model.snapshot import TenureRecord

MS = 1_000_000


def run(
    sets: dict[str, object], duration_ns: int, trace: str = "full", seed: int | None = None
) -> Simulation:
    sim = Simulation(load_scenario("qdisc-fairness-2011").with_overrides(sets), seed=seed, trace=trace)
    sim.advance(duration_ns)
    return sim


def tenures(sim: Simulation) -> list[tuple[int, int, int, int, str, str]]:
    """(start, cpu, duration, packets, reason, context) of every __qdisc_run in the trace."""
    records = sim.machine.trace.records
    return [
        (r.t_ns, r.cpu, r.dur_ns, r.packets, r.exit_reason, r.context)
        for r in records
        if isinstance(r, TenureRecord)
    ]


def comparable(sim: Simulation) -> dict[str, object]:
    s = sim.summary()
    s.pop("sim")
    s["settings"].pop("qdisc.per_packet")
    return s


# ---- the closed form is the per-packet reference -----------------------------------------------------


@pytest.mark.parametrize("rule", ["time", "quota+jiffy", "quota"])
@pytest.mark.parametrize("device", ["nic", "dummy"])
def test_closed_form_equals_the_per_packet_reference(rule: str, device: str) -> None:
    base = {"qdisc.exit_rule": rule, "net.device": device}
    fast = run({**base, "qdisc.per_packet": False}, 4 * MS)
    slow = run({**base, "qdisc.per_packet": True}, 4 * MS)
    assert tenures(fast) == tenures(slow)
    assert comparable(fast) == comparable(slow)
    assert fast.txpath is not None and fast.txpath.closed_turns > 0  # and the closed form did work
    assert fast.machine.q.dispatched < slow.machine.q.dispatched
    if device == "nic":  # its interrupts come due inside turns: the stretch keeps the turn as far as it went
        assert fast.txpath.cut_turns > 0


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rule=st.sampled_from(["time", "quota+jiffy", "quota"]),
    device=st.sampled_from(["nic", "dummy"]),
    user_ns=st.sampled_from([300, 700, 1000, 2000]),
    lock_ns=st.sampled_from([0, 40, 80, 200]),
    limit=st.sampled_from([10, 100, 1000]),
    weight_p=st.sampled_from([1, 8, 64, 300]),
    jitter=st.sampled_from([0.0, 0.1, 0.5]),
    orphan=st.sampled_from(["xmit", "completion"]),
    queues=st.sampled_from(["per_cpu", "single"]),
    sndbuf=st.sampled_from([4608, 20000, 124928]),  # small ones: senders sleep, a stretch ends there
    cpus=st.sampled_from([3, 4, 6]),
    drv_ns=st.sampled_from([300, 1000, 2000]),  # the driver call: how many senders a turn serves
    seed=st.integers(0, 100),
)
def test_closed_form_equals_the_reference_for_random_settings(
    rule: str, device: str, user_ns: int, lock_ns: int, limit: int, weight_p: int, jitter: float,
    orphan: str, queues: str, sndbuf: int, cpus: int, drv_ns: int, seed: int,
) -> None:  # fmt: skip
    sets = {
        "qdisc.exit_rule": rule, "net.device": device, "xmit.user_ns": user_ns, "xmit.lock_ns": lock_ns,
        "qdisc.limit": limit, "qdisc.weight_p": weight_p, "xmit.user_jitter": jitter, "xmit.orphan": orphan,
        "xmit.tx_queues": queues, "xmit.sndbuf_bytes": sndbuf, "machine.cpus": cpus,
        "xmit.drv_ns": drv_ns, "xmit.dummy_ns": drv_ns,
    }  # fmt: skip
    fast = run({**sets, "qdisc.per_packet": False}, 2 * MS, seed=seed)
    slow = run({**sets, "qdisc.per_packet": True}, 2 * MS, seed=seed)
    assert tenures(fast) == tenures(slow)
    assert comparable(fast) == comparable(slow)


# ---- the books -------------------------------------------------------------------------------------


@pytest.mark.parametrize("device", ["nic", "dummy"])
def test_packets_are_conserved_per_band_per_sender_and_in_total(device: str) -> None:
    sim = run({"net.device": device, "qdisc.exit_rule": "quota"}, 10 * MS, trace="off")
    tx, q = sim.txpath, sim.qdisc
    assert tx is not None and q is not None
    s = sim.summary()["qdisc"]
    assert s["enqueued"] == s["dequeued"] + s["dropped"] + s["backlog"]
    for band in q.stats().bands:
        assert band.enqueued == band.sent + band.dropped + band.backlog
    assert s["enqueued"] == sum(tx.enqueued) + sum(tx.dropped)
    in_driver = 1 if tx.running is not None else 0  # a dequeued packet may be in the driver right now
    assert s["dequeued"] - in_driver <= sum(s["per_cpu_dequeued"]) <= s["dequeued"]
    assert tx.transmitted() <= s["dequeued"]
    for sock in tx.sockets:  # every skb still charged is queued, or in a sender's or the dequeuer's hands
        assert 0 <= sock.in_flight() <= s["backlog"] + 2


def test_exactly_one_dequeuer_at_a_time() -> None:
    sim = run({}, 20 * MS)
    spans = sorted((t, t + d) for t, _, d, _, _, _ in tenures(sim))
    assert len(spans) > 10
    for (_, end), (start, _) in itertools.pairwise(spans):
        assert start >= end


# ---- the exit rules ----------------------------------------------------------------------------------


@pytest.mark.parametrize("rule", ["quota", "quota+jiffy"])
def test_a_quota_rule_ends_loops_at_weight_p_packets(rule: str) -> None:
    sim = run({"qdisc.exit_rule": rule, "qdisc.weight_p": 16}, 10 * MS)
    ts = tenures(sim)
    assert max(n for _, _, _, n, _, _ in ts) == 16
    assert Counter(reason for *_, reason, _ in ts)["quota"] > 0


def test_the_3_0_rule_ends_a_loop_at_the_first_jiffy_boundary_and_lets_it_run_that_long() -> None:
    sim = run({"qdisc.exit_rule": "time", "net.device": "dummy"}, 30 * MS)
    tick = sim.machine.tick_ns
    ends = [(t, d) for t, _, d, _, reason, _ in tenures(sim) if reason == "jiffy"]
    assert ends
    for t, d in ends:
        assert (t + d) // tick == t // tick + 1  # it stopped in the jiffy after the one it started in
    assert max(n for _, _, _, n, _, _ in tenures(sim)) > 1000  # a jiffy is thousands of packets


def test_the_exit_rule_and_weight_p_change_live() -> None:
    sim = run({"qdisc.exit_rule": "time"}, 10 * MS)
    sim.apply(SetTunable("qdisc.exit_rule", "quota"))
    sim.apply(SetTunable("qdisc.weight_p", 8))
    sim.machine.trace.records.clear()
    sim.advance(5 * MS)
    sizes = [n for _, _, _, n, _, _ in tenures(sim)]
    assert sizes and max(sizes[1:]) <= 8


# ---- the 3.0 mechanisms ------------------------------------------------------------------------------


def test_a_dequeuer_that_leaves_by_its_rule_takes_the_role_back_through_its_own_net_tx() -> None:
    # net_tx_action()'s trylock succeeds when nobody queues on the root lock: the same CPU, now in
    # softirq at its local_bh_enable(), starts the next loop right after the last one ended.
    sim = run({"qdisc.exit_rule": "quota", "qdisc.weight_p": 32}, 20 * MS)
    ts = tenures(sim)
    retakes = [
        b for a, b in itertools.pairwise(ts)
        if a[4] == "quota" and b[1] == a[1] and b[5].startswith("softirq") and b[0] - (a[0] + a[2]) < 2_000
    ]  # fmt: skip
    assert retakes


def test_a_waiting_sender_gets_the_root_lock_before_the_exiting_cpu_s_trylock() -> None:
    # Ticket order: a busylock holder spinning on the root lock takes it at the exit; the exiting CPU's
    # spin_trylock() then fails and net_tx_action() reschedules the qdisc.
    sim = run({"qdisc.exit_rule": "quota"}, 20 * MS, trace="off")
    tx = sim.txpath
    assert tx is not None and tx.c.tx_action_trylock_failed > 0
    counts = sim.summary()["qdisc"]["per_cpu_dequeued"]
    assert min(counts) > 0  # the role moved to every CPU


def test_softirq_restarts_hand_the_rest_to_ksoftirqd_a_task_of_the_scheduler() -> None:
    # With sleeping senders, a CPU whose NET_TX keeps winning the trylock re-takes the role pass after
    # pass; after MAX_SOFTIRQ_RESTART passes __do_softirq() wakes ksoftirqd, which runs as a task.
    sets = {"qdisc.exit_rule": "quota", "qdisc.limit": 1000}
    sim = run(sets, 20 * MS, trace="off")
    tx = sim.txpath
    assert tx is not None and tx.c.ksoftirqd_wakeups > 0
    threads = sim.summary()["threads"]
    assert any(name.startswith("ksoftirqd/") and t["cpu_s"] > 0 for name, t in threads.items())
    more = run({**sets, "xmit.softirq_restart": 1000}, 20 * MS, trace="off")
    assert more.txpath is not None and more.txpath.c.ksoftirqd_wakeups == 0


def test_an_interrupt_cpu_dequeuing_with_bottom_halves_off_cannot_clean_its_rings() -> None:
    # NAPI waits for local_bh_enable(): the rings the CPU cleans fill and stop its own loop (tx_busy),
    # while the other CPUs' rings are cleaned for them and their loops run to the jiffy.
    sim = run({"qdisc.exit_rule": "time"}, 60 * MS)
    irq = set(sim.scenario.net.irq_cpus)
    by = Counter()
    for _, cpu, _, n, reason, ctx in tenures(sim):
        if n > 100 and ctx.startswith("sender/"):
            by[(cpu in irq, reason)] += 1
    assert by[(True, "tx_busy")] > by[(True, "jiffy")]
    assert by[(False, "jiffy")] > by[(False, "tx_busy")]


@pytest.mark.parametrize("rule", ["time", "quota"])
def test_each_cpu_s_exits_and_packets_by_context_add_up_to_its_runs_and_dequeues(rule: str) -> None:
    sim = run({"qdisc.exit_rule": rule}, 30 * MS)
    q = sim.summary()["qdisc"]
    exits = [sum(d.values()) for d in q["per_cpu_exit_reasons"]]
    packets = [sum(d.values()) for d in q["per_cpu_dequeued_by_context"]]
    assert sim.txpath is not None
    open_cpu = sim.txpath.dequeuer_cpu()  # a run still going has begun and not yet ended
    for cpu in range(4):
        assert exits[cpu] == q["per_cpu_runs"][cpu] - (cpu == open_cpu)
        assert packets[cpu] <= q["per_cpu_dequeued"][cpu]
        assert packets[cpu] == q["per_cpu_dequeued"][cpu] or cpu == open_cpu
    reasons = {k: sum(d[k] for d in q["per_cpu_exit_reasons"]) for k in q["exit_reasons"]}
    assert reasons == q["exit_reasons"]
    tenures_by_cpu = Counter()
    for _, cpu, _, n, _, ctx in tenures(sim):
        tenures_by_cpu[(cpu, ctx.partition("/")[0])] += n
    for cpu, by_context in enumerate(q["per_cpu_dequeued_by_context"]):
        for context, n in by_context.items():
            assert tenures_by_cpu[(cpu, context)] == n  # the trace's runs say the same


def test_a_stopped_ring_s_packet_parks_in_gso_skb_and_blocks_the_qdisc() -> None:
    sim = run({"xmit.drv_ns": 300, "qdisc.limit": 1000}, 10 * MS, trace="off")
    tx = sim.txpath
    assert tx is not None and tx.c.requeues > 0 and tx.c.ring_stops > 0 and tx.c.ring_wakes > 0
    assert tx.c.empty_runs > 0  # __qdisc_run found only the parked skb, its ring still stopped


def test_senders_sleep_on_their_send_buffer_and_the_dequeuer_wakes_them() -> None:
    # With room for 1000 packets the queue holds more than a socket's sndbuf: senders sleep in
    # sock_alloc_send_skb() and sock_wfree() (skb_orphan_try() in the dequeuer) wakes them.
    sim = run({"qdisc.limit": 1000}, 20 * MS, trace="off")
    tx = sim.txpath
    assert tx is not None and tx.c.sender_sleeps > 0
    assert sum(t["switches"] for n, t in sim.summary()["threads"].items() if n.startswith("sender")) > 0
    # With the bands limited to 100 packets, tail drops free a sender's memory before its sndbuf fills.
    full = run({"qdisc.limit": 100}, 20 * MS, trace="off")
    assert full.txpath is not None and 10 * full.txpath.c.sender_sleeps < tx.c.sender_sleeps


def test_each_packet_goes_to_its_sender_s_ring() -> None:
    sim = run({"qdisc.exit_rule": "quota"}, 5 * MS, trace="off")
    tx = sim.txpath
    assert tx is not None and tx.nic is not None
    for ring in tx.nic.rings:
        assert {owner for owner, _ in ring.owners.head_runs(ring.owners.nruns())} <= {ring.index}
    single = run({"qdisc.exit_rule": "quota", "xmit.tx_queues": "single"}, 5 * MS, trace="off")
    assert single.txpath is not None and single.txpath.nic is not None and len(single.txpath.nic.rings) == 1


@pytest.mark.parametrize("policy", ["o1", "cfs-2.6.23", "bfs", "eevdf"])
def test_every_scheduler_runs_the_story(policy: str) -> None:
    sim = run({"sched.policy": policy}, 30 * MS, trace="off")
    assert sum(sim.summary()["qdisc"]["per_cpu_dequeued"]) > 0
