"""PhET-style time controls: big play/pause, back, step and Reset All buttons, the speed, the simulated
clock, and under them the timeline scrubber and what the last step ran.

The widget keeps no playback state of its own: it emits requests (``play_toggled``, ``step_requested``,
``back_event_requested``, ``back_second_requested``, ``seek_requested``, ``reset_requested``,
``speed_requested``) and shows what the Playback reports back (``set_playing``, ``set_speed``,
``show_time``, ``show_event``). Its actions carry the keyboard shortcuts (the window makes them work
whatever has focus). The speed slider is logarithmic, from 1/10000 of real time to 10× fast-forward,
100 steps per decade.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QSize, Qt, Signal, SignalInstance
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QRadioButton,
    QSizePolicy,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from gui.draw import theme
from gui.draw.handler_guard import guarded
from gui.panels.base import rescale_fonts, styled_font
from gui.panels.timeline import TimelineBar
from gui.playback import SPEED_MAX, SPEED_MIN, SPEED_PRESETS

STEPS_PER_DECADE = 100
BUTTON_PT = 14
LABEL_PT = 12
SPEED_KEYS = {"Slow": "S", "Normal": "N", "Fast": "F"}


def speed_to_slider(speed: float) -> int:
    return round((math.log10(speed) - math.log10(SPEED_MIN)) * STEPS_PER_DECADE)


def slider_to_speed(pos: int) -> float:
    return float(10 ** (math.log10(SPEED_MIN) + pos / STEPS_PER_DECADE))


def _round2(x: float) -> float:
    """Two significant digits: 1/2512 reads as 1/2500."""
    if x <= 0:
        return x
    digits = 1 - math.floor(math.log10(x))
    return round(x, digits)


def speed_label(speed: float) -> str:
    """A readable name for a speed: "1/100 of real time", "real time", "3× real time"."""
    if abs(speed - 1.0) < 0.02:
        return "real time"
    if speed < 1.0:
        return f"1/{_round2(1.0 / speed):g} of real time"
    return f"{_round2(speed):g}× real time"


def format_sim_time(t_ns: int) -> str:
    """Simulated time in the unit a class reads best: "12.345 ms", "2.500 000 s"."""
    if t_ns < 1_000_000:
        return f"{t_ns / 1000:.3f} µs"
    if t_ns < 1_000_000_000:
        return f"{t_ns / 1e6:.3f} ms"
    s = f"{t_ns / 1e9:.6f}"
    return f"{s[:-3]} {s[-3:]} s"


def show_limited(clock: QLabel, limited: bool) -> None:
    """A clock turns orange, and says why, while the model cannot keep up with the chosen speed."""
    clock.setStyleSheet("QLabel { color: #D55E00; }" if limited else "")
    clock.setToolTip(
        "simulated time; the model cannot keep up with this speed, so it runs as fast as it can"
        if limited
        else "simulated time"
    )


class TimeControls(QWidget):
    play_toggled = Signal()
    step_requested = Signal()
    back_event_requested = Signal()
    back_second_requested = Signal()
    seek_requested = Signal(object)  # t_ns: beyond a 32-bit int after 2.1 s
    to_start_requested = Signal()
    to_end_requested = Signal()
    reset_requested = Signal()
    speed_requested = Signal(float)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.play_action = self._action("Play / Pause", "Space", self.play_toggled)
        self.step_action = self._action("Step to the next event", "Right", self.step_requested)
        self.back_action = self._action("Back one event", "Left", self.back_event_requested)
        self.back_second_action = self._action("Back one second", "Shift+Left", self.back_second_requested)
        self.start_action = self._action("To the start of the recording", "Home", self.to_start_requested)
        self.end_action = self._action("To the end of the recording", "End", self.to_end_requested)
        self.reset_action = self._action("Reset All", "R", self.reset_requested)
        self.speed_actions = {name: self._speed_action(name, value) for name, value in SPEED_PRESETS.items()}
        self.play_button = self._button("▶  Play", self.play_action, "Play or pause the simulation (Space)")
        self.back_button = self._button(
            "|◂ Back", self.back_action, "Back to just before the last event (←); Shift+← goes back 1 s"
        )
        self.step_button = self._button(
            "Step ▸|", self.step_action, "Run to the next event and say what it was, paused (→)"
        )
        self.reset_button = self._button("↺  Reset All", self.reset_action, "Start this run again (R)")
        self.back_second_button = self._button(
            "◂◂ 1 s", self.back_second_action, "Back one simulated second (Shift+←)", small=True
        )
        self.timeline = TimelineBar()
        self.timeline.seek_requested.connect(self.seek_requested)
        self.event_text = QLabel()
        self.event_text.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        styled_font(self.event_text, LABEL_PT - 1)
        self._event_full = ""
        self.radios: dict[str, QRadioButton] = {}
        self._radio_group = QButtonGroup(self)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, speed_to_slider(SPEED_MAX))
        self.slider.setMinimumWidth(100)
        self.slider.setMaximumWidth(420)
        self.slider.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # arrows belong to "step"
        self.slider.setToolTip("Fine speed: from 1/10000 of real time to 10× fast-forward")
        self.speed_text = QLabel()
        self.time_text = QLabel()
        styled_font(self.speed_text, LABEL_PT)
        styled_font(self.time_text, BUTTON_PT, bold=True)
        self.time_text.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self._limited = True
        self._layout()
        self.apply_theme()
        self.slider.valueChanged.connect(self._on_slider)
        self.set_speed(SPEED_PRESETS["Normal"])
        self.show_time(0)

    def _action(self, text: str, key: str, signal: SignalInstance) -> QAction:
        action = QAction(text, self)
        action.setShortcut(QKeySequence(key))
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.triggered.connect(signal.emit)
        self.addAction(action)
        return action

    def _speed_action(self, name: str, value: float) -> QAction:
        action = QAction(f"{name} speed ({speed_label(value)})", self)
        action.setShortcut(QKeySequence(SPEED_KEYS[name]))
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.triggered.connect(lambda _=False, v=value: self.speed_requested.emit(v))
        self.addAction(action)
        return action

    def _button(self, text: str, action: QAction, tip: str, small: bool = False) -> QPushButton:
        b = QPushButton(text)
        styled_font(b, LABEL_PT if small else BUTTON_PT, bold=not small)
        b.setToolTip(tip)
        b.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # Space must reach the shortcut, not a focused button
        b.clicked.connect(action.trigger)
        return b

    def _layout(self) -> None:
        column = QVBoxLayout(self)
        column.setContentsMargins(8, 2, 8, 2)
        column.setSpacing(2)
        self._row = QHBoxLayout()
        column.addLayout(self._row)
        for b in (self.play_button, self.back_button, self.step_button, self.reset_button):
            self._row.addWidget(b)
        # The speed: presets and the fine slider with its reading, beside the buttons or (narrow, or
        # large text) at the start of the second row.
        self._speed_box = QWidget()
        speed = QHBoxLayout(self._speed_box)
        speed.setContentsMargins(8, 0, 0, 0)
        for name, value in SPEED_PRESETS.items():
            r = QRadioButton(name)
            styled_font(r, LABEL_PT)
            r.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            r.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)  # the slider takes the room
            r.setToolTip(f"speed: {speed_label(value)} ({SPEED_KEYS[name]})")
            r.clicked.connect(lambda _=False, v=value: self.speed_requested.emit(v))
            self._radio_group.addButton(r)
            self.radios[name] = r
            speed.addWidget(r)
        speed.addWidget(self.slider, 2)
        speed.addWidget(self.speed_text)
        self._row.addWidget(self._speed_box, 1)
        self._row.addStretch(0)
        self._row.addWidget(self.time_text)
        self._scrub = QHBoxLayout()
        column.addLayout(self._scrub)
        self._scrub.addWidget(self.back_second_button)
        self._scrub.addWidget(self.timeline, 3)
        self._scrub.addWidget(self.event_text, 2)
        self._speed_on_top = True

    def _place_speed(self) -> None:
        """The speed beside the buttons when the first row holds it, else on the second row."""
        buttons = sum(
            b.sizeHint().width()
            for b in (self.play_button, self.back_button, self.step_button, self.reset_button)
        )
        need = buttons + self._speed_box.minimumSizeHint().width() + self.time_text.minimumWidth() + 60
        on_top = self.width() >= need
        if on_top == self._speed_on_top:
            return
        self._speed_on_top = on_top
        if on_top:
            self._scrub.removeWidget(self._speed_box)
            self._row.insertWidget(4, self._speed_box, 1)
        else:
            self._row.removeWidget(self._speed_box)
            self._scrub.insertWidget(0, self._speed_box)

    def apply_theme(self) -> None:
        """Text and button sizes for the theme now (mode and zoom)."""
        rescale_fonts(self)
        for b in (self.play_button, self.back_button, self.step_button, self.reset_button):
            b.setMinimumHeight(round(theme.px(40)))
        self.play_button.setMinimumWidth(self.play_button.fontMetrics().horizontalAdvance("❚❚  Pause") + 24)
        # Labels may be squeezed on a narrow screen rather than widen the window; these keep their text.
        self.speed_text.setMinimumWidth(
            self.speed_text.fontMetrics().horizontalAdvance("1/10000 of real time")
        )
        # A fixed size, the row's height (the buttons'): the clock's text changes every frame, and a
        # label of fixed size asks for no new layout of the window when it does.
        self.time_text.setMinimumSize(0, 0)
        self.time_text.setMaximumSize(16_777_215, 16_777_215)
        buttons = (self.play_button, self.back_button, self.step_button, self.reset_button)
        row_h = max(
            self.time_text.sizeHint().height(),
            *(max(b.sizeHint().height(), b.minimumHeight()) for b in buttons),
        )
        self.time_text.setFixedSize(
            self.time_text.fontMetrics().horizontalAdvance("t = 000.000 000 s") + 8, row_h
        )
        self.timeline.apply_theme()
        self._elide_event()

    # ---- user input -------------------------------------------------------------------------

    def _on_slider(self, pos: int) -> None:
        speed = slider_to_speed(pos)
        self._show_speed(speed)
        self.speed_requested.emit(speed)

    def choose_preset(self, name: str) -> None:
        """Click a speed preset (as the user would)."""
        self.radios[name].click()

    # ---- what the Playback reports ----------------------------------------------------------

    def set_playing(self, playing: bool) -> None:
        self.play_button.setText("❚❚  Pause" if playing else "▶  Play")

    def set_speed(self, speed: float) -> None:
        self.slider.blockSignals(True)
        self.slider.setValue(speed_to_slider(speed))
        self.slider.blockSignals(False)
        self._show_speed(speed)

    def _show_speed(self, speed: float) -> None:
        self.speed_text.setText(speed_label(speed))
        self._radio_group.setExclusive(False)
        for value, radio in zip(SPEED_PRESETS.values(), self.radios.values(), strict=True):
            radio.setChecked(math.isclose(value, speed, rel_tol=0.01))
        self._radio_group.setExclusive(True)

    def show_event(self, text: str) -> None:
        """What the last step ran (or nothing)."""
        self._event_full = text
        self.event_text.setToolTip(text)
        self._elide_event()

    def _elide_event(self) -> None:
        fm = self.event_text.fontMetrics()
        width = max(self.event_text.width(), 40)
        self.event_text.setText(fm.elidedText(self._event_full, Qt.TextElideMode.ElideRight, width))

    @guarded
    def resizeEvent(self, event: object) -> None:
        super().resizeEvent(event)  # type: ignore[arg-type]
        self._place_speed()
        self._elide_event()

    def minimumSizeHint(self) -> QSize:
        """As narrow as the buttons and the clock: the speed moves to the second row when needed."""
        hint = super().minimumSizeHint()
        buttons = sum(
            b.minimumSizeHint().width()
            for b in (self.play_button, self.back_button, self.step_button, self.reset_button)
        )
        return QSize(buttons + self.time_text.minimumWidth() + 40, hint.height())

    def show_recording(self, now_ns: int, reach_ns: int, toggles: tuple[int, ...]) -> None:
        self.timeline.show(now_ns, reach_ns, toggles)

    def show_time(self, t_ns: int, limited: bool = False) -> None:
        self.time_text.setText(f"t = {format_sim_time(t_ns)}")
        if limited != self._limited:
            self._limited = limited
            show_limited(self.time_text, limited)
