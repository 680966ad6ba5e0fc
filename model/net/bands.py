"""What ``prio`` and ``pfifo_fast`` share: strict-priority FIFO bands behind the root's requeue slot.

Both qdiscs dequeue the same way (net/sched/sch_generic.c ``dequeue_skb()``: the root's ``q->gso_skb``
first, then the lowest band that holds a packet, FIFO within it), requeue the same way
(``dev_requeue_skb()``) and keep the same counters. They differ in how a packet finds its band and in
where the limit applies, so each subclass says only that: ``band_for_priority``, ``accepts`` and
``_room`` (how many more packets a band takes now). Bulk operations cost O(bands + runs): a band is a
run-length encoded ``RunFifo`` (``model.net.qdisc``).
"""

from __future__ import annotations

from model.net.qdisc import BandStats, DequeuedRun, DequeueResult, FlowRun, QdiscStats, RunFifo


class Band(RunFifo):
    """One band: its packets and its counters (a band's own fields, which mypyc keeps unboxed: a count
    in a list would be boxed anew at every packet)."""

    __slots__ = ("dropped", "enqueued", "sent")

    def __init__(self) -> None:
        super().__init__()
        self.enqueued = 0  # attempts, accepted + dropped
        self.sent = 0  # child bstats.packets
        self.dropped = 0  # drops of packets meant for it (the root's are the bands' sum)


class BandedQdisc:
    """``bands`` FIFO bands, their counters and the root's requeue slot."""

    __slots__ = ("_band_names", "_bands", "_dequeued", "_fifos", "_gso", "_limit", "_qlen", "_requeues")

    def __init__(self, bands: int, limit: int, band_names: str) -> None:
        self._bands = bands
        self._limit = limit
        self._band_names = band_names  # how an out-of-range band is explained, e.g. "bands=3"
        self._fifos = [Band() for _ in range(bands)]
        self._dequeued = 0  # root: net packets gone out (see QdiscStats)
        self._requeues = 0  # root qstats.requeues
        self._qlen = 0  # root q.qlen: bands + requeue slot
        self._gso: tuple[int, int] | None = None  # root q->gso_skb as (flow_id, band)

    def _room(self, band: int) -> int:
        """How many more packets ``band`` takes now (the subclass's limit rule)."""
        raise NotImplementedError

    def accepts(self, band: int, band_qlens: list[int]) -> bool:
        """Whether one packet enqueued to ``band`` would be taken if the bands held ``band_qlens`` (the
        subclass's limit rule, as ``_room`` says it for the bands as they are)."""
        raise NotImplementedError

    # --- state ---------------------------------------------------------------------------------

    @property
    def bands(self) -> int:
        return self._bands

    @property
    def qlen(self) -> int:
        return self._qlen

    @property
    def requeued(self) -> tuple[int, int] | None:
        return self._gso

    def band_qlen(self, band: int) -> int:
        self._check_band(band)
        return self._fifos[band].qlen

    def band_nruns(self, band: int) -> int:
        """Runs stored for ``band`` (the cost of draining it)."""
        self._check_band(band)
        return self._fifos[band].nruns()

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
            BandStats(band=b, enqueued=f.enqueued, sent=f.sent, dropped=f.dropped, backlog=f.qlen)
            for b, f in enumerate(self._fifos)
        )
        return QdiscStats(
            enqueued=sum(b.enqueued for b in bands),
            dequeued=self._dequeued,
            dropped=sum(b.dropped for b in bands),  # prio_enqueue(): sch->qstats.drops++ for each child drop
            requeues=self._requeues,
            backlog=self._qlen,
            bands=bands,
        )

    # --- operations ----------------------------------------------------------------------------

    def enqueue(self, flow_id: int, band: int, n: int = 1) -> tuple[int, int]:
        """Offer ``n`` packets of ``flow_id`` to ``band``; the ones past the limit are tail-dropped
        (``qdisc_drop``, counted on the band they were meant for). Returns (accepted, dropped)."""
        self._check_band(band)
        if n < 0:
            raise ValueError(f"n must be >= 0 packets, got {n}")
        room = self._room(band)
        accepted = n if n < room else max(room, 0)
        fifo = self._fifos[band]
        if accepted:
            fifo.push(flow_id, accepted)
            self._qlen += accepted
        dropped = n - accepted
        fifo.enqueued += n
        fifo.dropped += dropped
        return accepted, dropped

    def enqueue_one(self, flow_id: int, band: int) -> bool:
        """``enqueue(flow_id, band, 1)`` for a valid band, True if taken (the closed form's hot path)."""
        fifo = self._fifos[band]
        fifo.enqueued += 1
        if self._room(band) > 0:
            fifo.push(flow_id, 1)
            self._qlen += 1
            return True
        fifo.dropped += 1
        return False

    def tail_drops(self, band: int, n: int) -> None:
        """``n`` packets offered to ``band`` and tail-dropped (the closed form counts a stretch's at once)."""
        fifo = self._fifos[band]
        fifo.enqueued += n
        fifo.dropped += n

    def band_for_priority(self, skb_priority: int) -> int:
        raise NotImplementedError

    def enqueue_priority(self, flow_id: int, skb_priority: int, n: int = 1) -> tuple[int, int]:
        return self.enqueue(flow_id, self.band_for_priority(skb_priority), n)

    def dequeue(self, n: int = 1) -> DequeueResult:
        """Take up to ``n`` packets: the requeued one first, then strictly by band, FIFO within a band.

        sch_generic.c dequeue_skb(): the gso_skb slot goes first (the caller, the transmit path, must not
        dequeue while the txq is stopped, which is when the kernel leaves the slot alone). Then the
        first band with a packet gives it (sch_prio.c prio_dequeue(), pfifo_fast_dequeue()). A bulk call
        is the same as ``n`` calls with nothing enqueued in between.
        """
        if n < 0:
            raise ValueError(f"n must be >= 0 packets, got {n}")
        runs: list[DequeuedRun] = []
        band_pkts, from_requeue = self._take(n, runs)
        return DequeueResult(
            pkts=sum(band_pkts), runs=tuple(runs), band_pkts=tuple(band_pkts), from_requeue=from_requeue
        )

    def dequeue_bands(self, n: int) -> list[int]:
        """``dequeue(n)`` that reports only the packets taken per band (the transmit path's hot path)."""
        if n < 0:
            raise ValueError(f"n must be >= 0 packets, got {n}")
        return self._take(n, None)[0]

    def head_flow(self, band: int) -> int:
        """The flow of ``band``'s head packet (the band is not empty; the transmit path's hot path)."""
        return self._fifos[band].head_flow()

    def dequeue_one(self) -> int:
        """``dequeue(1)`` with the requeue slot empty and a packet queued: the band it came from (the
        transmit path's hot path; ``head_flow`` of that band, asked before, is the packet's flow)."""
        assert self._gso is None and self._qlen > 0
        band = 0
        for fifo in self._fifos:
            if fifo.qlen:
                fifo.pop_one()
                fifo.sent += 1
                break
            band += 1
        self._qlen -= 1
        self._dequeued += 1
        return band

    def _take(self, n: int, runs: list[DequeuedRun] | None) -> tuple[list[int], bool]:
        band_pkts = [0] * self._bands
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
        if left:
            for band, fifo in enumerate(self._fifos):
                if fifo.qlen:
                    taken = fifo.pop_into(left, band, runs)
                    band_pkts[band] += taken
                    fifo.sent += taken
                    left -= taken
                    if not left:
                        break
        self._qlen -= total
        self._dequeued += total
        return band_pkts, from_requeue

    def requeue(self, flow_id: int, band: int) -> None:
        """sch_generic.c dev_requeue_skb(): `q->gso_skb = skb; q->qstats.requeues++; q->q.qlen++;`.

        The packet (one ``dequeue`` handed out, from ``band``) goes back to the head of the root: the
        next ``dequeue`` returns it first. It does not re-enter its band's FIFO, so the band's counters
        are untouched; the root takes it off ``dequeued`` again (see ``QdiscStats``).
        """
        self._check_band(band)
        if self._gso is not None:
            # The kernel never requeues with the slot full: dequeue_skb() empties it before a new skb
            # can be dequeued, and nothing is dequeued while the txq is stopped.
            raise RuntimeError(f"requeue slot (gso_skb) already holds a packet {self._gso}; dequeue it first")
        if self._dequeued < 1:
            raise RuntimeError("requeue needs a packet that dequeue() handed out; none is outstanding")
        self._gso = (flow_id, band)
        self._requeues += 1
        self._qlen += 1
        self._dequeued -= 1

    def _check_band(self, band: int) -> None:
        if not 0 <= band < self._bands:
            raise ValueError(f"band must be 0..{self._bands - 1} ({self._band_names}), got {band}")
