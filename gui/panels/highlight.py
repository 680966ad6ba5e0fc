"""A lesson step's "look here": thick rounded frames over the parts of the window it points at.

A transparent overlay over the window's central area that lets every mouse event through; the window
tells it which rectangles to frame (``show_rects``, in the overlay's coordinates) and it paints them
in the Okabe–Ito vermillion, dashed, so the frame reads on any panel and without colour as well.
The frames follow their panels (``follow``): a splitter dragged, a scroll bar that came or a panel that
grew moves a framed part without resizing the window, and the window places the frames again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import shiboken6
from PySide6.QtCore import QEvent, QObject, QRectF, Qt, QTimer
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QWidget

from gui.draw import palette, theme
from gui.draw.handler_guard import guarded, guarded_bool

# What moves a framed part inside the window: it or a widget around it moved, changed size, came or went.
_GEOMETRY = frozenset({QEvent.Type.Move, QEvent.Type.Resize, QEvent.Type.Show, QEvent.Type.Hide})


class GeometryWatch(QObject):
    """Calls ``moved`` once from the event loop after a watched widget, or one around it up to the
    overlay's parent, moved, changed size, was shown or hidden (several changes in one layout pass give
    one call)."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self._top = parent
        self._watched: list[QWidget] = []
        self._moved: Callable[[], None] | None = None
        self._pending = False

    def watch(self, widgets: Iterable[QWidget], moved: Callable[[], None]) -> None:
        chain: list[QWidget] = []
        for widget in widgets:
            w: QWidget | None = widget
            while w is not None and w is not self._top and not any(w is c for c in chain):
                chain.append(w)
                w = w.parentWidget()
        for w in self._watched:
            if shiboken6.isValid(w) and not any(w is c for c in chain):
                w.removeEventFilter(self)
        for w in chain:
            if not any(w is old for old in self._watched):
                w.installEventFilter(self)
        self._watched = chain
        self._moved = moved

    @guarded_bool
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt override
        if not self._pending and event.type() in _GEOMETRY:
            self._pending = True
            QTimer.singleShot(0, self, self._fire)
        return False

    def _fire(self) -> None:
        self._pending = False
        if self._moved is not None and self._watched:
            self._moved()


class HighlightOverlay(QWidget):
    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground)
        self.rects: list[QRectF] = []
        self._watch = GeometryWatch(parent)
        self.hide()

    def follow(self, widgets: Iterable[QWidget], place: Callable[[], None]) -> None:
        """Call ``place`` again whenever one of ``widgets`` (the framed parts) may have moved."""
        self._watch.watch(widgets, place)

    def show_rects(self, rects: list[QRectF]) -> None:
        self.rects = rects
        self.setGeometry(self.parentWidget().rect())  # type: ignore[union-attr]
        self.setVisible(bool(rects))
        self.raise_()
        self.update()

    @guarded
    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        width = theme.line(4)
        halo = QColor(palette.BACKGROUND)
        halo.setAlphaF(0.85)
        inside = QRectF(self.rect()).adjusted(width / 2 + 1, width / 2 + 1, -width / 2 - 1, -width / 2 - 1)
        for rect in self.rects:
            # Just outside the framed part, so that the frame and its halo cover none of its own words
            # (a panel's title sits at its top edge); pulled in where the part meets the window's edge.
            out = width / 2 + 1
            r = rect.adjusted(-out, -out, out, out).intersected(inside)
            p.setPen(QPen(halo, width + 2))
            p.drawRoundedRect(r, 8, 8)
            p.setPen(QPen(palette.VERMILLION, width, Qt.PenStyle.DashLine))
            p.drawRoundedRect(r, 8, 8)
        p.end()
