"""Painting the run-queue panel's scene items: chips, key trails (CFS, EEVDF), a yield landing's ring,
arrow, label and leader. Plain functions of a painter and the item (the panel decides what and when)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPainterPath, QPen

from gui.draw import palette
from gui.draw.landing import Landing, arrow_path, arrow_wanted, landing_label, leader_line
from gui.draw.lane_brushes import code_brush
from gui.draw.lane_painting import FADED
from gui.draw.runqueue_scene import ALIGN_LEFT, BOLD, PLAIN, Chip, TrailLine

TRAIL_INK = 0.7  # how much of its task's colour a trail shows over the background


def paint_chip_body(p: QPainter, chip: Chip, fonts: Sequence[QFont]) -> None:
    """A chip: its task's brush, a thick outline while it runs, its name and detail line."""
    pen = QPen(palette.TEXT, 3 if chip.running else 1)
    brush = code_brush(chip.tid)
    solid = brush.style() == Qt.BrushStyle.SolidPattern
    if not solid:  # a pattern reads over white, and so does dark text on it
        p.setPen(pen)
        p.setBrush(palette.BACKGROUND)
        p.drawRoundedRect(chip.rect, 5, 5)
    p.setPen(pen)
    p.setBrush(brush)
    p.drawRoundedRect(chip.rect, 5, 5)
    p.setPen(palette.text_on(palette.task_color(chip.tid)) if solid else palette.TEXT)
    p.setFont(fonts[BOLD])
    title = chip.rect.adjusted(9, 1, -4, -chip.rect.height() / 2 + 1 if chip.detail else 0)
    p.drawText(title, ALIGN_LEFT, chip.title)
    if chip.detail:
        p.setFont(fonts[PLAIN])
        p.drawText(chip.rect.adjusted(9, chip.rect.height() / 2 - 3, -4, -2), ALIGN_LEFT, chip.detail)


def paint_trails(p: QPainter, trails: Sequence[TrailLine], followed: int) -> None:
    """Each task's recent keys (CFS, EEVDF), in its colour, lighter than its chip (fainter still while
    another task is followed): opaque and aliased, which draws several times faster than a
    translucent antialiased pen over hundreds of points."""
    p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
    p.setBrush(Qt.BrushStyle.NoBrush)
    clip = None
    for trail in trails:
        if trail.clip != clip:
            clip = trail.clip
            p.setClipRect(clip)
        shown = TRAIL_INK if followed in (0, trail.tid) else TRAIL_INK * FADED
        p.setPen(QPen(palette.mixed(palette.task_color(trail.tid), shown), 2))
        p.drawPolyline(trail.points)
    p.setClipping(False)


def paint_landing(p: QPainter, ld: Landing, alpha: float, font: QFont) -> None:
    """A dashed ring where the yielder is now, an arrow from where it ran, and a plain-words label."""
    if alpha <= 0 or ld.to_rect is None:
        return
    ink, fill = QColor(palette.TEXT), QColor(palette.YELLOW)
    ink.setAlphaF(alpha)
    fill.setAlphaF(alpha)
    to = ld.to_rect.adjusted(-5, -5, 5, 5)
    p.setPen(QPen(ink, 3, Qt.PenStyle.DashLine))
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.drawRoundedRect(to, 8, 8)
    fr = ld.from_rect
    if not ld.picked_again and fr is not None and arrow_wanted(fr, ld.to_rect):
        a, ctrl, b = arrow_path(fr, to)
        path = QPainterPath(a)
        path.quadTo(ctrl, b)
        p.setPen(QPen(ink, 3))
        p.drawPath(path)
        p.setBrush(ink)
        p.drawEllipse(a, 4, 4)
        arrow_head(p, ctrl, b, ink)
    if ld.label_rect is not None:
        paint_label(p, ld.label_rect, landing_label(ld), ink, fill, font, QPen(ink, 1))


def paint_leader(p: QPainter, ld: Landing, alpha: float) -> None:
    """The line from a landing's label above or below its ring to the ring (none beside it)."""
    lab = ld.label_rect
    if alpha <= 0 or ld.to_rect is None or lab is None:
        return
    line = leader_line(lab, ld.to_rect.adjusted(-5, -5, 5, 5))
    if line is not None:
        ink = QColor(palette.TEXT)
        ink.setAlphaF(alpha)
        p.setPen(QPen(ink, 1))
        p.drawLine(*line)


def paint_label(
    p: QPainter, r: QRectF, text: str, ink: QColor, fill: QColor, font: QFont, pen: QPen | None = None
) -> None:
    """A rounded tag: ``text`` centred in ``r`` on ``fill``, outlined by ``pen`` if given."""
    p.setPen(pen or Qt.PenStyle.NoPen)
    p.setBrush(fill)
    p.drawRoundedRect(r, 4, 4)
    p.setPen(ink)
    p.setFont(font)
    p.drawText(r, Qt.AlignmentFlag.AlignCenter, text)


def arrow_head(p: QPainter, frm: QPointF, tip: QPointF, color: QColor) -> None:
    """A filled head at ``tip`` for a line arriving from ``frm``."""
    angle = math.atan2(tip.y() - frm.y(), tip.x() - frm.x())
    pts = [tip] + [
        QPointF(tip.x() - 14 * math.cos(angle + s), tip.y() - 14 * math.sin(angle + s)) for s in (0.4, -0.4)
    ]
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(color)
    p.drawPolygon(pts)
