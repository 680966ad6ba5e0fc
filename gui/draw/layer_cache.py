"""Parts of a panel kept as pixmaps while what they show stays the same.

A panel repaints all of itself every frame, yet most of its parts (a CPU's box, a band, a legend, a
lane's head) show the same words and shapes as in the previous frame. ``LayerCache.draw`` paints such a
part once into a transparent pixmap, keyed by everything the part shows, and copies that pixmap on the
following frames until the key changes. The pixmap covers the part's rectangle snapped out to whole
device pixels and is painted through the same transform, render hints, pen, brush and font as the panel's
painter, so a copy puts the same pixels where a direct paint would; the painter's state after the part
(pen, brush, font, hints) is kept with it and restored after a copy, as if the part had been painted.

While ``text_log.recording()`` notes painted texts (the layout checks), every part is painted directly:
the log sees each text where it lies. A part the cache did not use in a repaint is forgotten after it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QFont, QPainter, QPen, QPixmap, QTransform

from gui.draw import text_log


@dataclass(slots=True)
class _Layer:
    key: Hashable
    pixmap: QPixmap
    at: QPointF  # its top-left corner in the device's pixels (whole pixels)
    pen: QPen  # the painter's state after the part, restored after a copy
    brush: QBrush
    font: QFont
    hints: QPainter.RenderHint


class LayerCache:
    """Pixmaps of a panel's parts, one per slot (a part's name), each with the key it shows."""

    def __init__(self) -> None:
        self._layers: dict[Hashable, _Layer] = {}
        self._used: set[Hashable] = set()

    def clear(self) -> None:
        """Forget every part (the theme changed: colours and fonts are not in the keys)."""
        self._layers.clear()
        self._used.clear()

    def draw(
        self,
        p: QPainter,
        slot: Hashable,
        key: Hashable,
        rect: QRectF,
        paint: Callable[[QPainter], object],
    ) -> None:
        """Paint a part that lies inside ``rect`` (the painter's coordinates) and shows exactly what
        ``key`` says: ``paint(painter)`` draws it, once per key; otherwise its pixmap is copied."""
        if text_log.is_recording():
            paint(p)
            return
        transform = p.transform()
        box = transform.mapRect(rect)
        x0, y0 = math.floor(box.left()), math.floor(box.top())
        w, h = math.ceil(box.right()) - x0, math.ceil(box.bottom()) - y0
        if w <= 0 or h <= 0:
            return
        dpr = p.device().devicePixelRatioF()
        full_key = (key, x0, y0, w, h, dpr, _transform_key(transform))
        self._used.add(slot)
        layer = self._layers.get(slot)
        if layer is None or layer.key != full_key:
            layer = self._layers[slot] = self._paint(p, full_key, (x0, y0, w, h), dpr, paint)
        p.save()
        p.resetTransform()
        p.drawPixmap(layer.at, layer.pixmap)
        p.restore()
        p.setPen(layer.pen)
        p.setBrush(layer.brush)
        p.setFont(layer.font)
        if p.renderHints() != layer.hints:
            p.setRenderHints(p.renderHints(), False)
            p.setRenderHints(layer.hints, True)

    def end_frame(self) -> None:
        """After a repaint: forget the parts it did not draw (gone from the panel)."""
        for slot in [s for s in self._layers if s not in self._used]:
            del self._layers[slot]
        self._used.clear()

    @staticmethod
    def _paint(
        p: QPainter,
        key: Hashable,
        box: tuple[int, int, int, int],
        dpr: float,
        paint: Callable[[QPainter], object],
    ) -> _Layer:
        x0, y0, w, h = box
        pixmap = QPixmap(round(w * dpr), round(h * dpr))
        pixmap.setDevicePixelRatio(dpr)
        pixmap.fill(Qt.GlobalColor.transparent)
        q = text_log.painter(pixmap)
        q.setRenderHints(p.renderHints())
        q.setTransform(p.transform() * QTransform.fromTranslate(-x0, -y0))
        q.setPen(p.pen())
        q.setBrush(p.brush())
        q.setFont(p.font())
        paint(q)
        layer = _Layer(key, pixmap, QPointF(x0, y0), q.pen(), q.brush(), q.font(), q.renderHints())
        q.end()
        return layer


def _transform_key(t: QTransform) -> tuple[float, ...]:
    return (t.m11(), t.m12(), t.m21(), t.m22(), t.dx(), t.dy())
