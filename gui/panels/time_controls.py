"""PhET-style time controls: big play/pause, step and Reset All buttons, the speed, the simulated clock.

The widget keeps no playback state of its own: it emits requests (``play_toggled``, ``step_requested``,
``reset_requested``, ``speed_requested``) and shows what the Playback reports back (``set_playing``,
``set_speed``, ``show_time``). The speed slider is logarithmic, from 1/10000 of real time to 10×
fast-forward, 100 steps per decade.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt, Signal, SignalInstance
from PySide6.QtGui import QAction, QFont, QKeySequence
from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QRadioButton,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from gui.playback import SPEED_MAX, SPEED_MIN, SPEED_PRESETS

STEPS_PER_DECADE = 100
BUTTON_PT = 15
LABEL_PT = 13


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


def _font(widget: QWidget, pt: int, bold: bool = False) -> None:
    f = QFont(widget.font())
    f.setPointSize(pt)
    f.setBold(bold)
    widget.setFont(f)


class TimeControls(QWidget):
    play_toggled = Signal()
    step_requested = Signal()
    reset_requested = Signal()
    speed_requested = Signal(float)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.play_action = self._action("Play / Pause", "Space", self.play_toggled)
        self.step_action = self._action("Step one event", "Right", self.step_requested)
        self.reset_action = self._action("Reset All", "R", self.reset_requested)
        self.play_button = self._button("▶  Play", self.play_action, "Play or pause the simulation (Space)")
        self.step_button = self._button("Step ▸|", self.step_action, "Run exactly one event, paused (→)")
        self.reset_button = self._button("↺  Reset All", self.reset_action, "Start this run again (R)")
        self.play_button.setMinimumWidth(self.play_button.fontMetrics().horizontalAdvance("❚❚  Pause") + 24)
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
        _font(self.speed_text, LABEL_PT)
        _font(self.time_text, BUTTON_PT, bold=True)
        # Labels may be squeezed on a narrow screen (their text is clipped) rather than widen the window.
        self.speed_text.setMinimumWidth(
            self.speed_text.fontMetrics().horizontalAdvance("1/10000 of real time") + 8
        )
        self.time_text.setMinimumWidth(
            self.time_text.fontMetrics().horizontalAdvance("t = 000.000 000 s") + 8
        )
        self.time_text.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self._limited = True
        self._layout()
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

    def _button(self, text: str, action: QAction, tip: str) -> QPushButton:
        b = QPushButton(text)
        _font(b, BUTTON_PT, bold=True)
        b.setMinimumHeight(44)
        b.setToolTip(tip)
        b.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # Space must reach the shortcut, not a focused button
        b.clicked.connect(action.trigger)
        return b

    def _layout(self) -> None:
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 4, 8, 4)
        for b in (self.play_button, self.step_button, self.reset_button):
            row.addWidget(b)
        row.addSpacing(16)
        # The speed: presets above, the fine slider and its reading below (narrow screens fit too).
        presets = QHBoxLayout()
        presets.setSpacing(12)
        for name, value in SPEED_PRESETS.items():
            r = QRadioButton(name)
            _font(r, LABEL_PT)
            r.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            r.setToolTip(f"speed: {speed_label(value)}")
            r.clicked.connect(lambda _=False, v=value: self.speed_requested.emit(v))
            self._radio_group.addButton(r)
            self.radios[name] = r
            presets.addWidget(r)
        presets.addStretch(1)
        fine = QHBoxLayout()
        fine.addWidget(self.slider, 1)
        fine.addWidget(self.speed_text)
        speed = QVBoxLayout()
        speed.setSpacing(0)
        speed.addLayout(presets)
        speed.addLayout(fine)
        row.addLayout(speed, 3)
        row.addStretch(1)
        row.addWidget(self.time_text)

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

    def show_time(self, t_ns: int, limited: bool = False) -> None:
        self.time_text.setText(f"t = {format_sim_time(t_ns)}")
        if limited != self._limited:  # the model cannot keep up: the clock turns orange
            self._limited = limited
            self.time_text.setStyleSheet("QLabel { color: #D55E00; }" if limited else "")
            self.time_text.setToolTip(
                "simulated time; the model cannot keep up with this speed, so it runs as fast as it can"
                if limited
                else "simulated time"
            )
