"""The look the qdisc panel's painters share: its fonts, the dequeuer's gold, and the three ways it sets
a line of text (in a box, the first of its wordings that fits or the last elided; two labels on one
line; a label centred on a white patch so it stays legible on hatching). Each painter gets the fonts
as a ``Fonts`` mapping by name.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter

from gui.draw import palette

Fonts = dict[str, QFont]  # "text", "bold", "title", "mono", "big"
Words = str | tuple[str, ...]  # one wording, or several from the longest to the shortest
Label = tuple[Words, str, QColor]  # words, font name, colour
GOLD = QColor("#F0C419")


def qdisc_fonts() -> Fonts:
    return {
        "text": _font(11),
        "bold": _font(11, bold=True),
        "title": _font(14, bold=True),
        "mono": _font(11, mono=True),
        "big": _font(16),
    }


def _font(point_size: int, bold: bool = False, mono: bool = False) -> QFont:
    font = QFont("monospace") if mono else QFont()
    if mono:
        font.setStyleHint(QFont.StyleHint.TypeWriter)
    font.setPointSize(point_size)
    font.setBold(bold)
    return font


def fitted_words(p: QPainter, text: Words, width: float) -> str:
    """The first wording of ``text`` that fits ``width`` in the painter's font in full, else the last
    elided with "…" (small panels stay tidy: "holds busylock" becomes "busylock", not "holds busy…")."""
    fm = p.fontMetrics()
    options = (text,) if isinstance(text, str) else text
    for option in options:
        if fm.horizontalAdvance(option) <= width:
            return option
    return fm.elidedText(options[-1], Qt.TextElideMode.ElideRight, int(width))


def draw_text(p: QPainter, rect: QRectF, flags: Qt.AlignmentFlag, text: Words) -> None:
    """Draw ``text`` (one wording, or several longest first) in ``rect``: see ``fitted_words``."""
    p.drawText(rect, flags, fitted_words(p, text, rect.width()))


def draw_pair(p: QPainter, fonts: Fonts, rect: QRectF, left: Label, right: Label) -> None:
    """Two labels on one line: ``right`` in full at the right, ``left`` elided into what is left."""
    p.setFont(fonts[right[1]])
    right_words = fitted_words(p, right[0], rect.width())
    right_w = p.fontMetrics().horizontalAdvance(right_words)
    p.setPen(right[2])
    draw_text(p, rect, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, right_words)
    p.setFont(fonts[left[1]])
    p.setPen(left[2])
    room = QRectF(rect.x(), rect.y(), max(rect.width() - right_w - 10, 0.0), rect.height())
    draw_text(p, room, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, left[0])


def draw_label(
    p: QPainter, fonts: Fonts, center: QPointF, text: str, font: str = "text", alarm: bool = False
) -> None:
    """A line of text centred on ``center`` over a white patch, legible on hatching."""
    p.setFont(fonts[font])
    width = p.fontMetrics().horizontalAdvance(text) + 8
    rect = QRectF(center.x() - width / 2, center.y() - 10, width, 20)
    p.fillRect(rect, palette.BACKGROUND)
    p.setPen(palette.VERMILLION.darker(140) if alarm else palette.TEXT)
    draw_text(p, rect, Qt.AlignmentFlag.AlignCenter, text)
