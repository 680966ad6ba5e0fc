"""The transmit path drawn live: sender CPUs, busylock, the RUNNING token, the prio bands and the device.

Left, one box per sender CPU says what it is doing (sending, spinning on ``busylock``, holding the root
lock, or holding the RUNNING bit: the dequeuer, marked by a crowned token that glides between CPUs on a
hand-off). Middle, the bands as FIFOs, band 0 on top, filled in proportion to backlog/limit with the
packets coloured by sending CPU, head on the right towards the device. Right, the device and its TX
ring. Below, ``tc -s``-style counters and why each dequeuer tenure ended. ``render()`` caches the
``QdiscView``; ``paintEvent`` draws it with QPainter from pure layout arithmetic.
"""

from __future__ import annotations

import functools

from PySide6.QtCore import QLineF, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QPainter,
    QPaintEvent,
    QPen,
    QPolygonF,
    QResizeEvent,
)
from PySide6.QtWidgets import QWidget

from gui import pyside_fix  # noqa: F401 - before any paint or emit
from gui.draw import palette
from gui.draw.layer_cache import LayerCache
from gui.draw.qdisc_geometry import (
    TOKEN_EASE,
    Box,
    QdiscLayout,
    busylock_line,
    cpu_role,
    ease_toward,
    exit_rule_text,
    fifo_blocks,
    fifo_runs,
    fmt_count,
    packets_per_block,
    qdisc_layout,
    ring_fill,
    stopped_rings_text,
    token_target,
)
from gui.draw.static_text import font_metrics
from gui.panels.base import HoverTipsPanel
from model.snapshot import BandView, QdiscView, Snapshot

PLACEHOLDER = "This story has no qdisc: pick the 2011 story"
EXIT_REASONS = (
    ("quota", "packet quota used up"),
    ("need_resched", "need_resched set"),
    ("jiffy", "next jiffy began"),
    ("empty", "qdisc empty"),
    ("tx_busy", "device busy"),
)
GOLD = QColor("#F0C419")


def _rect(box: Box) -> QRectF:
    return QRectF(*box)


def _grown(box: Box, margin: float) -> QRectF:
    """``box`` with room around it for the outlines drawn on its edge."""
    return QRectF(*box).adjusted(-margin, -margin, margin, margin)


def _path_bounds(lay: QdiscLayout) -> QRectF:
    """Where ``_draw_path`` draws: from the bands' heads to the device, the funnel, arrow and chip."""
    x0 = lay.bands[0][0] + lay.bands[0][2] if lay.bands else lay.locks[0]
    x1 = lay.device[0]
    cy = lay.device[1] + lay.device[3] / 2
    top = min([cy - 12, *(b[1] for b in lay.bands)])
    bottom = max([cy + 62, *(b[1] + b[3] for b in lay.bands)])
    left, right = min(x0, x1), max(x0, x1)
    return QRectF(left - 6, top - 6, right - left + 12, bottom - top + 12)


def _text(p: QPainter, rect: QRectF, flags: Qt.AlignmentFlag, text: str) -> None:
    """Draw ``text`` in ``rect``, elided with "…" when it does not fit (small panels stay tidy)."""
    fitted = p.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight, int(rect.width()))
    p.drawText(rect, flags, fitted)


LABEL_H, COUNTS_H, MIN_BAR_H = 20.0, 18.0, 14.0
COUNT_LINE = 2  # a CPU box's line of packets dequeued
TOKEN_R = 17.0  # the RUNNING token's radius


def band_parts(h: float) -> tuple[bool, bool]:
    """What a band's row of height ``h`` has room for: (its name line above the bar, its counters
    line below it). A short row keeps the bar; the name then goes inside it, the counters to the tooltip."""
    label = h >= LABEL_H + MIN_BAR_H
    return label, label and h >= LABEL_H + COUNTS_H + MIN_BAR_H


def _fifo_rect(band_box: Box) -> QRectF:
    """The FIFO bar inside a band's row: under its label and above its counters, where they fit."""
    x, y, w, h = band_box
    label, counts = band_parts(h)
    top = y + (LABEL_H if label else 1.0)
    room = h - (LABEL_H if label else 2.0) - (COUNTS_H + 2 if counts else 0.0)
    return QRectF(x, top, w, max(min(room, 46.0), 6.0))


def _packet_color(cpu: int) -> QColor:
    """Packets take their sender's colour; packets the view does not itemise are grey."""
    return palette.cpu_color(cpu) if cpu >= 0 else palette.GREY


def _ink(color: QColor) -> QColor:
    """Text colour readable on ``color``: white on dark fills, dark on light ones."""
    luma = 0.299 * color.red() + 0.587 * color.green() + 0.114 * color.blue()
    return palette.BACKGROUND if luma < 140 else palette.TEXT


def _font(point_size: int, bold: bool = False, mono: bool = False) -> QFont:
    font = QFont("monospace") if mono else QFont()
    if mono:
        font.setStyleHint(QFont.StyleHint.TypeWriter)
    font.setPointSize(point_size)
    font.setBold(bold)
    return font


# ---- the panel -----------------------------------------------------------------------------------


class QdiscPanel(HoverTipsPanel):
    """The prio qdisc and the CPUs contending for its dequeuer role. ``render(snapshot)`` each frame."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAutoFillBackground(False)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)  # paints all of itself: nothing beneath
        self.qdisc: QdiscView | None = None
        self.token_xy: tuple[float, float] | None = None
        self._parts = LayerCache()  # the boxes, bands, locks and device while they read the same
        self._fonts = {
            "text": _font(11),
            "bold": _font(11, bold=True),
            "title": _font(14, bold=True),
            "mono": _font(11, mono=True),
            "big": _font(16),
        }

    def sizeHint(self) -> QSize:
        return QSize(960, 520)

    def minimumSizeHint(self) -> QSize:
        return QSize(420, 200)

    def reset(self) -> None:
        self.qdisc = None
        self.token_xy = None
        self.update()

    def apply_theme(self) -> None:
        self._parts.clear()
        if self.qdisc is not None:
            self.token_xy = token_target(self._layout(self.qdisc), self.qdisc.dequeuer_cpu)
        self.update()

    def show_snapshot(self, snapshot: Snapshot) -> None:
        """Cache the qdisc of ``snapshot`` and move the token one frame towards its holder."""
        q = snapshot.qdisc
        moved = False
        if q is not None:
            target = token_target(self._layout(q), q.dequeuer_cpu)
            xy = target if self.token_xy is None else ease_toward(self.token_xy, target, TOKEN_EASE)
            moved, self.token_xy = xy != self.token_xy, xy
        if moved or q != self.qdisc:  # a paused or unchanged frame costs no repaint
            self.qdisc = q
            self.update()

    def _layout(self, q: QdiscView) -> QdiscLayout:
        return qdisc_layout(self.lw(), self.lh(), len(q.per_cpu_dequeued), len(q.bands))

    def resizeEvent(self, event: QResizeEvent) -> None:
        if self.qdisc is not None:  # no glide across the screen when the window changes size
            self.token_xy = token_target(self._layout(self.qdisc), self.qdisc.dequeuer_cpu)
        super().resizeEvent(event)

    # ---- hover -------------------------------------------------------------------------------------

    def describe_at(self, pos: QPointF) -> str:
        """What the part of the panel at ``pos`` (logical pixels) shows, with exact counts."""
        q = self.qdisc
        if q is None:
            return ""
        lay = self._layout(q)
        for cpu, box in enumerate(lay.cpus):
            if _rect(box).contains(pos):
                _role, headline, detail = cpu_role(q, cpu)
                return (
                    f"cpu{cpu}: {headline}, {detail}\n{q.per_cpu_dequeued[cpu]} packets dequeued, "
                    f"{q.per_cpu_enqueued[cpu]} enqueued"
                )
        for band, box in zip(q.bands, lay.bands, strict=False):
            if _rect(box).contains(pos):
                head = ", ".join(f"cpu{c}: {n}" for c, n in band.head_runs[:6] if c >= 0)
                return (
                    f"band {band.band}: {band.backlog} of {band.limit} packets queued; {band.sent} sent, "
                    f"{band.dropped} dropped" + (f"\nfrom the head: {head}" if head else "")
                )
        if _rect(lay.locks).contains(pos):
            holder = f"cpu{q.dequeuer_cpu}" if q.dequeuer_cpu >= 0 else "nobody"
            busy = f"cpu{q.busylock_owner}" if q.busylock_owner >= 0 else "nobody"
            line = ", ".join(f"cpu{c}" for c in busylock_line(q)) or "nobody"
            return (
                f"RUNNING bit (the dequeuer role): {holder}\nroot lock: {holder}\n"
                f"busylock: held by {busy}; waiting: {line}"
            )
        if _rect(lay.device).contains(pos):
            ring = (
                f"TX ring {q.tx_ring_used} of {q.tx_ring_size} slots used" if q.tx_ring_size else "no TX ring"
            )
            stopped = f"; stopped: {stopped_rings_text(q)}" if q.device_stopped else ""
            rings = "\n".join(
                f"ring {i} (cpu{i}'s packets): {used} used"
                + (", stopped" if i < len(q.ring_stopped) and q.ring_stopped[i] else "")
                for i, used in enumerate(q.ring_used)
            )
            name = "dummy device" if q.device == "dummy" else "10G NIC"
            return f"{name}: {ring}{stopped}" + (f"\n{rings}" if len(q.ring_used) > 1 else "")
        if lay.footer and (_rect(lay.counters).contains(pos) or _rect(lay.reasons).contains(pos)):
            reasons = ", ".join(f"{k} {v}" for k, v in q.exit_reasons)
            return (
                f"{q.enqueued} enqueued, {q.dequeued} dequeued, {q.dropped} dropped, {q.requeues} requeues; "
                f"{q.runs} dequeuer runs ended by: {reasons}\n"
                f"ksoftirqd woken {q.ksoftirqd_wakeups} times (softirqs left after __do_softirq's restarts)"
            )
        return ""

    # ---- painting --------------------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        p = self.begin_painting()
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.fillRect(self.logical_rect(), palette.BACKGROUND)
        q = self.qdisc
        if q is None:
            p.setPen(QColor("#777777"))
            p.setFont(self._fonts["big"])
            _text(p, self.logical_rect(), Qt.AlignmentFlag.AlignCenter, PLACEHOLDER)
            p.end()
            return
        lay = self._layout(q)
        self._draw_parts(p, lay, q)
        if lay.footer:
            self._draw_counters(p, lay.counters, q)  # new numbers nearly every frame: drawn directly
            self._parts.draw(
                p,
                "reasons",
                (lay.reasons, q.runs, q.exit_reasons),
                _grown(lay.reasons, 2),
                self._reasons(lay, q),
            )
        cx, cy = self.token_xy or token_target(lay, q.dequeuer_cpu)
        token = QRectF(cx - TOKEN_R - 3, cy - TOKEN_R - 3, 2 * TOKEN_R + 6, 2 * TOKEN_R + 6)
        self._parts.draw(p, "token", (cx, cy), token, lambda p_: self._draw_token(p_, (cx, cy)))
        self._parts.end_frame()
        p.end()

    def _draw_parts(self, p: QPainter, lay: QdiscLayout, q: QdiscView) -> None:
        """The parts that read the same most frames (the header, each CPU's box and role, the RUNNING
        bit's slot, the bands, the funnel, the device's box) are copied from a pixmap while what they
        show (the key: the box and the values drawn) is as in the previous frame (``gui.draw.layer_cache``);
        what changes most frames (a CPU's count, the locks' holders, the TX ring) is drawn directly.
        Every repaint still draws all of them, so a grab or a video frame shows the whole panel."""
        parts = self._parts
        header_key = (lay.header, q.kind, q.exit_rule, q.weight_p)
        parts.draw(p, "header", header_key, _grown(lay.header, 2), lambda p_: self._draw_header(p_, lay, q))
        for cpu, box in enumerate(lay.cpus):  # the box and role; the count goes over it, drawn directly
            draw_box = functools.partial(self._draw_cpu, box=box, cpu=cpu, q=q, count=False)
            parts.draw(p, ("cpu", cpu), (box, cpu, cpu_role(q, cpu)), _grown(box, 4), draw_box)
            self._draw_cpu(p, box, cpu, q, count=True)
        self._draw_locks(p, lay, q)
        for band, box in zip(q.bands, lay.bands, strict=False):
            parts.draw(
                p,
                ("band", band.band),
                (box, band),
                _grown(box, 3),
                functools.partial(self._draw_band, box=box, band=band),
            )
        path_key = (lay.bands, lay.locks, lay.device, q.dequeuer_cpu)
        parts.draw(p, "path", path_key, _path_bounds(lay), lambda p_: self._draw_path(p_, lay, q))
        self._draw_device(p, lay, q)  # the TX ring's gauge and count: new nearly every frame

    def _reasons(self, lay: QdiscLayout, q: QdiscView) -> functools.partial[None]:
        return functools.partial(self._draw_reasons, box=lay.reasons, q=q)

    def _draw_header(self, p: QPainter, lay: QdiscLayout, q: QdiscView) -> None:
        """The exit rule in force on the right; the panel's title on the left when there is room."""
        rect = _rect(lay.header)
        vcenter = Qt.AlignmentFlag.AlignVCenter
        rule = f"Exit rule: {exit_rule_text(q.exit_rule, q.weight_p)}"
        title = f"Transmit path: {q.kind} qdisc"
        p.setPen(palette.TEXT)
        p.setFont(self._fonts["bold"])
        rule_w = p.fontMetrics().horizontalAdvance(rule)
        p.setFont(self._fonts["title"])
        if p.fontMetrics().horizontalAdvance(title) + rule_w + 24 <= rect.width():
            _text(p, rect, Qt.AlignmentFlag.AlignLeft | vcenter, title)
            right = Qt.AlignmentFlag.AlignRight
        else:
            right = Qt.AlignmentFlag.AlignLeft
        p.setFont(self._fonts["bold"])
        _text(p, rect, right | vcenter, rule)

    def _draw_cpu(self, p: QPainter, box: Box, cpu: int, q: QdiscView, count: bool | None = None) -> None:
        """A sender CPU's box: its colour strip, its role in words and how many packets it dequeued.
        ``count`` False draws all but the count line, True that line alone (it changes more often)."""
        role, headline, detail = cpu_role(q, cpu)
        rect = _rect(box)
        if count is not True:
            dequeuer = role == "dequeuer"
            p.setPen(QPen(GOLD.darker(130) if dequeuer else palette.TEXT, 5 if dequeuer else 1.5))
            p.setBrush(QBrush(QColor("#FFF6D0") if dequeuer else palette.BACKGROUND))
            p.drawRoundedRect(rect, 6, 6)
            p.fillRect(
                QRectF(rect.x() + 4, rect.y() + 4, 6 if rect.width() < 150 else 14, rect.height() - 8),
                palette.cpu_color(cpu),
            )
        strip, token = (14.0, 22.0) if rect.width() < 150 else (28.0, 38.0)
        text = rect.adjusted(strip, 0, -token, 0)
        lines = [f"cpu{cpu} · {headline}", detail, f"{fmt_count(q.per_cpu_dequeued[cpu])} dequeued"]
        bold = font_metrics(self._fonts["bold"])
        font_h = bold.height()
        if bold.horizontalAdvance(lines[0]) > text.width():  # narrow: name and role apart
            lines = [f"cpu{cpu}", headline, lines[2]]
        lines = lines[: max(1, min(3, int(text.height() // font_h)))]
        line_h = max(min(21.0, text.height() / len(lines)), font_h)
        y0 = text.center().y() - line_h * len(lines) / 2
        for i, line in enumerate(lines):
            if count is not None and (i == COUNT_LINE) != count:
                continue
            headline_row = i == 0 or (i == 1 and lines[1] == headline)
            p.setFont(self._fonts["bold" if headline_row else "text"])
            spinning = role == "spinning" and headline_row
            p.setPen(palette.VERMILLION.darker(130) if spinning else palette.TEXT)
            row = QRectF(text.x(), y0 + i * line_h, text.width(), line_h)
            _text(p, row, Qt.AlignmentFlag.AlignVCenter, line)

    def _draw_locks(self, p: QPainter, lay: QdiscLayout, q: QdiscView) -> None:
        """The RUNNING bit's parking slot, the root lock and the busylock queue, top to bottom (or side
        by side in a strip, in a narrow panel)."""
        if lay.locks_row:
            self._draw_locks_row(p, lay, q)
            return
        x, y, w, h = lay.locks
        slot = QRectF(x, y, w, 62.0)
        draw_slot = functools.partial(self._draw_slot, slot=slot, q=q)
        self._parts.draw(p, "slot", (slot.getRect(), q.dequeuer_cpu), slot.adjusted(-2, -2, 2, 2), draw_slot)
        root = [(q.root_lock_owner, "holds")] if q.root_lock_owner >= 0 else []
        busy = [(q.busylock_owner, "holds")] if q.busylock_owner >= 0 else []
        busy += [(cpu, f"#{i + 1} spins") for i, cpu in enumerate(busylock_line(q))]
        root_rect = QRectF(x, slot.bottom() + 10, w, 56.0)
        busy_rect = QRectF(x, root_rect.bottom() + 10, w, y + h - root_rect.bottom() - 10)
        self._draw_lock(p, root_rect, "root lock", root)  # who holds and who spins: new most frames
        self._draw_lock(p, busy_rect, "busylock", busy)

    def _draw_slot(self, p: QPainter, slot: QRectF, q: QdiscView) -> None:
        """The RUNNING bit's parking slot: who holds the bit, or "free" beside the parked token."""
        x, y, w = slot.x(), slot.y(), slot.width()
        p.setPen(QPen(palette.TEXT, 1.5, Qt.PenStyle.DashLine))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRoundedRect(slot, 6, 6)
        p.setPen(palette.TEXT)
        p.setFont(self._fonts["text"])
        p.setFont(self._fonts["bold"])
        _text(
            p, QRectF(x, y + 2, w, 20), Qt.AlignmentFlag.AlignCenter, "RUNNING bit" if w > 110 else "RUNNING"
        )
        p.setFont(self._fonts["text"])
        if q.dequeuer_cpu >= 0:
            held = f"held by cpu{q.dequeuer_cpu}" if w > 110 else f"cpu{q.dequeuer_cpu}"
            _text(p, QRectF(x, y + 28, w, 24), Qt.AlignmentFlag.AlignCenter, held)
        else:  # the token parks on the right of this slot
            _text(p, QRectF(x + 8, y + 28, w, 24), Qt.AlignmentFlag.AlignVCenter, "free")

    def _draw_locks_row(self, p: QPainter, lay: QdiscLayout, q: QdiscView) -> None:
        """Narrow panel: three boxes in a strip, each a title and who holds or waits, in one line."""
        x, y, w, h = lay.locks
        third = (w - 16) / 3
        holder = f"cpu{q.dequeuer_cpu}" if q.dequeuer_cpu >= 0 else "free"
        root = f"cpu{q.root_lock_owner}" if q.root_lock_owner >= 0 else "free"
        line = busylock_line(q)
        busy = (f"cpu{q.busylock_owner}" if q.busylock_owner >= 0 else "free") + (
            " ◂ " + " ◂ ".join(f"cpu{c}" for c in line) if line else ""
        )
        centre = Qt.AlignmentFlag.AlignCenter
        for k, (title, words, dashed) in enumerate(
            (("RUNNING bit", holder, True), ("root lock", root, False), ("busylock", busy, False))
        ):
            box = QRectF(x + k * (third + 8), y, third, h)
            p.setPen(QPen(palette.TEXT, 1.5, Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine))
            p.setBrush(Qt.BrushStyle.NoBrush if dashed else QBrush(palette.LIGHT_GREY))
            p.drawRoundedRect(box, 6, 6)
            p.setPen(palette.TEXT)
            p.setFont(self._fonts["bold"])
            _text(
                p, QRectF(box.x() + 4, box.y() + 2, box.width() - 8, 20), Qt.AlignmentFlag.AlignCenter, title
            )
            p.setFont(self._fonts["text"])
            room = box.width() - (44 if dashed else 8)  # the RUNNING box leaves room for the parked token
            _text(p, QRectF(box.x() + 4, box.y() + 24, room, 22), centre, words)

    def _draw_lock(self, p: QPainter, rect: QRectF, title: str, chips: list[tuple[int, str]]) -> None:
        p.setPen(QPen(palette.TEXT, 1.5))
        p.setBrush(QBrush(palette.LIGHT_GREY))
        p.drawRoundedRect(rect, 6, 6)
        p.setFont(self._fonts["bold"])
        _text(p, QRectF(rect.x(), rect.y() + 2, rect.width(), 20), Qt.AlignmentFlag.AlignCenter, title)
        p.setFont(self._fonts["text"])
        if not chips:
            _text(p, QRectF(rect.x(), rect.y() + 24, rect.width(), 22), Qt.AlignmentFlag.AlignCenter, "free")
            return
        chip_h = min(26.0, (rect.height() - 28) / len(chips))
        if chip_h < p.fontMetrics().height() + 2:  # too many to stack: the holder, then the line in words
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
            return
        for i, (cpu, word) in enumerate(chips):
            chip = QRectF(rect.x() + 5, rect.y() + 24 + i * chip_h, rect.width() - 10, chip_h - 3)
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(QBrush(palette.cpu_color(cpu)))
            p.drawRoundedRect(chip, 4, 4)
            p.setPen(_ink(palette.cpu_color(cpu)))
            _text(p, chip, Qt.AlignmentFlag.AlignCenter, f"cpu{cpu} {word}")

    def _draw_band(self, p: QPainter, box: Box, band: BandView) -> None:
        """One band as a FIFO: tail (arrivals, drops) on the left, head (towards the device) on the right."""
        x, y, w, h = box
        bar = _fifo_rect(box)
        has_label, has_counts = band_parts(h)
        name = f"band {band.band}" + (" (highest priority)" if band.band == 0 else "")
        p.setFont(self._fonts["bold"])
        if p.fontMetrics().horizontalAdvance(name) > w * 0.6:
            name = f"band {band.band}" + (" (top)" if band.band == 0 else "")
        room = w - p.fontMetrics().horizontalAdvance(name) - 10
        p.setFont(self._fonts["text"])
        queued = f"{band.backlog} / {band.limit} queued"
        if p.fontMetrics().horizontalAdvance(queued) > room:
            queued = f"{band.backlog}/{band.limit}"
        inside = not has_label or p.fontMetrics().horizontalAdvance(queued) > room
        p.setPen(QPen(palette.TEXT, 1.5))
        p.setBrush(QBrush(palette.BACKGROUND))
        p.drawRect(bar)
        self._draw_fifo(p, bar, band)
        left = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        if has_label and inside:  # the name alone on its line
            p.setFont(self._fonts["bold"] if room >= 0 else self._fonts["text"])
            _text(p, QRectF(x, y, w, LABEL_H), left, name)
        elif has_label:
            self._pair(
                p, QRectF(x, y, w, LABEL_H), (name, "bold", palette.TEXT), (queued, "text", palette.TEXT)
            )
        p.setFont(self._fonts["text"])
        empty = QRectF(
            bar.left() + 6, bar.top(), bar.width() * (1 - band.backlog / max(band.limit, 1)) - 8, bar.height()
        )
        words = queued if has_label else f"{name}: {queued}"
        fm = p.fontMetrics()
        if inside and bar.height() >= fm.height() and empty.width() >= fm.horizontalAdvance(words):
            p.setPen(palette.TEXT)
            _text(p, empty, left, words)  # in the empty tail end of the bar
        if has_counts:
            drop_color = palette.VERMILLION.darker(130) if band.dropped else palette.TEXT
            below = QRectF(x, bar.bottom() + 1, w, COUNTS_H)
            dropped = (f"{fmt_count(band.dropped)} dropped", "text", drop_color)
            self._pair(p, below, dropped, (f"sent {fmt_count(band.sent)}", "text", palette.TEXT))

    def _draw_fifo(self, p: QPainter, bar: QRectF, band: BandView) -> None:
        """The packets queued in a band, coloured by the CPU that sent them, head on the right."""
        ppb = packets_per_block(band.limit, bar.width())
        runs = fifo_blocks(band.head_runs, band.backlog, ppb)
        spans = fifo_runs(tuple(runs), band.limit, bar.right(), bar.width())
        inner = bar.adjusted(0, 3, 0, -3)
        for cpu, _count, left, right_x in spans:
            p.fillRect(QRectF(left, inner.top(), right_x - left, inner.height()), _packet_color(cpu))
        block_px = ppb * bar.width() / max(band.limit, 1)
        self._draw_block_grid(p, inner, block_px, band.backlog * bar.width() / max(band.limit, 1))
        p.setFont(self._fonts["text"])
        for cpu, _count, left, right_x in spans:
            run = QRectF(left, inner.top(), right_x - left, inner.height())
            words = f"cpu{cpu}" if cpu >= 0 else "more packets"
            if (
                run.width() >= p.fontMetrics().horizontalAdvance(words) + 6
                and run.height() >= p.fontMetrics().height()
            ):
                p.setPen(_ink(_packet_color(cpu)))
                _text(p, run, Qt.AlignmentFlag.AlignCenter, words)

    def _pair(
        self, p: QPainter, rect: QRectF, left: tuple[str, str, QColor], right: tuple[str, str, QColor]
    ) -> None:
        """Two labels on one line: ``right`` in full at the right, ``left`` elided into what is left."""
        p.setFont(self._fonts[right[1]])
        right_w = p.fontMetrics().horizontalAdvance(right[0])
        p.setPen(right[2])
        _text(p, rect, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, right[0])
        p.setFont(self._fonts[left[1]])
        p.setPen(left[2])
        room = QRectF(rect.x(), rect.y(), max(rect.width() - right_w - 10, 0.0), rect.height())
        _text(p, room, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, left[0])

    def _draw_path(self, p: QPainter, lay: QdiscLayout, q: QdiscView) -> None:
        """Each band's head funnels into one arrow to the device, labelled with who dequeues."""
        x0 = lay.bands[0][0] + lay.bands[0][2] if lay.bands else lay.locks[0]
        x1 = lay.device[0]
        cy = lay.device[1] + lay.device[3] / 2
        mid = x0 + (x1 - x0) * 0.45
        p.setPen(QPen(palette.TEXT, 2))
        for box in lay.bands:
            head = _fifo_rect(box)
            p.drawLine(QPointF(head.right(), head.center().y()), QPointF(mid, cy))
        p.setPen(QPen(GOLD.darker(140), 6))
        p.drawLine(QPointF(mid, cy), QPointF(x1 - 12, cy))
        p.setBrush(QBrush(GOLD.darker(140)))
        p.setPen(Qt.PenStyle.NoPen)
        p.drawPolygon(QPolygonF([QPointF(x1 - 2, cy), QPointF(x1 - 16, cy - 10), QPointF(x1 - 16, cy + 10)]))
        who = f"cpu{q.dequeuer_cpu}" if q.dequeuer_cpu >= 0 else "nobody"
        p.setPen(palette.TEXT)
        p.setFont(self._fonts["text"])
        if x1 - x0 >= 100:
            _text(p, QRectF(x0, cy + 14, x1 - x0, 20), Qt.AlignmentFlag.AlignCenter, "dequeued by")
        chip = QRectF(x0 + 10, cy + 36, x1 - x0 - 20, 24)
        color = palette.cpu_color(q.dequeuer_cpu) if q.dequeuer_cpu >= 0 else palette.LIGHT_GREY
        p.setBrush(QBrush(color))
        p.setPen(Qt.PenStyle.NoPen)
        p.drawRoundedRect(chip, 5, 5)
        p.setPen(_ink(color))
        p.setFont(self._fonts["bold"])
        _text(p, chip, Qt.AlignmentFlag.AlignCenter, who)

    def _draw_block_grid(self, p: QPainter, bar: QRectF, block_px: float, filled_px: float) -> None:
        """White gaps every block, so the fill reads as packets lined up towards the head."""
        p.setPen(QPen(palette.BACKGROUND, 1.5))
        right, edge = bar.right(), max(bar.right() - filled_px, bar.left())
        top, bottom = bar.top() + 3, bar.bottom() - 3
        gaps = []
        k = 1
        while right - k * block_px > edge + 0.5 and k < 400:
            xk = right - k * block_px
            gaps.append(QLineF(xk, top, xk, bottom))
            k += 1
        if gaps:
            p.drawLines(gaps)  # one call for the whole row

    def _draw_device(self, p: QPainter, lay: QdiscLayout, q: QdiscView) -> None:
        """The device: its TX ring filling up, hatched red with a "stopped" sign when the ring is full."""
        rect = _rect(lay.device)
        stopped = q.device_stopped
        lines = self._device_lines(rect, q)
        frame = functools.partial(self._draw_device_frame, rect=rect, stopped=stopped, lines=lines)
        self._parts.draw(p, "device", (lay.device, stopped, tuple(lines)), _grown(lay.device, 3), frame)
        short = rect.height() < 150  # no room for the gauge: its reading, and the alarm, as lines
        if short or q.tx_ring_size <= 0:
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
        self._label(
            p, QPointF(rect.center().x(), gauge.bottom() + 14), f"{q.tx_ring_used} / {q.tx_ring_size}"
        )
        if stopped:
            for i, text in enumerate(("STOPPED", stopped_rings_text(q))):
                self._label(p, QPointF(rect.center().x(), rect.bottom() - 42 + 20 * i), text, "bold", True)

    def _device_lines(self, rect: QRectF, q: QdiscView) -> list[tuple[str, str]]:
        """The device box's lines of words, (font, text), as many as its height holds."""
        lines = [("bold", "dummy device" if q.device == "dummy" else "10G NIC")]
        lines.append(("text", "TX ring" if q.tx_ring_size > 0 else "frees each"))
        if q.tx_ring_size <= 0:
            lines.append(("text", "packet at once"))
        short = rect.height() < 150  # no room for the gauge: its reading, and the alarm, as lines
        if short and q.tx_ring_size > 0:
            lines.append(("text", f"{q.tx_ring_used}/{q.tx_ring_size}"))
        if short and q.device_stopped:
            lines.append(("bold", "STOPPED"))
        fits = max(int((rect.height() - 6) // 22), 1)
        if len(lines) > fits and len(lines) > 1:
            del lines[1]  # "TX ring" goes first
        return lines[:fits]

    def _draw_device_frame(
        self, p: QPainter, rect: QRectF, stopped: bool, lines: list[tuple[str, str]]
    ) -> None:
        """The device's box (hatched red when a ring is stopped) and its lines of words."""
        p.setPen(QPen(palette.VERMILLION if stopped else palette.TEXT, 3 if stopped else 1.5))
        p.setBrush(QBrush(palette.BACKGROUND))
        p.drawRoundedRect(rect, 6, 6)
        if stopped:
            p.fillRect(rect.adjusted(3, 3, -3, -3), QBrush(palette.VERMILLION, Qt.BrushStyle.BDiagPattern))
        for i, (font, text) in enumerate(lines):
            alarm = text == "STOPPED"
            self._label(p, QPointF(rect.center().x(), rect.y() + 16 + 22 * i), text, font, alarm)

    def _label(
        self, p: QPainter, center: QPointF, text: str, font: str = "text", alarm: bool = False
    ) -> None:
        """A line of text centred on ``center`` over a white patch, legible on hatching."""
        p.setFont(self._fonts[font])
        width = p.fontMetrics().horizontalAdvance(text) + 8
        rect = QRectF(center.x() - width / 2, center.y() - 10, width, 20)
        p.fillRect(rect, palette.BACKGROUND)
        p.setPen(palette.VERMILLION.darker(140) if alarm else palette.TEXT)
        _text(p, rect, Qt.AlignmentFlag.AlignCenter, text)

    def _draw_counters(self, p: QPainter, box: Box, q: QdiscView) -> None:
        """``tc -s``-style counters: the root qdisc first, then one line per band."""
        x, y, w, _h = box
        p.setPen(palette.TEXT)
        p.setFont(self._fonts["bold"])
        title = f"tc -s qdisc show · {fmt_count(q.enqueued)} enqueued, {fmt_count(q.runs)} dequeuer runs"
        _text(p, QRectF(x, y, w, 20), Qt.AlignmentFlag.AlignLeft, title)
        p.setFont(self._fonts["mono"])

        def row(name: str, sent: int, dropped: int, backlog: int) -> str:
            return (
                f"{name:6s} sent {fmt_count(sent):>7s}  dropped {fmt_count(dropped):>7s}  backlog {backlog}p"
            )

        lines = [row("root", q.dequeued, q.dropped, q.backlog) + f"  requeues {fmt_count(q.requeues)}"]
        lines += [row(f"band {b.band}", b.sent, b.dropped, b.backlog) for b in q.bands]
        for i, line in enumerate(lines):
            _text(p, QRectF(x, y + 22 + i * 20, w, 20), Qt.AlignmentFlag.AlignLeft, line)

    def _draw_reasons(self, p: QPainter, box: Box, q: QdiscView) -> None:
        """Why each dequeuer tenure ended, as a small bar group."""
        x, y, w, h = box
        counts = dict(q.exit_reasons)
        p.setPen(palette.TEXT)
        p.setFont(self._fonts["bold"])
        _text(
            p,
            QRectF(x, y, w, 20),
            Qt.AlignmentFlag.AlignLeft,
            f"why dequeuers stopped ({fmt_count(q.runs)} runs)",
        )
        p.setFont(self._fonts["text"])
        row_h = min(20.0, (h - 22) / len(EXIT_REASONS))
        label_w = w * 0.48
        top = max(counts.values(), default=0) or 1
        for i, (key, words) in enumerate(EXIT_REASONS):
            ry = y + 22 + i * row_h
            p.setPen(palette.TEXT)
            _text(p, QRectF(x, ry, label_w, row_h), Qt.AlignmentFlag.AlignVCenter, words)
            bar_w = (w - label_w - 60) * counts.get(key, 0) / top
            p.fillRect(QRectF(x + label_w, ry + 3, bar_w, row_h - 6), QColor("#555555"))
            _text(
                p,
                QRectF(x + label_w + bar_w + 4, ry, 60, row_h),
                Qt.AlignmentFlag.AlignVCenter,
                fmt_count(counts.get(key, 0)),
            )

    def _draw_token(self, p: QPainter, xy: tuple[float, float]) -> None:
        """The RUNNING token: a gold coin with a crown, so nobody misses who dequeues."""
        r = TOKEN_R
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
