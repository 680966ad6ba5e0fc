"""The run queues as the window sees them: one frozen view type per policy family, with typed fields,
as each policy keeps its queue (``runqueue_view()`` of ``model.sched``). ``model.snapshot`` carries them
in ``Snapshot.runqueues`` and re-exports them, so the window imports every type it reads from there.
Like ``model.snapshot``, this module imports nothing else of the model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# Every entry says whether it is running and whether the policy would pick it if its CPU rescheduled
# now, with its current task put back as ``schedule()`` puts it back (``picks_next``: the model's own
# pick, so the window never re-derives it). Entries come current task(s) first.

O1Array = Literal["active", "expired"]


@dataclass(frozen=True, slots=True)
class O1Entry:
    tid: int
    running: bool
    picks_next: bool
    array: O1Array  # also for the running task, which stays in its list under O(1)
    prio: int  # the dynamic prio that orders the lists (static_prio -/+ 5 from sleep_avg)
    static_prio: int  # 120 + nice
    time_slice_ns: int  # what is left of its time slice
    full_slice_ns: int  # task_timeslice(): the slice it gets at expiry
    sleep_avg_ns: int


@dataclass(frozen=True, slots=True)
class O1View:
    """Linux 2.6.22 O(1): one CPU's active and expired priority arrays."""

    cpu: int
    entries: tuple[O1Entry, ...]  # the running task, then active and expired in pick order
    jiffies: int
    tick_ns: int


@dataclass(frozen=True, slots=True)
class Cfs2623Entry:
    tid: int
    running: bool
    picks_next: bool
    fair_key_ns: int  # its key in the tree, as of its last (re)queue
    wait_runtime_ns: int  # what the CPU owes it, projected to now


@dataclass(frozen=True, slots=True)
class Cfs2623View:
    """CFS 2.6.23: one CPU's tree ordered by fair_key, the current task in it."""

    cpu: int
    entries: tuple[Cfs2623Entry, ...]  # the current task, then the tree in order
    fair_clock_ns: int  # projected to now


@dataclass(frozen=True, slots=True)
class Cfs2624Entry:
    tid: int
    running: bool
    picks_next: bool
    vruntime_ns: int  # the current task's projected to now
    ran_ns: int  # the current task: this stint so far (0 for the others)
    slice_ns: int  # the current task: sched_slice(), after which a tick preempts it (0 for the others)


@dataclass(frozen=True, slots=True)
class Cfs2624View:
    """CFS 2.6.24: one CPU's tree ordered by vruntime; the current task is out of it while it runs."""

    cpu: int
    entries: tuple[Cfs2624Entry, ...]  # the current task, then the tree in order
    min_vruntime_ns: int


@dataclass(frozen=True, slots=True)
class BfsEntry:
    tid: int
    running: bool
    picks_next: bool  # what this view's CPU would take next
    deadline_jiffies: int
    deadline_passed: bool  # time_is_before_jiffies(deadline): taken first come, first served
    time_slice_ns: int  # what is left of its rr_interval slice
    on_cpu: int  # the CPU a running task is on; -1 while queued
    pinned_cpu: int  # -1: may run anywhere


@dataclass(frozen=True, slots=True)
class BfsView:
    """BFS: the one global queue, the same for every CPU (only ``picks_next`` is this CPU's)."""

    cpu: int
    entries: tuple[BfsEntry, ...]  # every running task, then the queue by deadline
    jiffies: int


@dataclass(frozen=True, slots=True)
class EevdfEntry:
    tid: int
    running: bool
    picks_next: bool  # pick_eevdf(): the eligible entity with the earliest deadline
    vruntime_ns: int
    deadline_ns: int  # the end of its current request: vruntime_ns at the start plus slice / weight
    lag_ns: int  # avg_vruntime - vruntime
    slice_ns: int  # the request size (sysctl_sched_base_slice, scaled), in real time
    eligible: bool  # vruntime_eligible(): lag >= 0, as the kernel compares it (without dividing)


@dataclass(frozen=True, slots=True)
class EevdfView:
    """EEVDF (6.6+): one CPU's entities, as of its last update_curr()."""

    cpu: int
    entries: tuple[EevdfEntry, ...]  # the current entity, then eligible and ineligible by deadline
    min_vruntime_ns: int
    avg_vruntime_ns: int  # V, the load-weighted average vruntime


RunqueueView = O1View | Cfs2623View | Cfs2624View | BfsView | EevdfView
RunqueueEntry = O1Entry | Cfs2623Entry | Cfs2624Entry | BfsEntry | EevdfEntry
VIEW_KINDS: dict[str, type] = {  # a policy's declared view kind (PolicyInfo.view_kind) -> its view type
    "o1": O1View,
    "cfs-2.6.23": Cfs2623View,
    "cfs-2.6.24": Cfs2624View,
    "bfs": BfsView,
    "eevdf": EevdfView,
}
