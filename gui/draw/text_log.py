"""Where painted text went: a QPainter that can note every ``drawText`` as a rectangle, for the layout
checks (no two labels overlap, nothing is cut off) that tests and ``gui.geometry`` run.

Panels paint with ``painter(widget)``. Normally that is a QPainter that lays each one-line text out
once (``gui.draw.static_text``); inside ``recording()`` it notes, for each text, the rectangle the text
needs (``QPainter.boundingRect``, in the widget's coordinates), the rectangle it was given, whether
it had to be cut to fit, and its colour. Painting is otherwise the same. Nothing here knows a panel.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRect, QRectF
from PySide6.QtGui import QPaintDevice, QPainter

from gui.draw.static_text import StaticTextPainter


@dataclass(frozen=True, slots=True)
class DrawnText:
    device: object  # what was painted on (a widget)
    text: str
    rect: QRectF  # where the text's glyphs are, in the device's coordinates
    given: QRectF | None  # the box it was drawn into (None: drawn at a point)
    cut: bool  # the text needed more room than ``given`` and was clipped
    ink: str = ""  # the pen's colour ("#rrggbb"): white on white is drawn but not seen

    @property
    def visible(self) -> QRectF:
        return self.rect if self.given is None else self.rect.intersected(self.given)


_log: list[DrawnText] | None = None


@contextmanager
def recording() -> Iterator[list[DrawnText]]:
    """Note every text painted through ``painter()`` while inside."""
    global _log
    outer, _log = _log, []
    try:
        yield _log
    finally:
        _log = outer


def is_recording() -> bool:
    """Whether painted texts are being noted now (a part must then be painted, not copied)."""
    return _log is not None


class _LoggingPainter(StaticTextPainter):
    def __init__(self, device: QPaintDevice) -> None:
        super().__init__(device)
        self._device = device

    def drawText(self, *args: object) -> None:  # type: ignore[override]
        super().drawText(*args)
        if _log is not None and args:
            self._note(args)

    def _note(self, args: tuple[object, ...]) -> None:
        assert _log is not None
        first = args[0]
        if isinstance(first, QRect):
            first = first.toRectF()
        to_device = self.transform()
        if isinstance(first, QRectF) and len(args) >= 3:
            flags, text = int(args[1]), str(args[2])  # type: ignore[call-overload]
            need = self.boundingRect(first, flags, text)
            cut = need.width() > first.width() + 1.0 or need.height() > first.height() + 1.0
            given = to_device.mapRect(first)
            ink = self.pen().color().name()
            _log.append(DrawnText(self._device, text, to_device.mapRect(need), given, cut, ink))
        elif isinstance(first, QPointF) and len(args) >= 2:
            text = str(args[1])
            fm = self.fontMetrics()
            rect = QRectF(first.x(), first.y() - fm.ascent(), fm.horizontalAdvance(text), fm.height())
            ink = self.pen().color().name()
            _log.append(DrawnText(self._device, text, to_device.mapRect(rect), None, False, ink))


def painter(device: QPaintDevice) -> QPainter:
    """The painter a panel paints with (one-line texts laid out once, ``gui.draw.static_text``): one that
    notes its texts while ``recording()``."""
    return _LoggingPainter(device) if _log is not None else StaticTextPainter(device)
