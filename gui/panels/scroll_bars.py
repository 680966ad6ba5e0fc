"""Scroll bars that keep their picture: the Fusion style takes milliseconds to draw a tall scroll bar
(about 3 ms for the settings column's, a tenth of a whole window's repaint), and a scroll bar mostly
looks the same from one repaint to the next.

``CachedScrollBar`` paints itself once into a pixmap, as ``QScrollBar.paintEvent`` does (the style's
scroll bar, nothing hovered or pressed), and copies the pixmap while everything its style draws from
is unchanged: size, pixel ratio, range, value, page, state flags and palette. Under the pointer, or
while it is dragged, it paints directly, so hover and pressed looks follow the pointer as usual.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPainter, QPaintEvent, QPixmap
from PySide6.QtWidgets import QAbstractScrollArea, QScrollBar, QStyle, QStyleOptionSlider, QWidget

from gui.draw.handler_guard import guarded


class CachedScrollBar(QScrollBar):
    def __init__(self, orientation: Qt.Orientation, parent: QWidget | None = None) -> None:
        super().__init__(orientation, parent)
        self._key: tuple[object, ...] | None = None
        self._pixmap = QPixmap()

    def _look(self) -> tuple[object, ...]:
        """Everything the style draws the scroll bar from."""
        opt = QStyleOptionSlider()
        self.initStyleOption(opt)
        return (
            opt.rect.getRect(),
            opt.state,
            opt.minimum,
            opt.maximum,
            opt.sliderPosition,
            opt.sliderValue,
            opt.pageStep,
            opt.singleStep,
            opt.upsideDown,
            self.orientation(),
            self.palette().cacheKey(),
            self.devicePixelRatioF(),
        )

    @guarded
    def paintEvent(self, event: QPaintEvent) -> None:  # Qt override
        if self.underMouse() or self.isSliderDown():  # hover and pressed looks: Qt's own painting
            super().paintEvent(event)
            return
        key = self._look()
        if key != self._key:
            self._key, self._pixmap = key, self._picture()
        painter = QPainter(self)
        painter.drawPixmap(0, 0, self._pixmap)
        painter.end()

    def _picture(self) -> QPixmap:
        """What ``QScrollBar.paintEvent`` draws with nothing hovered or pressed, in a pixmap."""
        dpr = self.devicePixelRatioF()
        pixmap = QPixmap(round(self.width() * dpr), round(self.height() * dpr))
        pixmap.setDevicePixelRatio(dpr)
        pixmap.fill(Qt.GlobalColor.transparent)
        opt = QStyleOptionSlider()
        self.initStyleOption(opt)
        opt.subControls = QStyle.SubControl.SC_All
        opt.activeSubControls = QStyle.SubControl.SC_None
        painter = QPainter(pixmap)
        self.style().drawComplexControl(QStyle.ComplexControl.CC_ScrollBar, opt, painter, self)
        painter.end()
        return pixmap


def cache_scroll_bars(area: QAbstractScrollArea) -> None:
    """Give ``area`` scroll bars that keep their picture (its policies stay as they are)."""
    area.setVerticalScrollBar(CachedScrollBar(Qt.Orientation.Vertical))
    area.setHorizontalScrollBar(CachedScrollBar(Qt.Orientation.Horizontal))
