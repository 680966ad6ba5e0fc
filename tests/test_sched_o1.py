"""O(1) policy (Linux 2.6.22): pinned defaults and hand-computed golden schedules, driven without a machine.

``Rig`` calls the policy in the machine's order (see ``model/sched/base.py``) on one CPU and records
who ran when, so each schedule below can be checked against the arithmetic of KERNEL.md §A.
"""

from __future__ import annotations

import pytest

from model.sched import make_policy
from model.sched.o1 import O1Policy
from model.sched.o1_arrays import MAX_PRIO, O1Params, SpawnContext, delta, nice_to_prio, task_interactive
from model.snapshot import YieldOutcome
from model.task import Task

MS = 1_000_000


class Rig:
    """A one-CPU stand-in for the machine: ticks, schedule(), yield, block and wakeup, in kernel order."""

    def __init__(self, hz: int = 1000) -> None:
        self.policy = O1Policy(ncpus=1, hz=hz)
        self.tick_ns = 1_000_000_000 // hz
        self.now = 0
        self.curr: Task | None = None
        self.trace: list[tuple[str, int]] = []  # (task name or "idle", start_ns)
        self.tids = 0

    def schedule(self, block: bool = False) -> None:
        p, prev = self.policy, self.curr
        if prev is not None:
            p.update_curr(0, self.now)
            if block:
                p.dequeue(prev, 0, self.now)
                prev.sleep_start_ns = self.now
            else:
                p.put_prev(prev, 0, self.now)
        self.curr = p.pick_next(0, self.now)
        name = self.curr.name if self.curr is not None else "idle"
        if not self.trace or self.trace[-1][0] != name:
            self.trace.append((name, self.now))

    def spawn(self, name: str, nice: int = 0) -> Task:
        """A task forked by a parent that never slept and holds two full slices, so the child starts
        with sleep_avg 0 (prio static + 5) and a full slice: the state the schedules below assume."""
        self.tids += 1
        task = Task(tid=self.tids, name=name, nice=nice)
        task.cpu = self.policy.select_task_rq(task, self.now)
        full = self.policy.params.timeslice(nice_to_prio(nice))
        self.policy.spawner = SpawnContext(sleep_avg_ns=0, time_slice=2 * full)
        self.policy.task_new(task, task.cpu, self.now)
        if self.curr is None:
            self.schedule()
        return task

    def wake(self, task: Task, from_irq: bool = False) -> bool:
        self.policy.enqueue(task, self.policy.select_task_rq(task, self.now), self.now, True, from_irq)
        preempt = self.curr is None or self.policy.check_preempt_wakeup(0, task, self.now)
        if preempt:
            self.schedule()
        return preempt

    def block(self) -> None:
        self.schedule(block=True)

    def yield_(self) -> YieldOutcome:
        self.policy.update_curr(0, self.now)
        where = self.policy.yield_task(0, self.now)
        self.schedule()
        return where

    def tick_only(self) -> bool:
        """Advance to the next tick and run it, leaving any reschedule to the caller."""
        self.now = (self.now // self.tick_ns + 1) * self.tick_ns
        if self.curr is None:
            return False
        self.policy.update_curr(0, self.now)
        return self.policy.task_tick(0, self.now)

    def run_until(self, t_ns: int) -> None:
        while (self.now // self.tick_ns + 1) * self.tick_ns <= t_ns:
            if self.tick_only():
                self.schedule()
        self.now = t_ns

    def segments(self) -> list[tuple[str, int, int]]:
        ends = [start for _, start in self.trace[1:]] + [self.now]
        pairs = zip(self.trace, ends, strict=True)
        return [(name, start, end) for (name, start), end in pairs if end > start]

    def running_slice(self) -> tuple[int, int, str]:
        """The running task's slice left and full slice in jiffies, and its array."""
        view = self.policy.runqueue_view(0, self.now)
        row = view.entries[0]
        assert row.running
        return row.time_slice_ns // view.tick_ns, row.full_slice_ns // view.tick_ns, row.array


# ---- defaults pinned ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hz", "expected"),
    [
        (1000, {-20: 800, -10: 600, -1: 420, 0: 100, 1: 95, 10: 50, 19: 5}),
        (250, {-20: 200, -10: 150, -1: 105, 0: 25, 1: 23, 10: 12, 19: 1}),
    ],
)
def test_timeslice_table_in_jiffies(hz: int, expected: dict[int, int]) -> None:
    params = O1Params.for_hz(hz)
    assert {nice: params.timeslice(120 + nice) for nice in expected} == expected


@pytest.mark.parametrize(
    ("hz", "min_ts", "def_ts", "max_sleep_avg", "gran"),
    [(1000, 5, 100, 1000, 10), (250, 1, 25, 250, 2), (100, 1, 10, 100, 1)],
)
def test_hz_dependent_constants(hz: int, min_ts: int, def_ts: int, max_sleep_avg: int, gran: int) -> None:
    params = O1Params.for_hz(hz)
    assert (params.min_timeslice, params.def_timeslice) == (min_ts, def_ts)
    assert params.max_sleep_avg == max_sleep_avg  # also STARVATION_LIMIT
    assert params.ns_max_sleep_avg == 1_000 * MS  # MAX_SLEEP_AVG is one second at every HZ
    assert params.granularity == gran


def test_bonus_and_dynamic_prio() -> None:
    params = O1Params.for_hz(1000)
    assert [params.current_bonus(s * MS) for s in (0, 99, 100, 699, 700, 999, 1000)] == [0, 0, 1, 6, 7, 9, 10]
    assert params.normal_prio(120, 0) == 125
    assert params.normal_prio(120, 700 * MS) == 118
    assert params.normal_prio(120, 1000 * MS) == 115
    assert params.normal_prio(100, 1000 * MS) == 100  # nice -20: 95 clamped to MAX_RT_PRIO
    assert params.normal_prio(139, 0) == MAX_PRIO - 1  # nice 19: 144 clamped to 139


def test_delta_and_interactive_threshold() -> None:
    assert [delta(120 + nice) for nice in (-20, -10, 0, 10, 19)] == [-3, -1, 2, 4, 6]
    # The table in the 2.6.22 comment above TASK_INTERACTIVE: dynamic prio static-5 ... static+5.
    table = {-20: 9, -10: 7, 0: 4, 10: 2, 19: 0}  # how many of the 11 offsets are interactive
    for nice, ones in table.items():
        row = [task_interactive(120 + nice + off, 120 + nice) for off in range(-5, 6)]
        assert row == [True] * ones + [False] * (11 - ones)
    assert task_interactive(118, 120) and not task_interactive(119, 120)  # nice 0: CURRENT_BONUS >= 7
    assert not task_interactive(134, 139)  # nice 19 at its best prio is never interactive
    assert task_interactive(103, 100) and not task_interactive(104, 100)


def test_interactive_sleep_and_granularity() -> None:
    p1000, p250 = O1Params.for_hz(1000), O1Params.for_hz(250)
    assert p1000.interactive_sleep_ns(120) == 799 * MS
    assert p250.interactive_sleep_ns(120) == 199 * 4 * MS
    # TIMESLICE_GRANULARITY: GRANULARITY << ((MAX_BONUS - CURRENT_BONUS ? : 1) - 1), times the CPU count.
    grans = [p1000.timeslice_granularity(s * MS, 1) for s in (1000, 900, 800, 700, 0)]
    assert grans == [10, 10, 20, 40, 10 << 9]
    assert p1000.timeslice_granularity(700 * MS, 2) == 80
    assert p250.timeslice_granularity(700 * MS, 1) == 8


def test_registry_and_tunables() -> None:
    policy = make_policy("o1", ncpus=2, hz=250)
    assert isinstance(policy, O1Policy)
    for key in ("compat_yield", "sched_latency_ns"):  # O(1) has no tunable: a CFS sysctl is not sent
        with pytest.raises(KeyError):
            policy.set_tunable(key, 1)


def test_new_task_gets_full_slice_and_penalty_prio() -> None:
    rig = Rig()
    a = rig.spawn("A", nice=5)
    view = rig.policy.runqueue_view(0, 0)
    (e,) = view.entries
    assert (e.tid, e.running, e.picks_next, e.array, e.prio, e.static_prio) == (
        a.tid,
        True,
        True,
        "active",
        130,
        125,
    )
    assert (e.time_slice_ns, e.full_slice_ns, e.sleep_avg_ns) == (75 * MS, 75 * MS, 0)
    assert (view.jiffies, view.tick_ns, rig.policy.nr_running(0)) == (0, MS, 1)


# ---- golden schedules ---------------------------------------------------------------------------


def test_two_nice0_hogs_alternate_100ms_slices() -> None:
    rig = Rig(hz=1000)
    rig.spawn("A")
    rig.spawn("B")
    rig.run_until(400 * MS)
    assert rig.segments() == [
        ("A", 0, 100 * MS),
        ("B", 100 * MS, 200 * MS),
        ("A", 200 * MS, 300 * MS),
        ("B", 300 * MS, 400 * MS),
    ]


def test_nice_sets_the_slice_length() -> None:
    rig = Rig(hz=1000)
    rig.spawn("N0")
    rig.spawn("N10", nice=10)  # prio 135, slice 50 jiffies
    rig.run_until(300 * MS)
    assert rig.segments() == [
        ("N0", 0, 100 * MS),
        ("N10", 100 * MS, 150 * MS),
        ("N0", 150 * MS, 250 * MS),
        ("N10", 250 * MS, 300 * MS),
    ]


def test_yielder_waits_in_expired_until_the_hog_expires() -> None:
    rig = Rig(hz=1000)
    rig.spawn("Y")
    rig.spawn("H")
    rig.run_until(MS + MS // 2)  # one tick charged to Y
    assert rig.yield_() == YieldOutcome("expired_array", prio=125)
    assert rig.curr is not None and rig.curr.name == "H"
    view = rig.policy.runqueue_view(0, rig.now)
    y = view.entries[1]
    assert (y.running, y.array, y.time_slice_ns, y.full_slice_ns) == (False, "expired", 99 * MS, 100 * MS)
    assert view.entries[0].picks_next  # H heads the best active list: it would be picked again
    rig.run_until(101 * MS + MS // 2)
    # H's 100-jiffy slice ends at 101 ms; active is then empty, the arrays swap and Y (queued first) runs
    # with the slice it kept across the yield.
    assert rig.segments() == [("Y", 0, 1_500_000), ("H", 1_500_000, 101 * MS), ("Y", 101 * MS, 101_500_000)]
    assert rig.running_slice() == (99, 100, "active")
    rig.yield_()
    assert rig.curr is not None and rig.curr.name == "H"


def test_yielder_alone_is_repicked_without_bound() -> None:
    rig = Rig(hz=1000)
    y = rig.spawn("Y")
    rig.run_until(MS // 2)
    assert rig.yield_() == YieldOutcome("expired_array", prio=125)
    assert rig.curr is y  # active empty -> swap -> Y again
    assert rig.policy.yield_noop_budget_ns(0, rig.now) is None
    assert rig.running_slice() == (100, 100, "active")


def test_repicked_yielder_with_others_has_zero_budget() -> None:
    """Y is re-picked because the others sit in the swapped array with a worse prio; its next yield
    leaves them alone in active, so that yield is real (budget 0, not None)."""
    rig = Rig(hz=1000)
    z = rig.spawn("Z")
    rig.block()  # Z sleeps from 0
    rig.run_until(200 * MS)
    h = rig.spawn("H")
    rig.block()  # H sleeps from 200 ms
    y = rig.spawn("Y")
    rig.block()  # Y sleeps from 200 ms
    rig.run_until(600 * MS)
    assert rig.wake(h)  # slept 400 ms: sleep_avg 400 ms, bonus 4, prio 121
    rig.run_until(610 * MS)
    assert not rig.wake(y)  # slept 410 ms: prio 121, not strictly better than H
    rig.run_until(650 * MS)
    assert rig.wake(z)  # slept 650 ms: prio 119 preempts H; H pays 50 ms / 4 of sleep_avg
    assert h.se.sleep_avg_ns == 400 * MS - 50 * MS // 4
    rig.now += MS // 2
    rig.block()  # Z sleeps again; H kept the head of the prio-121 list
    assert rig.curr is h
    rig.run_until(700 * MS)  # H's slice ends: prio recomputed from 387.5 ms -> 122, to expired
    assert rig.curr is y and h.se.prio == 122
    rig.now += MS // 2
    rig.yield_()  # Y to expired; active empty -> swap -> Y (121) beats H (122)
    assert rig.curr is y
    assert rig.policy.yield_noop_budget_ns(0, rig.now) == 0
    rig.yield_()
    assert rig.curr is h


def test_equal_prio_wakeup_does_not_preempt_and_curr_keeps_its_place() -> None:
    rig = Rig(hz=1000)
    s = rig.spawn("S")
    rig.block()
    h = rig.spawn("H")
    rig.run_until(50 * MS)
    assert not rig.wake(s)  # slept 50 ms: bonus 0, prio 125, equal to H: TASK_PREEMPTS_CURR is strict
    assert rig.curr is h
    rig.schedule()  # a reschedule without expiry: H is still the head of the prio-125 list
    assert rig.curr is h


def test_long_sleeper_preempts_the_hog() -> None:
    rig = Rig(hz=1000)
    s = rig.spawn("S")
    rig.block()
    h = rig.spawn("H")
    rig.run_until(300 * MS + MS // 2)
    assert rig.wake(s)  # slept 300.5 ms: bonus 3, prio 122 < 125
    assert rig.curr is s and s.se.prio == 122 and h.se.prio == 125
    assert rig.trace[-2:] == [("H", 0), ("S", 300_500_000)]


def test_sleep_avg_gain_is_capped_and_loss_is_divided_by_bonus() -> None:
    rig = Rig(hz=1000)
    a = rig.spawn("A")
    rig.block()
    rig.run_until(5_000 * MS)
    rig.wake(a)  # one long sleep only reaches INTERACTIVE_SLEEP
    assert (a.se.sleep_avg_ns, a.se.prio) == (799 * MS, 118)
    rig.run_until(5_035 * MS)
    rig.block()  # ran 35 ms (under the 40-jiffy granularity) at bonus 7: loses 5 ms
    assert a.se.sleep_avg_ns == 794 * MS
    rig.run_until(7_000 * MS)
    rig.wake(a)  # long sleep again, sleep_avg below the ceiling: back to the ceiling, not above it
    assert (a.se.sleep_avg_ns, a.se.prio) == (799 * MS, 118)
    rig.block()
    rig.run_until(7_300 * MS)
    rig.wake(a)  # a sleep shorter than the ceiling counts in full, capped at MAX_SLEEP_AVG
    assert (a.se.sleep_avg_ns, a.se.prio) == (1_000 * MS, 115)


def test_interactive_tasks_round_robin_at_timeslice_granularity() -> None:
    rig = Rig(hz=1000)
    a = rig.spawn("A")
    rig.block()
    b = rig.spawn("B")
    rig.block()
    rig.run_until(1_000 * MS)
    rig.wake(a)  # both: sleep_avg 799 ms, bonus 7, prio 118 (interactive), granularity 40 jiffies
    assert not rig.wake(b)
    rig.run_until(1_280 * MS)
    # Requeued after 40 jiffies while >= 40 remain; at 80 used only 20 remain, so the slice runs out at
    # 100 and the interactive task goes back to the tail of the ACTIVE array with a fresh slice.
    assert [(n, s // MS, e // MS) for n, s, e in rig.segments()[-6:]] == [
        ("A", 1000, 1040),
        ("B", 1040, 1080),
        ("A", 1080, 1140),
        ("B", 1140, 1200),
        ("A", 1200, 1240),
        ("B", 1240, 1280),
    ]


def test_lone_interactive_task_expires_after_starvation_limit() -> None:
    """expired_timestamp is set at the first expiry and only cleared by a swap, so a lone interactive
    task is reinserted into active until STARVATION_LIMIT * nr_running jiffies (1000) have passed."""
    rig = Rig(hz=1000)
    a = rig.spawn("A")
    rig.block()
    rig.run_until(1_000 * MS)
    rig.wake(a)
    rig.block()
    rig.run_until(2_000 * MS)
    rig.wake(a)  # second long sleep: sleep_avg 1 s, prio 115; slices then end every 100 ms from 2.0 s
    rig.run_until(3_199 * MS)
    assert rig.tick_only()  # 3.1 s expiry was 1000 jiffies after the first (2.1 s): not > 1000
    assert rig.now == 3_200 * MS
    assert task_interactive(a.se.prio, a.se.static_prio)
    assert rig.running_slice() == (100, 100, "expired")
    assert rig.policy.runqueue_view(0, rig.now).entries[0].picks_next  # active is empty: the swap's head
    rig.schedule()  # swap: A again, in the new active array; the swap clears expired_timestamp
    assert rig.curr is a and rig.running_slice() == (100, 100, "active")
    rig.run_until(3_299 * MS)
    assert rig.tick_only() and rig.running_slice() == (100, 100, "active")


def test_better_static_prio_in_expired_ends_interactive_reinsertion() -> None:
    rig = Rig(hz=1000)
    a = rig.spawn("A")
    rig.block()
    h = rig.spawn("H", nice=-8)  # static 112, prio 117, slice 560 jiffies, never interactive as a hog
    rig.run_until(1_000 * MS)
    assert not rig.wake(a)  # prio 118 (interactive) does not beat 117: A waits in active
    rig.run_until(1_219 * MS)
    # 1120: H expires to the expired array (best_expired_prio 112) and A runs; 1160, 1200: granularity
    # requeues, A alone in its list so it goes on.
    assert rig.trace[-2:] == [("H", 0), ("A", 1_120 * MS)]
    rig.run_until(1_220 * MS)
    # A's slice ends: still interactive, but expired_starving() (120 > 112) sends it to expired; swap.
    assert task_interactive(a.se.prio, a.se.static_prio)
    assert rig.curr is h and rig.trace[-1] == ("H", 1_220 * MS)
    rig.now += MS // 2
    rig.block()  # H sleeps: A alone; the swap reset best_expired_prio, so A's next expiry stays active
    rig.run_until(1_319 * MS)
    assert rig.curr is a and rig.tick_only()
    assert rig.running_slice() == (100, 100, "active")


def test_tick_before_that_still_reinserts_into_active() -> None:
    rig = Rig(hz=1000)
    a = rig.spawn("A")
    rig.block()
    rig.run_until(1_000 * MS)
    rig.wake(a)
    rig.block()
    rig.run_until(2_000 * MS)
    rig.wake(a)
    rig.run_until(3_099 * MS)
    assert rig.tick_only() and rig.now == 3_100 * MS
    assert rig.running_slice() == (100, 100, "active")


def test_runqueue_view_orders_running_active_expired() -> None:
    rig = Rig(hz=1000)
    a = rig.spawn("A")
    b = rig.spawn("B", nice=-5)  # prio 120, slice 500
    c = rig.spawn("C")
    rig.schedule()  # B has the best prio
    assert rig.curr is b
    rig.run_until(500 * MS)  # B expires (alone in its list, non-interactive), A runs
    view = rig.policy.runqueue_view(0, rig.now)
    assert [(e.tid, e.running, e.array, e.prio, e.picks_next) for e in view.entries] == [
        (a.tid, True, "active", 125, True),  # the head of its list: schedule() would keep it
        (c.tid, False, "active", 125, False),
        (b.tid, False, "expired", 120, False),
    ]
    assert view.jiffies == 500
    assert rig.policy.nr_running(0) == 3
    rig.block()
    assert rig.policy.nr_running(0) == 2 and rig.curr is c


# ---- fork (sched_fork / wake_up_new_task) and the run-queue credit ---------------------------------


def test_fork_from_the_spawning_context_inherits_its_bonus_less_child_penalty() -> None:
    """The spawning context woke from a long sleep: sleep_avg = INTERACTIVE_SLEEP = 799 ms at nice 0,
    HZ=1000 (bonus 7), and a full 100 ms slice. Child: bonus 7 * 95 / 100 = 6 -> 600 ms, prio 119,
    half the slice rounded up; the context keeps bonus 7 * 100 / 100 -> 700 ms and the other half."""
    policy = O1Policy(ncpus=1, hz=1000)
    assert (policy.spawner.sleep_avg_ns, policy.spawner.time_slice) == (799 * MS, 100)
    a = Task(tid=1, name="A")
    policy.task_new(a, 0, 0)
    assert (a.se.sleep_avg_ns, a.se.prio, a.se.time_slice) == (600 * MS, 119, 50)
    assert (policy.spawner.sleep_avg_ns, policy.spawner.time_slice) == (700 * MS, 50)
    b = Task(tid=2, name="B", nice=5)  # the next fork: 7 * 95 / 100 = 6 again; (50 + 1) >> 1 jiffies
    policy.task_new(b, 0, 0)
    assert (b.se.sleep_avg_ns, b.se.prio, b.se.time_slice) == (600 * MS, 124, 25)
    assert policy.spawner.time_slice == 25


def test_a_thread_forked_by_a_task_takes_from_that_task() -> None:
    """iperf's reporter forks the data thread: the child gets 6 * 95 / 100 = 5 bonus levels (500 ms,
    prio 120) and half the reporter's slice; the reporter keeps its 600 ms and the other half."""
    policy = O1Policy(ncpus=1, hz=1000)
    reporter, data = Task(tid=1, name="reporter"), Task(tid=2, name="data")
    policy.task_new(reporter, 0, 0)
    policy.task_new(data, 0, 0, parent=reporter)
    assert (data.se.sleep_avg_ns, data.se.prio, data.se.time_slice) == (500 * MS, 120, 25)
    assert (reporter.se.sleep_avg_ns, reporter.se.time_slice) == (600 * MS, 25)
    # Both queued at the tail of the active array, by prio: the reporter (119) runs first.
    assert policy.pick_next(0, 0) is reporter


@pytest.mark.parametrize(("from_irq", "credited_ns"), [(True, 40 * MS), (False, 40 * MS * 38 // 128)])
def test_a_woken_task_is_credited_its_run_queue_wait_at_pick(from_irq: bool, credited_ns: int) -> None:
    """2.6.22 schedule(): a task woken from an interrupt (SLEEP_INTERRUPTED) counts its whole wait on
    the run queue as sleep; one woken from process context (SLEEP_INTERACTIVE) counts it weighted
    by ON_RUNQUEUE_WEIGHT, delta * (30 * 128 / 100) / 128 = delta * 38 / 128."""
    rig = Rig(hz=1000)
    s = rig.spawn("S")
    rig.block()  # S sleeps from 0
    h = rig.spawn("H")  # prio 125, 100 ms slice
    rig.run_until(60 * MS)
    assert not rig.wake(s, from_irq)  # slept 60 ms: bonus 0, prio 125, does not preempt H
    assert s.se.sleep_avg_ns == 60 * MS
    rig.run_until(100 * MS)  # H's slice ends at 100 ms: S, woken at 60 ms, waited 40 ms
    assert rig.curr is s
    assert s.se.sleep_avg_ns == 60 * MS + credited_ns
    assert h.se.array is rig.policy._rqs[0].expired
    rig.run_until(110 * MS)
    rig.block()
    rig.run_until(120 * MS)
    rig.wake(s, from_irq)
    before = s.se.sleep_avg_ns
    rig.schedule()  # the credit is given once per wakeup: a later pick adds nothing on its own
    assert s.se.sleep_avg_ns == before


def test_a_wakeup_that_hits_the_sleep_ceiling_earns_no_run_queue_credit() -> None:
    """recalc_task_prio(): a sleep longer than INTERACTIVE_SLEEP (799 ms) sets sleep_avg to that
    ceiling and marks the sleep SLEEP_NONINTERACTIVE, so waiting on the run queue adds nothing."""
    rig = Rig(hz=1000)
    s = rig.spawn("S")
    rig.block()
    h = rig.spawn("H")
    rig.block()  # both sleep from 0; the CPU idles
    rig.run_until(900 * MS)
    assert rig.wake(h, from_irq=True)  # 900 ms: sleep_avg = 799 ms, prio 118, runs
    rig.run_until(950 * MS)
    assert not rig.wake(s, from_irq=True)  # 950 ms: also 799 ms and prio 118: not strictly better
    rig.run_until(990 * MS)
    rig.block()  # H sleeps; S, which waited 40 ms, runs with the ceiling and nothing more
    assert rig.curr is s and s.se.sleep_avg_ns == 799 * MS
