"""BFS, the Brain Fuck Scheduler of Con Kolivas (≈v0.30x as backported to 2.6.29, KERNEL.md §D).

Every CPU works off ONE global run queue, a FIFO list of the runnable tasks that are not running
(``grq.queue``; a running task is out of it). A task's virtual deadline, in jiffies, is set each time
its ``rr_interval`` slice runs out: ``jiffies + prio_deadline_diff(nice)``. ``pick_next`` scans the
queue: the first task whose deadline has already passed is taken FIFO, otherwise the earliest
deadline wins. Sleeping keeps the old (early) deadline, so a task that slept a while wins the CPU back
on wakeup; ``sched_yield()`` zeroes the slice, which refills it with a deadline a whole
``prio_deadline_diff`` away. Nice changes only the deadline offset, never the slice.
# SIMPLIFICATION: SCHED_NORMAL only (no RT, ISO or IDLEPRIO queues), so every task has the same prio
# and try_preempt() compares deadlines alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from model.sched.base import NSEC_PER_SEC, RunqueueEntry, RunqueueView, cpu_scale_factor
from model.task import Task

RR_INTERVAL_MS = 6  # BFS: int rr_interval = 6; /* "Scales with number of cpus" */
PRIO_RANGE = 40


def _prio_ratios() -> tuple[int, ...]:
    # BFS sched_init(): prio_ratios[0] = 100; prio_ratios[i] = prio_ratios[i - 1] * 11 / 10 (integers).
    ratios = [100]
    for _ in range(1, PRIO_RANGE):
        ratios.append(ratios[-1] * 11 // 10)
    return tuple(ratios)


PRIO_RATIOS: tuple[int, ...] = _prio_ratios()  # index nice + 20: 100 ... 655 (nice 0) ... 3987


@dataclass(slots=True, eq=False)
class BfsEntity:
    """The BFS fields of a task_struct that this model keeps (``task.se``)."""

    deadline: int  # jiffies
    time_slice_us: int  # what is left of the rr_interval slice (may go negative before the tick sees it)


class BfsPolicy:
    """BFS: one global queue, earliest virtual deadline first, old deadlines FIFO."""

    name: str = "bfs"

    def __init__(self, ncpus: int, hz: int) -> None:
        self.ncpus = ncpus
        self.hz = hz
        self.tick_ns = NSEC_PER_SEC // hz
        # BFS sched_init_smp(): rr_interval *= 1 + ilog2(num_online_cpus()) (no cap at 8 CPUs).
        self.rr_interval_ms = RR_INTERVAL_MS * cpu_scale_factor(ncpus)
        self.queue: list[Task] = []  # grq.queue[NORMAL_PRIO]: tail append, queued and not running
        self._curr: list[Task | None] = [None] * ncpus
        self._exec_start_ns = [0] * ncpus  # p->last_ran

    # ---- constants --------------------------------------------------------------------------------

    def jiffies(self, now_ns: int) -> int:
        return now_ns // self.tick_ns

    def timeslice_us(self) -> int:
        return self.rr_interval_ms * 1000  # timeslice(): MS_TO_US(rr_interval), whatever the nice

    def prio_deadline_diff(self, nice: int) -> int:
        """``(prio_ratios[user_prio] * rr_interval * HZ / (1000 * 100)) ?: 1``, in jiffies."""
        return PRIO_RATIOS[nice + 20] * self.rr_interval_ms * self.hz // (1000 * 100) or 1

    # ---- placement and queueing -------------------------------------------------------------------

    def select_task_rq(self, task: Task, now_ns: int) -> int:
        allowed = [cpu for cpu in range(self.ncpus) if task.allowed_on(cpu)]
        idle = [cpu for cpu in allowed if self._curr[cpu] is None]
        if idle:
            # BFS resched_best_idle(): the idle CPU closest in cache, the task's own first.
            # SIMPLIFICATION: cache_distance() = 0, all CPUs share a cache, so any other idle CPU is as good.
            return task.cpu if task.cpu in idle else idle[0]
        # BFS try_preempt(): the CPU whose current task has the worst prio (all equal here) and, among
        # equals, the latest deadline; the first such CPU wins ties (deadline_after() is strict).
        return max(allowed, key=self._curr_deadline)

    def task_new(self, task: Task, cpu: int, now_ns: int) -> None:
        # SIMPLIFICATION: the child starts as if time_slice_expired() had just run (full slice, deadline
        # jiffies + diff). BFS sched_fork() splits the parent's remaining slice with the child instead.
        task.se = BfsEntity(deadline=0, time_slice_us=0)
        self._time_slice_expired(task, now_ns)
        self.queue.append(task)

    def enqueue(self, task: Task, cpu: int, now_ns: int, wakeup: bool) -> None:
        # BFS activate_task(): tail of the global queue; deadline and slice stay what they were.
        self.queue.append(task)

    def dequeue(self, task: Task, cpu: int, now_ns: int) -> None:
        if self._curr[cpu] is task:
            self._check_deadline(task, now_ns)  # schedule() checks prev's deadline before return_task()
            self._curr[cpu] = None
        else:
            self.queue.remove(task)

    def put_prev(self, task: Task, cpu: int, now_ns: int) -> None:
        # BFS schedule(): check_deadline(prev), then return_task() puts it back at the tail.
        self._check_deadline(task, now_ns)
        self._curr[cpu] = None
        self.queue.append(task)

    def pick_next(self, cpu: int, now_ns: int) -> Task | None:
        # BFS earliest_deadline_task(): O(n) scan of the global queue in FIFO order.
        jiffies = self.jiffies(now_ns)
        best: Task | None = None
        for p in self.queue:
            if not p.allowed_on(cpu):
                continue
            dl: int = p.se.deadline  # + cache_distance(), 0 here (see select_task_rq)
            if dl < jiffies:  # time_is_before_jiffies(dl): old deadlines are taken first come, first served
                best = p
                break
            if best is None or dl < best.se.deadline:  # time_before(): the earlier in the queue wins ties
                best = p
        if best is not None:
            self.queue.remove(best)
            self._exec_start_ns[cpu] = now_ns
        self._curr[cpu] = best
        return best

    def update_curr(self, cpu: int, now_ns: int) -> None:
        p = self._curr[cpu]
        if p is None:
            return
        delta_ns = max(now_ns - self._exec_start_ns[cpu], 0)
        self._exec_start_ns[cpu] = now_ns
        # BFS update_cpu_clock(): "a jiffy as the max time_diff", charged in µs (the sub-µs rest is lost).
        se: BfsEntity = p.se
        se.time_slice_us -= min(delta_ns, self.tick_ns) // 1000

    # ---- tick, preemption, yield ------------------------------------------------------------------

    def task_tick(self, cpu: int, now_ns: int) -> bool:
        # BFS task_running_tick(): nothing while rq_time_slice > 0, else set_tsk_need_resched().
        p = self._curr[cpu]
        return p is not None and p.se.time_slice_us <= 0

    def check_preempt_wakeup(self, cpu: int, woken: Task, now_ns: int) -> bool:
        # BFS try_preempt() -> can_preempt(): same prio, so a strictly earlier deadline preempts.
        curr = self._curr[cpu]
        return curr is None or woken.se.deadline < curr.se.deadline

    def yield_task(self, cpu: int, now_ns: int) -> str:
        # BFS sys_sched_yield(): "zeroing the rq timeslice, which will reset the deadline" in schedule().
        p = self._curr[cpu]
        if p is None:
            raise RuntimeError(f"yield on cpu {cpu} with no current task")
        p.se.time_slice_us = 0
        return f"deadline → jiffies+{self.prio_deadline_diff(p.nice)}"

    def yield_noop_budget_ns(self, cpu: int, now_ns: int) -> int | None:
        """Each yield in jiffy J gives the yielder deadline J + diff at the tail of the queue, so it is
        re-picked while every other task allowed here has a deadline strictly later than that (and so
        not expired). The others' deadlines do not move while they wait: the last jiffy that still
        re-picks it is ``min(deadlines) - diff - 1``. The queue is global, so this holds only while no
        other CPU adds to it (a wakeup kicked elsewhere, a requeue at slice expiry): the machine must
        ask again after those too, not only after events on this CPU.
        """
        p = self._curr[cpu]
        if p is None:
            return 0
        others: list[int] = [q.se.deadline for q in self.queue if q.allowed_on(cpu)]
        if not others:
            return None
        last_jiffy = min(others) - self.prio_deadline_diff(p.nice) - 1
        if last_jiffy < self.jiffies(now_ns):
            return 0
        return (last_jiffy + 1) * self.tick_ns - 1 - now_ns

    def set_tunable(self, key: str, value: int) -> None:
        if key != "compat_yield":  # a CFS sysctl: accepted, no effect under BFS
            raise KeyError(f"unknown BFS tunable {key!r}; allowed: compat_yield")

    # ---- views ------------------------------------------------------------------------------------

    def nr_running(self, cpu: int) -> int:
        queued = sum(1 for p in self.queue if p.allowed_on(cpu))
        return queued + (self._curr[cpu] is not None)

    def runqueue_view(self, cpu: int, now_ns: int) -> RunqueueView:
        """The global queue, the same for every CPU: all running tasks first, then the queue by deadline."""
        jiffies = self.jiffies(now_ns)
        rows: list[RunqueueEntry] = []
        for c, p in enumerate(self._curr):
            if p is not None:
                detail = f"cpu {c}, slice {p.se.time_slice_us / 1000:.1f} ms"
                rows.append(RunqueueEntry(p.tid, "running", "deadline", p.se.deadline, detail))
        for p in sorted(self.queue, key=lambda q: q.se.deadline):
            notes = ["expired"] if p.se.deadline < jiffies else []
            if p.pinned_cpu is not None:
                notes.append(f"cpu {p.pinned_cpu} only")
            rows.append(RunqueueEntry(p.tid, "queued", "deadline", p.se.deadline, ", ".join(notes)))
        return RunqueueView(cpu, tuple(rows), clock_name="jiffies", clock=jiffies)

    # ---- helpers ----------------------------------------------------------------------------------

    def _curr_deadline(self, cpu: int) -> int:
        p = self._curr[cpu]
        return -1 if p is None else int(p.se.deadline)

    def _time_slice_expired(self, task: Task, now_ns: int) -> None:
        # BFS time_slice_expired(): a fresh slice and a new deadline = jiffies + prio_deadline_diff.
        se: BfsEntity = task.se
        se.time_slice_us = self.timeslice_us()
        se.deadline = self.jiffies(now_ns) + self.prio_deadline_diff(task.nice)

    def _check_deadline(self, task: Task, now_ns: int) -> None:
        # BFS check_deadline(): "Is the time slice expired?" (time_slice <= 0, e.g. zeroed by a yield).
        if task.se.time_slice_us <= 0:
            self._time_slice_expired(task, now_ns)
