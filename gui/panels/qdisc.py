"""The transmit path drawn live: sender CPUs, busylock, the RUNNING token, the prio bands and the device.

Left, one box per sender CPU says what it is doing (sending, spinning on ``busylock``, holding the root
lock, or holding the RUNNING bit: the dequeuer, marked by a crowned token that glides between CPUs on a
hand-off). Middle, the bands as FIFOs, band 0 on top, filled in proportion to backlog/limit with the
packets coloured by sending CPU, head on the right towards the device. Right, the device and its TX
ring. Below, ``tc -s``-style counters and why each dequeuer tenure ended. ``render()`` caches the
``QdiscView`` and eases the token; ``paintEvent`` composes the frame from pure layout arithmetic
(``gui.draw.qdisc_geometry``), with the bands, the locks and token, and the device painted by their own
modules, and the parts that read the same as last frame copied from a layer cache; the header, the CPU
boxes and the footer are painted here, the hover tips composed in ``gui.draw.qdisc_tips``.
"""

from __future__ import annotations

import functools

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPaintEvent, QPen, QResizeEvent
from PySide6.QtWidgets import QWidget

from gui import pyside_fix  # noqa: F401 - before any paint or emit
from gui.draw import palette
from gui.draw.handler_guard import guarded
from gui.draw.layer_cache import LayerCache
from gui.draw.qdisc_bands import draw_band, draw_path, path_bounds
from gui.draw.qdisc_device import device_lines, draw_device_frame, draw_tx_ring
from gui.draw.qdisc_geometry import (
    ROLE_SHORT,
    TOKEN_EASE,
    Box,
    QdiscLayout,
    cpu_role,
    ease_toward,
    exit_rule_words,
    fmt_count,
    fmt_count_tight,
    qdisc_layout,
    token_target,
)
from gui.draw.qdisc_locks import (
    draw_lock_queues,
    draw_locks_row,
    draw_slot,
    draw_token,
    slot_rect,
    token_bounds,
)
from gui.draw.qdisc_style import GOLD, Words, draw_text, qdisc_fonts
from gui.draw.qdisc_tips import describe_qdisc_at
from gui.draw.static_text import font_metrics
from gui.panels.base import HoverTipsPanel
from model.snapshot import QdiscView, Snapshot

PLACEHOLDER = "This story has no qdisc: pick the 2011 story"
EXIT_REASONS: tuple[tuple[str, tuple[str, ...]], ...] = (  # each reason's words, longest first
    ("quota", ("packet quota used up", "quota used up", "quota")),
    ("need_resched", ("need_resched set", "need_resched", "resched")),
    ("jiffy", ("next jiffy began", "next jiffy", "jiffy")),
    ("empty", ("qdisc empty", "empty")),
    ("tx_busy", ("device busy", "busy")),
)
COUNT_LINE = 2  # a CPU box's line of packets dequeued


def _counter_row(name: str, sent: int, dropped: int, backlog: int, form: int) -> str:
    """One line of the ``tc -s`` counters: in full (form 0), without the backlog (1), tight (2)."""
    s, d = fmt_count(sent), fmt_count(dropped)
    if form == 0:
        return f"{name:6s} sent {s:>7s}  dropped {d:>7s}  backlog {backlog}p"
    if form == 1:
        return f"{name:6s} sent {s:>7s}  dropped {d:>7s}"
    return f"{name:6s} sent {fmt_count_tight(sent):>6s} drop {fmt_count_tight(dropped):>6s}"


def _wordings(line: str, dequeued: int, i: int, cpu: int) -> Words:
    """A CPU box's line, with the shorter wordings it may take in a narrow box (the CPU's name down to
    its number: its colour strip says whose box it is)."""
    if line == f"cpu{cpu}":
        return line, str(cpu)
    if line in ROLE_SHORT:
        return line, ROLE_SHORT[line]
    if i == COUNT_LINE:  # the number as in the other boxes ("345.5 k") as long as one word fits
        full, tight = fmt_count(dequeued), fmt_count_tight(dequeued)
        return line, f"{full} deq.", f"{tight} deq."
    return line


def _rect(box: Box) -> QRectF:
    return QRectF(*box)


def _grown(box: Box, margin: float) -> QRectF:
    """``box`` with room around it for the outlines drawn on its edge."""
    return QRectF(*box).adjusted(-margin, -margin, margin, margin)


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
        self._fonts = qdisc_fonts()

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

    @guarded
    def resizeEvent(self, event: QResizeEvent) -> None:
        if self.qdisc is not None:  # no glide across the screen when the window changes size
            self.token_xy = token_target(self._layout(self.qdisc), self.qdisc.dequeuer_cpu)
        super().resizeEvent(event)

    # ---- hover -------------------------------------------------------------------------------------

    def describe_at(self, pos: QPointF) -> str:
        """What the part of the panel at ``pos`` (logical pixels) shows, with exact counts."""
        q = self.qdisc
        return "" if q is None else describe_qdisc_at(q, self._layout(q), pos)

    # ---- painting --------------------------------------------------------------------------------

    @guarded
    def paintEvent(self, event: QPaintEvent) -> None:
        p = self.begin_painting()
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.fillRect(self.logical_rect(), palette.BACKGROUND)
        q = self.qdisc
        if q is None:
            p.setPen(QColor("#777777"))
            p.setFont(self._fonts["big"])
            draw_text(p, self.logical_rect(), Qt.AlignmentFlag.AlignCenter, PLACEHOLDER)
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
        xy = self.token_xy or token_target(lay, q.dequeuer_cpu)
        r = lay.token_r
        self._parts.draw(p, "token", (xy, r), token_bounds(xy, r), functools.partial(draw_token, xy=xy, r=r))
        self._parts.end_frame()
        p.end()

    def _draw_parts(self, p: QPainter, lay: QdiscLayout, q: QdiscView) -> None:
        """The parts that read the same most frames (the header, each CPU's box and role, the RUNNING
        bit's slot, the bands, the funnel, the device's box) are copied from a pixmap while what they
        show (the key: the box and the values drawn) is as in the previous frame (``gui.draw.layer_cache``);
        what changes most frames (a CPU's count, the locks' holders, the TX ring) is drawn directly.
        Every repaint still draws all of them, so a grab or a video frame shows the whole panel."""
        parts, fonts = self._parts, self._fonts
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
                functools.partial(draw_band, fonts=fonts, box=box, band=band),
            )
        path_key = (lay.bands, lay.locks, lay.device, q.dequeuer_cpu)
        parts.draw(p, "path", path_key, path_bounds(lay), lambda p_: draw_path(p_, fonts, lay, q))
        self._draw_device(p, lay, q)

    def _reasons(self, lay: QdiscLayout, q: QdiscView) -> functools.partial[None]:
        return functools.partial(self._draw_reasons, box=lay.reasons, q=q)

    def _draw_header(self, p: QPainter, lay: QdiscLayout, q: QdiscView) -> None:
        """The exit rule in force on the right; the panel's title on the left when there is room."""
        rect = _rect(lay.header)
        vcenter = Qt.AlignmentFlag.AlignVCenter
        words = exit_rule_words(q.exit_rule, q.weight_p)
        rule = f"Exit rule: {words[0]}"
        title = f"Transmit path: {q.kind} qdisc"
        p.setPen(palette.TEXT)
        p.setFont(self._fonts["bold"])
        rule_w = p.fontMetrics().horizontalAdvance(rule)
        p.setFont(self._fonts["title"])
        if p.fontMetrics().horizontalAdvance(title) + rule_w + 24 <= rect.width():
            draw_text(p, rect, Qt.AlignmentFlag.AlignLeft | vcenter, title)
            right = Qt.AlignmentFlag.AlignRight
        else:
            right = Qt.AlignmentFlag.AlignLeft
        p.setFont(self._fonts["bold"])
        draw_text(p, rect, right | vcenter, (rule, *words))

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
        if role != "dequeuer":  # the crown rests on the dequeuer's box alone
            token = 8.0
        text = rect.adjusted(strip, 0, -token, 0)
        dequeued = q.per_cpu_dequeued[cpu]
        lines = [f"cpu{cpu} · {headline}", detail, f"{fmt_count(dequeued)} dequeued"]
        bold = font_metrics(self._fonts["bold"])
        font_h = bold.height()
        if bold.horizontalAdvance(lines[0]) > text.width():  # narrow: name and role apart
            lines = [f"cpu{cpu}", headline, lines[2]]
        lines = lines[: min(3, int(text.height() // font_h))]
        if not lines:  # a box shorter than a line of text: its colour says whose, its tooltip the rest
            return
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
            draw_text(p, row, Qt.AlignmentFlag.AlignVCenter, _wordings(line, dequeued, i, cpu))

    def _draw_locks(self, p: QPainter, lay: QdiscLayout, q: QdiscView) -> None:
        """The RUNNING bit's parking slot, the root lock and the busylock queue, top to bottom (or side
        by side in a strip, in a narrow panel)."""
        if lay.locks_row:
            draw_locks_row(p, self._fonts, lay.locks, q)
            return
        slot = slot_rect(lay.locks)
        draw = functools.partial(draw_slot, fonts=self._fonts, slot=slot, q=q)
        self._parts.draw(p, "slot", (slot.getRect(), q.dequeuer_cpu), slot.adjusted(-2, -2, 2, 2), draw)
        draw_lock_queues(p, self._fonts, lay.locks, q)  # who holds and who spins: new most frames

    def _draw_device(self, p: QPainter, lay: QdiscLayout, q: QdiscView) -> None:
        """The device: its TX ring filling up, hatched red with a "stopped" sign when the ring is full."""
        rect = _rect(lay.device)
        stopped = q.device_stopped
        lines = device_lines(rect, q)
        frame = functools.partial(
            draw_device_frame, fonts=self._fonts, rect=rect, stopped=stopped, lines=lines
        )
        self._parts.draw(p, "device", (lay.device, stopped, tuple(lines)), _grown(lay.device, 3), frame)
        draw_tx_ring(p, self._fonts, rect, q)  # the TX ring's gauge and count: new nearly every frame

    def _draw_counters(self, p: QPainter, box: Box, q: QdiscView) -> None:
        """``tc -s``-style counters: the root qdisc first, then one line per band."""
        x, y, w, _h = box
        p.setPen(palette.TEXT)
        p.setFont(self._fonts["bold"])
        # q.enqueued counts every packet offered to the qdisc, the tail drops too (a CPU's count and
        # tc's "sent" count only those it took): "offered" says which.
        enqueued = f"tc -s qdisc show · {fmt_count(q.enqueued)} offered"
        title = (f"{enqueued}, {fmt_count(q.runs)} dequeuer runs", enqueued, "tc -s qdisc show")
        draw_text(p, QRectF(x, y, w, 20), Qt.AlignmentFlag.AlignLeft, title)
        p.setFont(self._fonts["mono"])
        # Every line in the same wording (the columns stay aligned): the longest that fits them all.
        rows = [(("root", q.dequeued, q.dropped, q.backlog), f"  requeues {fmt_count(q.requeues)}")]
        rows += [((f"band {b.band}", b.sent, b.dropped, b.backlog), "") for b in q.bands]
        forms = [
            [_counter_row(*cells, form) + (extra if form == 0 else "") for cells, extra in rows]
            for form in range(3)
        ]
        fm = p.fontMetrics()
        lines = next((f for f in forms if all(fm.horizontalAdvance(line) <= w for line in f)), forms[-1])
        for i, line in enumerate(lines):
            draw_text(p, QRectF(x, y + 22 + i * 20, w, 20), Qt.AlignmentFlag.AlignLeft, line)

    def _draw_reasons(self, p: QPainter, box: Box, q: QdiscView) -> None:
        """Why each dequeuer tenure ended, as a small bar group."""
        x, y, w, h = box
        counts = dict(q.exit_reasons)
        p.setPen(palette.TEXT)
        p.setFont(self._fonts["bold"])
        draw_text(
            p,
            QRectF(x, y, w, 20),
            Qt.AlignmentFlag.AlignLeft,
            (
                f"why dequeuers stopped ({fmt_count(q.runs)} runs)",
                "why dequeuers stopped",
                "why they stopped",
            ),
        )
        p.setFont(self._fonts["text"])
        row_h = min(20.0, (h - 22) / len(EXIT_REASONS))
        fm = p.fontMetrics()  # the labels in full where they fit in 60 % of the width, the bars after them
        label_w = min(max(fm.horizontalAdvance(words[0]) for _key, words in EXIT_REASONS) + 8, w * 0.6)
        top = max(counts.values(), default=0) or 1
        for i, (key, words) in enumerate(EXIT_REASONS):
            ry = y + 22 + i * row_h
            p.setPen(palette.TEXT)
            draw_text(p, QRectF(x, ry, label_w, row_h), Qt.AlignmentFlag.AlignVCenter, words)
            bar_w = (w - label_w - 60) * counts.get(key, 0) / top
            p.fillRect(QRectF(x + label_w, ry + 3, bar_w, row_h - 6), QColor("#555555"))
            draw_text(
                p,
                QRectF(x + label_w + bar_w + 4, ry, 60, row_h),
                Qt.AlignmentFlag.AlignVCenter,
                fmt_count(counts.get(key, 0)),
            )
