"""Going back in a run (Back one event, Back one second, the timeline scrubber) by replay from checkpoints.

The model is deterministic: the same scenario and seed, with the same live settings applied at the
same simulated instants, give the same run, and ``advance(a); advance(b)`` is ``advance(a + b)``. So
any instant of a recording (its live settings, ``Command``s, in time order) can be rebuilt by
replaying from an earlier state of the same run. A copy of a state is not to be had: the tasks'
programs are generators, and the compiled model's classes cannot be deep-copied. The checkpoints are
therefore whole ``Simulation`` instances ("rungs") parked at multiples of a spacing. To land at T,
the instance nearest at or before T (a rung, the one being refilled, or the live run itself when it
is not past T) is replayed forward to T and becomes the live run, which consumes it: a rung is one
instance, and only a replay from an earlier one makes another. ``work(budget_s)`` refills the missing
rungs within a wall-time budget that the playback grants between frames (no threads): each from the
nearest instance below it (another rung, which moves the hole one rung down, a run the window let
go, or a fresh Simulation at t = 0, which costs nothing to build), highest rung first, so a hole
near where the class is looking closes first. The spacing follows the measured speed of the model so
that a landing replays at most ``LANDING_BUDGET_S`` of wall time (the 2007 story needs no rung after
t = 0 for a 10 s run; the 2011 story one every second or so), and at most ``MAX_RUNGS`` are kept: a
longer recording doubles the spacing, which keeps every other rung. A new live setting after a
landing starts a new branch: the recorded settings after that instant, and the rungs past it, go.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from model.simulation import SetTunable, Simulation
from model.snapshot import Snapshot
from model.stops import StopRule

LANDING_BUDGET_S = 0.15  # wall time a landing may spend replaying from its rung
SPACING_BASE_NS = 125_000_000  # rung spacings are this times a power of two
MAX_SPACING_NS = SPACING_BASE_NS << 10  # about two minutes
INITIAL_SPACING_NS = SPACING_BASE_NS << 3  # 1 s, until the model's speed is measured
MAX_RUNGS = 24
MAX_LOOSE = 2  # runs the window let go, kept to refill the rung above them
CHUNK_MIN_NS = 100_000  # a budgeted replay advances at least this much per step


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


def spacing_for(rate_ns_per_s: float, reach_ns: int) -> int:
    """The rung spacing: a landing replays at most ``LANDING_BUDGET_S`` at ``rate_ns_per_s`` of simulated
    time per wall second, with at most ``MAX_RUNGS`` rungs over ``reach_ns``."""
    spacing = SPACING_BASE_NS
    while spacing < MAX_SPACING_NS and spacing * 2 <= rate_ns_per_s * LANDING_BUDGET_S:
        spacing *= 2
    while spacing < MAX_SPACING_NS and reach_ns // spacing >= MAX_RUNGS:
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
        self.rungs: dict[int, Instance] = {}  # by time
        self.loose: list[Instance] = []
        self._refill: tuple[int, Instance] | None = None  # (rung time, the instance on its way there)

    def fresh(self) -> Instance:
        return Instance(self._build())

    # ---- the recording --------------------------------------------------------------------------

    def record(self, live: Instance, key: str, value: int | str) -> None:
        """``live`` just applied a live setting at its current instant: the recording takes it, and drops
        what it had recorded after that instant (a new branch)."""
        t = live.t_ns
        if live.applied < len(self.commands):
            del self.commands[live.applied :]
            self.reach_ns = t
            self._drop_after(t, live.applied)
        self.commands.append(Command(t, key, value))
        live.applied = len(self.commands)

    def _drop_after(self, t_ns: int, applied: int) -> None:
        def stale(inst: Instance) -> bool:
            return inst.t_ns > t_ns or inst.applied > applied

        self.rungs = {t: r for t, r in self.rungs.items() if not stale(r)}
        self.loose = [inst for inst in self.loose if not stale(inst)]
        if self._refill is not None and (self._refill[0] > t_ns or stale(self._refill[1])):
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
        """Run ``inst`` to ``to_ns`` (every event due by then) through the recorded commands; with a
        wall-clock ``deadline``, in steps, stopping once it passes (False: not there yet). No snapshot
        is built and nothing is drained."""
        while True:
            cmd = self._next_command(inst, to_ns)
            stop = cmd.t_ns if cmd is not None else to_ns
            if deadline is not None:
                left = deadline - self._clock()
                if left <= 0:
                    return False
                rate = self.rate_ns_per_s or 1e8
                stop = min(stop, inst.t_ns + max(CHUNK_MIN_NS, int(rate * left * 0.8)))
            self._timed_run(inst, stop)
            self._apply_due(inst)
            if inst.t_ns >= to_ns and self._next_command(inst, to_ns) is None:
                return True

    def _timed_run(self, inst: Instance, t_ns: int) -> None:
        start, dt = self._clock(), t_ns - inst.t_ns
        inst.sim.run_to(t_ns)
        took = self._clock() - start
        if dt >= 1_000_000 and took > 1e-4:
            rate = dt / took
            old = self.rate_ns_per_s
            # Slower is believed at once, faster only gradually: a landing must not overrun.
            self.rate_ns_per_s = rate if old is None or rate < old else old + (rate - old) * 0.2
            self._respace()

    def advance(self, inst: Instance, dt_ns: int, rule: StopRule | None = None) -> tuple[Snapshot, bool]:
        """The live run's frame: ``dt_ns`` further through the recording (its recorded settings applied
        on the way), stopping early where ``rule`` hits. Returns the snapshot and whether it hit."""
        end = inst.t_ns + dt_ns
        while True:
            cmd = self._next_command(inst, end)
            hit = inst.sim.run_to(end if cmd is None else cmd.t_ns, rule)
            self._apply_due(inst)
            if hit or cmd is None:
                break
        self.reached(inst.t_ns)
        return inst.sim.advance(0), hit

    # ---- landing --------------------------------------------------------------------------------

    def land(self, target_ns: int, live: Instance) -> Instance:
        """An instance at ``target_ns`` (clamped to the recording), to be the live run: the nearest at
        or before it, replayed forward. The live run it replaces is kept as a loose source."""
        target = max(0, min(target_ns, self.reach_ns))
        sources: list[tuple[int, int, Instance]] = [(r.t_ns, 0, r) for r in self.rungs.values()]
        sources += [(inst.t_ns, 1, inst) for inst in self.loose]
        if self._refill is not None:
            sources.append((self._refill[1].t_ns, 2, self._refill[1]))
        sources.append((live.t_ns, 3, live))  # preferred at a tie: nothing is consumed
        usable = [s for s in sources if s[0] <= target]
        if usable:
            _t, _kind, chosen = max(usable, key=lambda s: (s[0], s[1]))
        else:
            chosen = self.fresh()
        self._take(chosen)
        if chosen is not live:
            self._let_go(live)
        self.replay(chosen, target)
        return chosen

    def _take(self, inst: Instance) -> None:
        self.rungs = {t: r for t, r in self.rungs.items() if r is not inst}
        self.loose = [r for r in self.loose if r is not inst]
        if self._refill is not None and self._refill[1] is inst:
            self._refill = None

    def _let_go(self, inst: Instance) -> None:
        """A run the window no longer shows: kept, if it fits the recording, to refill a rung above it."""
        if inst.applied <= len(self.commands) and inst.t_ns <= self.reach_ns:
            self.loose = [*self.loose, inst][-MAX_LOOSE:]

    # ---- the rungs ------------------------------------------------------------------------------

    def _respace(self) -> None:
        if self.rate_ns_per_s is None or self._fixed_spacing:
            return
        spacing = spacing_for(self.rate_ns_per_s, self.reach_ns)
        if spacing != self.spacing_ns:
            self.spacing_ns = spacing
            if self._refill is not None and self._refill[0] % spacing:
                self._refill = None
            self.rungs = {t: r for t, r in self.rungs.items() if t % spacing == 0}

    def due(self) -> list[int]:
        """Rung times of the recording so far that have no instance yet, highest first."""
        top = self.reach_ns // self.spacing_ns
        return [k * self.spacing_ns for k in range(top, -1, -1) if k * self.spacing_ns not in self.rungs]

    def pending(self) -> bool:
        return self._refill is not None or bool(self.due())

    def work(self, budget_s: float) -> bool:
        """Refill rungs for up to ``budget_s`` of wall time; True while some are still missing."""
        deadline = self._clock() + budget_s
        while self._clock() < deadline:
            if self._refill is None:
                job = self._next_job()
                if job is None:
                    return False
                self._refill = job
            t, inst = self._refill
            if not self.replay(inst, t, deadline):
                return True
            self.rungs[t] = inst
            self._refill = None
        return self.pending()

    def _next_job(self) -> tuple[int, Instance] | None:
        due = self.due()
        if not due:
            return None
        t = due[0]
        below = [r for r in (*self.rungs.values(), *self.loose) if r.t_ns < t]
        source = max(below, key=lambda r: r.t_ns) if below else self.fresh()
        self._take(source)
        return t, source
