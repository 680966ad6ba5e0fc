"""The playback clock: the GUI's only timer, the Simulation it drives, and the speed that maps the two.

``Playback.tick(wall_dt_s)`` is the unit of work. It advances the model by ``speed × wall_dt`` simulated
nanoseconds and emits ``snapshot_ready``. The QTimer calls it about 60 times a second with the measured
wall time; tests call it directly with a fake clock. The animation clock (wall time) is separate from
simulated time: at Normal speed (1/100 of real time) one second on screen is 10 ms in the machine, so a
513 µs pass of iperf's data loop lasts three frames, a 10 ms scheduler tick (HZ=100) one second, and a
context switch is a visible change of colour. Slow is 1/1000 (a 5 µs context switch spans 5 ms on
screen), Fast is real time (the graphs move like the seed's iperf output), and the fine control spans
1/10000 of real time to 10× fast-forward. One frame never does unbounded model work: simulated time per
frame is capped, and the cap shrinks when an advance took longer than ``FRAME_WORK_S`` of wall time
(the model itself never reads the wall clock; this module may).

Model errors (``ScenarioError``) never escape into Qt: they are emitted as ``error(str)`` and the
previous run is kept, so nothing is lost.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal

from gui import pyside_fix  # noqa: F401 - before any signal is emitted
from model.scenario import Scenario, ScenarioError
from model.simulation import LIVE_KEYS, SetTunable, Simulation
from model.snapshot import Snapshot

NSEC_PER_SEC = 1_000_000_000

SPEED_SLOW = 1 / 1000
SPEED_NORMAL = 1 / 100
SPEED_FAST = 1.0
SPEED_PRESETS = {"Slow": SPEED_SLOW, "Normal": SPEED_NORMAL, "Fast": SPEED_FAST}
SPEED_MIN = 1e-4  # 1/10000 of real time
SPEED_MAX = 10.0  # fast-forward, model permitting

FRAME_INTERVAL_MS = 16  # ~60 Hz
FRAME_WORK_S = 0.008  # wall time one advance may take before the next frame asks for less
MAX_WALL_DT_S = 0.1  # a stalled frame (window dragged, laptop asleep) does not jump ahead
MAX_FRAME_SIM_NS = 250_000_000  # simulated time one frame may advance, at most
MIN_FRAME_SIM_NS = 10_000  # the adaptive cap never goes below this
SAMPLE_NS = 50_000_000  # graph sampling interval: 20 points per simulated second


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
    error = Signal(str)  # a one-line message for a dialog
    playing_changed = Signal(bool)
    speed_changed = Signal(float)

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
        self.seed = scenario.seed if seed is None else seed
        self.simulation = self._build(scenario)
        self.speed = SPEED_NORMAL
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

    def _build(self, scenario: Scenario) -> Simulation:
        return Simulation(scenario, self.seed, sample_ns=SAMPLE_NS, trace="recent")

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

    def _start_timer(self) -> None:
        if self._use_timer and self.playing:
            self._last_wall = self._clock()
            self._timer.start()

    def set_speed(self, speed: float) -> None:
        speed = clamp_speed(speed)
        if speed != self.speed:
            self.speed = speed
            self._carry_ns = 0.0
            self.speed_changed.emit(speed)

    def _on_timeout(self) -> None:
        now = self._clock()
        wall_dt, self._last_wall = now - self._last_wall, now
        try:
            self.tick(wall_dt)
        except Exception as exc:  # never let a model failure unwind through the Qt event loop
            self.pause()
            self.error.emit(f"the simulation stopped: {type(exc).__name__}: {exc}")

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
        start = self._clock()
        try:
            snap = self.simulation.advance(dt_ns)
        except ScenarioError as exc:
            self.pause()
            self.error.emit(str(exc))
            return None
        self._budget_ns = next_budget_ns(self._budget_ns, dt_ns, self._clock() - start)
        return self._emit(snap)

    def _emit(self, snap: Snapshot) -> Snapshot:
        self.last_snapshot = snap
        self.snapshot_ready.emit(snap)
        return snap

    # ---- commands ---------------------------------------------------------------------------

    def step_event(self) -> Snapshot | None:
        """Pause, then run exactly one model event."""
        self.pause()
        try:
            return self._emit(self.simulation.step_event())
        except ScenarioError as exc:
            self.error.emit(str(exc))
            return None

    def advance_to(self, t_ns: int) -> Snapshot | None:
        """Run the model to ``t_ns`` in one go, whatever the play state, and emit (export, benchmarks)."""
        try:
            return self._emit(self.simulation.advance(max(0, t_ns - self.simulation.now_ns)))
        except ScenarioError as exc:
            self.error.emit(str(exc))
            return None

    def refresh(self) -> Snapshot:
        """Emit the current state without advancing (a first frame, or after a restart)."""
        return self._emit(self.simulation.snapshot())

    def apply_live(self, key: str, value: Any) -> bool:
        """A live setting (``key in LIVE_KEYS``) at the current simulated instant; a snapshot with the
        new settings follows at once, playing or not."""
        if key not in LIVE_KEYS:
            self.error.emit(f"'{key}' is not a live setting; live settings: {', '.join(LIVE_KEYS)}")
            return False
        try:
            self.simulation.apply(SetTunable(key, value))
        except ScenarioError as exc:
            self.error.emit(str(exc))
            return False
        self.refresh()
        return True

    def reset(self) -> bool:
        """Reset All: the same scenario and seed from t = 0; speed and play state kept."""
        return self._restart(self.scenario, self.seed)

    def restart_with(self, overrides: Mapping[str, Any]) -> bool:
        """A new run with settings changed (and the live settings carried over); same seed and speed."""
        carried = {k: v for k, v in self.simulation.settings().items() if k in LIVE_KEYS}
        try:
            scenario = self.scenario.with_overrides({**carried, **overrides})
        except ScenarioError as exc:
            self.error.emit(str(exc))
            return False
        return self._restart(scenario, self.seed)

    def load(self, scenario: Scenario, seed: int | None = None) -> bool:
        """Another story or file; its own seed unless one is given. Speed and play state kept."""
        return self._restart(scenario, scenario.seed if seed is None else seed)

    def _restart(self, scenario: Scenario, seed: int) -> bool:
        old_seed, self.seed = self.seed, seed
        try:
            simulation = self._build(scenario)
        except ScenarioError as exc:
            self.seed = old_seed
            self.error.emit(str(exc))
            return False
        self.scenario, self.simulation = scenario, simulation
        self._budget_ns, self._carry_ns, self.limited = MAX_FRAME_SIM_NS, 0.0, False
        self.restarted.emit(scenario)
        self.refresh()
        if self.playing:
            self._start_timer()
        return True
