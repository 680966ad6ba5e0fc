"""The prio qdisc (model/net/prio.py): pinned defaults, classification, validation, and the run-length
encoded bulk qdisc checked packet by packet against a naive per-packet reference model.

``python tests/test_prio_qdisc.py`` runs ``bench()`` (packets per wall second; not a timed test).
"""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from model.net.prio import (
    DEFAULT_BANDS,
    DEFAULT_PRIO_HANDLE,
    DEFAULT_PRIOMAP,
    DEFAULT_TX_QUEUE_LEN,
    TC_PRIO_BESTEFFORT,
    TC_PRIO_BULK,
    TC_PRIO_CONTROL,
    TC_PRIO_FILLER,
    TC_PRIO_INTERACTIVE,
    TC_PRIO_INTERACTIVE_BULK,
    TC_PRIO_MAX,
    TCQ_PRIO_BANDS,
    PrioQdisc,
)
from model.net.qdisc import DequeueResult, QdiscStats
from model.net.tos import IP_TOS2PRIO, rt_tos2priority, tos_to_priority

# --- defaults and classification --------------------------------------------------------------------


def test_defaults_are_pinned() -> None:
    assert DEFAULT_PRIOMAP == (1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1)
    assert (DEFAULT_BANDS, TCQ_PRIO_BANDS, DEFAULT_TX_QUEUE_LEN, TC_PRIO_MAX) == (3, 16, 1000, 15)
    assert (TC_PRIO_BESTEFFORT, TC_PRIO_FILLER, TC_PRIO_BULK) == (0, 1, 2)
    assert (TC_PRIO_INTERACTIVE_BULK, TC_PRIO_INTERACTIVE, TC_PRIO_CONTROL) == (4, 6, 7)
    q = PrioQdisc()
    assert (q.kind, q.bands, q.priomap, q.limit, q.handle) == ("prio", 3, DEFAULT_PRIOMAP, 1000, 0x10000)
    assert q.qlen == 0 and q.peek_band() is None and q.requeued is None
    # Each band is its own pfifo of tx_queue_len: the qdisc holds 3 * 1000 packets.
    assert [q.enqueue(0, b, 1500) for b in range(3)] == [(1000, 500)] * 3
    assert q.qlen == 3000


def test_priority_to_band_default_priomap() -> None:
    q = PrioQdisc()
    assert [q.band_for_priority(p) for p in range(16)] == [1, 2, 2, 2, 1, 2, 0, 0] + [1] * 8
    assert q.band_for_priority(0) == 1  # default sk_priority 0 lands in band 1
    assert q.band_for_priority(16 + TC_PRIO_INTERACTIVE) == 0  # only skb->priority & TC_PRIO_MAX counts


def test_priority_with_major_part() -> None:
    q = PrioQdisc()
    # Another qdisc's class id: no filter, so band = prio2band[0].
    assert q.band_for_priority(0x0002_0007) == DEFAULT_PRIOMAP[0] == 1
    # This qdisc's class id 1:<minor> selects band minor-1; out of range falls back to prio2band[0].
    minors = (1, 2, 3, 4, 0, 0xFFFF)
    assert [q.band_for_priority(DEFAULT_PRIO_HANDLE | m) for m in minors] == [0, 1, 2, 1, 1, 1]
    q5 = PrioQdisc(bands=5, priomap=(4,) * 16, handle=0x0005_0000)
    assert q5.band_for_priority(0x0005_0005) == 4 and q5.band_for_priority(0x0001_0001) == 4
    with pytest.raises(ValueError, match="skb_priority"):
        q.band_for_priority(-1)


def ref_classify(skb_priority: int, bands: int, priomap: tuple[int, ...], handle: int) -> int:
    """KERNEL.md §F.2, written out the long way."""
    major, minor = skb_priority >> 16, skb_priority & 0xFFFF
    if major == handle >> 16:
        return minor - 1 if 1 <= minor <= bands else priomap[0]
    return priomap[0] if major else priomap[skb_priority % 16]


U32_PRIORITIES = st.one_of(st.integers(0, 0xFFFF_FFFF), st.integers(0, 0xFFFF), st.integers(0x10000, 0x10020))


@given(bands=st.integers(2, 16), data=st.data(), skb_priority=U32_PRIORITIES)
def test_classify_matches_reference(bands: int, data: st.DataObject, skb_priority: int) -> None:
    priomap = tuple(data.draw(st.lists(st.integers(0, bands - 1), min_size=16, max_size=16)))
    q = PrioQdisc(bands=bands, priomap=priomap)
    assert q.band_for_priority(skb_priority) == ref_classify(skb_priority, bands, priomap, q.handle)


def test_tos_table_matches_2_6_route_c() -> None:
    # KERNEL.md §F.2: index (tos & 0x1E) >> 1 -> TC_PRIO; index 1 is FILLER in 2.6 / 3.0.
    assert IP_TOS2PRIO == (0, 1, 0, 0) + (2,) * 4 + (6,) * 4 + (4,) * 4
    q = PrioQdisc()
    bands = {tos: q.band_for_priority(tos_to_priority(tos)) for tos in (0x10, 0x08, 0x04, 0x02, 0x00)}
    assert bands == {0x10: 0, 0x08: 2, 0x04: 1, 0x02: 2, 0x00: 1}
    assert rt_tos2priority(0x02) == TC_PRIO_FILLER
    # ECN bits (0x03) and precedence bits (0xE0) are masked off: 0xB8 (DSCP EF) -> index 12.
    assert tos_to_priority(0x11) == tos_to_priority(0x13) == TC_PRIO_INTERACTIVE
    assert tos_to_priority(0xB8) == TC_PRIO_INTERACTIVE_BULK
    for bad in (-1, 256):
        with pytest.raises(ValueError, match="tos must be a byte"):
            tos_to_priority(bad)


# --- validation -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"bands": 1}, r"bands must be 2\.\.16 \(TCQ_PRIO_BANDS\), got 1"),
        ({"bands": 17}, r"bands must be 2\.\.16 \(TCQ_PRIO_BANDS\), got 17"),
        ({"bands": True}, r"bands must be an integer"),
        ({"priomap": (0,) * 15}, r"priomap must have 16 entries \(one per priority 0\.\.15\), got 15"),
        ({"priomap": (0,) * 15 + (3,)}, r"priomap\[15\] must be a band 0\.\.2 \(bands=3\), got 3"),
        ({"bands": 2, "priomap": DEFAULT_PRIOMAP}, r"priomap\[1\] must be a band 0\.\.1 \(bands=2\), got 2"),
        ({"priomap": (0,) * 15 + (-1,)}, r"priomap\[15\] must be a band 0\.\.2"),
        ({"priomap": (0,) * 15 + (1.0,)}, r"priomap\[15\] must be an integer"),
        ({"limit": -1}, r"limit \(tx_queue_len\) must be >= 0 packets, got -1"),
        ({"handle": 0x10001}, r"handle must be a qdisc handle MAJ:0"),
    ],
)
def test_prio_tune_validation(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        PrioQdisc(**kwargs)  # type: ignore[arg-type]


def test_limit_zero_means_one_and_16_bands_allowed() -> None:
    assert PrioQdisc(limit=0).limit == 1  # sch_fifo.c: tx_queue_len ? : 1
    q = PrioQdisc(bands=16, priomap=tuple(range(16)))
    assert [q.band_for_priority(p) for p in range(16)] == list(range(16))


def test_operation_argument_errors() -> None:
    q = PrioQdisc()
    with pytest.raises(ValueError, match=r"band must be 0\.\.2 \(bands=3\), got 3"):
        q.enqueue(0, 3)
    with pytest.raises(ValueError, match="n must be >= 0"):
        q.enqueue(0, 0, -1)
    with pytest.raises(ValueError, match="n must be >= 0"):
        q.dequeue(-1)
    with pytest.raises(ValueError, match="max_runs"):
        q.band_contents(0, -1)
    with pytest.raises(RuntimeError, match="none is outstanding"):
        q.requeue(0, 0)
    q.enqueue(0, 0, 2)
    q.dequeue(2)
    q.requeue(0, 0)
    with pytest.raises(RuntimeError, match="already holds"):
        q.requeue(0, 0)


# --- golden behaviour --------------------------------------------------------------------------------


def test_strict_priority_and_fifo_golden() -> None:
    q = PrioQdisc()
    q.enqueue(7, 2, 3)
    q.enqueue(1, 1, 2)
    q.enqueue(2, 1, 1)
    q.enqueue(1, 1, 4)
    q.enqueue(3, 0, 1)
    assert q.peek_band() == 0
    assert q.band_contents(1, 10) == ((1, 2), (2, 1), (1, 4))
    assert q.band_contents(1, 2) == ((1, 2), (2, 1))
    first = q.dequeue(4)
    assert first.runs == ((0, 3, 1), (1, 1, 2), (1, 2, 1)) and first.band_pkts == (1, 3, 0)
    q.enqueue(9, 0, 2)  # arrives later but jumps ahead of bands 1 and 2
    rest = q.dequeue(100)  # stops early: only 9 packets left
    assert rest.pkts == 9 and not rest.from_requeue
    assert rest.runs == ((0, 9, 2), (1, 1, 4), (2, 7, 3))
    assert rest.flow_pkts() == {9: 2, 1: 4, 7: 3}
    assert q.qlen == 0 and q.dequeue(5) == DequeueResult(0, (), (0, 0, 0), False)


def test_tail_drop_and_stats() -> None:
    q = PrioQdisc(limit=3)
    assert q.enqueue(1, 1, 5) == (3, 2)
    assert q.enqueue(2, 1, 1) == (0, 1)
    assert q.enqueue_priority(2, TC_PRIO_INTERACTIVE, 2) == (2, 0)  # band 0
    q.dequeue(3)
    s = q.stats()
    assert (s.enqueued, s.dequeued, s.dropped, s.requeues, s.backlog) == (8, 3, 3, 0, 2)
    per_band = [(b.enqueued, b.sent, b.dropped, b.backlog) for b in s.bands]
    assert per_band == [(2, 2, 0, 0), (6, 1, 3, 2), (0, 0, 0, 0)]


def test_requeue_slot() -> None:
    q = PrioQdisc(limit=2)
    q.enqueue(5, 2, 2)
    q.enqueue(6, 1, 1)
    out = q.dequeue(1)
    assert out.runs == ((1, 6, 1),)
    q.requeue(6, 1)  # driver busy: dev_requeue_skb()
    assert q.requeued == (6, 1) and q.qlen == 3 and q.band_qlen(1) == 0 and q.peek_band() == 1
    assert q.enqueue(4, 0, 1) == (1, 0)
    assert q.enqueue(4, 1, 2) == (2, 0)  # the slot does not count against band 1's limit
    s = q.stats()
    assert (s.enqueued, s.dequeued, s.requeues, s.backlog) == (6, 0, 1, 6) and s.bands[1].sent == 1
    out = q.dequeue(2)  # the requeued packet first, even ahead of band 0
    assert out.from_requeue and out.runs == ((1, 6, 1), (0, 4, 1)) and out.band_pkts == (1, 1, 0)
    s = q.stats()
    assert (s.dequeued, s.backlog, s.bands[1].sent) == (2, 4, 1)  # not counted twice in band 1


def test_bulk_cost_is_per_run_not_per_packet() -> None:
    q = PrioQdisc(limit=10**9)
    for _ in range(1000):
        q.enqueue(1, 1, 5_000)  # same flow: merged into one run
    assert q.band_nruns(1) == 1 and q.qlen == 5_000_000
    out = q.dequeue(4_999_999)
    assert out.runs == ((1, 1, 4_999_999),) and q.band_contents(1, 5) == ((1, 1),)


# --- reference model ---------------------------------------------------------------------------------


class RefPrio:
    """A naive prio qdisc: lists of (seq, flow_id) packets, one packet at a time."""

    def __init__(self, bands: int, priomap: tuple[int, ...], limit: int) -> None:
        self.bands, self.priomap, self.limit = bands, priomap, max(limit, 1)
        self.fifos: list[list[tuple[int, int]]] = [[] for _ in range(bands)]
        self.gso: tuple[int, int] | None = None  # (flow_id, band)
        self.seq = 0
        self.enqueued = [0] * bands
        self.sent = [0] * bands
        self.dropped = [0] * bands
        self.out_pkts = 0  # handed out by dequeue, less those requeued
        self.requeues = 0
        self.last_seq_out = [-1] * bands

    def enqueue(self, flow_id: int, band: int, n: int) -> tuple[int, int]:
        accepted = 0
        for _ in range(n):
            self.enqueued[band] += 1
            if len(self.fifos[band]) < self.limit:
                self.fifos[band].append((self.seq, flow_id))
                self.seq += 1
                accepted += 1
            else:
                self.dropped[band] += 1
        return accepted, n - accepted

    def dequeue_one(self) -> tuple[int, int] | None:
        if self.gso is not None:
            flow_id, band = self.gso
            self.gso = None
            self.out_pkts += 1
            return band, flow_id
        for band, fifo in enumerate(self.fifos):
            if fifo:
                seq, flow_id = fifo.pop(0)
                assert seq > self.last_seq_out[band]  # FIFO within the band
                self.last_seq_out[band] = seq
                self.sent[band] += 1
                self.out_pkts += 1
                return band, flow_id
        return None

    def requeue(self, flow_id: int, band: int) -> None:
        self.gso = (flow_id, band)
        self.requeues += 1
        self.out_pkts -= 1

    def qlen(self) -> int:
        return sum(map(len, self.fifos)) + (self.gso is not None)


def expand(result: DequeueResult) -> list[tuple[int, int]]:
    return [(band, flow_id) for band, flow_id, count in result.runs for _ in range(count)]


def check_conservation(s: QdiscStats) -> None:
    for b in s.bands:
        assert b.enqueued == b.sent + b.dropped + b.backlog
        assert min(b.enqueued, b.sent, b.dropped, b.backlog) >= 0
    assert s.enqueued == s.dequeued + s.dropped + s.backlog
    assert s.enqueued == sum(b.enqueued for b in s.bands) and s.dropped == sum(b.dropped for b in s.bands)


PRIORITIES = st.one_of(
    st.integers(0, TC_PRIO_MAX),
    st.integers(0, 0xFFFF_FFFF),
    st.integers(0, 20).map(lambda minor: DEFAULT_PRIO_HANDLE | minor),
)


class PrioVersusReference(RuleBasedStateMachine):
    q: PrioQdisc
    ref: RefPrio

    @initialize(bands=st.integers(2, 5), limit=st.sampled_from([0, 1, 2, 3, 5, 8, 40]), data=st.data())
    def setup(self, bands: int, limit: int, data: st.DataObject) -> None:
        priomap = tuple(data.draw(st.lists(st.integers(0, bands - 1), min_size=16, max_size=16)))
        self.q = PrioQdisc(bands=bands, priomap=priomap, limit=limit)
        self.ref = RefPrio(bands, priomap, limit)

    @rule(flow_id=st.integers(0, 3), n=st.integers(0, 50), data=st.data())
    def enqueue(self, flow_id: int, n: int, data: st.DataObject) -> None:
        band = data.draw(st.integers(0, self.q.bands - 1))
        assert self.q.enqueue(flow_id, band, n) == self.ref.enqueue(flow_id, band, n)

    @rule(flow_id=st.integers(0, 3), skb_priority=PRIORITIES, n=st.integers(0, 50))
    def enqueue_priority(self, flow_id: int, skb_priority: int, n: int) -> None:
        band = ref_classify(skb_priority, self.ref.bands, self.ref.priomap, DEFAULT_PRIO_HANDLE)
        assert self.q.enqueue_priority(flow_id, skb_priority, n) == self.ref.enqueue(flow_id, band, n)

    @rule(n=st.integers(0, 60))
    def dequeue(self, n: int) -> None:
        before = [self.q.band_qlen(b) for b in range(self.q.bands)]
        slot = self.q.requeued
        result = self.q.dequeue(n)
        want = [p for p in (self.ref.dequeue_one() for _ in range(n)) if p is not None]
        assert expand(result) == want and result.pkts == len(want)
        assert result.band_pkts == tuple(sum(1 for band, _ in want if band == b) for b in range(self.q.bands))
        if slot is not None and n:
            assert result.from_requeue and result.runs[0] == (slot[1], slot[0], 1)
        # Strict priority: band b gives a packet only once every band < b is drained.
        from_bands = result.runs[1:] if result.from_requeue else result.runs
        taken = [0] * self.q.bands
        for band, _flow, count in from_bands:
            assert all(taken[a] == before[a] for a in range(band))
            taken[band] += count

    @precondition(lambda self: self.q.requeued is None and self.ref.out_pkts > 0)
    @rule(flow_id=st.integers(0, 3), data=st.data())
    def requeue(self, flow_id: int, data: st.DataObject) -> None:
        band = data.draw(st.integers(0, self.q.bands - 1))
        self.q.requeue(flow_id, band)
        self.ref.requeue(flow_id, band)

    @precondition(lambda self: self.q.requeued is None)
    @rule()
    def driver_busy(self) -> None:
        """The transmit path's case: the packet just dequeued goes straight back to the slot."""
        result = self.q.dequeue(1)
        want = self.ref.dequeue_one()
        assert expand(result) == ([] if want is None else [want])
        if result.pkts:
            band, flow_id, _ = result.runs[0]
            self.q.requeue(flow_id, band)
            self.ref.requeue(flow_id, band)
            assert self.q.peek_band() == band

    @invariant()
    def same_state_as_reference(self) -> None:
        q, ref = self.q, self.ref
        s = q.stats()
        check_conservation(s)
        assert q.qlen == ref.qlen() == s.backlog
        assert (s.dequeued, s.requeues) == (ref.out_pkts, ref.requeues)
        assert q.requeued == ref.gso
        for b, fifo in enumerate(ref.fifos):
            assert (s.bands[b].enqueued, s.bands[b].sent, s.bands[b].dropped) == (
                ref.enqueued[b], ref.sent[b], ref.dropped[b])  # fmt: skip
            assert q.band_qlen(b) == s.bands[b].backlog == len(fifo) <= q.limit
            runs = q.band_contents(b, 1000)
            assert [f for f, count in runs for _ in range(count)] == [f for _, f in fifo]
            assert all(runs[i][0] != runs[i + 1][0] for i in range(len(runs) - 1))  # maximal runs
        nonempty = [b for b, fifo in enumerate(ref.fifos) if fifo]
        expected_peek = ref.gso[1] if ref.gso else (nonempty[0] if nonempty else None)
        assert q.peek_band() == expected_peek


PrioVersusReference.TestCase.settings = settings(max_examples=200, stateful_step_count=40, deadline=None)
TestPrioVersusReference = PrioVersusReference.TestCase


# --- benchmark (run by hand: python tests/test_prio_qdisc.py) ---------------------------------------


def bench(total_pkts: int = 10_000_000, bulk_pkts: int = 64, nflows: int = 4) -> None:
    """4 flows enqueue bulk_pkts/4 each, then one dequeue of bulk_pkts, until total_pkts moved."""
    q = PrioQdisc()
    per_flow = bulk_pkts // nflows
    bands = [q.band_for_priority(p) for p in (TC_PRIO_BESTEFFORT, TC_PRIO_BESTEFFORT, TC_PRIO_BULK, 6)]
    moved = 0
    t0 = time.perf_counter()
    while moved < total_pkts:
        for flow_id in range(nflows):
            q.enqueue(flow_id, bands[flow_id % len(bands)], per_flow)
        moved += q.dequeue(bulk_pkts).pkts
    wall_s = time.perf_counter() - t0
    print(f"bulk {bulk_pkts}: {moved:,} pkts in {wall_s:.2f} s = {moved / wall_s / 1e6:.1f} M pkts/s")
    q = PrioQdisc()
    n1 = min(total_pkts, 1_000_000)
    t0 = time.perf_counter()
    for i in range(n1):
        q.enqueue(i % nflows, bands[i % len(bands)], 1)
        q.dequeue(1)
    wall_s = time.perf_counter() - t0
    print(f"per packet: {n1:,} pkts in {wall_s:.2f} s = {n1 / wall_s / 1e6:.2f} M pkts/s")


if __name__ == "__main__":
    bench()
