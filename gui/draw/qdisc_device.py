"""The network device at the end of the transmit path painted: its box and its lines of words (which
device, its TX ring, hatched red with "STOPPED" when a ring is full), and in a tall enough box the TX
ring's gauge, one column per ring, with its reading. The frame changes rarely and the gauge nearly every
frame, so they are drawn apart.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QPainter, QPen

from gui.draw import palette
from gui.draw.qdisc_geometry import ring_fill, stopped_rings_text
from gui.draw.qdisc_style import Fonts, Words, draw_label
from model.snapshot import QdiscView

DeviceLines = list[tuple[str, Words]]  # (font name, its wordings, longest first)
STOPPED = ("STOPPED", "stop")


def is_short(rect: QRectF) -> bool:
    """No room for the gauge: its reading, and the alarm, go in the box's lines instead."""
    return rect.height() < 150


def device_lines(rect: QRectF, q: QdiscView) -> DeviceLines:
    """The device box's lines of words, (font, text), as many as its height holds."""
    lines: DeviceLines = [("bold", ("dummy device", "dummy") if q.device == "dummy" else ("10G NIC", "NIC"))]
    lines.append(("text", ("TX ring", "ring") if q.tx_ring_size > 0 else ("frees each", "frees")))
    if q.tx_ring_size <= 0:
        lines.append(("text", ("packet at once", "at once")))
    short = is_short(rect)
    if short and q.tx_ring_size > 0:
        lines.append(("text", (f"{q.tx_ring_used}/{q.tx_ring_size}", f"{q.tx_ring_used}")))
    if short and q.device_stopped:
        lines.append(("bold", STOPPED))
    fits = max(int((rect.height() - 6) // 22), 1)
    if len(lines) > fits and len(lines) > 1:
        del lines[1]  # "TX ring" goes first
    return lines[:fits]


def draw_device_frame(p: QPainter, fonts: Fonts, rect: QRectF, stopped: bool, lines: DeviceLines) -> None:
    """The device's box (hatched red when a ring is stopped) and its lines of words."""
    p.setPen(QPen(palette.VERMILLION if stopped else palette.TEXT, 3 if stopped else 1.5))
    p.setBrush(QBrush(palette.BACKGROUND))
    p.drawRoundedRect(rect, 6, 6)
    if stopped:
        p.fillRect(rect.adjusted(3, 3, -3, -3), QBrush(palette.VERMILLION, Qt.BrushStyle.BDiagPattern))
    for i, (font, text) in enumerate(lines):
        at = QPointF(rect.center().x(), rect.y() + 16 + 22 * i)
        draw_label(p, fonts, at, text, font, text == STOPPED, rect.width() - 4)


def draw_tx_ring(p: QPainter, fonts: Fonts, rect: QRectF, q: QdiscView) -> None:
    """The TX ring's gauge in the device's box, its reading under it and the alarm at the bottom."""
    if is_short(rect) or q.tx_ring_size <= 0:
        return
    gauge = QRectF(rect.center().x() - 18, rect.y() + 54, 36, rect.height() - 130)
    p.fillRect(gauge, palette.BACKGROUND)
    rings = ring_fill(q)  # one column per TX ring (3.0 ixgbe: the sending CPU's own ring)
    col_w = gauge.width() / len(rings)
    for i, (share, ring_stopped) in enumerate(rings):
        fill = gauge.height() * share
        color = palette.VERMILLION if ring_stopped else palette.SKY_BLUE
        p.fillRect(QRectF(gauge.x() + i * col_w, gauge.bottom() - fill, col_w, fill), color)
    p.setPen(QPen(palette.TEXT, 1.5))
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.drawRect(gauge)
    for i in range(1, len(rings)):
        x = gauge.x() + i * col_w
        p.drawLine(QPointF(x, gauge.top()), QPointF(x, gauge.bottom()))
    reading = (
        f"{q.tx_ring_used} / {q.tx_ring_size}",
        f"{q.tx_ring_used}/{q.tx_ring_size}",
        f"{q.tx_ring_used}",
    )
    room = rect.width() - 4
    draw_label(p, fonts, QPointF(rect.center().x(), gauge.bottom() + 14), reading, room=room)
    if q.device_stopped:
        lines: tuple[Words, ...] = (STOPPED, stopped_rings_text(q))
        for i, text in enumerate(lines):
            at = QPointF(rect.center().x(), rect.bottom() - 42 + 20 * i)
            draw_label(p, fonts, at, text, "bold", True, room)
