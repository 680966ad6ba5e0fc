"""EEVDF's run queue and its clock (Linux 6.6+, kernel/sched/fair.c): the entities, the load-weighted
average vruntime V, eligibility, placement with lag and ``pick_eevdf()``.

This is the arithmetic the policy's callbacks (``model.sched.eevdf``) share: what V is, who is eligible,
where a joining entity lands, who runs next. It holds no policy decisions of its own (when to yield,
when to preempt) and charges no time.
"""

from __future__ import annotations

from dataclasses import dataclass

from model.sched.base import NICE_0_LOAD
from model.task import Task


@dataclass(slots=True, eq=False)
class EevdfEntity:
    """The ``sched_entity`` fields this model keeps (``task.se``)."""

    weight: int
    vruntime: int = 0
    deadline: int = 0
    vlag: int = 0  # lag saved at dequeue (update_entity_lag) for place_entity at the next enqueue
    vprot: int | None = None  # RUN_TO_PARITY: the deadline it was picked with (the kernel reuses se->vlag)


class CfsRq:
    """One CPU's ``cfs_rq``: the queued entities (the rbtree, here in insertion order) and ``curr``.

    ``avg_vruntime`` and ``avg_load`` are the kernel's running sums over the queued entities (curr
    excluded): Σ w·(vruntime - min_vruntime) and Σ w, kept as entities enter and leave the tree and
    shifted when min_vruntime moves (``avg_vruntime_update()``), so V and eligibility cost O(1).
    """

    __slots__ = ("avg_load", "avg_vruntime", "curr", "exec_start_ns", "min_vruntime", "queued", "resched")

    def __init__(self) -> None:
        self.queued: list[Task] = []  # runnable and not current; FIFO among equal deadlines, as the tree
        self.curr: Task | None = None
        self.min_vruntime = 0  # monotonic floor: the key origin, and where a task lands on an empty queue
        self.avg_vruntime = 0
        self.avg_load = 0
        self.exec_start_ns = 0
        self.resched = False  # resched_curr() from update_deadline(), until the next pick

    def add(self, task: Task) -> None:
        """``__enqueue_entity()``, with ``avg_vruntime_add()``."""
        se: EevdfEntity = task.se
        self.queued.append(task)
        self.avg_vruntime += se.weight * (se.vruntime - self.min_vruntime)
        self.avg_load += se.weight

    def remove(self, task: Task) -> None:
        """``__dequeue_entity()``, with ``avg_vruntime_sub()``."""
        se: EevdfEntity = task.se
        self.queued.remove(task)
        self.avg_vruntime -= se.weight * (se.vruntime - self.min_vruntime)
        self.avg_load -= se.weight

    def entities(self) -> list[Task]:
        return self.queued if self.curr is None else [*self.queued, self.curr]


def calc_delta_fair(delta_ns: int, se: EevdfEntity) -> int:
    """``calc_delta_fair()``: real ns to virtual ns, ``delta * NICE_0_LOAD / weight``."""
    return delta_ns if se.weight == NICE_0_LOAD else delta_ns * NICE_0_LOAD // se.weight


def _div_s64(a: int, b: int) -> int:
    return a // b if a >= 0 else -(-a // b)  # truncates toward zero, as div_s64()


def _deadline(task: Task) -> int:
    return int(task.se.deadline)


def load(rq: CfsRq) -> tuple[int, int]:
    """``cfs_rq->avg_vruntime`` and ``avg_load`` with curr added: (Σ w·(v - min_vruntime), Σ w)."""
    if rq.curr is None:
        return rq.avg_vruntime, rq.avg_load
    se: EevdfEntity = rq.curr.se
    return rq.avg_vruntime + se.weight * (se.vruntime - rq.min_vruntime), rq.avg_load + se.weight


def avg_vruntime(rq: CfsRq) -> int:
    """``avg_vruntime()``: V, with the kernel's floor division."""
    keys, weight = load(rq)
    return rq.min_vruntime + (keys // weight if weight else 0)


def eligible(rq: CfsRq, se: EevdfEntity, sums: tuple[int, int] | None = None) -> bool:
    """``vruntime_eligible()``: (v - v0) * load <= Σ (v_i - v0) * w_i, i.e. v <= V without dividing."""
    keys, weight = sums if sums is not None else load(rq)
    return keys >= (se.vruntime - rq.min_vruntime) * weight


def update_min_vruntime(rq: CfsRq) -> None:
    """``update_min_vruntime()``: the least vruntime of curr and the tree, and never backwards."""
    queued = rq.queued
    if rq.curr is None and not queued:
        return
    first: EevdfEntity = (rq.curr if rq.curr is not None else queued[0]).se
    advance_min_vruntime(rq, first.vruntime)


def advance_min_vruntime(rq: CfsRq, v: int) -> None:
    """update_min_vruntime() from ``v`` (curr's vruntime, or the tree's first): the least vruntime of it
    and the tree, and never backwards. The hot paths call it directly with curr's new vruntime."""
    for task in rq.queued:
        se: EevdfEntity = task.se  # typed: a compiled build reads the field directly
        if se.vruntime < v:
            v = se.vruntime
    if v > rq.min_vruntime:
        rq.avg_vruntime -= rq.avg_load * (v - rq.min_vruntime)  # avg_vruntime_update(): keys shift down
        rq.min_vruntime = v


def place_entity(rq: CfsRq, se: EevdfEntity, base_slice_ns: int, initial: bool) -> None:
    """``place_entity()``: V minus the saved lag (PLACE_LAG), and a deadline one request later."""
    keys, weight = load(rq)
    lag = 0
    if weight and se.vlag:  # PLACE_LAG, when cfs_rq->nr_running
        # Joining pulls V towards the newcomer; "to place a task and preserve lag" the kernel scales
        # it by (W + w_i) / W, so that the lag measured after the join is the saved vlag again.
        lag = _div_s64(se.vlag * (weight + se.weight), weight)
    se.vruntime = rq.min_vruntime + (keys // weight if weight else 0) - lag
    vslice = calc_delta_fair(base_slice_ns, se)
    if initial:
        vslice //= 2  # PLACE_DEADLINE_INITIAL: "start tasks off with half a slice"
    se.deadline = se.vruntime + vslice  # "EEVDF: vd_i = ve_i + r_i/w_i"


def pick_eevdf(rq: CfsRq, protect: bool) -> Task | None:
    """``pick_eevdf()``: the eligible entity with the earliest deadline; with ``protect``
    (RUN_TO_PARITY) an eligible curr keeps the CPU until it has served the request it was picked with."""
    curr = rq.curr
    queued = rq.queued
    if len(queued) + (curr is not None) <= 1:
        return curr if curr is not None else (queued[0] if queued else None)
    v0 = rq.min_vruntime
    keys, weight = rq.avg_vruntime, rq.avg_load  # load(), inline on this hot path
    curr_se: EevdfEntity | None = None
    if curr is not None:
        curr_se = curr.se
        curr_key = curr_se.vruntime - v0
        keys += curr_se.weight * curr_key
        weight += curr_se.weight
        if keys < curr_key * weight:  # not eligible()
            curr, curr_se = None, None
    # RUN_TO_PARITY: "run a task until it either becomes non-eligible or until it gets a new slice".
    if protect and curr_se is not None and curr_se.vprot == curr_se.deadline:
        return curr
    best = None  # the earliest eligible deadline; the tree's order (first queued) on ties
    best_deadline = 0
    for t in queued:
        se: EevdfEntity = t.se
        if keys >= (se.vruntime - v0) * weight and (best is None or se.deadline < best_deadline):
            best, best_deadline = t, se.deadline
    if curr_se is not None and (best is None or curr_se.deadline < best_deadline):
        best = curr  # entity_before(curr, best) is strict: a queued entity wins a tie
    if best is None:  # "EEVDF scheduling fail, picking leftmost"
        best = min(rq.queued, key=_deadline)
    return best
