"""EEVDF, the fair class of Linux 6.6+ (KERNEL.md §C.2), with the 2025 yield fix (upstream 79104becf42b).

Each CPU has a cfs_rq of entities with a ``vruntime`` (service received, in weighted ns) and a virtual
``deadline = vruntime + slice * 1024 / weight``. The load-weighted average vruntime V of the runnable
entities, the current one included, is the queue's clock: an entity is eligible when its lag
``V - vruntime`` is ≥ 0, and ``pick_eevdf`` runs the eligible entity with the earliest deadline. A
request is served when vruntime reaches the deadline (``update_deadline``: new deadline, resched). A
sleeper keeps its lag and gets it back when it wakes (PLACE_LAG), so a task that slept while owed
service preempts. ``sched_yield()`` forfeits the rest of the request (vruntime = deadline) if eligible;
``yield_forfeit = 0`` restores the 6.6-to-2025 yield, which only pushes the deadline one slice later.
The queue's arithmetic (V, eligibility, placement, the pick) is ``model.sched.eevdf_rq``; this module
holds the callbacks, the yield and the registry entry.
# SIMPLIFICATION: one flat cfs_rq per CPU (no cgroups), no load balancing (``select_cpu_per_rq``), no
# DELAY_DEQUEUE (6.12+ keeps a sleeper with negative lag queued until it is eligible again), no custom
# slices (sched_attr) and so no PREEMPT_SHORT, and calc_delta_fair() divides exactly instead of the
# kernel's 32-bit inverse-weight multiply.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from model.copyable import mypyc_attr
from model.sched.base import (
    NICE_0_LOAD,
    NSEC_PER_SEC,
    SchedPolicy,
    cpu_scale_factor,
    nice_to_weight,
    select_cpu_per_rq,
)
from model.sched.eevdf_rq import (
    CfsRq,
    EevdfEntity,
    advance_min_vruntime,
    avg_vruntime,
    calc_delta_fair,
    eligible,
    load,
    pick_eevdf,
    place_entity,
    update_min_vruntime,
)
from model.sched.registry import PolicyInfo, Tunable, fmt_ms, landing_words
from model.snapshot import YIELD_ALONE, EevdfEntry, EevdfView, YieldOutcome
from model.task import Task

# sysctl_sched_base_slice: 0.70 ms from 6.15 (2ae891b8 "Reduce the default slice to avoid tasks getting
# an extra tick"); 0.75 ms in 6.6-6.14. Scaled by 1 + ilog2(min(ncpus, 8)) at boot.
BASE_SLICE_NS: Final = 700_000
YIELD_FORFEIT = Tunable(
    key="yield_forfeit",
    default=1,
    title="EEVDF sched_yield()",
    help="sched_yield() in EEVDF: 0 is yield_task_fair() of 6.6-6.16 (the deadline moves one slice out), "
    '1 that of 6.17+ (79104becf42b "sched/fair: Forfeit vruntime on yield", also in 6.12.63 and 6.6.y '
    "stable: the task forfeits the rest of its request)",
    choices=(
        (0, "6.6–6.16: deadline a slice later"),
        (1, "6.17+: forfeits its request"),
    ),
    control="radios",
    about_yield=True,
)
RUN_TO_PARITY = Tunable(
    key="run_to_parity",
    default=1,
    title="RUN_TO_PARITY",
    help="sched_feat(RUN_TO_PARITY): a wakeup does not preempt an eligible current task before it has "
    "served the request it was picked with",
    choices=(
        (0, "off: a wakeup may preempt at once"),
        (1, "RUN_TO_PARITY\n(no preemption mid-request)"),
    ),
)
YIELD_INELIGIBLE = YieldOutcome("unchanged", "ineligible", noop=True)


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class EevdfPolicy(SchedPolicy):
    """Linux 6.6+ EEVDF: eligible-earliest-deadline pick, lag-preserving placement, forfeiting yield."""

    name: str = "eevdf"

    def __init__(self, ncpus: int, hz: int) -> None:
        self.ncpus = ncpus
        self.tick_ns = NSEC_PER_SEC // hz  # TICK_NSEC
        # sched_init_granularity(): SCHED_TUNABLESCALING_LOG, 1 + ilog2(min(ncpus, 8)).
        self.base_slice_ns = BASE_SLICE_NS * cpu_scale_factor(ncpus, cap=8)
        self._lag_span_ns = max(2 * self.base_slice_ns, self.tick_ns)  # update_entity_lag()'s bound
        self.yield_forfeit = bool(YIELD_FORFEIT.default)  # 79104becf42b; 0 = 6.6 up to the fix
        self.run_to_parity = bool(RUN_TO_PARITY.default)  # sched_feat(RUN_TO_PARITY), on by default
        self._rqs = [CfsRq() for _ in range(ncpus)]

    # ---- placement and queueing -------------------------------------------------------------------

    def select_task_rq(self, task: Task, now_ns: int) -> int:
        return select_cpu_per_rq(task, self.ncpus, self)

    def task_new(self, task: Task, cpu: int, now_ns: int, parent: Task | None = None) -> None:
        # task_fork_fair(): update_curr(), then place_entity(ENQUEUE_INITIAL) with no lag (__sched_fork).
        self.update_curr(cpu, now_ns)
        task.se = EevdfEntity(weight=nice_to_weight(task.nice))
        place_entity(self._rqs[cpu], task.se, self.base_slice_ns, initial=True)
        self._rqs[cpu].add(task)

    def enqueue(self, task: Task, cpu: int, now_ns: int, wakeup: bool, from_irq: bool = False) -> None:
        # enqueue_entity(): update_curr(), place_entity() from the saved lag, __enqueue_entity().
        self.update_curr(cpu, now_ns)
        place_entity(self._rqs[cpu], task.se, self.base_slice_ns, initial=False)
        self._rqs[cpu].add(task)

    def dequeue(self, task: Task, cpu: int, now_ns: int) -> None:
        rq = self._rqs[cpu]
        self.update_curr(cpu, now_ns)
        se: EevdfEntity = task.se
        # update_entity_lag(): the lag while it still counts in V, clamped to ±calc_delta_fair(max(2 slices,
        # TICK_NSEC)) so a long run or wait cannot be carried over whole.
        limit = calc_delta_fair(self._lag_span_ns, se)
        lag = avg_vruntime(rq) - se.vruntime
        se.vlag = -limit if lag < -limit else (limit if lag > limit else lag)  # clamp, without min/max
        if rq.curr is task:
            rq.curr = None
        else:
            rq.remove(task)
        update_min_vruntime(rq)

    def put_prev(self, task: Task, cpu: int, now_ns: int) -> None:
        # put_prev_entity(): a still-runnable curr goes back into the tree (after the others on ties).
        rq = self._rqs[cpu]
        rq.curr = None
        se: EevdfEntity = task.se  # rq.add(task), inline on this hot path
        rq.queued.append(task)
        rq.avg_vruntime += se.weight * (se.vruntime - rq.min_vruntime)
        rq.avg_load += se.weight

    def pick_next(self, cpu: int, now_ns: int) -> Task | None:
        rq = self._rqs[cpu]
        if rq.curr is not None:
            raise RuntimeError(f"pick_next on cpu {cpu} before put_prev/dequeue of its current task")
        queued = rq.queued
        # pick_eevdf() (curr is None here), whose answer is plain with one task or none queued.
        nxt = pick_eevdf(rq, False) if len(queued) > 1 else (queued[0] if queued else None)
        rq.resched = False
        if nxt is not None:
            se: EevdfEntity = nxt.se  # rq.remove(nxt), inline on this hot path
            rq.queued.remove(nxt)
            rq.avg_vruntime -= se.weight * (se.vruntime - rq.min_vruntime)
            rq.avg_load -= se.weight
            rq.curr = nxt
            rq.exec_start_ns = now_ns
            se.vprot = se.deadline  # set_next_entity(): the RUN_TO_PARITY "HACK", se->vlag = deadline
        return nxt

    def update_curr(self, cpu: int, now_ns: int) -> None:
        rq = self._rqs[cpu]
        curr = rq.curr
        if curr is None or now_ns <= rq.exec_start_ns:
            return
        se: EevdfEntity = curr.se
        delta = now_ns - rq.exec_start_ns  # calc_delta_fair(), inline on this hot path
        weight = se.weight
        vruntime = se.vruntime + (delta if weight == NICE_0_LOAD else delta * NICE_0_LOAD // weight)
        se.vruntime = vruntime
        rq.exec_start_ns = now_ns
        queued = rq.queued
        # update_deadline(): the request is served once vruntime reaches the deadline; ask for the next
        # one and resched if anyone else is runnable here.
        if vruntime >= se.deadline:
            vslice = self.base_slice_ns  # calc_delta_fair(), inline
            se.deadline = vruntime + (vslice if weight == NICE_0_LOAD else vslice * NICE_0_LOAD // weight)
            rq.resched = rq.resched or bool(queued)
        advance_min_vruntime(rq, vruntime)

    # ---- tick, preemption, yield ------------------------------------------------------------------

    def task_tick(self, cpu: int, now_ns: int) -> bool:
        # entity_tick() is update_curr() only: the tick preempts only through update_deadline().
        rq = self._rqs[cpu]
        return rq.curr is not None and rq.resched

    def check_preempt_wakeup(self, cpu: int, woken: Task, now_ns: int) -> bool:
        # wakeup_preempt_fair(): update_curr(), then preempt if pick_eevdf() would now choose the woken
        # task. No wakeup granularity any more; RUN_TO_PARITY keeps an eligible curr until its deadline.
        rq = self._rqs[cpu]
        if rq.curr is None:
            return True
        self.update_curr(cpu, now_ns)
        if rq.resched:  # update_deadline() already asked for a reschedule
            return True
        return pick_eevdf(rq, protect=self.run_to_parity) is woken

    def yield_task(self, cpu: int, now_ns: int, describe: bool = True) -> YieldOutcome | None:
        rq = self._rqs[cpu]
        if rq.curr is None:
            raise RuntimeError(f"yield on cpu {cpu} with no current task")
        if not rq.queued:  # yield_task_fair(): "Are we the only task in the tree?"
            return YIELD_ALONE
        # yield_task_fair() then calls update_curr(): the machine just did, at this instant (the yield
        # order of model.sched.base), so it would charge nothing.
        se: EevdfEntity = rq.curr.se
        weight = se.weight
        vslice = self.base_slice_ns  # calc_delta_fair(), inline on this hot path
        if weight != NICE_0_LOAD:
            vslice = vslice * NICE_0_LOAD // weight
        if not self.yield_forfeit:
            se.deadline += vslice  # 6.6-6.16: still eligible, the deadline moves one slice on
            if not describe:
                return None
            return YieldOutcome(
                "later_deadline", key_ns=se.vruntime, deadline_ns=se.deadline, moved_ns=vslice
            )
        # eligible() with curr's own contribution to the sums (load()), inline on this hot path
        key = se.vruntime - rq.min_vruntime
        if rq.avg_vruntime + weight * key < key * (rq.avg_load + weight):
            return YIELD_INELIGIBLE  # 79104becf42b forfeits only while eligible
        # 79104becf42b: "forfeits the rest of its request": vruntime jumps to the deadline.
        vruntime = se.deadline
        forfeited = vruntime - se.vruntime
        se.vruntime = vruntime
        se.deadline = vruntime + vslice
        advance_min_vruntime(rq, vruntime)
        if not describe:
            return None
        return YieldOutcome("forfeit", key_ns=se.vruntime, deadline_ns=se.deadline, moved_ns=forfeited)

    def yield_noop_budget_ns(self, cpu: int, now_ns: int) -> int | None:
        """Alone: no bound. Forfeiting: 0, as each yield moves vruntime a request on, however little time
        passes. Pre-fix: a yield only pushes the deadline, which cannot matter while the yielder is the
        only eligible entity; that lasts until some other entity i turns eligible, at the first
        ``w_y * k_y >= k_i * W - S`` (keys ``k = vruntime - min_vruntime``, S = Σ w·k of the others,
        W the whole load). Once no other is eligible the yielder is, as the least key always is.
        # SIMPLIFICATION: the yields the machine collapses under this budget do not each push the
        # deadline, as they would in the kernel (the pre-fix "runaway"); only the next real one does.
        # Picks are the same while the budget holds; afterwards a few more real yields are needed
        # before the deadline passes the others'.
        """
        rq = self._rqs[cpu]
        if rq.curr is None:
            return 0
        if not rq.queued:
            return None
        if self.yield_forfeit:
            return 0
        se: EevdfEntity = rq.curr.se
        v0 = rq.min_vruntime
        others: list[EevdfEntity] = [t.se for t in rq.queued]
        s_others = sum(o.weight * (o.vruntime - v0) for o in others)
        load = se.weight + sum(o.weight for o in others)
        # Largest yielder key that keeps i ineligible: ceil((k_i * W - S) / w_y) - 1.
        k_max = min(-((s_others - (o.vruntime - v0) * load) // se.weight) - 1 for o in others)
        dv = k_max - (se.vruntime - v0)
        if dv < 0:
            return 0
        # The longest run r with calc_delta_fair(r) <= dv; several update_curr() calls only floor more.
        return ((dv + 1) * se.weight - 1) // NICE_0_LOAD

    def set_tunable(self, key: str, value: int) -> None:
        if key == "yield_forfeit":
            self.yield_forfeit = bool(value)
        elif key == "run_to_parity":
            self.run_to_parity = bool(value)
        else:
            raise KeyError(f"EEVDF has no tunable {key!r}; its tunables: run_to_parity, yield_forfeit")

    # ---- views ------------------------------------------------------------------------------------

    def nr_running(self, cpu: int) -> int:
        rq = self._rqs[cpu]
        return len(rq.queued) + (rq.curr is not None)

    def runqueue_view(self, cpu: int, now_ns: int) -> EevdfView:
        """As of the last update_curr() (a view must not charge time: snapshots would change the run).
        ``picks_next`` is ``pick_eevdf()`` as ``schedule()`` calls it, the current entity put back."""
        rq = self._rqs[cpu]
        avg, sums = avg_vruntime(rq), load(rq)
        nxt = pick_eevdf(rq, protect=False)
        rows = [self._entry(rq, rq.curr, nxt, avg, sums)] if rq.curr is not None else []
        queued = [self._entry(rq, t, nxt, avg, sums) for t in rq.queued]
        rows += sorted(queued, key=lambda e: (not e.eligible, e.deadline_ns))
        return EevdfView(cpu, tuple(rows), rq.min_vruntime, avg)

    # ---- helpers ----------------------------------------------------------------------------------

    def _entry(self, rq: CfsRq, task: Task, nxt: Task | None, avg: int, sums: tuple[int, int]) -> EevdfEntry:
        se: EevdfEntity = task.se
        return EevdfEntry(
            tid=task.tid,
            running=task is rq.curr,
            picks_next=task is nxt,
            vruntime_ns=se.vruntime,
            deadline_ns=se.deadline,
            lag_ns=avg - se.vruntime,
            slice_ns=self.base_slice_ns,
            eligible=eligible(rq, se, sums),
        )


# ---- the registry entry ---------------------------------------------------------------------------


def describe_yield(tunables: Mapping[str, int]) -> str:
    if tunables.get(YIELD_FORFEIT.key, YIELD_FORFEIT.default):
        return (
            "EEVDF (6.17+): a yield forfeits the rest of the request: vruntime jumps to the deadline and "
            "the deadline moves one slice on, so the task is usually no longer eligible and the others run."
        )
    return (
        "EEVDF (6.6–6.16): a yield pushes the task's virtual deadline one slice further out; it stays "
        "eligible, and runs again at once while nobody else is eligible."
    )


def describe_landing(outcome: YieldOutcome, brief: bool = False) -> str:
    if outcome.reason:
        return landing_words(outcome, "vruntime", brief)
    moved = "" if brief else f" (+{fmt_ms(outcome.moved_ns)})"
    if outcome.landing == "forfeit":
        return f"forfeit: vruntime → deadline{moved}"
    return f"later deadline{moved}"


INFO = PolicyInfo(
    name="eevdf",
    label="EEVDF: Linux 6.6+",
    kernel="6.6+ (with 79104becf42b)",
    source="kernel/sched/fair.c: pick_eevdf(), update_deadline(), place_entity(), yield_task_fair()",
    factory=EevdfPolicy,
    view_kind="eevdf",
    describe_yield=describe_yield,
    describe_landing=describe_landing,
    tunables=(YIELD_FORFEIT, RUN_TO_PARITY),
)
