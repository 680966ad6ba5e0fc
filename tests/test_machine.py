"""The machine with a round-robin yardstick policy: golden schedules, spins, sleeps, interrupts."""

from __future__ import annotations

from fakes import RoundRobinPolicy

from model.actions import Compute, Nanosleep, SchedYield, Spin, Watchable
from model.machine import Machine
from model.snapshot import SwitchRecord
from model.task import Task

MS = 1_000_000


def hog(task: Task):  # type: ignore[no-untyped-def]
    while True:
        yield Compute(50 * MS)


def switches(m: Machine) -> list[tuple[int, int, int]]:
    return [(r.t_ns, r.prev_tid, r.tid) for r in m.trace.records if isinstance(r, SwitchRecord)]


def test_two_hogs_alternate_every_slice() -> None:
    # HZ=1000, 2-tick slices: the hogs alternate every 2 ms, starting with the first spawned.
    m = Machine(1, 1000, RoundRobinPolicy(1, 1000, slice_ticks=2), trace="full")
    m.spawn("a", hog)
    m.spawn("b", hog)
    m.run_until(7 * MS)
    assert switches(m) == [(0, 0, 1), (2 * MS, 1, 2), (4 * MS, 2, 1), (6 * MS, 1, 2)]
    a, b = m.tasks
    assert (a.exec_ns, b.exec_ns) == (4 * MS, 3 * MS)
    assert (a.nivcsw, b.nivcsw) == (2, 1)


def test_context_switch_cost_is_charged_to_the_incoming_task() -> None:
    m = Machine(1, 1000, RoundRobinPolicy(1, 1000, slice_ticks=1), context_switch_ns=100_000)
    m.spawn("a", hog)
    m.spawn("b", hog)
    m.run_until(2_500_000)
    a, b = m.tasks
    assert a.exec_ns + b.exec_ns == 2_500_000  # the CPU never idled; switches cost task time
    assert m.cpus[0].switches == 3  # idle->a, a->b, b->a


def test_spin_alone_costs_no_events_and_counts_yields() -> None:
    # A lone yield-spinner: the policy says every yield is a no-op, so the spin is one segment.
    flag = Watchable()
    state = {"go": False}

    def spinner(task: Task):  # type: ignore[no-untyped-def]
        yield Spin(lambda: state["go"], flag, iter_ns=1_000)
        yield Compute(1 * MS)

    m = Machine(1, 100, RoundRobinPolicy(1, 100), syscall_ns=1_000)
    m.watch(flag)
    m.spawn("spin", spinner)
    m.run_until(1_000 * MS)
    events_spinning = m.q.dispatched
    assert events_spinning < 250  # ticks only (HZ=100), not 500 000 yields
    t = m.tasks[0]
    assert abs(t.yields - 500_000) <= 2  # one yield per 2 µs iteration
    state["go"] = True
    flag.changed()
    m.run_until(1_010 * MS)
    assert t.spin is None and t.exec_ns >= 1_001 * MS


def test_spin_with_competition_yields_to_the_other_task() -> None:
    flag = Watchable()

    def spinner(task: Task):  # type: ignore[no-untyped-def]
        yield Spin(lambda: False, flag, iter_ns=1_000)

    m = Machine(1, 1000, RoundRobinPolicy(1, 1000, slice_ticks=5), syscall_ns=1_000)
    m.watch(flag)
    m.spawn("spin", spinner)
    m.spawn("hog", hog)
    m.run_until(100 * MS)
    _spin, h = m.tasks
    assert h.exec_ns > 0.9 * 100 * MS  # round robin: every yield hands the CPU over


def _sleeps(hrtimers: bool) -> tuple[list[int], Task]:
    woke: list[int] = []

    def sleeper(task: Task):  # type: ignore[no-untyped-def]
        yield Compute(300_000)
        yield Nanosleep(0)  # usleep(0)
        woke.append(m.now_ns)
        yield Nanosleep(2_500_000)
        woke.append(m.now_ns)
        yield Nanosleep(700_000)  # ends exactly on a tick boundary
        woke.append(m.now_ns)

    m = Machine(1, 1000, RoundRobinPolicy(1, 1000), hrtimers=hrtimers)
    task = m.spawn("s", sleeper)
    m.run_until(10 * MS)
    return woke, task


def test_without_high_resolution_timers_sleeps_end_on_a_tick() -> None:
    woke, task = _sleeps(hrtimers=False)
    # usleep(0) waits for the next tick; later sleeps end at the first tick at or after now + ns.
    assert woke == [1 * MS, 4 * MS, 5 * MS]
    assert task.nvcsw == 3 + 1  # every sleep went through schedule(), and so did the exit


def test_with_high_resolution_timers_sleeps_end_when_due_and_usleep0_returns_at_once() -> None:
    woke, task = _sleeps(hrtimers=True)
    # 2.6.22 hrtimer_start(): the 0 ns sleeper is expired on arrival, its callback clears t->task,
    # and do_nanosleep() skips schedule(): no context switch, no time passes.
    assert woke == [300_000, 2_800_000, 3_500_000]
    assert task.nvcsw == 2 + 1  # the two real sleeps and the exit


def test_interrupt_freezes_the_running_task_and_accounts_irq_time() -> None:
    m = Machine(1, 1000, RoundRobinPolicy(1, 1000))
    done: list[int] = []

    def worker(task: Task):  # type: ignore[no-untyped-def]
        yield Compute(1 * MS)
        done.append(m.now_ns)

    m.spawn("w", worker)
    m.run_until(200_000)
    m.raise_irq(0, 30_000, 20_000, lambda _arg: None, None)
    m.run_until(5 * MS)
    assert done == [1 * MS + 50_000]
    cpu = m.cpus[0]
    assert (cpu.hardirq_ns, cpu.softirq_ns, cpu.task_ns) == (30_000, 20_000, 1 * MS)


def test_explicit_yield_counts() -> None:
    def yielder(task: Task):  # type: ignore[no-untyped-def]
        for _ in range(10):
            yield Compute(10_000)
            yield SchedYield()

    m = Machine(1, 1000, RoundRobinPolicy(1, 1000))
    m.spawn("y", yielder)
    m.run_until(10 * MS)
    assert m.tasks[0].yields == 10


def test_a_global_run_queue_keeps_every_cpu_busy() -> None:
    # BFS has one queue for all CPUs: idle CPUs must take work from it, not wait for a kick.
    from model.sched import make_policy

    m = Machine(4, 250, make_policy("bfs", 4, 250))
    for i in range(8):
        m.spawn(f"hog{i}", hog)
    m.run_until(200 * MS)
    assert all(cpu.task_ns > 0.99 * 200 * MS for cpu in m.cpus)


def cpu_books(m: Machine, cpu_index: int = 0) -> tuple[int, int, int, int]:
    """(task, hardirq, softirq, idle) of one CPU up to now."""
    cpu = m.cpus[cpu_index]
    hard, soft = m.irq_ns(cpu)
    return cpu.task_ns, hard, soft, m.idle_ns(cpu)


def test_queued_interrupts_are_charged_in_order_and_never_negative() -> None:
    # A second interrupt raised during the first runs after it: each part counts only once it is past.
    m = Machine(1, 1000, RoundRobinPolicy(1, 1000))
    m.spawn("w", hog)
    m.run_until(100_000)
    m.raise_irq(0, 10_000, 40_000, lambda _arg: None, None)
    m.raise_irq(0, 5_000, 1_000, lambda _arg: None, None)
    seen = []
    for t in (100_000, 105_000, 130_000, 150_000, 153_000, 156_000, 200_000):
        m.run_until(t)
        seen.append(cpu_books(m)[1:3])
    assert seen == [(0, 0), (5_000, 0), (10_000, 20_000), (10_000, 40_000), (13_000, 40_000),
                    (15_000, 41_000), (15_000, 41_000)]  # fmt: skip
    assert sum(cpu_books(m)) == 200_000


def test_an_idle_cpu_counts_idle_time_and_interrupts_on_it() -> None:
    m = Machine(2, 1000, RoundRobinPolicy(2, 1000))

    def short(task: Task):  # type: ignore[no-untyped-def]
        yield Compute(1 * MS)

    m.spawn("w", short, cpu=0)
    m.run_until(2 * MS)
    m.raise_irq(1, 20_000, 30_000, lambda _arg: None, None)
    m.run_until(3 * MS)
    assert cpu_books(m, 0) == (1 * MS, 0, 0, 2 * MS)
    assert cpu_books(m, 1) == (0, 20_000, 30_000, 3 * MS - 50_000)


def test_open_interrupt_contexts_nest_freeze_the_task_and_keep_the_books() -> None:
    from model.machine import IRQ_HARD, IRQ_SOFT

    m = Machine(1, 1000, RoundRobinPolicy(1, 1000))
    done: list[int] = []

    def worker(task: Task):  # type: ignore[no-untyped-def]
        yield Compute(1 * MS)
        done.append(m.now_ns)

    m.spawn("w", worker)
    m.run_until(100_000)
    m.irq_enter(0, IRQ_SOFT)
    m.run_until(130_000)
    m.irq_enter(0, IRQ_HARD)
    m.run_until(135_000)
    assert cpu_books(m) == (100_000, 5_000, 30_000, 0)
    m.irq_exit(0)
    m.run_until(150_000)
    m.irq_exit(0)
    m.run_until(5 * MS)
    assert done == [1 * MS + 50_000]
    assert cpu_books(m) == (1 * MS, 5_000, 45_000, 5 * MS - 1 * MS - 50_000)


def test_a_driven_task_is_not_preempted_where_it_says_so_and_can_sleep() -> None:
    from model.actions import Driven

    m = Machine(1, 1000, RoundRobinPolicy(1, 1000, slice_ticks=1))
    calls: list[tuple[str, int]] = []
    state = {"preemptible": False}

    def driven(task: Task):  # type: ignore[no-untyped-def]
        yield Driven(
            lambda cpu: calls.append(("attach", m.now_ns)),
            lambda cpu: calls.append(("detach", m.now_ns)),
            preemptible=lambda cpu: state["preemptible"],
            resched=lambda cpu: calls.append(("resched", m.now_ns)),
        )

    m.spawn("d", driven)
    m.spawn("hog", hog)
    m.run_until(2_500_000)
    # The tick at 1 ms asks for a switch: the driver is told, keeps the CPU, and switches at its point.
    assert calls[:2] == [("attach", 0), ("resched", 1 * MS)]
    assert m.cpus[0].curr is m.tasks[0] and m.cpus[0].need_resched
    state["preemptible"] = True
    m.preempt_point(0)
    assert calls[-1] == ("detach", 2_500_000) and m.cpus[0].curr is m.tasks[1]
    m.run_until(3_500_000)  # the hog's slice ends: the driven task is back
    assert calls[-1] == ("attach", 3 * MS)
    m.block_driven(0)
    assert m.tasks[0].state.name == "SLEEPING" and m.cpus[0].curr is m.tasks[1]
    m.wake(m.tasks[0])
    assert m.tasks[0].state.name == "RUNNABLE"


def test_a_skewed_tick_preempts_each_cpu_at_its_own_offset_and_jiffies_still_move_on_the_jiffy() -> None:
    # Before 3.5, tick_setup_sched_timer() set CPU i's tick (tick_period / 2) / num_possible_cpus() * i
    # after the jiffy: 0.5 ms apart on four CPUs at HZ=250. One-tick slices make every tick a switch.
    m = Machine(4, 250, RoundRobinPolicy(4, 250, slice_ticks=1), trace="full", tick_skew=True)
    for i in range(8):
        m.spawn(f"hog{i}", hog)
    m.run_until(20 * MS)
    tick = 4 * MS
    for cpu in range(4):
        times = [
            r.t_ns for r in m.trace.records if isinstance(r, SwitchRecord) and r.cpu == cpu and r.t_ns > 0
        ]
        assert times and all(t % tick == cpu * 500_000 for t in times), (cpu, times)
    aligned = Machine(4, 250, RoundRobinPolicy(4, 250, slice_ticks=1), trace="full")
    for i in range(8):
        aligned.spawn(f"hog{i}", hog)
    aligned.run_until(20 * MS)
    later = [r.t_ns for r in aligned.trace.records if isinstance(r, SwitchRecord) and r.t_ns > 0]
    assert later and all(t % tick == 0 for t in later)
