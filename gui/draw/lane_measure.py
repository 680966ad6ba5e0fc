"""An interval measured on the CPU lanes, as trace viewers have it (Perfetto's area selection, KernelShark's
A/B markers): a Shift+drag across the strips marks where it starts and where it ends, in simulated
time, so the marks move with the strip; a Shift+click without a drag clears them. The strips show the
interval between two dashed lines, its length in a bar above; the pointer's tip in it says how each CPU
spent it.

How a CPU spent it is read from what its lane keeps (``gui.draw.lane_history``), so it is what the strip
draws: an interrupt's time is taken from the task it interrupted, as the model charges it, and stretches
shorter than the lane's merge quantum have been merged into their neighbours' code.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QFont, QPainter, QPen

from gui.draw import palette
from gui.draw.formats import exact_duration, format_duration
from gui.draw.lane_history import HARDIRQ, IDLE, SOFTIRQ, LaneHistory, time_to_x
from gui.draw.lane_window import ShownWindow
from gui.draw.static_text import font_metrics

DRAG_PX = 3.0  # a Shift+press moved less than this is a click: it clears the marks


class Interval(NamedTuple):
    """A measured stretch of simulated time, A before B."""

    a_ns: int
    b_ns: int

    @property
    def length_ns(self) -> int:
        return self.b_ns - self.a_ns


def marked(t0_ns: float, t1_ns: float, now_ns: int) -> Interval | None:
    """The interval a drag from ``t0_ns`` to ``t1_ns`` marks, inside [0, now]; None if it is empty."""
    a, b = sorted((round(t0_ns), round(t1_ns)))
    a, b = max(a, 0), min(b, now_ns)
    return Interval(a, b) if b > a else None


def _overlap(start: int, end: int, iv: Interval) -> int:
    return max(0, min(end, iv.b_ns) - max(start, iv.a_ns))


def time_spent(lane: LaneHistory, iv: Interval, now_ns: int) -> dict[int, int]:
    """Nanoseconds of ``iv`` per code on ``lane`` (a tid, IDLE, HARDIRQ, SOFTIRQ), as the lane keeps them:
    each interrupt's time is taken off the task it ran over. What the lane no longer keeps (its tasks,
    or, further back than its oldest, its interrupts) is left out, so the sum is at most the interval's
    length."""
    spent: dict[int, int] = {}
    iv = Interval(max(iv.a_ns, lane.complete_from()), iv.b_ns)
    if iv.length_ns <= 0:
        return spent
    segments = [s for s in lane.task_segments(now_ns) if _overlap(s[0], s[1], iv)]
    for start, end, code in segments:
        spent[code] = spent.get(code, 0) + _overlap(start, end, iv)
    k = 0
    for start, end, code in lane.irq_segments(now_ns=now_ns):
        part = _overlap(start, end, iv)
        if not part:
            continue
        spent[code] = spent.get(code, 0) + part
        while k < len(segments) and segments[k][1] <= start:  # both time-ordered
            k += 1
        j = k
        while j < len(segments) and segments[j][0] < end:  # the tasks under it lose that time
            seg = segments[j]
            under = _overlap(max(start, seg[0]), min(end, seg[1]), iv)
            spent[seg[2]] = spent.get(seg[2], 0) - under
            j += 1
    return {code: ns for code, ns in spent.items() if ns > 0}


def describe_spent(i: int, iv: Interval, spent: Mapping[int, int], names: Mapping[int, str]) -> str:
    """The tip for CPU ``i`` inside the interval: its length, then each part, largest first."""
    words = {IDLE: "idle", HARDIRQ: "hardirq", SOFTIRQ: "softirq"}
    lines = [f"the marked interval: {exact_duration(iv.length_ns)}; on CPU {i}, as drawn:"]
    for code, ns in sorted(spent.items(), key=lambda kv: -kv[1]):
        who = words.get(code) or names.get(code, f"task {code}")
        lines.append(f"  {who} {format_duration(ns)} ({100 * ns / iv.length_ns:.0f} %)")
    unknown = iv.length_ns - sum(spent.values())
    if unknown > 0:
        lines.append(f"  not kept by the lane (too far back): {format_duration(unknown)}")
    return "\n".join(lines)


def paint_interval(p: QPainter, iv: Interval, strips: QRectF, shown: ShownWindow, font: QFont) -> None:
    """The interval over ``strips`` (the strips' left, top, width and total height): a dashed line at
    each end, joined at the top by a bar that carries its length. Nothing is tinted: the tasks keep
    their colours under it."""
    x0, w = strips.left(), strips.width()
    xa = time_to_x(iv.a_ns, shown.end_ns, shown.width_ns, x0, w)
    xb = time_to_x(iv.b_ns, shown.end_ns, shown.width_ns, x0, w)
    if xb < x0 or xa > x0 + w:
        return  # panned or scrolled out of view
    left, right = max(xa, x0), min(xb, x0 + w)
    fm = font_metrics(font)
    bar_y = strips.top() + fm.height() / 2 + 2
    for x in (xa, xb):
        if x0 <= x <= x0 + w:
            p.setPen(QPen(palette.BACKGROUND, 4))  # a white edge: the line reads over any colour
            p.drawLine(QPointF(x, strips.top()), QPointF(x, strips.bottom()))
            p.setPen(QPen(palette.TEXT, 2, Qt.PenStyle.DashLine))
            p.drawLine(QPointF(x, strips.top()), QPointF(x, strips.bottom()))
    p.setPen(QPen(palette.TEXT, 2))
    p.drawLine(QPointF(left, bar_y), QPointF(right, bar_y))
    words = format_duration(iv.length_ns)
    box_w = fm.horizontalAdvance(words) + 12
    cx = min(max((left + right) / 2, x0 + box_w / 2), x0 + w - box_w / 2)
    box = QRectF(cx - box_w / 2, strips.top() + 2, box_w, fm.height() + 4)
    p.setPen(QPen(palette.TEXT, 1))
    p.setBrush(palette.BACKGROUND)
    p.drawRoundedRect(box, 4, 4)
    p.setFont(font)
    p.drawText(box, Qt.AlignmentFlag.AlignCenter, words)
