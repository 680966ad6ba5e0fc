"""Stop rules: run the model until something happens (the next thing a class can see, a yield landing,
the dequeuer role changing hands), for the window's Step and for the lessons' "run until" steps.

``run_until_stop`` dispatches the machine one instant at a time (every event due at that instant, so
each stop is a clean point of the run: ``advance`` to the same time gives the same state) and asks the
rule after each instant, with the trace records that instant added. The rule is an object so that it
may remember what it saw across calls: a window runs one rule over many frames, and a frame boundary
is no different from any other instant. A stop is never later than an ``advance`` to the end would
go; the machine's closed forms (inline spins) still apply between instants.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from model.machine import Machine
from model.snapshot import CommandRecord, IrqRecord, TenureRecord, TraceRecord, YieldRecord


class StopContext(Protocol):
    """What a rule may ask of the run besides its trace records (``Simulation`` provides it)."""

    def dequeuer_cpu(self) -> int: ...


class StopRule(Protocol):
    def begin(self, ctx: StopContext) -> None:
        """The rule starts now (it may note the state it waits to see change)."""

    def hit(self, records: Sequence[TraceRecord], ctx: StopContext) -> bool:
        """After one instant: stop here? ``records`` are the ones that instant added."""


def steps_at(record: TraceRecord) -> bool:
    """Whether a Step stops at ``record``: at every record but a live setting's and a stretch of an open
    interrupt context (the 2011 transmit path's softirqs and NAPI interrupts, dozens a millisecond: a
    Step would seldom reach the story's own events, the dequeuer's turns)."""
    if isinstance(record, IrqRecord):
        return not record.open_context
    return not isinstance(record, CommandRecord)


class NextRecord:
    """The next thing that happens: a record ``steps_at`` (Step)."""

    def begin(self, ctx: StopContext) -> None:
        pass

    def hit(self, records: Sequence[TraceRecord], ctx: StopContext) -> bool:
        return any(steps_at(r) for r in records)


class YieldLands:
    """A ``sched_yield()`` whose outcome the policy recorded: any task's (``tid`` 0) or one task's;
    with ``moved``, only a yield that moved the task (not a no-op)."""

    def __init__(self, tid: int = 0, moved: bool = False) -> None:
        self.tid = tid
        self.moved = moved

    def begin(self, ctx: StopContext) -> None:
        pass

    def hit(self, records: Sequence[TraceRecord], ctx: StopContext) -> bool:
        return any(
            isinstance(r, YieldRecord)
            and (self.tid == 0 or r.tid == self.tid)
            and not (self.moved and r.outcome.noop)
            for r in records
        )


class DequeuerChanges:
    """The qdisc's dequeuer role (the RUNNING bit) passes from one CPU to another."""

    def __init__(self) -> None:
        self.holder = -1
        self.ended = False  # a tenure ended since the role was last seen held

    def begin(self, ctx: StopContext) -> None:
        self.holder = ctx.dequeuer_cpu()
        self.ended = False

    def hit(self, records: Sequence[TraceRecord], ctx: StopContext) -> bool:
        if any(isinstance(r, TenureRecord) for r in records):
            self.ended = True
        if not self.ended and self.holder >= 0:
            return False  # the role changes hands only after a tenure ends
        now = ctx.dequeuer_cpu()
        if now < 0:
            return False  # qdisc_run_end() cleared RUNNING; the next qdisc_run_begin() may be later
        changed = self.holder >= 0 and now != self.holder
        self.holder, self.ended = now, False
        return changed


def run_until_stop(machine: Machine, end_ns: int, rule: StopRule, ctx: StopContext) -> bool:
    """Run instant by instant up to ``end_ns`` until ``rule`` hits; True if it did (the clock then
    stands at that instant), False if the run reached ``end_ns`` first."""
    q, trace = machine.q, machine.trace
    while True:
        t = q.next_time()
        if t is None or t > end_ns:
            machine.run_until(end_ns)
            return False
        mark = trace.appended
        machine.run_until(t)
        added = trace.appended - mark
        records = trace.records[-added:] if added else []
        if rule.hit(records, ctx):
            return True
