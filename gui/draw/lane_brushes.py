"""How a segment code is filled wherever tasks are drawn (the CPU lanes, the run queues' chips): a task's
colour and pattern by tid, or a CPU state's (idle, hardirq, softirq); white beneath the patterns.
Brushes are made once per code and colour slot, until the theme changes."""

from __future__ import annotations

import functools

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QPainter

from gui.draw import palette
from gui.draw.lane_history import HARDIRQ, SOFTIRQ, TENURE


def code_brush(code: int) -> QBrush:
    """The brush of a segment code (a tid, or idle / hardirq / softirq)."""
    return _brush(code, palette.task_slot(code) if code > 0 else code)


@functools.lru_cache(maxsize=256)
def _brush(code: int, slot: int) -> QBrush:
    """Made once per code and colour slot (a new run may number its tasks' colours anew)."""
    if code > 0:
        return QBrush(palette.task_color(code), palette.task_pattern(code))
    if code == TENURE:  # the dequeuer's tenures: its badge's yellow
        return QBrush(palette.YELLOW)
    state = {HARDIRQ: "hardirq", SOFTIRQ: "softirq"}.get(code, "idle")
    return QBrush(palette.STATE_COLORS[state], palette.STATE_PATTERNS[state])


def fill_style(code: int) -> tuple[bool, bool]:
    """(white first, then the brush) for a code: patterns go over white so they read on any background."""
    return _fill_style(code, palette.task_slot(code) if code > 0 else code)


@functools.lru_cache(maxsize=256)
def _fill_style(code: int, slot: int) -> tuple[bool, bool]:
    style = _brush(code, slot).style()
    return style != Qt.BrushStyle.SolidPattern, style != Qt.BrushStyle.NoBrush


def fill_code(p: QPainter, rect: QRectF, code: int) -> None:
    """Fill ``rect`` as a segment of ``code`` is filled (white beneath a pattern)."""
    under, over = fill_style(code)
    if under:
        p.fillRect(rect, palette.BACKGROUND)
    if over:
        p.fillRect(rect, code_brush(code))


def forget_brushes() -> None:
    """The theme changed: make every code's brush anew from the palette in force."""
    _brush.cache_clear()
    _fill_style.cache_clear()
