"""What the GUI sees of the transmit path: the prio qdisc's bands, the locks and the dequeuer role."""

from __future__ import annotations

from dataclasses import dataclass


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
