"""What a step ran, in words, from the trace records it added; and when a record's event happened.

Pure functions of typed records (``model.snapshot``): the policy's own words for a yield landing are
passed in (its registry entry's ``describe_landing``), so nothing here knows a policy.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from gui.draw.formats import format_duration
from model.snapshot import (
    CommandRecord,
    IrqRecord,
    SwitchRecord,
    TenureRecord,
    TraceRecord,
    WakeRecord,
    YieldOutcome,
    YieldRecord,
)
from model.stops import steps_at

MAX_PHRASES = 3
EXIT_WORDS = {
    "quota": "its packet quota was used up",
    "need_resched": "need_resched was set",
    "jiffy": "a new jiffy began",
    "empty": "the qdisc was empty",
    "tx_busy": "the device was busy",
}


def happened_ns(record: TraceRecord) -> int:
    """When the event behind ``record`` ran: a dequeuer tenure and a stretch of an open interrupt
    context are recorded where they end."""
    if isinstance(record, TenureRecord):
        return record.t_ns + record.dur_ns
    if isinstance(record, IrqRecord) and record.open_context:
        return record.t_ns + record.dur_ns
    return record.t_ns


def latest_event_ns(records: Sequence[TraceRecord], now_ns: int) -> int | None:
    """The time of the latest event (a record a Step stops at) in ``records`` that had happened by
    ``now_ns``."""
    times = [happened_ns(r) for r in records if steps_at(r)]
    past = [t for t in times if t <= now_ns]
    return max(past) if past else None


def phrase(record: TraceRecord, names: Mapping[int, str], landing: Callable[[YieldOutcome], str]) -> str:
    def name(tid: int) -> str:
        return "idle" if tid == 0 else names.get(tid, f"task {tid}")

    if isinstance(record, SwitchRecord):
        return f"CPU {record.cpu} switched from {name(record.prev_tid)} to {name(record.tid)}"
    if isinstance(record, WakeRecord):
        return f"{name(record.tid)} woke up on CPU {record.cpu}"
    if isinstance(record, IrqRecord) and record.open_context:
        kind = "hardirq" if record.hardirq_ns else "softirq"
        return f"CPU {record.cpu} ran {format_duration(record.dur_ns)} in {kind}"
    if isinstance(record, IrqRecord):
        return (
            f"an interrupt on CPU {record.cpu} ({format_duration(record.hardirq_ns)} hardirq, "
            f"{format_duration(record.softirq_ns)} softirq)"
        )
    if isinstance(record, YieldRecord):
        kept = "and kept the CPU" if not record.switched else "and gave the CPU up"
        return f"{name(record.tid)} called sched_yield(): {landing(record.outcome)}, {kept}"
    if isinstance(record, TenureRecord):
        why = EXIT_WORDS.get(record.exit_reason, record.exit_reason)
        return f"CPU {record.cpu} stopped dequeuing after {record.packets} packets: {why}"
    if isinstance(record, CommandRecord):
        return f"{record.key} set to {record.value}"
    return type(record).__name__


def describe_step(
    records: Sequence[TraceRecord],
    t_ns: int,
    names: Mapping[int, str],
    landing: Callable[[YieldOutcome], str],
) -> str:
    """ "Step: at t = 12.3 ms, CPU 0 switched from iperf-reporter to iperf-data; …"."""
    shown = [r for r in records if steps_at(r)]
    if not shown:
        return f"Step: nothing happened up to t = {format_duration(t_ns)}"
    words = [phrase(r, names, landing) for r in shown[:MAX_PHRASES]]
    more = len(shown) - MAX_PHRASES
    tail = f"; and {more} more" if more > 0 else ""
    return f"Step: at t = {format_duration(happened_ns(shown[0]))}, " + "; ".join(words) + tail
