"""What the GUI sees of the transmit path: the prio qdisc's bands, the locks and the dequeuer role,
built into the snapshot's types (``model.snapshot.QdiscView``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from model.metrics import jain_index
from model.snapshot import BandView, QdiscView

if TYPE_CHECKING:
    from model.net.prio import PrioQdisc
    from model.net.txpath import TxPath


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


__all__ = ["BandView", "QdiscView", "qdisc_view"]  # the view types live in model.snapshot
