"""A lesson step's "look here": thick rounded frames over the parts of the window it points at.

A transparent overlay over the window's central area that lets every mouse event through; the window
tells it which rectangles to frame (``show_rects``, in the overlay's coordinates) and it paints them
in the Okabe–Ito vermillion, dashed, so the frame reads on any panel and without colour as well.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QWidget

from gui.draw import palette, theme


class HighlightOverlay(QWidget):
    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground)
        self.rects: list[QRectF] = []
        self.hide()

    def show_rects(self, rects: list[QRectF]) -> None:
        self.rects = rects
        self.setGeometry(self.parentWidget().rect())  # type: ignore[union-attr]
        self.setVisible(bool(rects))
        self.raise_()
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        width = theme.line(4)
        halo = QColor(palette.BACKGROUND)
        halo.setAlphaF(0.85)
        for rect in self.rects:
            r = rect.adjusted(width, width, -width, -width)
            p.setPen(QPen(halo, width + 4))
            p.drawRoundedRect(r, 8, 8)
            p.setPen(QPen(palette.VERMILLION, width, Qt.PenStyle.DashLine))
            p.drawRoundedRect(r, 8, 8)
        p.end()
