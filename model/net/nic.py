"""The transmit device: a 3.0 ixgbe 82599 port with one TX ring per CPU, or the dummy device.

ixgbe (drivers/net/ixgbe/ixgbe_main.c, 3.0):

* ``ixgbe_select_queue()`` returns ``smp_processor_id()`` (flow director on): the sending CPU picks
  the ring, ``skb->queue_mapping`` keeps it, and whichever CPU dequeues sends the packet to that ring.
* ``ixgbe_xmit_frame_ring()`` uses two descriptors for a checksummed UDP packet (a context and a
  data descriptor) and ends with ``ixgbe_maybe_stop_tx(tx_ring, DESC_NEEDED)``: the ring (subqueue)
  stops when fewer than DESC_NEEDED (20) descriptors are unused.
* ``ixgbe_clean_tx_irq()``, run in NAPI on the CPU that takes the ring's MSI-X vector, frees the
  completed descriptors and wakes a stopped ring once ``IXGBE_DESC_UNUSED >= TX_WAKE_THRESHOLD`` (40).
* One TxRx vector per ring; interrupt throttling (EITR) keeps a vector at most ``itr_per_s``
  interrupts a second (dynamic ITR settles at 8000 for bulk traffic, ixgbe_set_itr()).

The wire serves the rings round robin, a packet at a time (the 82599's transmit arbiter outside DCB
mode), computed lazily: nothing happens per packet until someone looks. The dummy device
(drivers/net/dummy.c) frees each skb in ``dummy_xmit`` and never stops.
"""

from __future__ import annotations

from typing import Final

from mypy_extensions import i64

from model.copyable import mypyc_attr
from model.net.qdisc import DequeuedRun, RunFifo

DESC_PER_PACKET: Final = 2  # ixgbe_xmit_frame_ring(): one context + one data descriptor (CHECKSUM_PARTIAL)


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class TxRing:
    __slots__ = ("done", "index", "owners", "size", "stopped", "unsent", "used", "vector_cpu")

    def __init__(self, index: int, size: int, vector_cpu: int) -> None:
        self.index: i64 = index
        self.size: i64 = size  # descriptors
        self.vector_cpu = vector_cpu  # the CPU that takes this ring's interrupt
        self.used: i64 = 0  # descriptors posted and not yet cleaned
        self.unsent: i64 = 0  # packets posted, not yet on the wire
        self.done: i64 = 0  # packets the wire finished, not yet cleaned
        self.stopped = False  # __QUEUE_STATE_XOFF of the subqueue
        self.owners = RunFifo()  # the senders of the packets posted and not yet cleaned, oldest first

    def unused(self) -> i64:
        """IXGBE_DESC_UNUSED(): one descriptor always stays empty."""
        return self.size - self.used - 1


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class Wire:
    """One 10 GbE MAC shared by the rings, round robin at packet granularity, evaluated lazily."""

    __slots__ = ("busy_ring", "busy_until", "free_at", "ptr", "rings", "sent", "wire_ns")

    def __init__(self, rings: list[TxRing], wire_ns: int) -> None:
        self.rings = rings
        self.wire_ns: i64 = wire_ns
        self.ptr: i64 = len(rings) - 1  # the ring served last: the arbiter looks after it first
        self.busy_ring: i64 = -1  # the ring whose packet is on the wire, or -1
        self.busy_until: i64 = 0
        self.free_at: i64 = 0  # the wire is idle from here (when busy_ring < 0)
        self.sent: i64 = 0  # packets that finished on the wire

    def _pick(self) -> i64:
        """The ring the arbiter serves next: the first after ``ptr``, round robin, with a packet unsent."""
        rings = self.rings
        n: i64 = len(rings)
        i: i64 = self.ptr
        left: i64 = n
        while left:  # not range() with % n: this runs at nearly every packet
            i += 1
            if i == n:
                i = 0
            if rings[i].unsent:
                return i
            left -= 1
        return -1

    def advance(self, t: i64) -> None:
        """Finish every packet whose last bit leaves by ``t``; the arbiter then picks the next one."""
        rings = self.rings
        w: i64 = self.wire_ns
        while True:
            if self.busy_ring >= 0:
                if self.busy_until > t:
                    return
                rings[self.busy_ring].done += 1
                self.sent += 1
                self.free_at = self.busy_until
                self.busy_ring = -1
            nxt: i64 = self._pick()
            if nxt < 0:
                if t > self.free_at:
                    self.free_at = t
                return
            start: i64 = self.free_at
            # Whole rounds at once: every ring with packets left sends one per round, in the same order
            # (none fits unless a packet's time does: the common case, a packet or so behind).
            # (Counted in place, without a list: this runs at nearly every post, where rounds is mostly 0.)
            if t - start >= w:
                k: i64 = 0
                least: i64 = 0
                for r in rings:
                    if r.unsent and (k == 0 or r.unsent < least):
                        least = r.unsent
                    if r.unsent:
                        k += 1
                rounds: i64 = min(least - 1, (t - start) // (w * k))
                if rounds > 0:
                    for r in rings:
                        if r.unsent:  # still >= 1 after the rounds: the same rings as counted
                            r.unsent -= rounds
                            r.done += rounds
                    self.sent += rounds * k
                    start += rounds * k * w
                    self.free_at = start
                    continue
            rings[nxt].unsent -= 1
            self.ptr = nxt
            self.busy_ring = nxt
            self.busy_until = start + w

    def next_done(self, ring: TxRing) -> int:
        """When ``ring``'s next packet finishes if nothing more is posted (-1: it has none unsent).

        Later posts to other rings can only delay it: a caller that waits for this instant looks again."""
        if ring.unsent == 0 and (self.busy_ring != ring.index):
            return -1
        if self.busy_ring == ring.index:
            return self.busy_until
        t = self.busy_until if self.busy_ring >= 0 else self.free_at
        n = len(self.rings)
        start = self.busy_ring if self.busy_ring >= 0 else self.ptr
        for k in range(1, n + 1):
            i = (start + k) % n
            if i == ring.index:
                return t + self.wire_ns
            if self.rings[i].unsent:
                t += self.wire_ns
        return t + self.wire_ns


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class Nic:
    """The ixgbe port: rings by sending CPU (or one ring), the wire, stop and wake thresholds."""

    __slots__ = ("ring_by_cpu", "rings", "stop_free", "wake_free", "wire")

    def __init__(
        self,
        ncpus: int,
        ring_size: int,
        stop_free: int,
        wake_free: int,
        wire_ns: int,
        irq_cpus: tuple[int, ...],
        per_cpu: bool,
    ) -> None:
        nrings = ncpus if per_cpu else 1
        # One MSI-X vector per ring, spread over the interrupt CPUs in turn (irq affinity).
        self.rings = [TxRing(i, ring_size, irq_cpus[i % len(irq_cpus)]) for i in range(nrings)]
        self.ring_by_cpu = [self.rings[cpu % nrings] for cpu in range(ncpus)]  # ixgbe_select_queue()
        self.stop_free = stop_free
        self.wake_free = wake_free
        self.wire = Wire(self.rings, wire_ns)

    def ring_of(self, cpu: int) -> TxRing:
        """ixgbe_select_queue(): the ring of the CPU that calls dev_queue_xmit."""
        return self.ring_by_cpu[cpu]

    def post(self, ring: TxRing, owner: int, now: int) -> bool:
        """The driver posts one packet; True if the ring stopped (ixgbe_maybe_stop_tx after posting)."""
        self.wire.advance(now)
        ring.used += DESC_PER_PACKET
        ring.unsent += 1
        ring.owners.push(owner, 1)
        if ring.unused() < self.stop_free:
            ring.stopped = True
        return ring.stopped

    def clean_n(self, ring: TxRing, n: int, freed: dict[int, int]) -> tuple[int, bool]:
        """ixgbe_clean_tx_irq() of ``n`` finished packets (the ones the poll found done), counted per
        sender into ``freed``; returns (packets cleaned, whether the ring was woken)."""
        if n == 0:
            return 0, False
        ring.done -= n
        ring.used -= n * DESC_PER_PACKET
        runs: list[DequeuedRun] = []
        ring.owners.pop_into(n, 0, runs)
        for _, owner, k in runs:
            freed[owner] = freed.get(owner, 0) + k
        woken = False
        if ring.stopped and ring.unused() >= self.wake_free:
            ring.stopped = False  # netif_wake_subqueue(): the caller raises NET_TX (__netif_schedule)
            woken = True
        return n, woken

    def transmitted(self, now: int) -> int:
        self.wire.advance(now)
        return self.wire.sent

    def used(self) -> int:
        return sum(r.used for r in self.rings)

    def size(self) -> int:
        return sum(r.size for r in self.rings)
