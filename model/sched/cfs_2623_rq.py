"""CFS 2.6.23's entities and run queue, and the arithmetic on them that needs no tunable
(kernel/sched_fair.c of 2.6.23.17): a task's fair key, its weighted share of fair-clock time, its niced
granularity, and how long a yield stays a no-op.

The policy's callbacks (``model.sched.cfs_2623``) decide when these apply; the arithmetic that depends
on the boot-time granularities (``__update_curr()``'s charge, ``limit_wait_runtime()``, the wait credit)
stays with them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from model.sched.base import NICE_0_LOAD
from model.sched.timeline import Node, Timeline
from model.task import Task


@dataclass(slots=True)
class Se2623:
    """2.6.23 ``struct sched_entity`` (the fields this model uses). ``None`` replaces the kernel's 0
    sentinel for "not waiting" / "not sleeping"."""

    weight: int
    cpu: int
    fair_key: int = 0
    wait_runtime: int = 0
    sum_exec_ns: int = 0
    prev_sum_exec_ns: int = 0
    exec_start_ns: int = 0
    wait_start_fair: int | None = None
    sleep_start_fair: int | None = None
    node: Node | None = None  # position in the timeline while queued


@dataclass(slots=True)
class CfsRq2623:
    fair_clock: int = 0
    load: int = 0  # total weight of the queued tasks, current included
    sleeper_bonus: int = 0
    curr: Task | None = None
    timeline: Timeline = field(default_factory=Timeline)


def se_of(task: Task) -> Se2623:
    if not isinstance(task.se, Se2623):
        raise TypeError(f"task {task.name} is not scheduled by cfs-2.6.23")
    return task.se


def niced_granularity(se: Se2623, gran: int) -> int:
    """``niced_granularity()``: linear in the weight either way."""
    # SIMPLIFICATION: exact division instead of inv_weight.
    if se.weight == NICE_0_LOAD:
        return gran
    if se.weight < NICE_0_LOAD:
        return se.weight * gran // NICE_0_LOAD
    return gran * NICE_0_LOAD // se.weight


def weighted(delta_fair: int, se: Se2623) -> int:
    """``calc_weighted()``: fair-clock time converted to this task's share."""
    return delta_fair if se.weight == NICE_0_LOAD else delta_fair * se.weight // NICE_0_LOAD


def fair_key(rq: CfsRq2623, se: Se2623) -> int:
    """``update_stats_enqueue()``: key = fair_clock - wait_runtime, the wait scaled by 1024/weight for
    non-nice-0 tasks (magnitude truncated, as the kernel's shift does)."""
    wait = se.wait_runtime
    if se.weight != NICE_0_LOAD:
        scaled = abs(wait) * NICE_0_LOAD // se.weight
        wait = scaled if wait >= 0 else -scaled
    return rq.fair_clock - wait


def noop_run_bound(rq: CfsRq2623, se: Se2623, headroom: int, min_granularity_ns: int) -> int:
    """Run time T for which the yielder's requeued key grows by at most ``headroom``.

    Unclamped, the key grows at 1024/w per ns of running, plus the sleeper-bonus payback P
    (at most min(bonus, T*w/W) of wait_runtime, scaled by 1024/w); the -limit clamp only slows
    it. Nice 0 is exact: key += T + P, whatever the steps. Other weights: each update_curr()
    with delta_fair >= 1 can round up by < 1024/w, and there are at most T*1024/W of those, so
    the rate is bounded by (1024/w)(1 + 1024/W); plus 2 for the truncated scaled wait_runtime.
    """
    w, load = se.weight, rq.load
    bonus = rq.sleeper_bonus if rq.sleeper_bonus > min_granularity_ns else 0
    if w == NICE_0_LOAD:
        if headroom < 0:
            return 0
        return headroom if not bonus else max(headroom * load // (load + w), headroom - bonus)
    g = headroom - 2
    if g < 0:
        return 0
    scale = NICE_0_LOAD * (load + NICE_0_LOAD)
    if not bonus:
        return g * w * load // scale
    linear = g * w * load // (NICE_0_LOAD * (load + NICE_0_LOAD + w))
    capped = (g * w * load - NICE_0_LOAD * bonus * load) // scale
    return max(linear, capped, 0)
