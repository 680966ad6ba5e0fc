"""EEVDF policy (6.6+, 6.15 slice, 2025 yield fix): pinned constants and golden behaviours, no machine.

``Rig`` calls the policy in the machine's order (see ``model/sched/base.py``) on one CPU: a tick at
every jiffy boundary, a yield-polling task yielding every ``period`` ns of its own run. The numbers in
the comments are the hand arithmetic of KERNEL.md §C.2 (nice 0: virtual ns = real ns).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from model.sched import make_policy
from model.sched.eevdf import BASE_SLICE_NS, EevdfPolicy
from model.snapshot import YieldOutcome
from model.task import Task

MS = 1_000_000
US = 1_000


class Rig:
    """A one-CPU stand-in for the machine: schedule(), ticks, yields, wakeups and blocking."""

    def __init__(self, hz: int = 1000, ncpus: int = 1) -> None:
        self.policy = EevdfPolicy(ncpus=ncpus, hz=hz)
        self.tick_ns = 1_000_000_000 // hz
        self.now = 0
        self.curr: Task | None = None
        self.segs: list[list[object]] = []  # [name, start, end]
        self.run_ns: Counter[str] = Counter()
        self.pollers: dict[str, int] = {}  # name -> ns of its own run between two yields
        self.next_yield: int | None = None
        self.by_tid: dict[int, str] = {}

    def spawn(self, name: str, nice: int = 0, poll_ns: int = 0) -> Task:
        task = Task(tid=len(self.by_tid) + 1, name=name, nice=nice)
        self.by_tid[task.tid] = name
        if poll_ns:
            self.pollers[name] = poll_ns
        self.policy.task_new(task, 0, self.now)  # one CPU, whatever ncpus says
        if self.curr is None:
            self.schedule()
        return task

    def schedule(self, block: bool = False) -> Task | None:
        p, prev = self.policy, self.curr
        if prev is not None:
            p.update_curr(0, self.now)
            (p.dequeue if block else p.put_prev)(prev, 0, self.now)
        nxt = self.curr = p.pick_next(0, self.now)
        poll = self.pollers.get(nxt.name) if nxt is not None else None
        self.next_yield = self.now + poll if poll else None
        return nxt

    def yield_(self) -> YieldOutcome:
        self.policy.update_curr(0, self.now)
        where = self.policy.yield_task(0, self.now)
        self.schedule()
        return where

    def wake(self, task: Task) -> bool:
        self.policy.enqueue(task, 0, self.now, True)
        if self.curr is not None and not self.policy.check_preempt_wakeup(0, task, self.now):
            return False
        self.schedule()
        return True

    def advance(self, t_ns: int) -> None:
        if self.curr is not None and t_ns > self.now:
            self.run_ns[self.curr.name] += t_ns - self.now
            if self.segs and self.segs[-1][0] == self.curr.name and self.segs[-1][2] == self.now:
                self.segs[-1][2] = t_ns
            else:
                self.segs.append([self.curr.name, self.now, t_ns])
        self.now = max(self.now, t_ns)

    def run_until(self, t_end: int) -> None:
        while self.now < t_end:
            t_tick = (self.now // self.tick_ns + 1) * self.tick_ns
            if self.next_yield is not None and self.next_yield < t_tick and self.next_yield <= t_end:
                self.advance(self.next_yield)
                self.yield_()
                continue
            if t_tick > t_end:
                self.advance(t_end)
                return
            self.advance(t_tick)
            if self.curr is not None:
                self.policy.update_curr(0, self.now)
                if self.policy.task_tick(0, self.now):
                    self.schedule()

    def lag(self, task: Task) -> int:
        return self.policy.runqueue_view(0, self.now).avg_vruntime_ns - int(task.se.vruntime)

    def groups(self) -> dict[str, str]:
        """Task name -> "running", or "eligible" / "ineligible" as the run-queue view says."""
        entries = self.policy.runqueue_view(0, self.now).entries
        return {
            self.by_tid[e.tid]: "running" if e.running else ("eligible" if e.eligible else "ineligible")
            for e in entries
        }


# ---- defaults pinned ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ncpus", "slice_ns"), [(1, 700_000), (2, 1_400_000), (4, 2_100_000), (8, 2_800_000), (16, 2_800_000)]
)
def test_base_slice_scales_with_log2_cpus_capped_at_8(ncpus: int, slice_ns: int) -> None:
    assert BASE_SLICE_NS == 700_000  # 6.15+ (2ae891b8); 0.75 ms before
    assert EevdfPolicy(ncpus=ncpus, hz=250).base_slice_ns == slice_ns


def test_registry_and_tunables() -> None:
    policy = make_policy("eevdf", ncpus=2, hz=250)
    assert isinstance(policy, EevdfPolicy)
    assert (policy.yield_forfeit, policy.run_to_parity) == (True, True)
    with pytest.raises(KeyError):
        policy.set_tunable("compat_yield", 1)  # a CFS sysctl, never sent to EEVDF
    policy.set_tunable("yield_forfeit", 0)
    policy.set_tunable("run_to_parity", 0)
    assert (policy.yield_forfeit, policy.run_to_parity) == (False, False)
    with pytest.raises(KeyError):
        policy.set_tunable("sched_latency_ns", 1)


def test_new_task_placed_at_avg_vruntime_with_half_a_slice() -> None:
    rig = Rig()
    a = rig.spawn("A")
    assert (a.se.vruntime, a.se.deadline) == (0, 350_000)  # PLACE_DEADLINE_INITIAL: slice / 2
    rig.run_until(3 * MS)
    b = rig.spawn("B", nice=5)  # weight 335: a slice is 700000 * 1024 / 335 = 2139701 virtual ns
    assert (b.se.vruntime, b.se.deadline) == (3 * MS, 3 * MS + 2_139_701 // 2)
    view = rig.policy.runqueue_view(0, rig.now)
    assert (view.min_vruntime_ns, view.avg_vruntime_ns) == (3 * MS, 3 * MS)
    rows = [(e.tid, e.running, e.eligible, e.vruntime_ns, e.deadline_ns, e.lag_ns) for e in view.entries]
    assert rows == [
        (a.tid, True, True, 3 * MS, 3 * MS + 700_000, 0),  # its request renewed at the 3 ms tick
        (b.tid, False, True, 3 * MS, 3 * MS + 2_139_701 // 2, 0),
    ]
    assert [e.picks_next for e in view.entries] == [True, False] and view.entries[1].slice_ns == 700_000


# ---- golden schedules -----------------------------------------------------------------------------


def test_two_hogs_alternate_each_tick_when_the_slice_is_shorter() -> None:
    rig = Rig(hz=1000)  # slice 0.7 ms: the request is served at the first tick, which reschedules
    rig.spawn("A")
    rig.spawn("B")
    rig.run_until(6 * MS)
    assert rig.segs == [[n, t * MS, (t + 1) * MS] for t, n in enumerate("ABABAB")]


def test_two_hogs_alternate_per_slice_rounded_up_to_ticks() -> None:
    rig = Rig(hz=1000, ncpus=16)  # slice 0.7 ms * (1 + ilog2(8)) = 2.8 ms: served at the 3rd tick
    rig.spawn("A")
    rig.spawn("B")
    rig.run_until(16 * MS)
    # The first requests are half a slice (1.4 ms, served at 2 ms); then 2.8 ms each, seen at 3 ms.
    bounds = [0, 2, 4, 7, 10, 13, 16]
    assert rig.segs == [["AB"[i % 2], bounds[i] * MS, bounds[i + 1] * MS] for i in range(6)]


def test_nice_weighting() -> None:
    rig = Rig(hz=1000)
    rig.spawn("N0")
    rig.spawn("N5", nice=5)
    rig.run_until(2000 * MS)
    assert rig.run_ns["N0"] / rig.now == pytest.approx(1024 / (1024 + 335), abs=0.01)


def test_yield_poller_vs_hog_with_forfeit_the_hog_gets_most() -> None:
    rig = Rig(hz=1000)
    rig.spawn("hog")
    rig.spawn("poller", poll_ns=20 * US)
    rig.run_until(200 * MS)
    # Each yield skips 0.7 ms of virtual time for 20 µs of CPU.
    assert rig.run_ns["hog"] / rig.now >= 0.9


def test_yield_poller_vs_hog_before_the_fix_keeps_its_fair_share() -> None:
    rig = Rig(hz=1000)
    rig.policy.set_tunable("yield_forfeit", 0)
    rig.spawn("hog")
    poller = rig.spawn("poller", poll_ns=20 * US)
    rig.run_until(200 * MS)
    # The poller stays eligible until its vruntime passes the hog's, and is re-picked at every yield
    # meanwhile: about half the CPU (the LKML pathology), while its deadline runs away.
    assert rig.run_ns["poller"] / rig.now >= 0.4
    assert poller.se.deadline - poller.se.vruntime > 1000 * MS


def test_yield_semantics_and_outcomes() -> None:
    rig = Rig(hz=1000)
    a = rig.spawn("A")
    assert rig.yield_() == YieldOutcome("unchanged", "alone", noop=True)
    b = rig.spawn("B")
    rig.run_until(1 * MS)  # A's request served at 1 ms: B runs, v 0, deadline 350000
    rig.advance(1 * MS + 100 * US)
    assert rig.yield_() == YieldOutcome("forfeit", key_ns=350_000, deadline_ns=1_050_000, moved_ns=250_000)
    assert (b.se.vruntime, b.se.deadline, rig.curr) == (350_000, 1_050_000, b)  # still the only eligible
    rig.advance(rig.now + 100 * US)
    rig.policy.set_tunable("yield_forfeit", 0)
    expected = YieldOutcome("later_deadline", key_ns=450_000, deadline_ns=1_750_000, moved_ns=700_000)
    assert rig.yield_() == expected
    assert (b.se.vruntime, b.se.deadline) == (450_000, 1_750_000)
    rig.policy.set_tunable("yield_forfeit", 1)
    b.se.vruntime = 1_200_000  # as if B had run ahead of V = (1e6 + 1.2e6) / 2
    assert rig.yield_() == YieldOutcome("unchanged", "ineligible", noop=True)
    assert (b.se.vruntime, rig.curr) == (1_200_000, a)


def test_woken_task_with_positive_lag_preempts_and_keeps_its_lag() -> None:
    rig = Rig(hz=1000)
    a = rig.spawn("A")
    b = rig.spawn("B")
    rig.run_until(1 * MS)  # A served at 1 ms; B runs
    rig.advance(1 * MS + 1 * US)
    rig.schedule(block=True)  # B sleeps: lag = (1e6 + 1000) / 2 - 1000
    assert b.se.vlag == 499_500
    rig.run_until(11 * MS)
    assert rig.wake(b)  # lag scaled by (W + w) / W = 2: B lands 999000 behind A, and A is ineligible
    assert rig.curr is b and rig.lag(b) == 499_500
    assert b.se.vruntime == a.se.vruntime - 999_000


def test_woken_task_wins_a_deadline_tie_with_curr() -> None:
    rig = Rig(hz=1000)
    a = rig.spawn("A")
    b = rig.spawn("B")
    rig.policy.dequeue(b, 0, 0)  # asleep before it ever ran: lag 0
    rig.policy.update_curr(0, 1 * MS)
    assert not rig.policy.task_tick(0, 1 * MS)  # A's request is served, but alone it is not rescheduled
    rig.run_until(5 * MS)
    assert (a.se.vruntime, a.se.deadline) == (5 * MS, 5 * MS + 700_000)
    assert rig.wake(b)  # placed at V with the same deadline: the queued entity wins (entity_before is strict)
    assert (b.se.vruntime, b.se.deadline) == (a.se.vruntime, a.se.deadline)


def test_woken_task_with_negative_lag_waits() -> None:
    rig = Rig(hz=1000)
    b = rig.spawn("B")
    a = rig.spawn("A")
    rig.run_until(2 * MS)  # B then A served; both at v = 1 ms, B first in the tree
    assert rig.curr is b
    rig.advance(2 * MS + 500 * US)
    rig.schedule(block=True)
    assert b.se.vlag == -250_000  # V = 1.25 ms
    rig.run_until(10 * MS)
    assert not rig.wake(b)
    assert rig.curr is a and b.se.vruntime == a.se.vruntime + 500_000
    assert rig.groups() == {"A": "running", "B": "ineligible"}


@pytest.mark.parametrize("run_to_parity", [1, 0])
def test_run_to_parity_keeps_an_eligible_curr_until_its_deadline(run_to_parity: int) -> None:
    rig = Rig(hz=1000)
    rig.policy.set_tunable("run_to_parity", run_to_parity)
    rig.spawn("B")
    a = rig.spawn("A")
    c = rig.spawn("C")
    rig.run_until(2 * MS)  # B served at 1 ms, A at 2 ms: C runs
    rig.advance(2 * MS + 1 * US)
    rig.schedule(block=True)  # C sleeps owed 666000 (V = 2001000 / 3)
    rig.run_until(3 * MS)  # B runs to 3 ms (served), A picked with deadline 1.7 ms
    assert rig.curr is a and a.se.deadline == 1_700_000
    preempted = rig.wake(c)  # C: vruntime 500500, deadline 1200500, eligible; A still eligible
    assert rig.lag(c) == 666_000
    assert rig.groups()["A" if preempted else "C"] == "eligible"
    assert preempted == (not run_to_parity)
    rig.run_until(5 * MS)  # protected, C runs once A's request is served at the 4 ms tick
    start = (4 if run_to_parity else 3) * MS
    assert [s[1:] for s in rig.segs if s[0] == "C"][-1] == [start, start + 1 * MS]


def test_saved_lag_is_clamped_to_two_slices() -> None:
    rig = Rig(hz=1000)
    a = rig.spawn("A")
    rig.spawn("B")
    rig.run_until(500 * US)
    a.se.vruntime += 50 * MS  # as if A had run far ahead of V
    rig.schedule(block=True)
    assert a.se.vlag == -1_400_000  # limit = calc_delta_fair(max(2 * 0.7 ms, TICK_NSEC))


# ---- the yield no-op budget against yields stepped one by one -------------------------------------


def _prefix_yielder_behind_a_hog() -> tuple[Rig, Task, Task]:
    """Pre-fix yield: H served at 1 ms, Y runs from v = 0, yields at 1.01 ms and is re-picked."""
    rig = Rig(hz=1000)
    rig.policy.set_tunable("yield_forfeit", 0)
    h = rig.spawn("H")
    y = rig.spawn("Y")
    rig.run_until(1 * MS)
    rig.advance(1 * MS + 10 * US)
    rig.yield_()
    assert rig.curr is y
    return rig, y, h


def _first_switch(rig: Rig, steps: list[int]) -> int | None:
    """Yield after each step of the yielder's run (no tick, no wakeup): run time at the first switch."""
    y, start = rig.curr, rig.now
    for step in steps:
        rig.advance(rig.now + step)
        rig.yield_()
        if rig.curr is not y:
            return rig.now - start
    return None


def test_budget_is_exact_where_the_hog_turns_eligible() -> None:
    rig, y, h = _prefix_yielder_behind_a_hog()
    budget = rig.policy.yield_noop_budget_ns(0, rig.now)
    assert budget == h.se.vruntime - 1 - y.se.vruntime == 989_999
    assert _first_switch(rig, [budget]) is None
    assert rig.policy.yield_noop_budget_ns(0, rig.now) == 0  # one virtual ns short of H's vruntime
    assert _first_switch(rig, [1]) == 1  # equal vruntimes: H is eligible and its deadline is earlier
    assert rig.curr is h


@pytest.mark.parametrize("seed", range(6))
def test_budget_never_overestimates_random_steps_and_weights(seed: int) -> None:
    rig = Rig(hz=1000)
    rig.policy.set_tunable("yield_forfeit", 0)
    rig.spawn("H1")
    rig.spawn("H2", nice=-2)
    y = rig.spawn("Y", nice=3)
    rnd = random.Random(seed)
    rig.run_until(rnd.randint(1, 3) * MS)
    for _ in range(100):  # run on until a yield of Y's re-picks it
        while rig.curr is not y:
            rig.run_until(rig.now + 1 * MS)
        rig.advance(rig.now + rnd.randint(1, 200) * US)
        rig.yield_()
        if rig.curr is y:
            break
    else:
        pytest.fail("Y was never re-picked")
    budget = rig.policy.yield_noop_budget_ns(0, rig.now)
    assert budget is not None and budget > 0
    switch_at = _first_switch(rig, [rnd.randint(1, 20 * US) for _ in range(5_000)])
    assert switch_at is not None and switch_at > budget


def test_budget_none_alone_and_zero_when_forfeiting() -> None:
    rig = Rig(hz=1000)
    rig.spawn("H")
    assert rig.policy.yield_noop_budget_ns(0, rig.now) is None  # alone
    y = rig.spawn("Y")
    rig.run_until(1 * MS)  # H served: Y runs from v = 0
    rig.advance(1 * MS + 10 * US)
    assert rig.yield_() == YieldOutcome("forfeit", key_ns=350_000, deadline_ns=1_050_000, moved_ns=340_000)
    assert rig.curr is y  # v 350000 is still below V = 675000
    assert rig.policy.yield_noop_budget_ns(0, rig.now) == 0
    assert _first_switch(rig, [10 * US]) == 10 * US  # the next forfeit (to v 1.05 ms) lets H in


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_running_sums_match_the_queue_after_random_operations(seed: int) -> None:
    """avg_vruntime/avg_load are kept incrementally (as the kernel does): they must always equal
    Σ w·(vruntime - min_vruntime) and Σ w over the queued entities."""
    rig = Rig(hz=250)
    mix = [(0, 0), (-3, 40 * US), (5, 0)]  # (nice, yield-poll period)
    tasks = [rig.spawn(f"T{i}", nice=n, poll_ns=p) for i, (n, p) in enumerate(mix)]
    asleep: list[Task] = []
    rnd = random.Random(seed)
    for _ in range(400):
        rig.run_until(rig.now + rnd.randint(1, 3000) * US)
        if asleep and rnd.random() < 0.5:
            rig.wake(asleep.pop(rnd.randrange(len(asleep))))
        elif rig.curr is not None and len(asleep) < len(tasks) - 1 and rnd.random() < 0.3:
            asleep.append(rig.curr)
            rig.schedule(block=True)
        rq = rig.policy._rqs[0]
        keys = sum(t.se.weight * (t.se.vruntime - rq.min_vruntime) for t in rq.queued)
        assert (rq.avg_vruntime, rq.avg_load) == (keys, sum(t.se.weight for t in rq.queued))
