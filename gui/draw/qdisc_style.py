"""The look the qdisc panel's painters share: its fonts, the dequeuer's gold, and the three ways it sets
a line of text (in a box, the first of its wordings that fits or the last elided; two labels on one
line; a label centred on a white patch so it stays legible on hatching). Each painter gets the fonts
as a ``Fonts`` mapping by name.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter

from gui.draw import palette

Fonts = dict[str, QFont]  # "text", "bold", "title", "mono", "big"
Words = str | tuple[str, ...]  # one wording, or several from the longest to the shortest
Label = tuple[Words, str, QColor]  # words, font name, colour
PAIR_GAP = 10  # px between the two labels of a pair
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
    options = _options(text)
    for option in options:
        if fm.horizontalAdvance(option) <= width:
            return option
    return fm.elidedText(options[-1], Qt.TextElideMode.ElideRight, int(width))


def draw_text(p: QPainter, rect: QRectF, flags: Qt.AlignmentFlag, text: Words) -> None:
    """Draw ``text`` (one wording, or several longest first) in ``rect``: see ``fitted_words``."""
    p.drawText(rect, flags, fitted_words(p, text, rect.width()))


def draw_pair(p: QPainter, fonts: Fonts, rect: QRectF, left: Label, right: Label) -> None:
    """Two labels on one line, ``right`` at the right and ``left`` at the left: the first of their
    wordings, taken level by level (both long, then both shorter…), that fit together; failing that,
    the shortest ones, the left elided into what is left."""
    left_words, right_words, right_w = pair_words(p, fonts, rect.width(), left, right)
    p.setPen(right[2])
    draw_text(p, rect, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, right_words)
    p.setFont(fonts[left[1]])
    p.setPen(left[2])
    room = QRectF(rect.x(), rect.y(), max(rect.width() - right_w - PAIR_GAP, 0.0), rect.height())
    draw_text(p, room, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, left_words)


def pair_words(p: QPainter, fonts: Fonts, width: float, left: Label, right: Label) -> tuple[str, str, float]:
    """``draw_pair``'s choice: (left words, right words, the right's width), the painter left in the
    right label's font."""
    levels = max(len(_options(left[0])), len(_options(right[0])))
    lefts, rights = _options(left[0], levels), _options(right[0], levels)
    p.setFont(fonts[left[1]])
    left_w = [p.fontMetrics().horizontalAdvance(w) for w in lefts]
    p.setFont(fonts[right[1]])
    right_w = [p.fontMetrics().horizontalAdvance(w) for w in rights]
    k = next((k for k in range(levels) if left_w[k] + PAIR_GAP + right_w[k] <= width), levels - 1)
    return lefts[k], rights[k], right_w[k]


def _options(text: Words, levels: int = 0) -> tuple[str, ...]:
    """A label's wordings, the last repeated to make ``levels`` of them."""
    options = (text,) if isinstance(text, str) else text
    return options + options[-1:] * (levels - len(options))


def draw_label(
    p: QPainter,
    fonts: Fonts,
    center: QPointF,
    text: Words,
    font: str = "text",
    alarm: bool = False,
    room: float = math.inf,
) -> None:
    """A line of text centred on ``center`` over a white patch, legible on hatching: the first wording
    of ``text`` that fits ``room`` px (the box it labels), else the last one elided."""
    p.setFont(fonts[font])
    words = fitted_words(p, text, room - 8)
    width = min(p.fontMetrics().horizontalAdvance(words) + 8, room)
    rect = QRectF(center.x() - width / 2, center.y() - 10, width, 20)
    p.fillRect(rect, palette.BACKGROUND)
    p.setPen(palette.VERMILLION.darker(140) if alarm else palette.TEXT)
    p.drawText(rect, Qt.AlignmentFlag.AlignCenter, words)
