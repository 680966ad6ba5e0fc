"""Painting the parts of the CPU lanes panel: the legend's entries, a lane's head (the CPU, what it runs
now, its need_resched and dequeuer badges), a lane's Gantt strip with its interrupts, named segments
and yield marks, and the time axis below the lanes. Each function draws what it is given, in the
painter's logical pixels; the panel keeps the history, the geometry and the caches."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import NamedTuple

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPainterPath, QPen, QPolygonF

from gui.draw import palette
from gui.draw.formats import format_duration, tick_label
from gui.draw.lane_brushes import fill_code, fill_style
from gui.draw.lane_history import HARDIRQ, IDLE, SOFTIRQ, time_to_x
from gui.draw.lane_window import ShownWindow, tick_instants
from gui.draw.static_text import font_metrics
from model.snapshot import CpuView

Runs = list[tuple[int, int, int]]  # pixel runs (x0, x1, code)
IrqRuns = list[tuple[int, int, int, float]]  # pixel runs (x0, x1, code, strength)
LaneRuns = tuple[Runs, IrqRuns, list[tuple[int, bool]], Runs]  # tasks, interrupts, yield marks, tenures

YIELD_LEGEND = ("yield → switched", "yield → kept the CPU")
TENURE_LEGEND = "dequeuer (RUNNING bit)"
YIELD_H = 10  # the band above a strip that holds its yield marks


class LaneFonts(NamedTuple):
    """The panel's three fonts, made once."""

    plain: QFont
    bold: QFont  # task names
    big: QFont  # "CPU n"


def shown_code(cpu: CpuView) -> int:
    """The segment code a lane's head shows: the interrupt its CPU serves, else the task it runs."""
    return {"hardirq": HARDIRQ, "softirq": SOFTIRQ}.get(cpu.state, cpu.curr_tid)


def paint_legend(p: QPainter, items: Iterable[tuple[QRectF, str, int | None]], font: QFont) -> None:
    """The flowed legend: (swatch, text, code) entries; code None for the yield marks."""
    p.setFont(font)
    for rect, text, code in items:
        if code is None:  # the yield marks, drawn as on the lanes
            yield_marks(p, [(rect.center().x(), text == YIELD_LEGEND[0])], rect.top() + 3)
        else:
            _swatch(p, rect, code)
        p.setPen(palette.TEXT)
        p.drawText(QPointF(rect.right() + 6, rect.bottom() - 2), text)


# A one-line head too narrow for a badge's word beside the CPU's name (a comparison's fourth side) says
# it shorter; the head's tooltip says it whole.
SHORT_BADGES = {"resched": "rs", "dequeuer": "deq"}


def paint_lane_head(
    p: QPainter,
    r: QRectF,
    i: int,
    cpu: CpuView | None,
    names: Mapping[int, str],
    dequeuer: bool,
    fonts: LaneFonts,
    last_cpu: int = -1,
) -> None:
    """The CPU's name, what it runs now (swatch and words), and its badges: need_resched, dequeuer.
    Quiet CPUs sharing the lane (``i`` to ``last_cpu``) are named together ("CPU 2–7") and are idle.

    Tall lanes use two lines (badges beside the name); short ones one line, badges at its end."""
    fm = font_metrics(fonts.big)
    two_lines = r.height() >= 46
    base = r.top() + 2 + fm.ascent() if two_lines else r.center().y() + fm.ascent() / 2 - 2
    name = f"CPU {i}–{last_cpu}" if last_cpu > i else f"CPU {i}"
    p.setFont(fonts.big)
    p.setPen(palette.TEXT)
    p.drawText(QPointF(r.left(), base), name)
    if cpu is None:
        return
    badges = [("need_resched" if two_lines else "resched", False)] if cpu.need_resched else []
    badges += [("dequeuer", True)] if dequeuer else []
    plain = font_metrics(fonts.plain)
    # A head too narrow for the badges beside the name (a comparison's fourth side)
    crowded = (
        fm.horizontalAdvance(name) + 6 + sum(plain.horizontalAdvance(t) + 16 for t, _ in badges) > r.width()
    )
    if crowded and two_lines and badges:
        # the badges take the second line, in place of the task, which the strip beside it shows
        left = r.left()
        for text, filled in badges:
            width = plain.horizontalAdvance(text) + 12
            badge(p, left + width, base + 22, text, fonts.plain, filled)
            left += width + 4
        return
    if crowded:  # one line: "deq" rather than over the name
        badges = [(SHORT_BADGES[text], filled) for text, filled in badges]
    right = r.right()
    for text, filled in reversed(badges):
        right = badge(p, right, base, text, fonts.plain, filled) - 4
    code = shown_code(cpu)
    label = names.get(code, f"task {code}") if code > 0 else cpu.state
    if code < 0 and cpu.curr_tid:
        label += f" (over {names.get(cpu.curr_tid, cpu.curr_tid)})"
    if two_lines:
        swatch, right = QRectF(r.left(), base + 8, 22, 16), r.right()
    else:
        swatch = QRectF(
            r.left() + max(fm.horizontalAdvance(t) for t in ("CPU 00", name)) + 4, base - 13, 22, 16
        )
        if right < swatch.right() + 8:  # a narrow head (a comparison's sides): the badges go first,
            return  # and the strip beside it shows the task
    _swatch(p, swatch, code)
    p.setFont(fonts.bold if code > 0 else fonts.plain)
    room = int(right - swatch.right() - 8)
    metrics = font_metrics(p.font())
    if code < 0 and cpu.curr_tid and metrics.horizontalAdvance(label) > room:
        label = cpu.state  # short of room (badges on a one-line head): the strip shows the task under it
    words = metrics.elidedText(label, Qt.TextElideMode.ElideRight, room)
    if words != "…":  # no room for a letter of it: the swatch says whose it is
        p.drawText(QPointF(swatch.right() + 6, swatch.bottom() - 2), words)


def paint_strip(
    p: QPainter, runs: LaneRuns, r: QRectF, names: Mapping[int, str], bold: QFont, yield_band: bool = True
) -> None:
    """A lane's strip in ``r``: tasks full height, interrupts over their lower part, names on the
    segments wide enough to hold one, and in the band above the dequeuer's tenures (yellow bars, as
    its badge) and the yield marks (``yield_band``; a story in which nothing has yielded or dequeued
    gives the band's height to the strip: at many CPUs it is most of it)."""
    tasks, irqs, yields, tenures = runs
    # The band takes at most 40 % of a short strip (many CPUs), so the tasks keep most of its height.
    band = min(float(YIELD_H), max(4.0, r.height() * 0.4)) if yield_band else 0.0
    bar = QRectF(r.left(), r.top() + band, r.width(), r.height() - band)
    p.setPen(QPen(palette.GREY, 1))
    p.setBrush(palette.BACKGROUND)
    p.drawRect(bar)
    irq_top = bar.top() + bar.height() * 0.6
    labels: list[tuple[QRectF, int]] = []
    fm = font_metrics(bold)
    for xa, xb, code in tasks:
        if code == IDLE:
            continue
        seg = QRectF(xa, bar.top(), xb - xa, bar.height())
        fill_code(p, seg, code)
        if xb - xa > 44 and irq_top - bar.top() >= fm.height():
            labels.append((QRectF(xa + 5, bar.top(), xb - xa - 8, irq_top - bar.top()), code))
    for xa, xb, code, strength in irqs:  # a column partly in interrupts, drawn that much see-through
        p.setOpacity(strength)
        fill_code(p, QRectF(xa, irq_top, xb - xa, bar.bottom() - irq_top), code)
    p.setOpacity(1.0)
    p.setFont(bold)
    for rect, code in labels:
        solid = fill_style(code) == (False, True)
        p.setPen(palette.text_on(palette.task_color(code)) if solid else palette.TEXT)
        # Two pixels short of the segment: an elided bold name's last glyph may reach past its advance.
        name = fm.elidedText(names.get(code, ""), Qt.TextElideMode.ElideRight, int(rect.width()) - 2)
        p.drawText(rect, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, name)
    if band:
        tenure_bars(p, tenures, r.top() + 1, band - 2)
        yield_marks(p, yields, r.top(), band)


def tenure_bars(p: QPainter, tenures: Runs, top: float, height: float) -> None:
    """The dequeuer's tenures on a lane: yellow bars outlined in ink, like the dequeuer's badge; one
    too narrow for an outline (the quota's short turns) is a darker yellow alone, so that a run of them
    reads yellow, not black."""
    if not tenures:
        return
    p.setPen(QPen(palette.TEXT, 1))
    p.setBrush(palette.YELLOW)
    narrow = palette.YELLOW.darker(125)
    for xa, xb, _ in tenures:
        if xb - xa >= 4:
            p.drawRect(QRectF(xa, top, xb - xa, height))
        else:
            p.fillRect(QRectF(xa, top, xb - xa, height + 1), narrow)


FADED = 0.3  # how much of another task's colour shows while one task is followed


def veil_others(p: QPainter, tasks: Runs, r: QRectF, followed: int) -> None:
    """While task ``followed`` is followed, the strip's other tasks fade (a white veil over them), so that
    its stretches stand out on every CPU."""
    veil = QColor(palette.BACKGROUND)
    veil.setAlphaF(1.0 - FADED)
    for xa, xb, code in tasks:
        if code > 0 and code != followed:
            p.fillRect(QRectF(xa, r.top(), xb - xa, r.height()), veil)


def paint_axis(
    p: QPainter, y: float, summary_x: float, strip: tuple[float, float], shown: ShownWindow, font: QFont
) -> None:
    """The time axis at ``y`` under the strips (``strip``: their left edge and width) with round ticks,
    and from ``summary_x`` the time and the window's width."""
    (x0, strip_w), win, end, now = strip, shown.width_ns, shown.end_ns, shown.now_ns
    p.setPen(QPen(palette.TEXT, 1))
    p.setFont(font)
    fm = font_metrics(font)
    p.drawLine(QPointF(x0, y), QPointF(x0 + strip_w, y))
    # Labels go right to left; one that would touch its neighbour (8 px) is left out. The first needs no
    # gap: on a narrow strip (a comparison's sides) its tick is often the only one, at the strip's end.
    free_right = x0 + strip_w + 8
    wanted = max(int(strip_w // 90), 1)
    step, ticks = tick_instants(end, win, wanted)
    if len(ticks) < 2 and strip_w >= 2 * (fm.horizontalAdvance(tick_label(end, step)) + 8):
        # One tick alone gives no scale: a finer round step, if two labels fit (a comparison's narrow
        # strips on a projector: "1006 ms ... 1010 ms" instead of "1010 ms").
        step, ticks = tick_instants(end, win, wanted + 1)
    for t in ticks:
        x = time_to_x(t, end, win, x0, strip_w)
        p.drawLine(QPointF(x, y), QPointF(x, y + 5))
        # Ticks sit at round instants and move with the strip: their labels are those instants
        # (the run's time, as the graphs' axes have it), round numbers whatever now is.
        text = "now" if t == now else tick_label(t, step)
        tw = fm.horizontalAdvance(text)
        left = min(max(x - tw / 2, x0), x0 + strip_w - tw)
        if left + tw + 8 <= free_right:
            p.drawText(QPointF(left, y + 5 + fm.ascent()), text)
            free_right = left
    ago = f", ending {format_duration(shown.offset_ns)} ago" if shown.offset_ns else ""
    p.drawText(
        QPointF(summary_x, y + 5 + fm.ascent()), f"t = {format_duration(now)} · {format_duration(win)}{ago}"
    )


def _swatch(p: QPainter, rect: QRectF, code: int) -> None:
    """A code's fill in an outlined box (the legend's and the lane heads' swatches)."""
    fill_code(p, rect, code)
    p.setPen(QPen(palette.TEXT, 1))
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.drawRect(rect)


def yield_marks(
    p: QPainter, marks: Iterable[tuple[float, bool]], top: float, height: float = YIELD_H
) -> None:
    """Yields on a lane, in a band ``height`` high: a solid triangle where one switched, a tick where
    the yielder kept the CPU."""
    triangles, ticks = QPainterPath(), []
    half = min(4.0, height / 2)
    for x, switched in marks:
        if switched:
            triangles.addPolygon(
                QPolygonF([QPointF(x - half, top), QPointF(x + half, top), QPointF(x, top + height - 1)])
            )
        else:
            ticks.append(QLineF(x, top + 1, x, top + height - 1))
    p.fillPath(triangles, palette.TEXT)
    if ticks:
        p.setPen(QPen(palette.TEXT, 2))
        p.drawLines(ticks)


def badge(p: QPainter, right: float, base: float, text: str, font: QFont, filled: bool) -> float:
    """A rounded badge ending at ``right`` whose text sits on baseline ``base``; returns its left edge.

    The dequeuer token is filled yellow; need_resched is outlined in vermillion."""
    fm = font_metrics(font)
    rect = QRectF(0, base - fm.ascent() - 1, fm.horizontalAdvance(text) + 12, fm.height() + 2)
    rect.moveRight(right)
    p.setPen(QPen(palette.TEXT if filled else palette.VERMILLION, 2))
    p.setBrush(palette.YELLOW if filled else palette.BACKGROUND)
    p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    p.drawRoundedRect(rect, 6, 6)
    p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
    p.setFont(font)
    p.setPen(palette.TEXT)
    p.drawText(QPointF(rect.left() + 6, base), text)
    return rect.left()
