"""Every registered qdisc (``model.net.qdiscs.QDISCS``) through the 2011 transmit path, and pfifo_fast's
own rules (net/sched/sch_generic.c, 3.0): three bands, the fixed prio2band map, one limit for all
bands, the requeue slot first.
"""

from __future__ import annotations

import pytest
from test_cpu_time_conserved import assert_books_balance

from model.net.bands import BandedQdisc
from model.net.pfifo_fast import PRIO2BAND, PfifoFastQdisc
from model.net.prio import DEFAULT_PRIOMAP
from model.net.qdiscs import QDISCS, make_qdisc
from model.scenario import ScenarioError, load_scenario
from model.simulation import Simulation
from model.snapshot import TenureRecord

MS = 1_000_000


def run(kind: str, per_packet: bool, device: str, rule: str) -> Simulation:
    sets = {"qdisc.kind": kind, "qdisc.per_packet": per_packet, "net.device": device, "qdisc.exit_rule": rule}
    sim = Simulation(
        load_scenario("qdisc-fairness-2011").with_overrides(sets), trace="full", sample_ns=250_000
    )
    sim.advance(3 * MS)
    return sim


def tenures(sim: Simulation) -> list[tuple[int, int, int, int, str]]:
    return [
        (r.t_ns, r.cpu, r.dur_ns, r.packets, r.exit_reason)
        for r in sim.machine.trace.records
        if isinstance(r, TenureRecord)
    ]


@pytest.mark.parametrize("kind", sorted(QDISCS))
@pytest.mark.parametrize(("device", "rule"), [("nic", "time"), ("dummy", "quota")])
def test_every_qdisc_runs_the_2011_path_with_its_books_balanced(kind: str, device: str, rule: str) -> None:
    fast, slow = run(kind, False, device, rule), run(kind, True, device, rule)
    for sim in (fast, slow):
        assert sim.qdisc is not None and sim.qdisc.kind == kind
        s = sim.summary()["qdisc"]
        assert s["dequeued"] > 1000
        assert s["enqueued"] == s["dequeued"] + s["dropped"] + s["backlog"]
        assert_books_balance(sim)
        snap = sim.snapshot()
        assert snap.qdisc is not None and snap.qdisc.kind == kind
    assert tenures(fast) == tenures(slow)  # the closed form is still the per-packet reference
    assert fast.summary()["qdisc"] == slow.summary()["qdisc"]


@pytest.mark.parametrize("kind", sorted(QDISCS))
def test_every_qdisc_keeps_fifo_order_in_a_band_and_serves_the_requeue_slot_first(kind: str) -> None:
    q = make_qdisc(kind, 3, (1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1), 1000)
    band = q.band_for_priority(0)
    q.enqueue(7, band, 3)
    q.enqueue(8, band, 2)
    first = q.dequeue(1)
    q.requeue(first.runs[0][1], first.runs[0][0])
    out = q.dequeue(5)
    assert [(flow, n) for _, flow, n in out.runs] == [(7, 1), (7, 2), (8, 2)] and out.from_requeue
    assert q.qlen == 0


def test_pfifo_fast_has_the_fixed_prio2band_map_and_ignores_a_class_major() -> None:
    q = PfifoFastQdisc(1000)
    assert q.bands == 3
    assert [q.band_for_priority(p) for p in range(16)] == list(PRIO2BAND)
    assert PRIO2BAND == (1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1)
    assert q.band_for_priority(0x0001_0006) == PRIO2BAND[6]  # only skb->priority & TC_PRIO_MAX counts


def test_pfifo_fast_s_limit_is_shared_by_its_bands_where_prio_s_is_per_band() -> None:
    fast, prio = make_qdisc("pfifo_fast", 3, PRIO2BAND, 10), make_qdisc("prio", 3, PRIO2BAND, 10)
    for q in (fast, prio):
        q.enqueue(1, 0, 6)
    assert fast.enqueue(2, 2, 6) == (4, 2)  # pfifo_fast_enqueue(): qdisc->q.qlen < tx_queue_len
    assert prio.enqueue(2, 2, 6) == (6, 0)  # pfifo_enqueue(): each band's own limit
    assert fast.accepts(1, [6, 0, 4]) is False and prio.accepts(1, [6, 0, 4]) is True


def test_pfifo_fast_takes_the_lowest_band_first() -> None:
    q = PfifoFastQdisc(100)
    q.enqueue(1, 2, 2)
    q.enqueue(2, 1, 2)
    q.enqueue(3, 0, 1)
    assert [band for band, _, _ in q.dequeue(5).runs] == [0, 1, 2]


def test_a_fixed_qdisc_refuses_bands_or_a_priomap_of_its_own() -> None:
    sc = load_scenario("qdisc-fairness-2011").with_overrides({"qdisc.kind": "pfifo_fast", "qdisc.bands": 4})
    with pytest.raises(ScenarioError, match="pfifo_fast has 3 fixed bands"):
        Simulation(sc)


@pytest.mark.parametrize("kind", sorted(QDISCS))
def test_enqueue_one_and_dequeue_one_are_the_bulk_calls_of_one_packet_on_every_qdisc(kind: str) -> None:
    """The closed form's ``enqueue_one`` takes and drops exactly as ``enqueue(flow, band, 1)`` does, up
    to and past a full band (prio: per band limit; pfifo_fast: one limit for the three), and
    ``dequeue_one`` takes the packet ``dequeue(1)`` would, from the same band."""
    one, many = make_qdisc(kind, 3, DEFAULT_PRIOMAP, 5), make_qdisc(kind, 3, DEFAULT_PRIOMAP, 5)
    assert isinstance(one, BandedQdisc)
    offers = [(f % 3, (f * 7) % 3) for f in range(40)]  # (flow, band): every band, past every limit
    for k, (flow, band) in enumerate(offers):
        took = one.enqueue_one(flow, band)
        accepted, dropped = many.enqueue(flow, band, 1)
        assert (took, accepted, dropped) in ((True, 1, 0), (False, 0, 1))
        assert took == (accepted == 1)
        if k % 4 == 3:  # drain a little, so that the bands refill
            assert one.dequeue(1) == many.dequeue(1)
            head = many.dequeue(1)
            assert one.dequeue_one() == head.runs[0][0]
    assert one.stats() == many.stats()
    assert one.stats().dropped > 0 and one.stats().enqueued == len(offers)
