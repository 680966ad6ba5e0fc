"""What the GUI sees of the transmit path: the prio qdisc's bands, the locks and the dequeuer role."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from model.metrics import jain_index

if TYPE_CHECKING:
    from model.net.prio import PrioQdisc
    from model.net.txpath import TxPath


@dataclass(frozen=True, slots=True)
class BandView:
    band: int
    backlog: int  # packets queued in this band
    limit: int  # pfifo limit (tx_queue_len)
    sent: int  # packets dequeued through this band
    dropped: int
    head_runs: tuple[tuple[int, int], ...]  # from the head: (sending CPU, packets), for colouring


@dataclass(frozen=True, slots=True)
class QdiscView:
    kind: str  # "prio"
    bands: tuple[BandView, ...]
    enqueued: int
    dequeued: int
    dropped: int
    requeues: int
    backlog: int
    per_cpu_dequeued: tuple[int, ...]
    per_cpu_enqueued: tuple[int, ...]
    dequeuer_cpu: int  # owner of the RUNNING bit, -1 when nobody dequeues
    busylock_owner: int  # -1 when free
    busylock_waiters: tuple[int, ...]  # CPUs spinning on busylock, in arrival order
    root_lock_owner: int  # -1 when free
    exit_rule: str  # "time" (3.0) or "quota" (3.1+)
    weight_p: int
    runs: int  # dequeuer tenures so far
    exit_reasons: tuple[tuple[str, int], ...]  # quota, need_resched, jiffy, empty, tx_busy
    device: str  # "dummy" or "nic"
    tx_ring_used: int
    tx_ring_size: int
    device_stopped: bool
    fairness_jain: float


def qdisc_view(tx: TxPath, q: PrioQdisc, ncpus: int) -> QdiscView:
    """The transmit path and its qdisc as the GUI draws them."""
    st = q.stats()
    bands = tuple(
        BandView(b.band, b.backlog, q.limit, b.sent, b.dropped, tx.band_heads(b.band, 256)) for b in st.bands
    )
    enq = [0] * ncpus
    for cpu, s in tx.senders.items():
        enq[cpu] = s.enqueued
    return QdiscView(
        kind=q.kind,
        bands=bands,
        enqueued=st.enqueued,
        dequeued=st.dequeued,
        dropped=st.dropped,
        requeues=tx.c.requeues,
        backlog=st.backlog,
        per_cpu_dequeued=tuple(tx.c.per_cpu_dequeued),
        per_cpu_enqueued=tuple(enq),
        dequeuer_cpu=tx.d,
        busylock_owner=tx.fifo[0] if tx.fifo else -1,
        busylock_waiters=tx.busylock_waiters(),
        root_lock_owner=tx.d,
        exit_rule=tx.exit_rule,
        weight_p=tx.weight_p,
        runs=tx.c.runs,
        exit_reasons=tuple(tx.c.exit_reasons.items()),
        device=tx.nic.kind,
        tx_ring_used=tx.ring.qlen,
        tx_ring_size=tx.nic.ring if tx.nic.kind == "nic" else 0,
        device_stopped=tx.stopped,
        fairness_jain=jain_index(tx.c.per_cpu_dequeued),
    )
