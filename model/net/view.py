"""What the GUI sees of the transmit path: the qdisc's bands, the locks, the dequeuer role, the device,
built into the snapshot's types (``model.snapshot.QdiscView``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from model.metrics import jain_index
from model.snapshot import BandView, QdiscView

if TYPE_CHECKING:
    from model.net.qdisc import Qdisc
    from model.net.txpath import TxPath


def qdisc_view(tx: TxPath, q: Qdisc, ncpus: int) -> QdiscView:
    """The transmit path and its qdisc as the GUI draws them."""
    st = q.stats()
    bands = tuple(
        BandView(b.band, b.backlog, q.limit, b.sent, b.dropped, tx.band_heads(b.band, 256)) for b in st.bands
    )
    nic = tx.nic
    stopped = tx.ring_stopped()
    return QdiscView(
        kind=q.kind,
        bands=bands,
        enqueued=st.enqueued,
        dequeued=st.dequeued,
        dropped=st.dropped,
        requeues=tx.c.requeues,
        backlog=st.backlog,
        per_cpu_dequeued=tuple(tx.c.per_cpu_dequeued),
        per_cpu_enqueued=tuple(tx.enqueued[:ncpus]),
        dequeuer_cpu=tx.dequeuer_cpu(),
        busylock_owner=tx.busylock_cpu(),
        busylock_waiters=tx.busylock_waiters(),
        root_lock_owner=tx.root_lock_cpu(),
        exit_rule=tx.exit_rule,
        weight_p=tx.weight_p,
        runs=tx.c.runs,
        exit_reasons=tuple(tx.c.exit_reasons.items()),
        device="nic" if nic is not None else "dummy",
        tx_ring_used=nic.used() if nic is not None else 0,
        tx_ring_size=nic.size() if nic is not None else 0,
        device_stopped=any(stopped),
        fairness_jain=jain_index(tx.c.per_cpu_dequeued),
        ring_used=tx.ring_used(),
        ring_stopped=stopped,
        ksoftirqd_wakeups=tx.c.ksoftirqd_wakeups,
        per_cpu_exit_reasons=tuple(tuple(d.items()) for d in tx.c.per_cpu_exits[:ncpus]),
        per_cpu_dequeued_by_context=tuple(tuple(d.items()) for d in tx.c.per_cpu_context_dequeued[:ncpus]),
        dequeuer_since_ns=tx.dequeuer_since_ns(),
    )


__all__ = ["BandView", "QdiscView", "qdisc_view"]  # the view types live in model.snapshot
