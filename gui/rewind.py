"""Going back in a run (Back one event, Back one second, the timeline scrubber) by replay from checkpoints.

The model is deterministic: the same scenario and seed, with the same live settings applied at the same
simulated instants, give the same run, and ``advance(a); advance(b)`` is ``advance(a + b)``. So any instant of
a recording (its live settings, ``Command``s, in time order) can be rebuilt by replaying from an earlier state
of the same run. The checkpoints ("rungs") are the run's state parked (``Simulation.checkpoint``: one
compressed blob, which the garbage collector need not walk, with the recent trace and the graphs' recent
rows) at multiples of a spacing: whenever a run of the recording (the live run, or a replay) passes a rung
instant that has no rung, it parks itself there, so a rung costs one pickling and no replay of its own. To
land at T, the live run itself, when it is not past T, or else a run made of the rung nearest at or before T
(``Simulation.resume``; a fresh Simulation below the first rung) is replayed forward to T and becomes the
live run; the rung stays, for the next landing.

``work(budget_s)`` fills the rungs a finer spacing leaves missing, within a wall-time budget that the
playback grants between frames (no threads): one replay from the rung below the lowest hole parks every
missing rung on its way. The spacing follows the measured speed of the model so that a landing replays at
most ``LANDING_BUDGET_S`` of wall time, a third of the 0.3 s a landing may take (the resume, the unpacked
trace, the snapshot, and a stretch that runs slower than the speed measured take the rest): the 2011 story
gets a rung every 15.6 to 31 ms (it runs about 0.15 simulated s per wall s compiled), the 2007 story every
second or two. The rungs hold at most ``RUNG_BUDGET_BYTES`` (a rung's size is its blob's: the state
pickled, its recent trace and graph rows), ``MAX_RUNGS`` at most, and no more than a recording of
``DENSE_REACH_NS`` needs (``LONG_RUNGS`` at least): a longer recording doubles the spacing, which keeps
every other rung, so memory stays flat. A new live setting after a landing starts a new branch: the
recorded settings after that instant, and the rungs past it, go. A run whose state cannot be parked
(``ForkError``) keeps no rungs and lands by replay from the start: slower, never wrong.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from model.fork import ForkError, Parked
from model.simulation import SetTunable, Simulation
from model.snapshot import Snapshot
from model.stops import StopRule

LANDING_BUDGET_S = 0.1  # wall time a landing may spend replaying from its rung
SPACING_BASE_NS = 7_812_500  # rung spacings are this (1/128 s) times a power of two
MAX_SPACING_NS = SPACING_BASE_NS << 14  # about two minutes
INITIAL_SPACING_NS = SPACING_BASE_NS << 7  # 1 s, until the model's speed is measured
# The rungs' memory: a rung of the 2011 story is about 30 KB, one of the 2007 story about 20 KB (most of
# it the packed trace); 64 MB give any story a rung as often as its landings need over a 10 s recording.
RUNG_BUDGET_BYTES = 64_000_000
MAX_RUNGS = 1024  # whatever their size: the ladder's bookkeeping is linear in its length
# At least this many rungs over the recording, down to a rung every ``DENSE_SPACING_NS``: the measured speed
# is a guess (a live setting can slow a story several times), and a copy costs a few ms.
MIN_RUNGS = 32
DENSE_SPACING_NS = SPACING_BASE_NS << 5  # 250 ms
# A long recording keeps as many rungs as one of ``DENSE_REACH_NS`` needs at the measured speed (every
# landing within budget: the slow 2011 story, up to MAX_RUNGS), and at least ``LONG_RUNGS``: so the ladder of
# a fast story (the 2007 story replays at 100 times real time and more) stops growing after some minutes,
# where a landing still replays a fraction of a second, and memory stays flat over a lesson.
DENSE_REACH_NS = 20 * 10**9
LONG_RUNGS = 128
CHUNK_MIN_NS = 100_000  # a budgeted replay advances at least this much per step
# Trace records a rung keeps: the recent past a landing hands the window (its lanes show 8 windows at
# most; 4096 records are 0.5 s of the 2011 story, 2 to 4 s of the others), the rest of a rung's size.
RUNG_EVENTS = 4096
# Series rows a rung keeps (a copy, so that the ladder pins none of the arrays the live series lets go): the
# graphs show at most 200 sampling intervals of the speed they are drawn at (gui.draw.series), plus the 10
# of their moving mean; older rows come back as the run plays on. 256 rows are 4-15 KB in a rung.
RUNG_ROWS = 256


@dataclass(frozen=True, slots=True)
class Command:
    """A live setting as it was applied: at ``t_ns``, after every event due by then."""

    t_ns: int
    key: str
    value: int | str


@dataclass(slots=True)
class Instance:
    """A Simulation of the recording and how many of its commands it has applied."""

    sim: Simulation
    applied: int = 0

    @property
    def t_ns(self) -> int:
        return self.sim.now_ns


@dataclass(frozen=True, slots=True)
class Rung:
    """A checkpoint: an instance of the recording parked at ``t_ns``, never run itself."""

    t_ns: int
    applied: int
    parked: Parked

    @property
    def size(self) -> int:
        return self.parked.size

    def resume(self) -> Instance:
        """A run of the recording from here, independent of the rung and of every other run of it."""
        return Instance(Simulation.resume(self.parked), self.applied)


def spacing_for(rate_ns_per_s: float, reach_ns: int, max_rungs: int = MAX_RUNGS) -> int:
    """The rung spacing: a landing replays at most ``LANDING_BUDGET_S`` at ``rate_ns_per_s`` of simulated
    time per wall second, with fewer than ``max_rungs`` rungs over ``reach_ns``."""
    spacing = SPACING_BASE_NS
    while spacing < MAX_SPACING_NS and spacing * 2 <= rate_ns_per_s * LANDING_BUDGET_S:
        spacing *= 2
    while spacing > DENSE_SPACING_NS and reach_ns // spacing < MIN_RUNGS:
        spacing //= 2
    while spacing < MAX_SPACING_NS and reach_ns // spacing >= max_rungs:
        spacing *= 2
    return spacing


class Rewinder:
    """The recording of one run (its commands and how far it reached) and its rungs."""

    def __init__(
        self,
        build: Callable[[], Simulation],
        clock: Callable[[], float] = time.perf_counter,
        spacing_ns: int | None = None,
    ) -> None:
        """``spacing_ns`` fixes the rung spacing; by default it follows the measured speed."""
        self._build = build
        self._clock = clock
        self._fixed_spacing = spacing_ns
        self.commands: list[Command] = []
        self.reach_ns = 0
        self.rate_ns_per_s: float | None = None  # replay speed, measured
        self.spacing_ns = spacing_ns or INITIAL_SPACING_NS
        self.rungs: dict[int, Rung] = {}  # by time
        self.copies = 0  # rungs parked and runs resumed from them, for the benchmarks
        self.copy_s = 0.0  # wall time those took
        self._refill: tuple[int, Instance] | None = None  # (the highest missing rung, the replay on its way)
        # Why this run's state cannot be parked (``ForkError``, e.g. a plug-in policy holding a lambda):
        # then the ladder stays empty and every landing replays from the start, slower but the same run.
        self.unparkable: str | None = None

    def fresh(self) -> Instance:
        """A new run at t = 0 with its events there run, as at any instant an instance stands at: a
        setting applied before them would come before them live but after them in a replay."""
        inst = Instance(self._build())
        inst.sim.run_to(0)
        return inst

    def _park(self, inst: Instance) -> Rung:
        """``inst`` now, as a rung (its recent trace packed)."""
        start = self._clock()
        rung = Rung(inst.t_ns, inst.applied, inst.sim.checkpoint(RUNG_EVENTS, RUNG_ROWS))
        self._count_copy(start)
        return rung

    def _resume(self, rung: Rung) -> Instance:
        start = self._clock()
        inst = rung.resume()
        self._count_copy(start)
        return inst

    def _count_copy(self, start: float) -> None:
        self.copies += 1
        self.copy_s += self._clock() - start

    @property
    def rung_bytes(self) -> int:
        """The memory the rungs hold: their blobs' bytes."""
        return sum(r.size for r in self.rungs.values())

    def max_rungs(self) -> int:
        """How many rungs the ladder may hold: what a recording of ``DENSE_REACH_NS`` needs at the measured
        speed (at least ``LONG_RUNGS``), as many as fit ``RUNG_BUDGET_BYTES`` at the mean size of those
        parked so far."""
        cap = MAX_RUNGS
        if self.rate_ns_per_s is not None:
            dense = DENSE_REACH_NS // spacing_for(self.rate_ns_per_s, DENSE_REACH_NS) + 1  # its last too
            cap = min(cap, max(LONG_RUNGS, dense))
        if not self.rungs:
            return cap
        mean = max(self.rung_bytes // len(self.rungs), 1)
        return max(2 * MIN_RUNGS, min(cap, RUNG_BUDGET_BYTES // mean))

    # ---- the recording --------------------------------------------------------------------------

    def record(self, live: Instance, key: str, value: int | str) -> None:
        """``live`` just applied a live setting at its current instant: the recording takes it, and drops
        what it had recorded after that instant (a new branch): its later commands, and its rungs even
        where no command came after (they hold the old branch's state, without this setting)."""
        t = live.t_ns
        if live.applied < len(self.commands) or self.reach_ns > t:
            del self.commands[live.applied :]
            self.reach_ns = t
            self._drop_after(t, live.applied)
        self.commands.append(Command(t, key, value))
        live.applied = len(self.commands)

    def _drop_after(self, t_ns: int, applied: int) -> None:
        self.rungs = {t: r for t, r in self.rungs.items() if r.t_ns <= t_ns and r.applied <= applied}
        if self._refill is not None and (self._refill[0] > t_ns or self._refill[1].applied > applied):
            self._refill = None

    def reached(self, t_ns: int) -> None:
        """The live run got to ``t_ns``: the scrubber reaches that far, and rungs up to it are due."""
        if t_ns > self.reach_ns:
            self.reach_ns = t_ns
            self._respace()

    # ---- running an instance through the recording ----------------------------------------------

    def _next_command(self, inst: Instance, to_ns: int) -> Command | None:
        if inst.applied < len(self.commands) and self.commands[inst.applied].t_ns <= to_ns:
            return self.commands[inst.applied]
        return None

    def _apply_due(self, inst: Instance) -> None:
        """Apply the recorded commands due at the instance's instant (after its events there)."""
        while (cmd := self._next_command(inst, inst.t_ns)) is not None:
            inst.sim.apply(SetTunable(cmd.key, cmd.value))
            inst.applied += 1

    def replay(self, inst: Instance, to_ns: int, deadline: float | None = None) -> bool:
        """Run ``inst`` to ``to_ns`` (every event due by then) through the recorded commands, parking a
        rung wherever one is missing; with a wall-clock ``deadline``, in steps, stopping once it passes
        (False: not there yet). No snapshot is built and nothing is drained."""
        while True:
            cmd = self._next_command(inst, to_ns)
            stop = cmd.t_ns if cmd is not None else to_ns
            if deadline is not None:
                left = deadline - self._clock()
                if left <= 0:
                    return False
                rate = self.rate_ns_per_s or 1e8
                stop = min(stop, inst.t_ns + max(CHUNK_MIN_NS, int(rate * left * 0.8)))
            self._run(inst, stop)
            self._apply_due(inst)
            if inst.t_ns >= to_ns and self._next_command(inst, to_ns) is None:
                return True

    def _run(self, inst: Instance, t_ns: int, rule: StopRule | None = None) -> bool:
        """Run ``inst`` to ``t_ns`` (or until ``rule`` hits: True), parking a copy at every rung instant on
        the way that has none."""
        spacing = self.spacing_ns
        while True:
            rung = (inst.t_ns // spacing + 1) * spacing
            while rung <= t_ns and rung in self.rungs:
                rung += spacing
            stop = min(rung, t_ns)
            if self._timed_run(inst, stop, rule):
                return True
            spacing = self.spacing_ns  # the run may have changed the measured speed, and the ladder
            if stop == rung and rung % spacing == 0 and rung not in self.rungs and self.unparkable is None:
                try:
                    self.rungs[rung] = self._park(inst)
                except ForkError as exc:
                    self.unparkable = str(exc)
                    self._refill = None
                else:
                    self._respace()  # the rungs' measured size bounds how many there may be
            if stop == t_ns:
                return False

    def _timed_run(self, inst: Instance, t_ns: int, rule: StopRule | None = None) -> bool:
        start, dt = self._clock(), t_ns - inst.t_ns
        hit = inst.sim.run_to(t_ns, rule)
        took = self._clock() - start
        if not hit and dt >= 1_000_000 and took > 1e-4:
            rate = dt / took
            old = self.rate_ns_per_s
            # Slower is believed at once, faster only gradually: a landing must not overrun.
            self.rate_ns_per_s = rate if old is None or rate < old else old + (rate - old) * 0.2
            self._respace()
        return hit

    def advance(self, inst: Instance, dt_ns: int, rule: StopRule | None = None) -> tuple[Snapshot, bool]:
        """The live run's frame: ``dt_ns`` further through the recording (its recorded settings applied
        on the way, rungs parked on the way), stopping early where ``rule`` hits. Returns the snapshot and
        whether it hit."""
        end = inst.t_ns + dt_ns
        while True:
            cmd = self._next_command(inst, end)
            hit = self._run(inst, end if cmd is None else cmd.t_ns, rule)
            self._apply_due(inst)
            if hit or cmd is None:
                break
        self.reached(inst.t_ns)
        return inst.sim.advance(0), hit

    # ---- landing --------------------------------------------------------------------------------

    def land(self, target_ns: int, live: Instance) -> Instance:
        """An instance at ``target_ns`` (clamped to the recording), to be the live run: the live run
        itself when it is not past it, or a run of the nearest rung at or before it, replayed forward
        (then ``live`` is done with: its trace is released)."""
        target = max(0, min(target_ns, self.reach_ns))
        below = [t for t in self.rungs if t <= target]
        rung = max(below, default=-1)
        if live.t_ns <= target and live.t_ns >= rung:
            chosen = live
        elif rung >= 0:
            chosen = self._resume(self.rungs[rung])
        else:
            chosen = self.fresh()
        if chosen is not live:
            live.sim.release()  # the caller's live run is replaced: its trace goes at once
        self.replay(chosen, target)
        chosen.sim.rehand_events()  # the window forgets its history at a landing: this is its recent past
        return chosen

    # ---- the rungs ------------------------------------------------------------------------------

    def _respace(self) -> None:
        if self.rate_ns_per_s is None or self._fixed_spacing:
            return
        spacing = spacing_for(self.rate_ns_per_s, self.reach_ns, self.max_rungs())
        if spacing != self.spacing_ns:
            self.spacing_ns = spacing
            self._refill = None
            self.rungs = {t: r for t, r in self.rungs.items() if t % spacing == 0}

    def due(self) -> list[int]:
        """Rung times of the recording so far that have no rung yet, lowest first (t = 0 needs none: a
        fresh Simulation is there)."""
        if self.unparkable is not None:
            return []
        top = self.reach_ns // self.spacing_ns
        return [k * self.spacing_ns for k in range(1, top + 1) if k * self.spacing_ns not in self.rungs]

    def pending(self) -> bool:
        return self._refill is not None or bool(self.due())

    def work(self, budget_s: float) -> bool:
        """Fill missing rungs for up to ``budget_s`` of wall time; True while some are still missing."""
        deadline = self._clock() + budget_s
        while self._clock() < deadline:
            if self._refill is None:
                due = self.due()
                if not due:
                    return False
                below = [t for t in self.rungs if t < due[0]]
                source = self._resume(self.rungs[max(below)]) if below else self.fresh()
                self._refill = (due[-1], source)
            top, inst = self._refill
            if not self.replay(inst, top, deadline):
                return True
            inst.sim.release()
            self._refill = None
        return self.pending()
