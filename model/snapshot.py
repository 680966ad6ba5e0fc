"""Every type the window may read: the machine at one instant, as frozen dataclasses of typed fields.

Nothing here is text to parse. Numbers are integers in the unit their name ends with (``_ns``,
``_jiffies``), codes are the short string constants of the ``Literal`` types below, and the human
wording of a code lives in one place (the policy registry, ``model.sched``). Snapshots are built by
``model.simulation`` (``model.observe`` for the per-CPU and per-task views); the run queues come from
the policies (their view types are ``model.runqueue_views``, re-exported here), the transmit path's
from ``model.net.view``. It imports nothing else of the model but those view types: everything else
may import it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal, final

import numpy as np
from numpy.typing import NDArray

from model.runqueue_views import (
    VIEW_KINDS,
    BfsEntry,
    BfsView,
    Cfs2623Entry,
    Cfs2623View,
    Cfs2624Entry,
    Cfs2624View,
    EevdfEntry,
    EevdfView,
    O1Array,
    O1Entry,
    O1View,
    RunqueueEntry,
    RunqueueView,
)

Value = int | float | str | bool | tuple[int, ...]
"""A setting's value (a dotted scenario key's)."""

# ---- sched_yield(): where the yielder landed, and why --------------------------------------------

YieldLanding = Literal[
    "expired_array",  # O(1): the tail of its prio list in the expired array (``prio``)
    "in_place",  # CFS: re-queued at its own key (``key_ns``: fair_key in 2.6.23, vruntime in 2.6.24)
    "rightmost",  # CFS with sched_compat_yield: behind every other task (``key_ns``: its new key)
    "new_deadline",  # BFS: slice ended, a new virtual deadline (``deadline_jiffies``)
    "requeued",  # BFS v0.318: back at the tail of the queue, its deadline kept (``deadline_jiffies``)
    "later_deadline",  # EEVDF 6.6-6.16: the deadline one slice later (``deadline_ns``, ``moved_ns``)
    "forfeit",  # EEVDF 6.17+: vruntime to the deadline (``key_ns``), then a new one (``deadline_ns``)
    "unchanged",  # nothing moved (``reason`` says why)
]
YieldReason = Literal[
    "",  # the policy's ordinary yield
    "alone",  # no other task on this run queue: the kernel returns at once
    "ineligible",  # EEVDF 6.17+: only an eligible task forfeits
    "already_rightmost",  # CFS compat: it was already behind every other task
]


@final
class YieldOutcome:
    """What a policy's ``yield_task`` did to the yielder, before ``schedule()``; the numbers that say it
    are set for the landings that have them (see ``YieldLanding``), 0 otherwise.

    Read-only (``Final``), compared by value. A plain class, not a dataclass like the others: one is
    made at every sched_yield(), and compiled with mypyc a dataclass still builds through a Python-level
    ``__init__`` (2-3 µs, frozen), where this class builds natively.
    """

    def __init__(
        self,
        landing: YieldLanding,
        reason: YieldReason = "",
        noop: bool = False,
        prio: int = 0,
        key_ns: int = 0,
        deadline_ns: int = 0,
        deadline_jiffies: int = 0,
        moved_ns: int = 0,
    ) -> None:
        self.landing: Final = landing
        self.reason: Final = reason
        self.noop: Final = noop  # the yielder's place and keys are as before
        self.prio: Final = prio
        self.key_ns: Final = key_ns
        self.deadline_ns: Final = deadline_ns
        self.deadline_jiffies: Final = deadline_jiffies
        self.moved_ns: Final = (
            moved_ns  # EEVDF: how far the deadline moved (a slice) or the request forfeited
        )

    def _fields(self) -> tuple[str, str, bool, int, int, int, int, int]:
        return (
            self.landing,
            self.reason,
            self.noop,
            self.prio,
            self.key_ns,
            self.deadline_ns,
            self.deadline_jiffies,
            self.moved_ns,
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, YieldOutcome) and self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        names = ("landing", "reason", "noop", "prio", "key_ns", "deadline_ns", "deadline_jiffies", "moved_ns")
        return f"YieldOutcome({', '.join(f'{n}={v!r}' for n, v in zip(names, self._fields(), strict=True))})"


YIELD_ALONE = YieldOutcome("unchanged", "alone", noop=True)

# ---- trace records: what happened, in time order ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class SwitchRecord:
    """A context switch on ``cpu``: ``prev_tid`` out, ``tid`` in (0 is idle)."""

    t_ns: int
    cpu: int
    tid: int
    prev_tid: int


@dataclass(frozen=True, slots=True)
class WakeRecord:
    """Task ``tid`` woke up and was queued on ``cpu``."""

    t_ns: int
    cpu: int
    tid: int


@dataclass(frozen=True, slots=True)
class IrqRecord:
    """An interrupt on ``cpu`` from ``t_ns`` (after any in progress): hardirq, then softirq. With
    ``open_context``, one stretch of an open-ended context (the transmit path's hard interrupts and
    softirqs, ``Machine.irq_enter`` to ``irq_exit``), recorded as it is charged: hardirq or softirq alone,
    each stretch of a context a record of its own (a hard interrupt over a softirq splits it)."""

    t_ns: int
    cpu: int
    hardirq_ns: int
    softirq_ns: int
    open_context: bool = False

    @property
    def dur_ns(self) -> int:
        return self.hardirq_ns + self.softirq_ns


@dataclass(frozen=True, slots=True)
class YieldRecord:
    """Task ``tid`` called ``sched_yield()``: what the policy did, and whether ``schedule()`` then
    switched to another task (False: the yielder was picked again)."""

    t_ns: int
    cpu: int
    tid: int
    outcome: YieldOutcome
    switched: bool


@dataclass(frozen=True, slots=True)
class CommandRecord:
    """A live setting applied at ``t_ns``, like a sysctl write."""

    t_ns: int
    cpu: int
    key: str
    value: int | str


@dataclass(frozen=True, slots=True)
class TenureRecord:
    """A dequeuer's tenure on ``cpu`` from ``t_ns``: ``packets`` dequeued, then ``exit_reason``."""

    t_ns: int
    cpu: int
    dur_ns: int
    packets: int
    exit_reason: str
    context: str = ""  # who ran the loop: a sender's dev_queue_xmit, net_tx_action, ksoftirqd


TraceRecord = SwitchRecord | WakeRecord | IrqRecord | YieldRecord | CommandRecord | TenureRecord
# The same kinds as a tuple, in this order, for the code that handles every kind (packing, copying).
TRACE_RECORD_TYPES: Final = (SwitchRecord, WakeRecord, IrqRecord, YieldRecord, CommandRecord, TenureRecord)

# ---- the transmit path: the qdisc's bands, the locks and the dequeuer role -------------------------


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
    kind: str  # the qdisc.kind: "prio" or "pfifo_fast"
    bands: tuple[BandView, ...]
    enqueued: int  # every packet offered, the tail drops too: dequeued + dropped + backlog
    dequeued: int
    dropped: int
    requeues: int
    backlog: int
    per_cpu_dequeued: tuple[int, ...]
    per_cpu_enqueued: tuple[int, ...]  # per sending CPU: the packets the qdisc took
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
    # per CPU: its dequeuer runs' exit reasons, and the packets it dequeued in each context (its sender,
    # its NET_TX softirq, its ksoftirqd), as (name, count) pairs
    per_cpu_exit_reasons: tuple[tuple[tuple[str, int], ...], ...] = ()
    per_cpu_dequeued_by_context: tuple[tuple[tuple[str, int], ...], ...] = ()
    # Since when ``dequeuer_cpu`` holds the role, -1 when nobody does: the trace records a tenure when
    # it ends (``TenureRecord``).
    dequeuer_since_ns: int = -1


# ---- the machine now ---------------------------------------------------------------------------------

CpuState = Literal["idle", "task", "hardirq", "softirq"]
TaskStateName = Literal["running", "runnable", "sleeping", "dead"]


@dataclass(frozen=True, slots=True)
class CpuView:
    index: int
    curr_tid: int  # 0 when idle
    state: CpuState
    need_resched: bool
    task_ns: int
    hardirq_ns: int
    softirq_ns: int
    switches: int
    # Since when the open interrupt context's stretch in progress runs (its kind is ``state``), -1 if
    # none: the trace records a stretch when it ends (``IrqRecord.open_context``).
    open_irq_since_ns: int = -1


@dataclass(frozen=True, slots=True)
class TaskView:
    tid: int
    name: str
    role: str
    state: TaskStateName
    cpu: int
    nice: int
    exec_ns: int
    yields: int
    nvcsw: int
    nivcsw: int
    spinning: bool


@dataclass(frozen=True, slots=True)
class SeriesLayout:
    """Which column of ``Snapshot.series`` holds which cumulative counter (column 0 is ``t_ns``)."""

    acked_bytes: int
    switches: int
    cpu_task_ns: tuple[int, ...]  # one per CPU
    cpu_hardirq_ns: tuple[int, ...]
    cpu_softirq_ns: tuple[int, ...]
    task_exec_ns: tuple[int, ...]  # one per task, in the order of ``Snapshot.tasks``
    task_yields: tuple[int, ...]
    cpu_dequeued: tuple[int, ...]  # one per CPU with a transmit path, else empty


@dataclass(frozen=True, slots=True)
class Snapshot:
    t_ns: int
    cpu_curr: NDArray[np.int64]  # per CPU: tid of the running task, 0 when idle
    cpus: tuple[CpuView, ...]
    tasks: tuple[TaskView, ...]
    runqueues: tuple[RunqueueView, ...]  # one per CPU, of the policy's view kind
    events: tuple[TraceRecord, ...]  # drained since the previous advance (none in ``snapshot()``)
    series_columns: tuple[str, ...]
    series: NDArray[np.int64]  # rows of cumulative counters (see model.metrics.Series)
    series_layout: SeriesLayout
    toggles: tuple[tuple[int, str, int | str], ...]  # (t_ns, key, value) of every live command
    settings: Mapping[str, Value]  # every effective dotted key: the scenario's, live ones as set now
    acked_bytes: int
    events_dispatched: int
    qdisc: QdiscView | None = None  # the transmit path, when the scenario has one
    # The row of ``series`` counters when a live setting last changed (all zeros before any change):
    # the start of "the mean since the last change".
    series_anchor: NDArray[np.int64] | None = None


__all__ = [
    "VIEW_KINDS",
    "YIELD_ALONE",
    "BandView",
    "BfsEntry",
    "BfsView",
    "Cfs2623Entry",
    "Cfs2623View",
    "Cfs2624Entry",
    "Cfs2624View",
    "CommandRecord",
    "CpuView",
    "EevdfEntry",
    "EevdfView",
    "IrqRecord",
    "O1Array",
    "O1Entry",
    "O1View",
    "QdiscView",
    "RunqueueEntry",
    "RunqueueView",
    "SeriesLayout",
    "Snapshot",
    "SwitchRecord",
    "TaskView",
    "TenureRecord",
    "TraceRecord",
    "Value",
    "WakeRecord",
    "YieldLanding",
    "YieldOutcome",
    "YieldReason",
    "YieldRecord",
]
