"""What the GUI sees of the transmit path: the qdisc's bands, the locks, the dequeuer role, the device."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from model.metrics import jain_index

if TYPE_CHECKING:
    from model.net.qdisc import Qdisc
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
    busylock_waiters: tuple[int, ...]  # CPUs spinning on busylock behind its holder, in ticket order
    root_lock_owner: int  # -1 when free
    exit_rule: str  # "time" (3.0), "quota+jiffy" (jamal's patch) or "quota" (3.1+)
    weight_p: int
    runs: int  # __qdisc_run() calls so far
    exit_reasons: tuple[tuple[str, int], ...]  # quota, need_resched, jiffy, empty, tx_busy
    device: str  # "dummy" or "nic"
    tx_ring_used: int  # descriptors in use, over all TX rings
    tx_ring_size: int  # descriptors, over all TX rings (0 for dummy)
    device_stopped: bool  # some TX ring is stopped
    fairness_jain: float
    ring_used: tuple[int, ...] = ()  # per TX ring: descriptors in use
    ring_stopped: tuple[bool, ...] = ()  # per TX ring: stopped (XOFF)
    ksoftirqd_wakeups: int = 0


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
    )
