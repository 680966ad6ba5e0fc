"""The playback clock: the GUI's only timer, the Simulation it drives, and the speed that maps the two.

``Playback.tick(wall_dt_s)`` is the unit of work. It advances the model by ``speed × wall_dt`` simulated
nanoseconds and emits ``snapshot_ready``. The QTimer calls it about 30 times a second with the measured
wall time; tests call it directly with a fake clock. The animation clock (wall time) is separate from
simulated time: at Normal speed (1/100 of real time) one second on screen is 10 ms in the machine, so a
513 µs pass of iperf's data loop lasts 51 ms (one or two frames), a 10 ms scheduler tick (HZ=100) one
second, and a context switch is a visible change of colour. Slow is 1/1000 (a 5 µs context switch spans 5
ms on screen), Fast is real time (the graphs move like the seed's iperf output), and the fine control
spans 1/10000 of real time to 10× fast-forward. One frame never does unbounded model work: simulated time
per frame is capped, and the cap shrinks when an advance took longer than ``FRAME_WORK_S`` of wall time
(the model itself never reads the wall clock; this module may).

The graphs' sampling follows the speed (a point every 0.1 s of wall time, ``gui.draw.series``), so
they answer at every speed. A run is a recording (``gui.rewind``): its live settings are kept with
their instants, so Back one event, Back one second and the scrubber rebuild any earlier instant by
replay, and ``step_event`` runs to the next thing that happens and says what (``stepped``). A lesson
may play until a simulated time or until a stop rule hits (``run_until``); the playback then pauses
and says so (``stopped``). Between frames, and while paused, the recording's checkpoints are refilled
within a wall-time budget.

Model errors (``ScenarioError``) never escape into Qt: they are emitted as ``error(str)`` and the
previous run is kept, so nothing is lost.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal

from gui import pyside_fix  # noqa: F401 - before any signal is emitted
from gui.draw.series import sample_ns_for
from gui.draw.step_words import describe_step, latest_event_ns
from gui.rewind import Instance, Rewinder
from model.scenario import Scenario, ScenarioError
from model.sched import POLICIES
from model.simulation import LIVE_KEYS, Simulation, live_command
from model.snapshot import Snapshot
from model.stops import NextRecord, StopRule

NSEC_PER_SEC = 1_000_000_000

SPEED_SLOW = 1 / 1000
SPEED_NORMAL = 1 / 100
SPEED_FAST = 1.0
SPEED_PRESETS = {"Slow": SPEED_SLOW, "Normal": SPEED_NORMAL, "Fast": SPEED_FAST}
SPEED_MIN = 1e-4  # 1/10000 of real time
SPEED_MAX = 10.0  # fast-forward, model permitting

# A figure or a video starts from a window that has been played: the last LEAD_NS before its instant
# frame by frame, LEAD_FRAMES of them (0.42 ms apart), so that the lanes have their past and the run
# queue's key trails reach back their whole span (50 ms in the 2007 story; they join samples at most
# a thirtieth of it apart).
LEAD_NS = 100_000_000
LEAD_FRAMES = 240
FRAME_INTERVAL_MS = 33  # ~30 Hz: smooth for motion a class follows, half the work of 60 Hz per second
FRAME_WORK_S = 0.008  # wall time one advance may take before the next frame asks for less
MAX_WALL_DT_S = 0.1  # a stalled frame (window dragged, laptop asleep) does not jump ahead
MAX_FRAME_SIM_NS = 250_000_000  # simulated time one frame may advance, at most
MIN_FRAME_SIM_NS = 10_000  # the adaptive cap never goes below this
RUNG_SAMPLE_NS = 5_000_000  # sampling of a run until the window retunes it (checkpoints keep this)
KEEP_ROWS = 4096  # series rows a run keeps: a graph window needs about 100
STEP_LIMIT_NS = 100_000_000  # a step that sees nothing happen stops after this
WORK_PLAYING_S = 0.004  # checkpoint refills per frame while playing, at most
WORK_PAUSED_S = 0.010  # and while paused
# Settings a CPU count decides (model.cpu_count), and the scenario's own description.
CPU_BOUND_KEYS = (
    "machine.cpus",
    "net.irq_cpus",
    "iperf.cpu",
    "scenario.name",
    "scenario.title",
    "scenario.story",
    "scenario.description",
    "scenario.duration_s",
    "scenario.seed",
)


def clamp_speed(speed: float) -> float:
    return min(SPEED_MAX, max(SPEED_MIN, float(speed)))


def next_budget_ns(budget_ns: int, dt_ns: int, took_s: float) -> int:
    """The simulated-time cap for the next frame, given how long advancing ``dt_ns`` took.

    Aim at ``FRAME_WORK_S`` of model work per frame at the rate just measured: too slow, shrink to it;
    capped and quicker, grow towards it, by half at most (one quick frame must not unleash a slow one).
    """
    if dt_ns <= 0:
        return budget_ns
    aim = int(dt_ns * FRAME_WORK_S / max(took_s, 1e-9))
    if took_s > FRAME_WORK_S:
        return max(MIN_FRAME_SIM_NS, aim)
    if dt_ns >= budget_ns:
        return min(MAX_FRAME_SIM_NS, budget_ns * 3 // 2, max(budget_ns, aim))
    return budget_ns


class Playback(QObject):
    """Owns the Simulation and the frame timer; panels only ever see the snapshots it emits."""

    snapshot_ready = Signal(object)  # Snapshot
    restarted = Signal(object)  # the Scenario of a new run: panels forget their history
    landed = Signal(object)  # t_ns the run was rebuilt at (back, scrub; past 2^31): panels forget history
    error = Signal(str)  # a one-line message for a dialog
    playing_changed = Signal(bool)
    speed_changed = Signal(float)
    stepped = Signal(str)  # what a step ran, in words
    stopped = Signal(str)  # a "run until" was reached: "time" or "event"

    def __init__(
        self,
        scenario: Scenario,
        seed: int | None = None,
        parent: QObject | None = None,
        *,
        use_timer: bool = True,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        super().__init__(parent)
        self.scenario = scenario
        self.loaded = scenario  # as opened: a CPU count is applied to it, not to an earlier resize
        self.seed = scenario.seed if seed is None else seed
        self.speed = SPEED_NORMAL
        self.rewinder, self.live = self._record(scenario)
        self._rule: StopRule | None = None  # a lesson's "run until an event"
        self._until_ns: int | None = None  # a lesson's "run to a time"
        self._last_event_ns: int | None = None  # the latest event shown: Back one event goes before it
        self.playing = False
        self.limited = False  # the last frame was held back by the work cap
        self.last_snapshot: Snapshot | None = None
        self._budget_ns = MAX_FRAME_SIM_NS
        self._carry_ns = 0.0
        self._clock = clock
        self._use_timer = use_timer
        self._timer = QTimer(self)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(FRAME_INTERVAL_MS)
        self._timer.timeout.connect(self._on_timeout)
        self._last_wall = 0.0

    def _build(self, scenario: Scenario, seed: int) -> Simulation:
        return Simulation(scenario, seed, sample_ns=RUNG_SAMPLE_NS, trace="recent", keep_rows=KEEP_ROWS)

    def _record(self, scenario: Scenario) -> tuple[Rewinder, Instance]:
        """A new recording of ``scenario`` (raises ScenarioError) and its live run at t = 0."""
        seed = self.seed
        rewinder = Rewinder(lambda: self._build(scenario, seed))
        live = rewinder.fresh()  # past its events at t = 0, as every replay from the start is
        live.sim.set_sample_ns(sample_ns_for(self.speed))
        return rewinder, live

    @property
    def simulation(self) -> Simulation:
        """The live run."""
        return self.live.sim

    # ---- the clock --------------------------------------------------------------------------

    @property
    def timer_active(self) -> bool:
        return self._timer.isActive()

    def play(self) -> None:
        if not self.playing:
            self.playing = True
            self._carry_ns = 0.0
            self._start_timer()
            self.playing_changed.emit(True)

    def pause(self) -> None:
        if not self.rewinder.pending():
            self._timer.stop()
        if self.playing:
            self.playing = False
            self.playing_changed.emit(False)

    def toggle(self) -> None:
        if self.playing:
            self.pause()
        else:
            self.play()

    def stop(self) -> None:
        """Stop the timer for good (the window is closing)."""
        self._use_timer = False
        self.pause()
        self._timer.stop()

    def _start_timer(self) -> None:
        """The timer runs while playing, and while paused for as long as checkpoints are missing."""
        if self._use_timer and (self.playing or self.rewinder.pending()) and not self._timer.isActive():
            self._last_wall = self._clock()
            self._timer.start()

    def set_speed(self, speed: float) -> None:
        speed = clamp_speed(speed)
        if speed != self.speed:
            self.speed = speed
            self._carry_ns = 0.0
            self.simulation.set_sample_ns(sample_ns_for(speed))
            self.speed_changed.emit(speed)

    def _on_timeout(self) -> None:
        now = self._clock()
        wall_dt, self._last_wall = now - self._last_wall, now
        try:
            if self.playing:
                self.tick(wall_dt)
            spent = self._clock() - now
            self.work(WORK_PLAYING_S if self.playing else WORK_PAUSED_S, spent)
        except Exception as exc:  # never let a model failure unwind through the Qt event loop
            self.pause()
            self._timer.stop()
            self.error.emit(f"the simulation stopped: {type(exc).__name__}: {exc}")

    def work(self, budget_s: float, spent_s: float = 0.0) -> bool:
        """Refill the recording's checkpoints for what is left of a frame (``budget_s`` at most); the
        idle timer stops once nothing is missing and the run is paused. True while work remains."""
        left = min(budget_s, FRAME_INTERVAL_MS / 1000 - spent_s - 0.002)
        more = self.rewinder.work(left) if left > 0 else self.rewinder.pending()
        if not more and not self.playing:
            self._timer.stop()
        return more

    def tick(self, wall_dt_s: float) -> Snapshot | None:
        """Advance by ``speed × wall_dt_s`` (capped) and emit the snapshot; nothing while paused."""
        if not self.playing:
            return None
        want = self._carry_ns + self.speed * min(max(wall_dt_s, 0.0), MAX_WALL_DT_S) * NSEC_PER_SEC
        dt_ns = int(want)
        self.limited = dt_ns > self._budget_ns
        if self.limited:
            dt_ns, self._carry_ns = self._budget_ns, 0.0
        else:
            self._carry_ns = want - dt_ns
        if self._until_ns is not None:
            dt_ns = max(0, min(dt_ns, self._until_ns - self.simulation.now_ns))
        start = self._clock()
        try:
            snap, hit = self.rewinder.advance(self.live, dt_ns, self._rule)
        except ScenarioError as exc:
            self.pause()
            self.error.emit(str(exc))
            return None
        self._budget_ns = next_budget_ns(self._budget_ns, dt_ns, self._clock() - start)
        self._emit(snap)
        if hit or (self._until_ns is not None and snap.t_ns >= self._until_ns):
            self._finish_run_until("event" if hit else "time")
        return snap

    def _emit(self, snap: Snapshot) -> Snapshot:
        self.last_snapshot = snap
        latest = latest_event_ns(snap.events, snap.t_ns)
        if latest is not None:
            self._last_event_ns = latest
        self.snapshot_ready.emit(snap)
        return snap

    # ---- running until a moment (lessons) ---------------------------------------------------------

    def run_until(self, t_ns: int | None = None, rule: StopRule | None = None) -> None:
        """Play until simulated time ``t_ns``, or until ``rule`` hits (whichever comes first), then
        pause and emit ``stopped``. Neither: a plain play."""
        self._until_ns = t_ns
        self._rule = rule
        if rule is not None:
            rule.begin(self.simulation)
        if t_ns is not None and self.simulation.now_ns >= t_ns:
            self._finish_run_until("time")
            return
        self.play()

    def cancel_run_until(self) -> None:
        self._until_ns, self._rule = None, None

    @property
    def running_until(self) -> bool:
        return self._until_ns is not None or self._rule is not None

    def _finish_run_until(self, why: str) -> None:
        self.cancel_run_until()
        self.pause()
        self.stopped.emit(why)

    # ---- commands ---------------------------------------------------------------------------

    def step_event(self) -> Snapshot | None:
        """Pause, then run to the next thing that happens (the next event that adds a trace record, or
        ``STEP_LIMIT_NS`` at most) and say what it was (``stepped``)."""
        self.pause()
        self.cancel_run_until()
        rule = NextRecord()
        try:
            snap, _hit = self.rewinder.advance(self.live, STEP_LIMIT_NS, rule)
        except ScenarioError as exc:
            self.error.emit(str(exc))
            return None
        self._emit(snap)
        names = {t.tid: t.name for t in snap.tasks}
        info = POLICIES.get(str(snap.settings.get("sched.policy")))
        landing = info.describe_landing if info is not None else str
        self.stepped.emit(describe_step(snap.events, snap.t_ns, names, landing))
        return snap

    def advance_to(self, t_ns: int) -> Snapshot | None:
        """Run the model to ``t_ns`` in one go, whatever the play state, and emit (export, benchmarks)."""
        try:
            snap, _hit = self.rewinder.advance(self.live, max(0, t_ns - self.simulation.now_ns))
        except ScenarioError as exc:
            self.error.emit(str(exc))
            return None
        return self._emit(snap)

    # ---- going back ---------------------------------------------------------------------------------

    @property
    def reach_ns(self) -> int:
        """How far this recording has run: the scrubber's end."""
        return max(self.rewinder.reach_ns, self.simulation.now_ns)

    def seek(self, t_ns: int) -> Snapshot | None:
        """Rebuild the run at ``t_ns`` (within the recording) by replay; play state and speed kept."""
        self.cancel_run_until()
        try:
            self.live = self.rewinder.land(t_ns, self.live)
        except ScenarioError as exc:
            self.error.emit(str(exc))
            return None
        self.live.sim.set_sample_ns(sample_ns_for(self.speed))
        self._last_event_ns = None
        self.landed.emit(self.live.t_ns)
        snap = self._emit(self.simulation.advance(0))
        self._carry_ns = 0.0
        self._start_timer()
        return snap

    def back_event(self) -> Snapshot | None:
        """Back to just before the latest event shown (undoes a step)."""
        self.pause()
        last = self._last_event_ns if self._last_event_ns is not None else self.simulation.now_ns
        return self.seek(max(0, min(last, self.simulation.now_ns) - 1))

    def back_seconds(self, seconds: float = 1.0) -> Snapshot | None:
        """Back ``seconds`` of simulated time."""
        return self.seek(max(0, self.simulation.now_ns - round(seconds * NSEC_PER_SEC)))

    def refresh(self) -> Snapshot:
        """Emit the current state without advancing (a first frame, or after a restart)."""
        return self._emit(self.simulation.snapshot())

    def apply_live(self, key: str, value: Any) -> bool:
        """A live setting (``key in LIVE_KEYS``) at the current simulated instant; a snapshot with the
        new settings follows at once, playing or not."""
        try:
            command = live_command(key, value)  # a key that is not live, or a value of the wrong kind
            self.simulation.apply(command)
        except ScenarioError as exc:
            self.error.emit(str(exc))
            return False
        self.rewinder.record(self.live, key, command.value)
        self.refresh()
        return True

    def reset(self) -> bool:
        """Reset All: the same scenario and seed from t = 0; speed and play state kept."""
        return self._restart(self.scenario, self.seed)

    def restart_with(self, overrides: Mapping[str, Any]) -> bool:
        """A new run with settings changed (and the live settings carried over); same seed and speed."""
        carried = {k: v for k, v in self.simulation.settings().items() if k in LIVE_KEYS}
        changes = {**carried, **overrides}
        cpus = changes.pop("machine.cpus", None)
        try:
            scenario = self.scenario.with_overrides(changes)
            if cpus is not None:  # what depends on the CPU count follows it (model.cpu_count)
                keep = {k: v for k, v in scenario.settings().items() if k not in CPU_BOUND_KEYS}
                scenario = self.loaded.with_overrides({**keep, "machine.cpus": cpus})
        except ScenarioError as exc:
            self.error.emit(str(exc))
            return False
        return self._restart(scenario, self.seed)

    def restart_scenario(self, scenario: Scenario) -> bool:
        """A new run of ``scenario`` (a lesson step's settings), same seed and speed."""
        return self._restart(scenario, self.seed)

    def load(self, scenario: Scenario, seed: int | None = None) -> bool:
        """Another story or file; its own seed unless one is given. Speed and play state kept."""
        if not self._restart(scenario, scenario.seed if seed is None else seed):
            return False
        self.loaded = scenario
        return True

    def _restart(self, scenario: Scenario, seed: int) -> bool:
        old_seed, self.seed = self.seed, seed
        try:
            self.rewinder, self.live = self._record(scenario)
        except ScenarioError as exc:
            self.seed = old_seed
            self.error.emit(str(exc))
            return False
        self.scenario = scenario
        self.cancel_run_until()
        self._last_event_ns = None
        self._budget_ns, self._carry_ns, self.limited = MAX_FRAME_SIM_NS, 0.0, False
        self.restarted.emit(scenario)
        self.refresh()
        if self.playing:
            self._start_timer()
        return True
