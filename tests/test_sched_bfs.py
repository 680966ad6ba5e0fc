"""BFS policy (≈v0.30x): pinned constants and golden behaviours, driven without a machine.

``Rig`` calls the policy in the machine's order (see ``model/sched/base.py``): every CPU ticks at each
jiffy boundary, a yield-polling task yields every ``period`` ns of its own run, and the rig records who
ran where, so the schedules below can be checked against the arithmetic of KERNEL.md §D.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from model.sched import make_policy
from model.sched.bfs import PRIO_RATIOS, BfsPolicy
from model.snapshot import YieldOutcome
from model.task import Task

MS = 1_000_000
US = 1_000


class Rig:
    """A stand-in for the machine: schedule(), ticks, yields, wakeups and blocking, in kernel order."""

    def __init__(self, ncpus: int = 1, hz: int = 1000) -> None:
        self.policy = BfsPolicy(ncpus=ncpus, hz=hz)
        self.tick_ns = 1_000_000_000 // hz
        self.now = 0
        self.curr: list[Task | None] = [None] * ncpus
        self.segs: list[list[list[object]]] = [[] for _ in range(ncpus)]  # per CPU: [name, start, end]
        self.run_ns: Counter[str] = Counter()
        self.pollers: dict[str, int] = {}  # name -> ns of its own run between two yields
        self.next_yield: dict[int, int] = {}  # cpu -> instant of the current poller's next yield
        self.tids = 0

    def spawn(self, name: str, nice: int = 0, pinned: int | None = None, poll_ns: int = 0) -> Task:
        self.tids += 1
        task = Task(tid=self.tids, name=name, nice=nice, pinned_cpu=pinned)
        if poll_ns:
            self.pollers[name] = poll_ns
        cpu = self.policy.select_task_rq(task, self.now)
        self.policy.task_new(task, cpu, self.now)
        if self.curr[cpu] is None:
            self.schedule(cpu)
        return task

    def schedule(self, cpu: int = 0, block: bool = False) -> Task | None:
        p, prev = self.policy, self.curr[cpu]
        if prev is not None:
            p.update_curr(cpu, self.now)
            (p.dequeue if block else p.put_prev)(prev, cpu, self.now)
        nxt = self.curr[cpu] = p.pick_next(cpu, self.now)
        self.next_yield.pop(cpu, None)
        if nxt is not None:
            nxt.cpu = cpu
            if nxt.name in self.pollers:
                self.next_yield[cpu] = self.now + self.pollers[nxt.name]
        return nxt

    def yield_(self, cpu: int = 0) -> YieldOutcome:
        self.policy.update_curr(cpu, self.now)
        where = self.policy.yield_task(cpu, self.now)
        self.schedule(cpu)
        return where

    def wake(self, task: Task) -> bool:
        cpu = self.policy.select_task_rq(task, self.now)
        self.policy.enqueue(task, cpu, self.now, True)
        if self.curr[cpu] is not None and not self.policy.check_preempt_wakeup(cpu, task, self.now):
            return False
        self.schedule(cpu)
        return True

    def advance(self, t_ns: int) -> None:
        for cpu, task in enumerate(self.curr):
            if task is None or t_ns <= self.now:
                continue
            self.run_ns[task.name] += t_ns - self.now
            segs = self.segs[cpu]
            if segs and segs[-1][0] == task.name and segs[-1][2] == self.now:
                segs[-1][2] = t_ns
            else:
                segs.append([task.name, self.now, t_ns])
        self.now = max(self.now, t_ns)

    def tick(self) -> None:
        for cpu, task in enumerate(self.curr):
            if task is not None:
                self.policy.update_curr(cpu, self.now)
                if self.policy.task_tick(cpu, self.now):
                    self.schedule(cpu)

    def run_until(self, t_end: int) -> None:
        while self.now < t_end:
            t_tick = (self.now // self.tick_ns + 1) * self.tick_ns
            cpu, t_yield = min(self.next_yield.items(), key=lambda kv: kv[1], default=(-1, t_tick))
            if t_yield < t_tick and t_yield <= t_end:
                self.advance(t_yield)
                self.yield_(cpu)
            elif t_tick > t_end:
                self.advance(t_end)
            else:
                self.advance(t_tick)
                self.tick()

    def segments(self, cpu: int = 0) -> list[tuple[object, ...]]:
        return [tuple(s) for s in self.segs[cpu]]


# ---- defaults pinned ------------------------------------------------------------------------------


@pytest.mark.parametrize(("ncpus", "rr_ms"), [(1, 6), (2, 12), (3, 12), (4, 18), (8, 24), (16, 30)])
def test_rr_interval_scales_with_log2_cpus(ncpus: int, rr_ms: int) -> None:
    policy = BfsPolicy(ncpus=ncpus, hz=250)
    assert policy.rr_interval_ms == rr_ms
    assert policy.timeslice_us() == rr_ms * 1000


def test_prio_ratios() -> None:
    assert (PRIO_RATIOS[0], PRIO_RATIOS[1], PRIO_RATIOS[20], PRIO_RATIOS[39]) == (100, 110, 655, 3987)
    assert len(PRIO_RATIOS) == 40


@pytest.mark.parametrize(
    ("ncpus", "by_hz"),
    [(1, (3, 9, 39)), (2, (7, 19, 78)), (4, (11, 29, 117)), (8, (15, 39, 157))],
)
def test_nice0_deadline_offset_table(ncpus: int, by_hz: tuple[int, int, int]) -> None:
    got = tuple(BfsPolicy(ncpus=ncpus, hz=hz).prio_deadline_diff(0) for hz in (100, 250, 1000))
    assert got == by_hz  # KERNEL.md §D.2


def test_deadline_offset_is_at_least_one_jiffy() -> None:
    policy = BfsPolicy(ncpus=1, hz=100)
    assert policy.prio_deadline_diff(-20) == 1  # 100 * 6 * 100 / 100000 = 0, "?: 1"
    assert policy.prio_deadline_diff(19) == 23  # 3987 * 6 * 100 / 100000


def test_registry_and_tunables() -> None:
    policy = make_policy("bfs", ncpus=2, hz=250)
    assert isinstance(policy, BfsPolicy)
    assert policy.yield_expires == 1  # the 2009 yield by default
    for key in ("compat_yield", "yield_forfeit"):  # other policies' tunables are not BFS's
        with pytest.raises(KeyError):
            policy.set_tunable(key, 0)
    with pytest.raises(ValueError):
        policy.set_tunable("yield_expires", 2)


def test_new_task_full_slice_and_deadline() -> None:
    rig = Rig(hz=1000)
    rig.now = 5 * MS + 500 * US
    a = rig.spawn("A")
    assert (a.se.deadline, a.se.time_slice_us) == (5 + 39, 6000)


def test_slice_charges_in_us_and_at_most_a_jiffy() -> None:
    rig = Rig(hz=1000)
    a = rig.spawn("A")
    rig.now = 3 * MS + 500 * US
    rig.policy.update_curr(0, rig.now)
    assert a.se.time_slice_us == 6000 - 1000  # one charge of 3.5 ms counts as one jiffy
    rig.now += 1500
    rig.policy.update_curr(0, rig.now)
    rig.now += 1500
    rig.policy.update_curr(0, rig.now)
    assert a.se.time_slice_us == 5000 - 2  # 1.5 µs twice: the sub-µs rests are lost


def test_the_first_charge_after_a_switch_covers_the_wait_up_to_a_jiffy() -> None:
    """set_rq_task() copies rq_last_ran from p->last_ran, the instant the task last left a CPU, so the
    first update_cpu_clock() after a switch charges the task's wait too, clamped to one jiffy."""
    rig = Rig(hz=250)  # 4 ms jiffies
    s = rig.spawn("S")
    rig.schedule(0, block=True)  # S sleeps from 0 (last_ran 0, deadline 9)
    rig.now = 4 * MS
    a = rig.spawn("A")  # jiffy 1: deadline 1 + 9
    rig.run_until(5 * MS)
    assert rig.wake(s)  # S's earlier deadline preempts A at 5 ms (A leaves the CPU: last_ran 5 ms)
    rig.advance(6 * MS)
    rig.schedule(0, block=True)  # S ran 1 ms and sleeps: charged a whole jiffy, not 1 ms
    assert s.se.time_slice_us == 6000 - 4000
    assert rig.curr[0] is a
    a_before = a.se.time_slice_us
    rig.run_until(8 * MS)  # the tick at 8 ms charges A from 5 ms, when it left the CPU: 3 ms for 2 ms run
    assert a.se.time_slice_us == a_before - 3000


# ---- golden schedules -----------------------------------------------------------------------------


def test_two_hogs_alternate_every_rr_interval() -> None:
    rig = Rig(hz=1000)
    a, b = rig.spawn("A"), rig.spawn("B")
    rig.run_until(24 * MS)
    assert rig.segments() == [
        ("A", 0, 6 * MS),
        ("B", 6 * MS, 12 * MS),
        ("A", 12 * MS, 18 * MS),
        ("B", 18 * MS, 24 * MS),
    ]
    assert (a.se.deadline, b.se.deadline) == (18 + 39, 24 + 39)  # renewed at their last expiry


def test_slice_expiry_waits_for_the_tick() -> None:
    rig = Rig(hz=250)  # 4 ms ticks: the 6 ms slice is seen exhausted at the second tick
    rig.spawn("A")
    rig.spawn("B")
    rig.run_until(24 * MS)
    assert rig.segments() == [("A", 0, 8 * MS), ("B", 8 * MS, 16 * MS), ("A", 16 * MS, 24 * MS)]


def test_yield_poller_vs_hog_hog_gets_nearly_all() -> None:
    rig = Rig(hz=1000)
    rig.spawn("hog")
    rig.spawn("poller", poll_ns=20 * US)
    rig.run_until(1000 * MS)
    # Each yield pushes the poller's deadline to jiffies + 39, behind the hog's: the poller runs one
    # 20 µs iteration per 6 ms hog slice.
    assert rig.run_ns["hog"] / rig.now >= 0.95
    assert rig.run_ns["poller"] > 0


def test_v0318_yield_keeps_the_deadline_until_the_slice_runs_out() -> None:
    """Con Kolivas's v0.318 only requeues the yielder: with a deadline earlier than the hog's it is
    re-picked at every yield until its slice is used up. Its first yield, 20 µs after the switch,
    is charged a whole jiffy (rq_last_ran is its creation), so it runs 5.02 ms, not 6."""
    rig = Rig(hz=1000)
    rig.policy.set_tunable("yield_expires", 0)
    rig.spawn("hog")  # deadline 39, first in the queue
    poller = rig.spawn("poller", poll_ns=20 * US)  # deadline 39 too
    rig.run_until(6 * MS + 40 * US)
    outcome = rig.yield_(0)
    assert outcome == YieldOutcome("requeued", deadline_jiffies=39)
    assert rig.curr[0] is poller  # 39 < the hog's renewed 6 + 39
    assert rig.policy.yield_noop_budget_ns(0, rig.now) == min(
        poller.se.time_slice_us * 1000 - 1, (45 + 1) * MS - 1 - rig.now
    )
    rig.run_until(40 * MS)
    assert rig.segments()[:4] == [
        ("hog", 0, 6 * MS),
        ("poller", 6 * MS, 11 * MS + 20 * US),
        ("hog", 11 * MS + 20 * US, 17 * MS),
        ("poller", 17 * MS, 22 * MS + 20 * US),
    ]


def test_the_2009_yield_gives_the_poller_one_iteration_per_hog_slice_and_v0318_about_half() -> None:
    shares = {}
    for expires in (1, 0):
        rig = Rig(hz=1000)
        rig.policy.set_tunable("yield_expires", expires)
        rig.spawn("hog")
        rig.spawn("poller", poll_ns=20 * US)
        rig.run_until(600 * MS)
        shares[expires] = rig.run_ns["poller"] / rig.now
    assert shares[1] < 0.01
    assert 0.35 < shares[0] < 0.5  # less than half: every turn starts with a whole-jiffy charge


def test_yield_outcome_and_new_deadline() -> None:
    rig = Rig(hz=1000)
    a = rig.spawn("A")
    b = rig.spawn("B")
    rig.run_until(2 * MS + 300 * US)
    assert rig.yield_(0) == YieldOutcome("new_deadline", deadline_jiffies=2 + 39)
    assert rig.curr[0] is b and a.se.deadline == 41  # the deadline the outcome said, set in schedule()
    assert [e.tid for e in rig.policy.runqueue_view(0, rig.now).entries] == [b.tid, a.tid]


def test_sleeper_with_an_old_deadline_preempts() -> None:
    rig = Rig(hz=1000)
    s, h = rig.spawn("S"), rig.spawn("H")
    rig.run_until(1 * MS)
    rig.schedule(0, block=True)  # S sleeps after 1 ms, keeping deadline 39
    assert rig.curr[0] is h
    rig.run_until(100 * MS)
    assert s.se.deadline == 39 < h.se.deadline
    assert rig.wake(s)
    assert rig.curr[0] is s
    view = rig.policy.runqueue_view(0, rig.now)
    assert [(e.tid, e.running, e.deadline_jiffies, e.deadline_passed) for e in view.entries] == [
        (s.tid, True, 39, True),
        (h.tid, False, h.se.deadline, False),
    ]
    assert [e.picks_next for e in view.entries] == [True, False]  # S's old deadline goes first again


def test_expired_deadlines_are_taken_first_come_first_served() -> None:
    rig = Rig(hz=1000)
    h = rig.spawn("H")
    rig.now = 1 * MS
    w = rig.spawn("W")  # deadline 40
    rig.policy.dequeue(w, 0, rig.now)  # off the queue before it ever runs, as if asleep
    rig.run_until(11 * MS)
    x = rig.spawn("X")  # deadline 50
    rig.policy.dequeue(x, 0, rig.now)
    rig.run_until(100 * MS)
    for task in (x, w):  # two wakeups before the kicked CPU reschedules
        rig.policy.enqueue(task, 0, rig.now, True)
        assert rig.policy.check_preempt_wakeup(0, task, rig.now)
    assert (x.se.deadline, w.se.deadline) == (50, 40) and h.se.deadline > 100
    assert rig.schedule() is x  # both expired: queue order, although W's deadline is earlier
    assert rig.schedule() is w


def test_nice19_sleeper_waits_until_its_deadline_is_the_earliest() -> None:
    rig = Rig(hz=1000)
    s = rig.spawn("S", nice=19)  # deadline 239
    h = rig.spawn("H")  # deadline 39
    rig.run_until(1 * MS)
    rig.schedule(0, block=True)  # S sleeps with 5 ms of slice left
    rig.run_until(10 * MS)
    assert not rig.wake(s)  # 239 is after the hog's deadline: no preemption
    assert rig.curr[0] is h
    rig.run_until(300 * MS)
    # H renews its deadline at 7, 13, ... ms; at 205 ms it gets 205 + 39 > 239 and S runs its 5 ms.
    assert [seg for seg in rig.segments() if seg[0] == "S"] == [("S", 0, 1 * MS), ("S", 205 * MS, 210 * MS)]


def test_nice19_gets_about_three_percent_of_nice0() -> None:
    rig = Rig(hz=1000)
    rig.spawn("N0")
    rig.spawn("N19", nice=19)
    rig.run_until(2000 * MS)
    share = rig.run_ns["N19"] / rig.now  # one 6 ms slice per ~(239 - 39) jiffies
    assert 0.02 <= share <= 0.04


# ---- SMP: one queue for every CPU -----------------------------------------------------------------


def test_three_hogs_share_two_cpus_through_the_global_queue() -> None:
    rig = Rig(ncpus=2, hz=1000)
    tasks = [rig.spawn(n) for n in "ABC"]
    assert rig.curr[0] is tasks[0] and rig.curr[1] is tasks[1]
    assert rig.policy.nr_running(0) == rig.policy.nr_running(1) == 2
    rig.run_until(720 * MS)
    for t in tasks:
        assert rig.run_ns[t.name] == pytest.approx(480 * MS, rel=0.05)
        assert all(any(s[0] == t.name for s in rig.segs[cpu]) for cpu in (0, 1))  # ran on both CPUs


def test_select_task_rq_prefers_idle_then_latest_deadline() -> None:
    rig = Rig(ncpus=2, hz=1000)  # rr_interval 12 ms, nice-0 deadline offset 78 jiffies
    a = rig.spawn("A")
    sleeper = Task(tid=99, name="Z", cpu=1)
    assert rig.policy.select_task_rq(sleeper, 0) == 1  # its own CPU is idle
    sleeper.cpu = 0
    assert rig.policy.select_task_rq(sleeper, 0) == 1  # the other idle CPU
    b = rig.spawn("B")
    assert (a.cpu, b.cpu, a.se.deadline, b.se.deadline) == (0, 1, 78, 78)
    assert rig.policy.select_task_rq(sleeper, 0) == 0  # equal deadlines: the first CPU
    rig.run_until(5 * MS)
    b.se.time_slice_us = 0
    rig.schedule(1)  # B gets a new deadline 5 + 78 and runs on
    assert (rig.curr[1], b.se.deadline) == (b, 83)
    assert rig.policy.select_task_rq(sleeper, rig.now) == 1  # the latest deadline is kicked


def test_pinned_task_runs_only_on_its_cpu() -> None:
    rig = Rig(ncpus=2, hz=1000)
    rig.spawn("A", pinned=0)
    rig.spawn("B", pinned=0)
    assert rig.curr[1] is None
    assert (rig.policy.nr_running(0), rig.policy.nr_running(1)) == (2, 0)
    rig.run_until(50 * MS)
    assert rig.segs[1] == []
    view = rig.policy.runqueue_view(1, rig.now)
    assert view.entries[-1].pinned_cpu == 0 and not any(e.picks_next for e in view.entries)


def test_runqueue_view_lists_running_then_queue_by_deadline() -> None:
    rig = Rig(ncpus=2, hz=1000)
    a, b, c, d = rig.spawn("A"), rig.spawn("B"), rig.spawn("C", nice=5), rig.spawn("D")
    rig.now = 100 * MS
    view = rig.policy.runqueue_view(1, rig.now)
    assert (view.cpu, view.jiffies) == (1, 100)
    rows = [(e.tid, e.on_cpu, e.deadline_jiffies, e.deadline_passed, e.time_slice_ns) for e in view.entries]
    assert rows == [
        (a.tid, 0, 78, True, 12 * MS),
        (b.tid, 1, 78, True, 12 * MS),
        (d.tid, -1, 78, True, 12 * MS),
        (c.tid, -1, 1053 * 12 // 100, False, 12 * MS),  # 126 jiffies: nice 5, not yet passed
    ]
    # CPU 1 would put B back at the tail and take D, the first passed deadline in the queue.
    assert [e.tid for e in view.entries if e.picks_next] == [d.tid]


# ---- the yield no-op budget against yields stepped one by one -------------------------------------


def _yielder_ahead_of_a_later_deadline(yield_expires: int = 1) -> tuple[Rig, Task, Task]:
    """Y (deadline 39) runs; H (nice 1, deadline 43) waits. Y yields at 0.5 ms and is re-picked."""
    rig = Rig(hz=1000)
    rig.policy.set_tunable("yield_expires", yield_expires)
    y, h = rig.spawn("Y"), rig.spawn("H", nice=1)
    assert h.se.deadline == 43
    rig.advance(500 * US)
    rig.yield_(0)
    assert rig.curr[0] is y
    return rig, y, h


def _first_switch(rig: Rig, steps: list[int]) -> int | None:
    """Yield after each step of the yielder's run (no tick, no wakeup): run time at the first switch."""
    y, start = rig.curr[0], rig.now
    for step in steps:
        rig.advance(rig.now + step)
        rig.yield_(0)
        if rig.curr[0] is not y:
            return rig.now - start
    return None


def test_budget_is_exact_at_the_jiffy_where_deadlines_tie() -> None:
    rig, y, h = _yielder_ahead_of_a_later_deadline()
    budget = rig.policy.yield_noop_budget_ns(0, rig.now)
    assert budget == 4 * MS - 1 - rig.now  # the last jiffy re-picking Y is 43 - 39 - 1 = 3
    assert _first_switch(rig, [budget]) is None  # a yield at the end of the budget still re-picks
    assert rig.curr[0] is y and rig.policy.yield_noop_budget_ns(0, rig.now) == 0
    assert _first_switch(rig, [1]) == 1  # one ns later: deadline 4 + 39 ties H, and H is queued first
    assert rig.curr[0] is h


@pytest.mark.parametrize("yield_expires", [1, 0])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_budget_never_overestimates_random_steps(seed: int, yield_expires: int) -> None:
    rig, _, _ = _yielder_ahead_of_a_later_deadline(yield_expires)
    budget = rig.policy.yield_noop_budget_ns(0, rig.now)
    assert budget is not None and budget > 0
    rnd = random.Random(seed)
    switch_at = _first_switch(rig, [rnd.randint(1, 40 * US) for _ in range(10_000)])
    assert switch_at is not None and switch_at > budget


def test_v0318_budget_ends_with_the_slice() -> None:
    """Keeping deadline 39 < 43, Y is re-picked until its slice is used: 6 ms less the 0.5 ms charged."""
    rig, y, h = _yielder_ahead_of_a_later_deadline(yield_expires=0)
    budget = rig.policy.yield_noop_budget_ns(0, rig.now)
    assert budget == 5_500 * US - 1
    # In steps of at most a jiffy, as ticks charge it: 1 µs of slice is left at the budget's end.
    assert _first_switch(rig, [100 * US] * 54 + [100 * US - 1]) is None and rig.curr[0] is y
    assert _first_switch(rig, [1 * US]) == 1 * US  # the slice is empty: deadline 6 + 39 > 43
    assert rig.curr[0] is h


def test_budget_none_when_alone_on_the_cpu_and_zero_when_a_yield_switches() -> None:
    rig = Rig(ncpus=2, hz=1000)
    rig.spawn("Y", pinned=0)
    rig.spawn("P", pinned=1)
    rig.spawn("Q", pinned=1)  # queued, but not allowed on CPU 0
    rig.yield_(0)
    assert rig.policy.yield_noop_budget_ns(0, rig.now) is None
    solo = Rig(hz=1000)
    solo.spawn("A")
    solo.spawn("B")
    assert solo.policy.yield_noop_budget_ns(0, 0) == 0  # B's deadline 39 ties A's next one
