"""Runs a guided lesson in the window: entering a step applies its settings, sets its speed and plays
until its moment, through the Playback, then the playback pauses and the panel says why.

Entering a step (Next, Back, a click in the step list, or rejoining) always does the same thing, so a
class may leave the lesson, play freely, and come back at any step: a step whose settings are not all
live restarts the run with them (same seed), one that only sets live settings applies them to the run
as it stands. The step's moment is a simulated time (``run_for_s`` from now, ``run_to_s``) or an
event (``until``: a stop rule of ``model.stops``), found by the playback at the speed chosen. The
driver emits what to highlight; the window finds those parts. It keeps no model state.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from gui.draw.formats import format_duration
from gui.lessons import Lesson, LessonError, Step, has_lesson, load_lesson, scenario_for, stop_rule
from gui.playback import SPEED_PRESETS, Playback
from model.scenario import Scenario
from model.simulation import LIVE_KEYS

STOP_WORDS = {
    "time": "paused at the step's moment",
    "event": "paused where it happened",
}
UNTIL_WORDS = {
    "yield": "until a sched_yield() lands",
    "yield_moved": "until a sched_yield() moves a task",
    "dequeuer_change": "until the dequeuer role changes hands",
}


class LessonDriver(QObject):
    step_entered = Signal(int)
    status = Signal(str)
    joined_changed = Signal(bool)
    lesson_changed = Signal(object)  # Lesson | None
    highlight = Signal(tuple)  # what the step points at ("lanes", "graph:bandwidth", ...)
    error = Signal(str)

    def __init__(self, playback: Playback, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.playback = playback
        self.lesson: Lesson | None = None
        self.index = -1
        self.joined = False
        self._restarting = False
        playback.stopped.connect(self._on_stopped)

    # ---- which lesson ---------------------------------------------------------------------------

    def on_scenario(self, scenario: Scenario) -> None:
        """A run started: a story of its own brings its lesson; a step's own restart changes nothing."""
        if self._restarting:
            return
        lesson: Lesson | None = None
        if has_lesson(scenario.name):
            try:
                lesson = load_lesson(scenario.name)
            except LessonError as exc:
                self.error.emit(str(exc))
        if lesson is not None and self.lesson is not None and lesson.story == self.lesson.story:
            return
        self.lesson, self.index = lesson, -1
        self._set_joined(False)
        self.lesson_changed.emit(lesson)
        self.highlight.emit(())

    # ---- the class's requests -------------------------------------------------------------------

    def next(self) -> None:
        self.go_to(self.index + 1)

    def back(self) -> None:
        self.go_to(self.index - 1)

    def go_to(self, index: int) -> None:
        """Enter step ``index``: settings, speed, then play to its moment (or just pause there)."""
        if self.lesson is None or not 0 <= index < len(self.lesson.steps):
            return
        step = self.lesson.steps[index]
        self.index = index
        self._set_joined(True)
        pb = self.playback
        pb.cancel_run_until()
        if step.restarts:
            scenario = scenario_for(pb.loaded, pb.scenario, step)
            self._restarting = True
            try:
                ok = pb.restart_scenario(scenario)
            finally:
                self._restarting = False
            if not ok:
                return
        else:
            for key, value in step.settings.items():
                if key in LIVE_KEYS and pb.simulation.settings().get(key) != value:
                    pb.apply_live(key, value)
        if step.speed is not None:
            pb.set_speed(SPEED_PRESETS[step.speed])
        self.step_entered.emit(index)
        self.highlight.emit(step.highlight)
        self._run(step)

    def _run(self, step: Step) -> None:
        pb = self.playback
        now = pb.simulation.now_ns
        target: int | None = None
        if step.run_to_ns is not None:
            target = step.run_to_ns
        elif step.run_for_ns is not None:
            target = now + step.run_for_ns
        rule = stop_rule(step.until)
        if rule is not None:
            target = now + step.until_limit_ns
        if target is None:
            pb.pause()
            self.status.emit("paused")
            return
        words = UNTIL_WORDS.get(step.until or "", f"to t = {format_duration(target)}")
        self.status.emit(f"playing {words}…")
        pb.run_until(target, rule)

    def leave(self) -> None:
        """Play freely: the lesson waits at its step."""
        self.playback.cancel_run_until()
        self._set_joined(False)
        self.highlight.emit(())
        self.status.emit("left the lesson: play freely, then Rejoin")

    def rejoin(self) -> None:
        self.go_to(max(self.index, 0))

    # ---- what the playback reports --------------------------------------------------------------

    def _on_stopped(self, why: str) -> None:
        if self.joined:
            self.status.emit(STOP_WORDS.get(why, "paused"))

    def _set_joined(self, joined: bool) -> None:
        if joined != self.joined:
            self.joined = joined
            self.joined_changed.emit(joined)
