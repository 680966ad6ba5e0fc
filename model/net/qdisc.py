"""The qdisc layer's shared vocabulary: the ``Qdisc`` protocol, its counters and the run-length FIFO.

A qdisc here is pure data: it holds packets in bands and counts them, and knows nothing of CPUs, locks
or time (the transmit path owns the dequeuer role). Packets carry no payload, only the ``flow_id`` of
the sender (an int: the sending CPU or flow), so a band is stored as a FIFO of runs ``(flow_id, count)``.
Every operation takes a packet count ``n`` and costs O(bands + runs touched), never O(n): a dequeuer's
tenure of millions of packets is one call, while FIFO order per packet stays exact (packets of one flow
in one band are interchangeable). Per-packet use is the same API with ``n=1``.

Counters are packets (this model has no byte sizes) and obey, per band and for the whole qdisc,
``enqueued == dequeued + dropped + backlog`` at every instant (see ``QdiscStats`` for the requeue slot).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

# include/linux/pkt_sched.h: the priority values that skb->priority (sk_priority) carries.
TC_PRIO_BESTEFFORT = 0
TC_PRIO_FILLER = 1
TC_PRIO_BULK = 2
TC_PRIO_INTERACTIVE_BULK = 4
TC_PRIO_INTERACTIVE = 6
TC_PRIO_CONTROL = 7
TC_PRIO_MAX = 15

# ether_setup(): dev->tx_queue_len = 1000 (packets); a default pfifo child takes it as its limit.
DEFAULT_TX_QUEUE_LEN = 1000

FlowRun = tuple[int, int]
"""``(flow_id, count)``: ``count`` consecutive packets of one flow in one band."""

DequeuedRun = tuple[int, int, int]
"""``(band, flow_id, count)``: consecutive dequeued packets, in dequeue order."""


@dataclass(frozen=True, slots=True)
class BandStats:
    """One band (class ``1:band+1``) as ``tc -s class show`` reports it, in packets.

    ``sent`` is the child's bstats: packets dequeued out of this band's FIFO (a packet later parked in
    the root requeue slot stays counted here). ``enqueued == sent + dropped + backlog``.
    """

    band: int
    enqueued: int  # attempts: accepted + tail-dropped
    sent: int
    dropped: int
    backlog: int


@dataclass(frozen=True, slots=True)
class QdiscStats:
    """The root qdisc as ``tc -s qdisc show`` reports it, in packets, plus its bands.

    ``enqueued`` counts every enqueue attempt, accepted or dropped (the kernel keeps no such counter; it
    is here so that the books balance). ``backlog`` is ``q.qlen``: the bands plus the requeue slot
    (gso_skb). ``dequeued`` counts packets that have left the qdisc for good: ``requeue`` takes one back
    (-1) and taking it from the slot counts it again (+1), so ``enqueued == dequeued + dropped + backlog``
    holds exactly at every instant. The kernel's root bstats instead count the packet once, when
    ``prio_dequeue`` hands it out; the two agree whenever the requeue slot is empty.
    """

    enqueued: int
    dequeued: int
    dropped: int
    requeues: int
    backlog: int
    bands: tuple[BandStats, ...]


@dataclass(frozen=True, slots=True)
class DequeueResult:
    """What one ``dequeue(n)`` took, in order. ``pkts <= n``; fewer means the qdisc ran empty.

    ``from_requeue``: the first packet (``runs[0]``, count 1) came out of the requeue slot.
    ``band_pkts[b]`` counts every packet taken from band ``b``, the requeued one included.
    """

    pkts: int
    runs: tuple[DequeuedRun, ...]
    band_pkts: tuple[int, ...]
    from_requeue: bool

    def flow_pkts(self) -> dict[int, int]:
        """Packets taken per ``flow_id``."""
        out: dict[int, int] = {}
        for _band, flow_id, count in self.runs:
            out[flow_id] = out.get(flow_id, 0) + count
        return out


class RunFifo:
    """One band's packet FIFO (a child pfifo without its limit), run-length encoded.

    Runs are ``(flow_id, count)``, oldest first, kept as two lists of ints from ``_head`` on (a
    consumed prefix is dropped in one slice once it is the larger part), so that the per-packet calls
    of the transmit path index plain lists. Adjacent runs of one flow are merged on push, so the
    number of runs is at most the number of flow changes in arrival order.
    """

    __slots__ = ("_counts", "_flows", "_head", "qlen")

    def __init__(self) -> None:
        self._flows: list[int] = []
        self._counts: list[int] = []
        self._head = 0  # the first run still held
        self.qlen = 0

    def push(self, flow_id: int, n: int) -> None:
        """Append ``n >= 1`` packets of ``flow_id`` at the tail."""
        flows = self._flows
        last = len(flows) - 1
        if last >= self._head and flows[last] == flow_id:
            self._counts[last] = self._counts[last] + n  # not +=: mypyc makes it a generic number op
        else:
            flows.append(flow_id)
            self._counts.append(n)
        self.qlen += n

    def head_flow(self) -> int:
        """The flow of the head packet (the FIFO is not empty)."""
        return self._flows[self._head]

    def pop_one(self) -> int:
        """Take the head packet (the FIFO is not empty); its flow."""
        h = self._head
        flow = self._flows[h]
        count = self._counts[h] - 1
        if count:
            self._counts[h] = count
        else:
            self._drop_runs(h + 1)
        self.qlen -= 1
        return flow

    def pop_into(self, n: int, band: int, out: list[DequeuedRun] | None) -> int:
        """Take up to ``n`` packets from the head, appending ``(band, flow_id, count)`` runs to ``out``.

        Returns the number taken: ``min(n, qlen)``.
        """
        flows, counts = self._flows, self._counts
        h = self._head
        left = n
        while left and h < len(flows):
            count = counts[h]
            if count <= left:
                if out is not None:
                    out.append((band, flows[h], count))
                left -= count
                h += 1
            else:
                counts[h] = count - left
                if out is not None:
                    out.append((band, flows[h], left))
                left = 0
        self._drop_runs(h)
        taken = n - left
        self.qlen -= taken
        return taken

    def _drop_runs(self, head: int) -> None:
        """The runs before ``head`` are consumed."""
        flows = self._flows
        if head == len(flows):
            flows.clear()
            self._counts.clear()
            head = 0
        elif head > 64 and 2 * head > len(flows):
            del flows[:head]
            del self._counts[:head]
            head = 0
        self._head = head

    def head_runs(self, max_runs: int) -> tuple[FlowRun, ...]:
        """The first ``max_runs`` runs, oldest first, as ``(flow_id, count)``."""
        h = self._head
        end = min(len(self._flows), h + max_runs)
        return tuple((self._flows[i], self._counts[i]) for i in range(h, end))

    def nruns(self) -> int:
        return len(self._flows) - self._head


class Qdisc(Protocol):
    """A classful-by-band root qdisc holding run-length encoded packets. One implementation per module.

    The protocol works in bands; how a packet's ``skb->priority`` picks a band is each qdisc's own
    ``band_for_priority`` (priomap for prio and pfifo_fast), so callers may classify once per flow and
    then enqueue by band. Band 0 is the highest priority.
    """

    @property
    def kind(self) -> str:
        """The tc name: ``"prio"``, ``"pfifo_fast"``, ..."""
        ...

    @property
    def bands(self) -> int: ...

    @property
    def qlen(self) -> int:
        """Packets held, the requeue slot included: how many ``dequeue`` can return before empty."""
        ...

    @property
    def limit(self) -> int:
        """The qdisc's tail-drop limit in packets: per band for prio, over all bands for pfifo_fast."""
        ...

    @property
    def requeued(self) -> tuple[int, int] | None:
        """The packet in the requeue slot (gso_skb) as ``(flow_id, band)``, or None."""
        ...

    def band_for_priority(self, skb_priority: int) -> int:
        """The band a packet with this ``skb->priority`` is enqueued to (classification, no filters)."""
        ...

    def accepts(self, band: int, band_qlens: list[int]) -> bool:
        """Whether one packet enqueued to ``band`` would be taken if the bands held ``band_qlens`` (the
        requeue slot as it is now): the transmit path's closed form asks before it enqueues."""
        ...

    def enqueue(self, flow_id: int, band: int, n: int = 1) -> tuple[int, int]:
        """Offer ``n`` packets of ``flow_id`` to ``band``. Returns ``(accepted, dropped)``."""
        ...

    def enqueue_priority(self, flow_id: int, skb_priority: int, n: int = 1) -> tuple[int, int]:
        """``enqueue`` into ``band_for_priority(skb_priority)``."""
        ...

    def dequeue(self, n: int = 1) -> DequeueResult:
        """Take up to ``n`` packets in the qdisc's order (requeue slot first), stopping when empty."""
        ...

    def dequeue_bands(self, n: int) -> list[int]:
        """``dequeue(n)`` that reports only the packets taken per band (the transmit path's hot path)."""
        ...

    def requeue(self, flow_id: int, band: int) -> None:
        """Park one dequeued packet back in the requeue slot (dev_requeue_skb)."""
        ...

    def peek_band(self) -> int | None:
        """The band of the packet the next ``dequeue`` returns first, or None when empty."""
        ...

    def band_qlen(self, band: int) -> int:
        """Packets in ``band``'s FIFO (the requeue slot excluded)."""
        ...

    def band_contents(self, band: int, max_runs: int) -> tuple[FlowRun, ...]:
        """The first ``max_runs`` runs of ``band``, head first, for drawing."""
        ...

    def stats(self) -> QdiscStats: ...
