"""The timeline scrubber: the recording from t = 0 to as far as it ran, where the run is now, and the
moments a live setting changed; press or drag anywhere on it to go there.

It keeps no playback state: ``show(now_ns, reach_ns, toggles)`` says what to draw and ``seek_requested``
asks to go somewhere. While dragging, it asks at most every ``DRAG_EVERY_S`` of wall time (each landing
replays the model) and once more where the drag ends. Geometry is a pure function (``time_at``,
``x_of``), testable without a display.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from gui.draw import palette, theme
from gui.draw.formats import format_duration
from gui.draw.handler_guard import guarded

DRAG_EVERY_S = 0.15
MARGIN_PX = 10


def x_of(t_ns: int, reach_ns: int, left: float, width: float) -> float:
    return left + width * (t_ns / reach_ns if reach_ns > 0 else 0.0)


def time_at(x: float, reach_ns: int, left: float, width: float) -> int:
    """The instant under pixel ``x`` on a track from ``left`` spanning ``width`` (clamped to the track)."""
    if width <= 0 or reach_ns <= 0:
        return 0
    frac = min(max((x - left) / width, 0.0), 1.0)
    return round(frac * reach_ns)


class TimelineBar(QWidget):
    seek_requested = Signal(object)  # t_ns: beyond a 32-bit int after 2.1 s

    def __init__(self, parent: QWidget | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(parent)
        self._clock = clock
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)  # paints all of itself
        self.now_ns = 0
        self.reach_ns = 0
        self.toggles: tuple[int, ...] = ()
        self._dragging = False
        self._last_ask = 0.0
        self._pending: int | None = None
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setToolTip("The recording: press or drag to go back to any moment (replayed exactly)")
        self.apply_theme()

    def apply_theme(self) -> None:
        self.setFixedHeight(round(theme.px(26)))
        self.update()

    def sizeHint(self) -> QSize:
        return QSize(400, round(theme.px(26)))

    def minimumSizeHint(self) -> QSize:
        return QSize(160, round(theme.px(26)))

    def show(self, now_ns: int, reach_ns: int, toggles: Sequence[int] = ()) -> None:  # type: ignore[override]
        """Draw the run at ``now_ns`` of a recording that reached ``reach_ns``."""
        toggles = tuple(toggles)
        if (now_ns, reach_ns, toggles) != (self.now_ns, self.reach_ns, self.toggles):
            drawn = self._drawn()
            self.now_ns, self.reach_ns, self.toggles = now_ns, max(reach_ns, now_ns), toggles
            if self._drawn() != drawn:  # live, the knob sits at the end of a growing track: no repaint
                self.update()
        if not self.isVisible():
            super().show()

    def _drawn(self) -> tuple[int, ...]:
        """Where the knob and the toggle marks are drawn, to a quarter pixel: what a repaint would change."""
        left, width = self._track()
        return tuple(round(4 * x_of(t, self.reach_ns, left, width)) for t in (self.now_ns, *self.toggles))

    def _track(self) -> tuple[float, float]:
        return float(MARGIN_PX), max(self.width() - 2.0 * MARGIN_PX, 1.0)

    # ---- painting ---------------------------------------------------------------------------------

    @guarded
    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.fillRect(self.rect(), palette.BACKGROUND)
        left, width = self._track()
        mid = self.height() / 2
        track = QRectF(left, mid - theme.px(4), width, theme.px(8))
        p.setPen(QPen(palette.GREY, theme.line(1)))
        p.setBrush(palette.LIGHT_GREY)
        p.drawRoundedRect(track, 3, 3)
        x_now = x_of(self.now_ns, self.reach_ns, left, width)
        p.fillRect(QRectF(left, track.top(), x_now - left, track.height()), palette.SKY_BLUE)
        p.setPen(QPen(palette.TEXT, theme.line(2), Qt.PenStyle.DashLine))
        for t in self.toggles:
            x = x_of(t, self.reach_ns, left, width)
            p.drawLine(QPointF(x, 2), QPointF(x, self.height() - 2))
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        p.setPen(QPen(palette.TEXT, theme.line(2)))
        p.setBrush(palette.BACKGROUND)
        radius = theme.px(8)
        p.drawEllipse(QPointF(x_now, mid), radius, radius)
        p.end()

    # ---- input ------------------------------------------------------------------------------------

    @guarded
    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self._dragging = True
            self._ask(self._time_of(event.position().x()), force=True)

    @guarded
    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        t = self._time_of(event.position().x())
        if self._dragging:
            self._ask(t)
        QToolTip.showText(
            event.globalPosition().toPoint(), f"t = {format_duration(t)} (press to go there)", self
        )

    @guarded
    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self._dragging:
            self._dragging = False
            self._ask(self._time_of(event.position().x()), force=True)

    def _time_of(self, x: float) -> int:
        left, width = self._track()
        return time_at(x, self.reach_ns, left, width)

    def _ask(self, t_ns: int, force: bool = False) -> None:
        now = self._clock()
        if force or now - self._last_ask >= DRAG_EVERY_S:
            self._last_ask = now
            if t_ns != self.now_ns or force:
                self.seek_requested.emit(t_ns)
