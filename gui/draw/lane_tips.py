"""What the CPU lanes say under the pointer, in words with exact times (no Qt): a lane's head (its CPU's
state, the task it runs, its badges and switch count), and on a strip a yield, an interrupt or a
task's stretch on the CPU. The panel finds the lane and the instant; these functions find the words."""

from __future__ import annotations

from collections.abc import Mapping

from gui.draw.formats import exact_duration, exact_time, format_duration
from gui.draw.lane_history import LaneHistory
from gui.draw.step_words import EXIT_WORDS
from model.net.txconfig import EXIT_REASONS
from model.snapshot import CpuView


def describe_head(i: int, cpu: CpuView | None, names: Mapping[int, str], dequeuer: bool) -> str:
    """Lane ``i``'s head: its CPU's state and task, need_resched, the dequeuer role, its switches."""
    if cpu is None:
        return f"CPU {i}"
    task = names.get(cpu.curr_tid, f"task {cpu.curr_tid}") if cpu.curr_tid else "nothing"
    parts = [f"CPU {i}: {cpu.state}, running {task}"]
    if cpu.need_resched:
        parts.append("need_resched is set: it reschedules at the next chance")
    if dequeuer:
        parts.append("it holds the qdisc's dequeuer role")
    parts.append(f"{cpu.switches} context switches so far")
    return "; ".join(parts)


def describe_tenure(i: int, lane: LaneHistory, t: float, now_ns: int) -> str:
    """The dequeuer tenure of CPU ``i`` at ``t``: when, how long, how many packets, why it stopped."""
    if lane.open_tenure is not None and lane.open_tenure <= t <= now_ns:
        since, held = lane.open_tenure, format_duration(now_ns - lane.open_tenure)
        return f"CPU {i} holds the dequeuer role since t = {exact_time(since)} ({held})"
    later = lane.tenures.ending_after(t)  # time-ordered, none overlapping: only the first may hold t
    if not len(later) or later[0, 0] > t:
        return ""
    start, end, packets, reason = later[0].tolist()
    why = EXIT_WORDS.get(EXIT_REASONS[reason], EXIT_REASONS[reason])
    return (
        f"CPU {i} held the dequeuer role from t = {exact_time(start)} for "
        f"{format_duration(end - start)}: {packets} packets, then {why}"
    )


def describe_strip(
    i: int,
    lane: LaneHistory,
    t: float,
    *,
    px_ns: float,
    now_ns: int,
    quantum_ns: int,
    names: Mapping[int, str],
) -> str:
    """What lane ``i`` shows at instant ``t`` (``px_ns`` ns to a pixel, run time ``now_ns``): a yield
    within three pixels, else the interrupt, else the task's stretch there; "" where nothing is. A
    stretch shorter than three merge quanta (``quantum_ns``) may hold shorter ones merged into it."""
    for yt, switched in lane.yields:
        if abs(yt - t) <= 3 * px_ns:
            kept = "gave the CPU up" if switched else "kept the CPU"
            return f"sched_yield() on CPU {i} at t = {exact_time(yt)}: it {kept}"
    later = lane.irqs.ending_after(t)  # time-ordered, none overlapping: only the first may hold t
    if len(later) and later[0, 0] <= t:
        start, hard_end, irq_end = later[0].tolist()
        hard, soft = hard_end - start, irq_end - hard_end
        if hard == 0:  # a softirq alone (the 2011 transmit path's NET_TX, run from a task's CPU)
            return f"softirq on CPU {i} from t = {exact_time(start)}:\n{exact_duration(soft)}"
        return (
            f"interrupt on CPU {i} at t = {exact_time(start)}:\n"
            f"hardirq {exact_duration(hard)}, softirq {exact_duration(soft)}"
        )
    for start, stop, code in lane.task_segments(now_ns):
        if start <= t < stop:
            who = names.get(code, f"task {code}") if code > 0 else "idle"
            merged = " (shorter stretches merged)" if stop - start < 3 * quantum_ns else ""
            until = "now" if stop == now_ns else f"t = {exact_time(stop)}"
            span = f"from t = {exact_time(start)} to {until},\n{exact_duration(stop - start)}"
            return f"{who} on CPU {i}: {span}{merged}"
    return ""
