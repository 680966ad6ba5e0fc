"""CPU time is conserved on every CPU: task + hardirq + softirq + idle = elapsed, each share in [0, 1],
over the run and in every interval of the sampled series that the graphs draw.

Random settings across the documented range of every key that shapes a CPU's time (hypothesis), for
the transmit path in both its closed form and its per-packet reference, and for the other stories'
interrupt paths (queued interrupts once gave a negative hardirq share). The four quantities are kept
separately by the machine, so a gap or an overlap in the books shows as a mismatch.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from model.net.qdiscs import QDISCS
from model.scenario import load_scenario
from model.simulation import Simulation

MS = 1_000_000


def assert_books_balance(sim: Simulation) -> None:
    m = sim.machine
    now = m.now_ns
    for cpu in m.cpus:
        hard, soft = m.irq_ns(cpu)
        idle = m.idle_ns(cpu)
        parts = {"task": cpu.task_ns, "hardirq": hard, "softirq": soft, "idle": idle}
        assert sum(parts.values()) == now, f"cpu{cpu.index}: {parts} do not add up to {now} ns"
        for name, ns in parts.items():
            assert 0 <= ns <= now, f"cpu{cpu.index} {name} = {ns} ns of {now}"
    summary = sim.summary()
    for c in summary["cpus"]:
        for key in ("user", "hardirq", "softirq", "busy"):
            assert 0.0 <= c[key] <= 1.0 + 1e-12, f"{key} share {c[key]}"
    assert_every_interval_within_one(sim)


def assert_every_interval_within_one(sim: Simulation) -> None:
    """The sampled series keep the same books interval by interval: in every interval between two rows
    each CPU's task, hardirq and softirq time, their sum and each thread's time fit in the interval.
    (Task time booked only where a segment ends once put 690 % of one CPU in a 1 ms interval.)"""
    rows = sim.series.view()
    lay = sim.series_layout
    assert len(rows) >= 3, "sample often enough for the intervals to mean something"
    d = np.diff(np.vstack([np.zeros((1, rows.shape[1]), dtype=np.int64), rows]), axis=0)
    dt = d[:, 0]
    for cols in zip(lay.cpu_task_ns, lay.cpu_hardirq_ns, lay.cpu_softirq_ns, strict=True):
        parts = d[:, list(cols)]
        assert (parts >= 0).all() and (parts.sum(axis=1) <= dt).all(), (cols, parts.tolist(), dt.tolist())
    for col in lay.task_exec_ns:
        assert ((d[:, col] >= 0) & (d[:, col] <= dt)).all(), (col, d[:, col].tolist(), dt.tolist())


def log_int(lo: int, hi: int) -> st.SearchStrategy[int]:
    """Integers spread evenly in log scale between ``lo`` and ``hi`` (both ends included)."""
    return st.one_of(st.just(lo), st.just(hi), st.floats(0.0, 1.0).map(lambda u: round(lo * (hi / lo) ** u)))


xmit_settings = st.fixed_dictionaries(
    {
        "qdisc.kind": st.sampled_from(sorted(QDISCS)),
        "qdisc.exit_rule": st.sampled_from(["time", "quota+jiffy", "quota"]),
        "qdisc.weight_p": log_int(1, 100_000),
        "qdisc.limit": log_int(1, 100_000),
        "net.device": st.sampled_from(["nic", "dummy"]),
        "net.irq_cpus": st.lists(st.integers(0, 3), min_size=1, max_size=4, unique=True),
        "net.itr_per_s": log_int(100, 100_000),
        "machine.hz": st.sampled_from([100, 250, 300, 1000]),
        "xmit.user_ns": log_int(50, 10_000_000),
        "xmit.user_jitter": st.floats(0.0, 1.0),
        "xmit.enq_ns": log_int(1, 1_000_000),
        "xmit.deq_ns": log_int(1, 1_000_000),
        "xmit.drv_ns": log_int(1, 1_000_000),
        "xmit.dummy_ns": log_int(1, 1_000_000),
        "xmit.lock_ns": log_int(1, 1_000_000),
        "xmit.tx_action_ns": log_int(1, 1_000_000),
        "xmit.ttwu_ns": log_int(1, 1_000_000),
        "xmit.irq_ns": log_int(1, 1_000_000),
        "xmit.clean_ns": log_int(1, 1_000_000),
        "xmit.jitter": st.floats(0.0, 0.5),
        "xmit.sndbuf_bytes": log_int(4_608, 16_777_216),
        "xmit.tx_ring": log_int(64, 65_536),
        "xmit.tx_queues": st.sampled_from(["per_cpu", "single"]),
        "xmit.spinlock": st.sampled_from(["ticket", "tas"]),
        "xmit.softirq_restart": log_int(1, 1_000),
        "xmit.orphan": st.sampled_from(["xmit", "completion"]),
        "sched.policy": st.sampled_from(["o1", "cfs-2.6.23", "cfs-2.6.24", "bfs", "eevdf"]),
    }
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sets=xmit_settings, per_packet=st.booleans(), seed=st.integers(0, 1000), split=st.integers(1, 3))
def test_transmit_path_keeps_every_cpu_s_books(
    sets: dict[str, object], per_packet: bool, seed: int, split: int
) -> None:
    sc = load_scenario("qdisc-fairness-2011").with_overrides({**sets, "qdisc.per_packet": per_packet})
    sim = Simulation(sc, seed=seed, trace="off", sample_ns=100_000)
    for _ in range(split):
        sim.advance(2 * MS // split)
        assert_books_balance(sim)
    q = sim.summary()["qdisc"]
    assert q["enqueued"] == q["dequeued"] + q["dropped"] + q["backlog"]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ack_ns=st.integers(0, 1_000_000),
    irq_ns=st.integers(0, 10_000_000),
    frames=st.integers(1, 256),
    policy=st.sampled_from(["o1", "cfs-2.6.23", "bfs", "eevdf"]),
)
def test_the_2007_send_path_keeps_the_books_with_queued_interrupts(
    ack_ns: int, irq_ns: int, frames: int, policy: str
) -> None:
    sets = {
        "net.ack_softirq_ns_per_frame": ack_ns, "net.tx_irq_ns": irq_ns, "net.tx_irq_frames": frames,
        "sched.policy": policy,
    }  # fmt: skip
    sim = Simulation(load_scenario("cfs-yield-2007").with_overrides(sets), trace="off", sample_ns=MS)
    sim.advance(30 * MS)
    assert_books_balance(sim)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    udelay=st.integers(0, 100_000),
    rx_ns=st.integers(1, 1_000_000),
    policy=st.sampled_from(["cfs-2.6.24", "bfs"]),
)
def test_the_2009_receive_path_keeps_the_books(udelay: int, rx_ns: int, policy: str) -> None:
    sets = {"net.udelay_us": udelay, "net.rx_pkt_ns": rx_ns, "sched.policy": policy}
    sim = Simulation(load_scenario("bfs-saturated-2009").with_overrides(sets), trace="off", sample_ns=MS)
    sim.advance(30 * MS)
    assert_books_balance(sim)
