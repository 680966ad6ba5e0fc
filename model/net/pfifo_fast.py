"""The ``pfifo_fast`` qdisc (net/sched/sch_generic.c, 3.0): the kernel's default root qdisc.

Three bands with the fixed ``prio2band`` map, no classes and no options: ``pfifo_fast_enqueue`` maps
``skb->priority & TC_PRIO_MAX`` to a band and tail-drops once the *whole* qdisc holds ``tx_queue_len``
packets (``skb_queue_len(&qdisc->q)``, which counts every band and the requeue slot); the dequeue takes
the lowest non-empty band first (``bitmap2band[priv->bitmap]``), FIFO within a band. Unlike ``prio``,
a priority with a major part is not a class id: only its low four bits count. Bulk operations cost
O(bands + runs), as in ``model.net.prio``; the requeue slot is the root's ``q->gso_skb``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from model.net.qdisc import (
    DEFAULT_TX_QUEUE_LEN,
    TC_PRIO_MAX,
    BandStats,
    DequeuedRun,
    DequeueResult,
    FlowRun,
    Qdisc,
    QdiscStats,
    RunFifo,
)

# sch_generic.c: #define PFIFO_FAST_BANDS 3 and static const u8 prio2band[TC_PRIO_MAX + 1].
PFIFO_FAST_BANDS = 3
PRIO2BAND: tuple[int, ...] = (1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1)


class PfifoFastQdisc:
    """A root pfifo_fast: three FIFO bands sharing one limit of ``limit`` packets (``tx_queue_len``).

    SIMPLIFICATION: packets have no size (no byte counters), as in ``model.net.prio``.
    """

    __slots__ = ("_dequeued", "_dropped", "_enqueued", "_fifos", "_gso", "_limit", "_qlen", "_requeues",
                 "_sent")  # fmt: skip

    def __init__(self, limit: object = DEFAULT_TX_QUEUE_LEN) -> None:
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
            raise ValueError(f"limit (tx_queue_len) must be an integer >= 0 packets, got {limit!r}")
        # pfifo_fast_enqueue(): `skb_queue_len(&qdisc->q) < qdisc_dev(qdisc)->tx_queue_len`; a device
        # with tx_queue_len 0 gets noqueue instead, so 0 is taken as 1 here, as fifo_init() does.
        self._limit = limit or 1
        self._fifos = [RunFifo() for _ in range(PFIFO_FAST_BANDS)]
        self._enqueued = [0] * PFIFO_FAST_BANDS
        self._sent = [0] * PFIFO_FAST_BANDS
        self._dropped = [0] * PFIFO_FAST_BANDS
        self._dequeued = 0
        self._requeues = 0
        self._qlen = 0  # qdisc->q.qlen: the bands and the requeue slot
        self._gso: tuple[int, int] | None = None

    # --- configuration -------------------------------------------------------------------------

    @property
    def kind(self) -> str:
        return "pfifo_fast"

    @property
    def bands(self) -> int:
        return PFIFO_FAST_BANDS

    @property
    def limit(self) -> int:
        """The qdisc's limit in packets, over all bands (tx_queue_len)."""
        return self._limit

    def band_for_priority(self, skb_priority: int) -> int:
        """``prio2band[skb->priority & TC_PRIO_MAX]``."""
        if skb_priority < 0:
            raise ValueError(f"skb_priority must be a u32, got {skb_priority}")
        return PRIO2BAND[skb_priority & TC_PRIO_MAX]

    def accepts(self, band: int, band_qlens: Sequence[int]) -> bool:
        """Whether an enqueue to ``band`` is taken when the bands hold ``band_qlens`` (slot as now)."""
        return sum(band_qlens) + (1 if self._gso is not None else 0) < self._limit

    # --- state ---------------------------------------------------------------------------------

    @property
    def qlen(self) -> int:
        return self._qlen

    @property
    def requeued(self) -> tuple[int, int] | None:
        return self._gso

    def band_qlen(self, band: int) -> int:
        self._check_band(band)
        return self._fifos[band].qlen

    def band_contents(self, band: int, max_runs: int) -> tuple[FlowRun, ...]:
        self._check_band(band)
        if max_runs < 0:
            raise ValueError(f"max_runs must be >= 0, got {max_runs}")
        return self._fifos[band].head_runs(max_runs)

    def peek_band(self) -> int | None:
        if self._gso is not None:
            return self._gso[1]
        for band, fifo in enumerate(self._fifos):
            if fifo.qlen:
                return band
        return None

    def stats(self) -> QdiscStats:
        bands = tuple(
            BandStats(band=b, enqueued=self._enqueued[b], sent=self._sent[b], dropped=self._dropped[b],
                      backlog=self._fifos[b].qlen)
            for b in range(PFIFO_FAST_BANDS)
        )  # fmt: skip
        return QdiscStats(
            enqueued=sum(self._enqueued),
            dequeued=self._dequeued,
            dropped=sum(self._dropped),
            requeues=self._requeues,
            backlog=self._qlen,
            bands=bands,
        )

    # --- operations ----------------------------------------------------------------------------

    def enqueue(self, flow_id: int, band: int, n: int = 1) -> tuple[int, int]:
        """Offer ``n`` packets of ``flow_id`` to ``band``; those past the qdisc's limit are dropped
        (``qdisc_drop``: the drop is the root's, counted here on the band it was meant for)."""
        self._check_band(band)
        if n < 0:
            raise ValueError(f"n must be >= 0 packets, got {n}")
        room = self._limit - self._qlen
        accepted = n if n < room else max(room, 0)
        if accepted:
            self._fifos[band].push(flow_id, accepted)
            self._qlen += accepted
        self._enqueued[band] += n
        self._dropped[band] += n - accepted
        return accepted, n - accepted

    def enqueue_priority(self, flow_id: int, skb_priority: int, n: int = 1) -> tuple[int, int]:
        return self.enqueue(flow_id, self.band_for_priority(skb_priority), n)

    def dequeue(self, n: int = 1) -> DequeueResult:
        """The requeued packet first (dequeue_skb()), then ``pfifo_fast_dequeue``: the lowest band that
        holds a packet, FIFO within it."""
        if n < 0:
            raise ValueError(f"n must be >= 0 packets, got {n}")
        runs: list[DequeuedRun] = []
        band_pkts, from_requeue = self._take(n, runs)
        return DequeueResult(
            pkts=sum(band_pkts), runs=tuple(runs), band_pkts=tuple(band_pkts), from_requeue=from_requeue
        )

    def dequeue_bands(self, n: int) -> list[int]:
        if n < 0:
            raise ValueError(f"n must be >= 0 packets, got {n}")
        return self._take(n, None)[0]

    def _take(self, n: int, runs: list[DequeuedRun] | None) -> tuple[list[int], bool]:
        band_pkts = [0] * PFIFO_FAST_BANDS
        total = left = min(n, self._qlen)
        from_requeue = False
        if left and self._gso is not None:
            flow_id, band = self._gso
            self._gso = None
            if runs is not None:
                runs.append((band, flow_id, 1))
            band_pkts[band] = 1
            left -= 1
            from_requeue = True
        for band, fifo in enumerate(self._fifos):
            if not left:
                break
            if fifo.qlen:
                taken = fifo.pop_into(left, band, runs)
                band_pkts[band] += taken
                self._sent[band] += taken
                left -= taken
        self._qlen -= total
        self._dequeued += total
        return band_pkts, from_requeue

    def requeue(self, flow_id: int, band: int) -> None:
        """dev_requeue_skb(): the packet waits in the root's slot and counts in ``q.qlen`` again."""
        self._check_band(band)
        if self._gso is not None:
            raise RuntimeError(f"requeue slot (gso_skb) already holds a packet {self._gso}; dequeue it first")
        if self._dequeued < 1:
            raise RuntimeError("requeue needs a packet that dequeue() handed out; none is outstanding")
        self._gso = (flow_id, band)
        self._requeues += 1
        self._qlen += 1
        self._dequeued -= 1

    def _check_band(self, band: int) -> None:
        if not 0 <= band < PFIFO_FAST_BANDS:
            raise ValueError(f"band must be 0..{PFIFO_FAST_BANDS - 1} (pfifo_fast), got {band}")


if TYPE_CHECKING:
    _IMPLEMENTS_QDISC: type[Qdisc] = PfifoFastQdisc
