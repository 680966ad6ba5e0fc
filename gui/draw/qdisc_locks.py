"""The qdisc's locks and its dequeuer token painted: the RUNNING bit's parking slot, the root lock and the
busylock queue as a column of boxes with a chip per holder and spinner (or, in a narrow panel, a strip of
three boxes of one line each), and the RUNNING token itself, the gold coin that marks the dequeuer.
Where the column and the token go is ``gui.draw.qdisc_geometry``'s.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QPainter, QPen, QPolygonF

from gui.draw import palette
from gui.draw.qdisc_geometry import TOKEN_R, Box, busylock_line
from gui.draw.qdisc_style import GOLD, Fonts, Words, draw_text
from model.snapshot import QdiscView

Chips = list[tuple[int, str]]  # (cpu, what it does with the lock)


def slot_rect(locks: Box) -> QRectF:
    """The RUNNING bit's parking slot, at the top of the locks' column."""
    x, y, w, _h = locks
    return QRectF(x, y, w, 62.0)


def draw_slot(p: QPainter, fonts: Fonts, slot: QRectF, q: QdiscView) -> None:
    """The RUNNING bit's parking slot: who holds the bit, or "free" beside the parked token."""
    x, y, w = slot.x(), slot.y(), slot.width()
    p.setPen(QPen(palette.TEXT, 1.5, Qt.PenStyle.DashLine))
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.drawRoundedRect(slot, 6, 6)
    p.setPen(palette.TEXT)
    p.setFont(fonts["text"])
    p.setFont(fonts["bold"])
    draw_text(p, QRectF(x, y + 2, w, 20), Qt.AlignmentFlag.AlignCenter, ("RUNNING bit", "RUNNING"))
    p.setFont(fonts["text"])
    if q.dequeuer_cpu >= 0:
        held = (f"held by cpu{q.dequeuer_cpu}", f"cpu{q.dequeuer_cpu}")
        draw_text(p, QRectF(x, y + 28, w - 8, 24), Qt.AlignmentFlag.AlignCenter, held)
    else:  # the token parks on the right of this slot
        draw_text(p, QRectF(x + 8, y + 28, w, 24), Qt.AlignmentFlag.AlignVCenter, "free")


def draw_lock_queues(p: QPainter, fonts: Fonts, locks: Box, q: QdiscView) -> None:
    """Under the slot, the root lock and then the busylock: a chip for the holder and each spinner."""
    x, y, w, h = locks
    slot = slot_rect(locks)
    root = [(q.root_lock_owner, "holds")] if q.root_lock_owner >= 0 else []
    busy = [(q.busylock_owner, "holds")] if q.busylock_owner >= 0 else []
    busy += [(cpu, f"#{i + 1} spins") for i, cpu in enumerate(busylock_line(q))]
    root_rect = QRectF(x, slot.bottom() + 10, w, 56.0)
    busy_rect = QRectF(x, root_rect.bottom() + 10, w, y + h - root_rect.bottom() - 10)
    draw_lock(p, fonts, root_rect, "root lock", root)
    draw_lock(p, fonts, busy_rect, "busylock", busy)


def draw_lock(p: QPainter, fonts: Fonts, rect: QRectF, title: str, chips: Chips) -> None:
    p.setPen(QPen(palette.TEXT, 1.5))
    p.setBrush(QBrush(palette.LIGHT_GREY))
    p.drawRoundedRect(rect, 6, 6)
    p.setFont(fonts["bold"])
    draw_text(p, QRectF(rect.x(), rect.y() + 2, rect.width(), 20), Qt.AlignmentFlag.AlignCenter, title)
    p.setFont(fonts["text"])
    if not chips:
        draw_text(p, QRectF(rect.x(), rect.y() + 24, rect.width(), 22), Qt.AlignmentFlag.AlignCenter, "free")
        return
    chip_h = min(26.0, (rect.height() - 28) / len(chips))
    if chip_h < p.fontMetrics().height() + 2:  # too many to stack: the holder, then the line in words
        _draw_lock_words(p, rect, chips)
        return
    for i, (cpu, word) in enumerate(chips):
        chip = QRectF(rect.x() + 5, rect.y() + 24 + i * chip_h, rect.width() - 10, chip_h - 3)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QBrush(palette.cpu_color(cpu)))
        p.drawRoundedRect(chip, 4, 4)
        p.setPen(palette.text_on(palette.cpu_color(cpu)))
        draw_text(p, chip, Qt.AlignmentFlag.AlignCenter, f"cpu{cpu} {word}")


def _draw_lock_words(p: QPainter, rect: QRectF, chips: Chips) -> None:
    """A lock's holder and queue in words, wrapped under its title, when the chips would not fit."""
    words = f"cpu{chips[0][0]} {chips[0][1]}"
    if len(chips) > 1:
        words += "; then " + ", ".join(f"cpu{cpu}" for cpu, _w in chips[1:])
    text = QRectF(rect.x() + 4, rect.y() + 24, rect.width() - 8, rect.height() - 26)
    flags = Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap
    fitted = p.fontMetrics().elidedText(
        words,
        Qt.TextElideMode.ElideRight,
        int(text.width() * max(text.height() // p.fontMetrics().height(), 1) * 0.9),
    )
    p.drawText(text, flags, fitted)


def draw_locks_row(p: QPainter, fonts: Fonts, locks: Box, q: QdiscView) -> None:
    """Narrow panel: three boxes in a strip, each a title and who holds or waits, in one line."""
    x, y, w, h = locks
    third = (w - 16) / 3
    holder = f"cpu{q.dequeuer_cpu}" if q.dequeuer_cpu >= 0 else "free"
    root = f"cpu{q.root_lock_owner}" if q.root_lock_owner >= 0 else "free"
    line = busylock_line(q)
    owner = f"cpu{q.busylock_owner}" if q.busylock_owner >= 0 else "free"
    busy = (owner + "".join(f" ◂ cpu{c}" for c in line), f"{owner} ◂ +{len(line)}") if line else owner
    centre = Qt.AlignmentFlag.AlignCenter
    boxes: tuple[tuple[Words, Words, bool], ...] = (
        (("RUNNING bit", "RUNNING"), holder, True),
        ("root lock", root, False),
        ("busylock", busy, False),
    )
    for k, (title, words, dashed) in enumerate(boxes):
        box = QRectF(x + k * (third + 8), y, third, h)
        p.setPen(QPen(palette.TEXT, 1.5, Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine))
        p.setBrush(Qt.BrushStyle.NoBrush if dashed else QBrush(palette.LIGHT_GREY))
        p.drawRoundedRect(box, 6, 6)
        p.setPen(palette.TEXT)
        # The RUNNING box leaves room on its right for the parked token, which reaches up into the
        # title's line too while it is parked there (the title may then shorten to "RUN…").
        room = box.width() - (44 if dashed else 8)
        parked = dashed and q.dequeuer_cpu < 0
        p.setFont(fonts["bold"])
        draw_text(p, QRectF(box.x() + 4, box.y() + 2, room if parked else box.width() - 8, 20), centre, title)
        p.setFont(fonts["text"])
        draw_text(p, QRectF(box.x() + 4, box.y() + 24, room, 22), centre, words)


def token_bounds(xy: tuple[float, float], r: float = TOKEN_R) -> QRectF:
    """Where ``draw_token`` draws for a token of radius ``r`` centred on ``xy``, its outline included."""
    cx, cy = xy
    return QRectF(cx - r - 3, cy - r - 3, 2 * r + 6, 2 * r + 6)


def draw_token(p: QPainter, xy: tuple[float, float], r: float = TOKEN_R) -> None:
    """The RUNNING token: a gold coin with a crown, so nobody misses who dequeues."""
    cx, cy = xy
    p.setPen(QPen(GOLD.darker(160), 2.5))
    p.setBrush(QBrush(GOLD))
    p.drawEllipse(QPointF(cx, cy), r, r)
    crown = QPolygonF(
        [
            QPointF(cx + dx * r, cy + dy * r)
            for dx, dy in (
                (-0.55, 0.35),
                (-0.6, -0.3),
                (-0.3, 0.0),
                (0.0, -0.5),
                (0.3, 0.0),
                (0.6, -0.3),
                (0.55, 0.35),
            )
        ]
    )
    p.setPen(QPen(palette.TEXT, 1.5))
    p.setBrush(QBrush(palette.TEXT))
    p.drawPolygon(crown)
