"""The base of a panel whose strips show a window of simulated time that the pointer moves.

``StripWindowPanel`` owns the window (a ``gui.draw.lane_window.StripClock``: how wide, where it ends,
how far it may pan), the interval marked on it, and the gestures: the wheel zooms about the pointer, a
drag pans into the past, a double-click returns to now, a Shift+drag marks an interval
(``interval_marked``) and a Shift+click clears it, a click on a task asks to follow it
(``task_clicked``). The panel below it says where its strips lie (``_strips_x``), what task is drawn
where (``tid_at``) and lays itself out again when the window moves (``_relayout``).
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QMouseEvent, QWheelEvent
from PySide6.QtWidgets import QWidget

from gui import pyside_fix  # noqa: F401 - before any paint or emit
from gui.draw.handler_guard import guarded
from gui.draw.lane_measure import DRAG_PX, Interval, marked
from gui.draw.lane_window import ShownWindow, StripClock
from gui.panels.base import HoverTipsPanel

ZOOM_STEP = 1.25  # one wheel notch
DRAG_MOVED_PX = 3  # a press that moves less than this is a click


class StripWindowPanel(HoverTipsPanel):
    """A panel of time strips the pointer zooms, pans and marks (see the module's words)."""

    task_clicked = Signal(int)
    interval_marked = Signal(object)  # the Interval a Shift+drag marked, or None: a Shift+click cleared it

    def __init__(self, max_pan_windows: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.clock = StripClock(max_pan_windows)
        self.measured: Interval | None = None  # the interval marked by a Shift+drag
        self._drag: tuple[float, int] | None = None  # (x where a drag began, offset then)
        self._dragged = False
        self._marking: tuple[float, float] | None = None  # a Shift+drag: (x where it began, its instant)

    # ---- what the panel below provides ----------------------------------------------------------------

    def _relayout(self) -> None:
        raise NotImplementedError

    def _strips_x(self) -> tuple[float, float]:
        """(left, width) of the strips, in logical pixels."""
        raise NotImplementedError

    def tid_at(self, pos: QPointF) -> int:
        """The task drawn at ``pos`` (logical pixels), 0 if none."""
        raise NotImplementedError

    def _marks_from(self) -> float:
        """The logical x from which a Shift+press marks an interval (the strips' side of the panel)."""
        return self._strips_x()[0]

    # ---- the window ---------------------------------------------------------------------------------

    def set_measured(self, interval: Interval | None) -> None:
        """Mark ``interval`` (None: clear it), as a Shift+drag does (another side of a comparison)."""
        self.measured = interval
        self.update()

    def set_window_ns(self, window_ns: int | None) -> None:
        """Show the last ``window_ns`` of simulated time; ``None`` or 0 chooses from the event density."""
        self.clock.fix(window_ns)
        self._relayout()

    @property
    def window_ns(self) -> int:
        return self.clock.window_ns

    @property
    def view_end_ns(self) -> int:
        """Where the strip ends: now, or earlier when panned into the past."""
        return self.clock.end_ns

    @property
    def shown(self) -> ShownWindow:
        """What the strips show: the window, where it ends, now, and how far it is panned."""
        return self.clock.shown

    @property
    def kept_ns(self) -> int:
        """How much of the past the panel keeps: enough to pan back its most windows."""
        return self.clock.kept_ns

    def zoom_strip(self, factor: float, anchor_x: float | None = None) -> None:
        """Show ``factor`` times the time (wheel): about the instant under ``anchor_x``, else the end."""
        self.clock.zoom(1.0 if anchor_x is None else min(max(self._strip_frac(anchor_x), 0.0), 1.0), factor)
        self._relayout()

    def pan(self, offset_ns: int) -> None:
        """End the strip ``offset_ns`` before now (0: live)."""
        self.clock.pan(offset_ns)
        self._relayout()

    def live(self) -> None:
        """Back to now and the automatic window (double-click)."""
        self.clock.live()
        self._relayout()

    def _strip_frac(self, x: float) -> float:
        """Where logical x falls on the strips: 0 at their left edge, 1 at their end."""
        left, width = self._strips_x()
        return (x - left) / width

    def _time_at(self, x: float) -> float:
        """The instant drawn at logical x on the strips."""
        return self.clock.time_at(self._strip_frac(x))

    # ---- gestures -----------------------------------------------------------------------------------

    @guarded
    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        x = self.to_logical(event.position()).x()
        if event.modifiers() & Qt.KeyboardModifier.ShiftModifier and x >= self._marks_from():
            self._marking = (x, self._time_at(x))
        else:
            self._drag, self._dragged = (event.position().x(), self.clock.offset_ns), False

    def _mark_to(self, x: float) -> None:
        """A Shift+drag at ``x``: the interval from where it began (none yet while it is a click)."""
        assert self._marking is not None
        x_start, t_start = self._marking
        if abs(x - x_start) >= DRAG_PX:
            self.set_measured(marked(t_start, self._time_at(x), self.clock.now_ns))
            self.interval_marked.emit(self.measured)

    @guarded
    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._marking is not None:
            self._mark_to(self.to_logical(event.position()).x())
            return
        if self._drag is None:
            return
        x_start, offset = self._drag
        dx = (event.position().x() - x_start) / self.zoom
        if abs(dx) > DRAG_MOVED_PX:
            self._dragged = True
        _, width = self._strips_x()
        self.pan(int(offset + dx * self.window_ns / width))  # dragging right goes into the past

    @guarded
    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self._marking is not None:
            x = self.to_logical(event.position()).x()
            if abs(x - self._marking[0]) < DRAG_PX:
                self.set_measured(None)  # a Shift+click clears the interval
                self.interval_marked.emit(None)
            else:
                self._mark_to(x)
            self._marking = None
            return
        if self._drag is not None and not self._dragged:
            tid = self.tid_at(self.to_logical(event.position()))
            if tid > 0:
                self.task_clicked.emit(tid)
        self._drag = None

    @guarded
    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        self.live()

    @guarded
    def wheelEvent(self, event: QWheelEvent) -> None:
        steps = event.angleDelta().y() / 120
        if steps:
            self.zoom_strip(ZOOM_STEP ** (-steps), self.to_logical(event.position()).x())
