"""The prio qdisc's bands painted: each band's row (its name, its FIFO bar, its counters, as many as the
row's height holds), the packets queued in the bar coloured by sending CPU with a gap between blocks, head
on the right, and the path from the bands' heads funnelling into one arrow to the device, labelled with
the CPU that dequeues. Where each band's row goes is ``gui.draw.qdisc_geometry``'s.
"""

from __future__ import annotations

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPen, QPolygonF

from gui.draw import palette
from gui.draw.formats import short_count
from gui.draw.qdisc_geometry import (
    Box,
    QdiscLayout,
    fifo_blocks,
    fifo_runs,
    fmt_count,
    fmt_count_tight,
    packets_per_block,
)
from gui.draw.qdisc_style import GOLD, Fonts, draw_pair, draw_text
from model.snapshot import BandView, QdiscView

LABEL_H, COUNTS_H, MIN_BAR_H = 20.0, 18.0, 14.0

LABEL_GAP = 10  # px between the words in the bands' gap and the bands' own words


def band_parts(h: float) -> tuple[bool, bool]:
    """What a band's row of height ``h`` has room for: (its name line above the bar, its counters
    line below it). A short row keeps the bar; the name then goes inside it, the counters to the tooltip."""
    label = h >= LABEL_H + MIN_BAR_H
    return label, label and h >= LABEL_H + COUNTS_H + MIN_BAR_H


def fifo_rect(band_box: Box) -> QRectF:
    """The FIFO bar inside a band's row: under its label and above its counters, where they fit."""
    x, y, w, h = band_box
    label, counts = band_parts(h)
    top = y + (LABEL_H if label else 1.0)
    room = h - (LABEL_H if label else 2.0) - (COUNTS_H + 2 if counts else 0.0)
    return QRectF(x, top, w, max(min(room, 46.0), 6.0))


def packet_color(cpu: int) -> QColor:
    """Packets take their sender's colour; packets the view does not itemise are grey."""
    return palette.cpu_color(cpu) if cpu >= 0 else palette.GREY


def band_labels(p: QPainter, fonts: Fonts, w: float, limit: int) -> tuple[str, int]:
    """Band 0's name and the form of the bands' counts (an index into ``queued_words``'s forms) for rows
    ``w`` wide: the first of "band 0 (highest priority)" (on a wide row), "band 0 (top)" and "band 0"
    beside which a full band's count fits, in its longest form that does, so that the bands read alike
    and the form stays put as they fill. Where nothing fits, "band 0 (top)" and the shortest form: the
    count then goes inside the bar, where it fits."""
    p.setFont(fonts["bold"])
    bold = p.fontMetrics()
    p.setFont(fonts["text"])
    text = p.fontMetrics()
    names = ["band 0 (top)", "band 0"]
    if bold.horizontalAdvance("band 0 (highest priority)") <= w * 0.6:
        names.insert(0, "band 0 (highest priority)")
    for name in names:
        room = w - bold.horizontalAdvance(name) - LABEL_GAP
        for form in range(len(QUEUED_FORMS)):
            if text.horizontalAdvance(queued_words(limit, limit, form)) <= room:
                return name, form
    return "band 0 (top)", len(QUEUED_FORMS) - 1


# How full a band is, from the longest form to the shortest: the last one, the backlog alone, where the
# bar's length says the limit.
QUEUED_FORMS = ("{backlog} / {limit} queued", "{backlog}/{limit}", "{backlog}")


def queued_words(backlog: int, limit: int, form: int) -> str:
    return QUEUED_FORMS[form].format(backlog=backlog, limit=limit)


def draw_band(p: QPainter, fonts: Fonts, box: Box, band: BandView) -> None:
    """One band as a FIFO: tail (arrivals, drops) on the left, head (towards the device) on the right."""
    x, y, w, h = box
    bar = fifo_rect(box)
    has_label, has_counts = band_parts(h)
    name0, form = band_labels(p, fonts, w, band.limit)
    name = name0 if band.band == 0 else f"band {band.band}"
    p.setFont(fonts["bold"])
    room = w - p.fontMetrics().horizontalAdvance(name) - LABEL_GAP
    queued = queued_words(band.backlog, band.limit, form)
    inside = not has_label or p.fontMetrics().horizontalAdvance(queued) > room
    p.setPen(QPen(palette.TEXT, 1.5))
    p.setBrush(QBrush(palette.BACKGROUND))
    p.drawRect(bar)
    draw_fifo(p, fonts, bar, band)
    left = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
    p.setPen(palette.TEXT)  # draw_fifo leaves the pen white (its gaps, its names on dark packets)
    if has_label and inside:  # the name alone on its line
        p.setFont(fonts["bold"] if room >= 0 else fonts["text"])
        draw_text(p, QRectF(x, y, w, LABEL_H), left, name)
    elif has_label:
        line = QRectF(x, y, w, LABEL_H)
        draw_pair(p, fonts, line, (name, "bold", palette.TEXT), (queued, "text", palette.TEXT))
    p.setFont(fonts["text"])
    empty = QRectF(
        bar.left() + 6, bar.top(), bar.width() * (1 - band.backlog / max(band.limit, 1)) - 8, bar.height()
    )
    words = queued if has_label else f"{name}: {queued}"
    fm = p.fontMetrics()
    if inside and bar.height() >= fm.height() and empty.width() >= fm.horizontalAdvance(words):
        p.setPen(palette.TEXT)
        draw_text(p, empty, left, words)  # in the empty tail end of the bar
    if has_counts:
        drop_color = palette.VERMILLION.darker(130) if band.dropped else palette.TEXT
        below = QRectF(x, bar.bottom() + 1, w, COUNTS_H)
        # Tighter forms for a narrow band, rather than "281.0 k dro…": "281.0k", then "281k".
        d, s, dt = fmt_count(band.dropped), fmt_count(band.sent), fmt_count_tight(band.dropped)
        drops = (f"{d} dropped", f"{dt} dropped", f"{dt} drops", f"{short_count(band.dropped)} drops")
        # level by level beside the drops: the sent count tightens one step later
        sends = (
            f"sent {s}",
            f"sent {s}",
            f"sent {fmt_count_tight(band.sent)}",
            f"sent {short_count(band.sent)}",
        )
        dropped, sent = (drops, "text", drop_color), (sends, "text", palette.TEXT)
        draw_pair(p, fonts, below, dropped, sent)


def draw_fifo(p: QPainter, fonts: Fonts, bar: QRectF, band: BandView) -> None:
    """The packets queued in a band, coloured by the CPU that sent them, head on the right."""
    ppb = packets_per_block(band.limit, bar.width())
    runs = fifo_blocks(band.head_runs, band.backlog, ppb)
    spans = fifo_runs(tuple(runs), band.limit, bar.right(), bar.width())
    inner = bar.adjusted(0, 3, 0, -3)
    for cpu, _count, left, right_x in spans:
        p.fillRect(QRectF(left, inner.top(), right_x - left, inner.height()), packet_color(cpu))
    block_px = ppb * bar.width() / max(band.limit, 1)
    draw_block_grid(p, inner, block_px, band.backlog * bar.width() / max(band.limit, 1))
    p.setFont(fonts["text"])
    for cpu, _count, left, right_x in spans:
        run = QRectF(left, inner.top(), right_x - left, inner.height())
        words = f"cpu{cpu}" if cpu >= 0 else "more packets"
        if (
            run.width() >= p.fontMetrics().horizontalAdvance(words) + 6
            and run.height() >= p.fontMetrics().height()
        ):
            p.setPen(palette.text_on(packet_color(cpu)))
            draw_text(p, run, Qt.AlignmentFlag.AlignCenter, words)


def draw_block_grid(p: QPainter, bar: QRectF, block_px: float, filled_px: float) -> None:
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


def path_bounds(lay: QdiscLayout) -> QRectF:
    """Where ``draw_path`` draws: from the bands' heads to the device, the funnel, arrow and chip."""
    x0 = lay.bands[0][0] + lay.bands[0][2] if lay.bands else lay.locks[0]
    x1 = lay.device[0]
    cy = lay.device[1] + lay.device[3] / 2
    top = min([cy - 12, *(b[1] for b in lay.bands)])
    bottom = max([cy + 62, *(b[1] + b[3] for b in lay.bands)])
    left, right = min(x0, x1), max(x0, x1)
    return QRectF(left - 6, top - 6, right - left + 12, bottom - top + 12)


def draw_path(p: QPainter, fonts: Fonts, lay: QdiscLayout, q: QdiscView) -> None:
    """Each band's head funnels into one arrow to the device, labelled with who dequeues."""
    x0 = lay.bands[0][0] + lay.bands[0][2] if lay.bands else lay.locks[0]
    x1 = lay.device[0]
    cy = lay.device[1] + lay.device[3] / 2
    mid = x0 + (x1 - x0) * 0.45
    p.setPen(QPen(palette.TEXT, 2))
    for box in lay.bands:
        head = fifo_rect(box)
        p.drawLine(QPointF(head.right(), head.center().y()), QPointF(mid, cy))
    p.setPen(QPen(GOLD.darker(140), 6))
    p.drawLine(QPointF(mid, cy), QPointF(x1 - 12, cy))
    p.setBrush(QBrush(GOLD.darker(140)))
    p.setPen(Qt.PenStyle.NoPen)
    p.drawPolygon(QPolygonF([QPointF(x1 - 2, cy), QPointF(x1 - 16, cy - 10), QPointF(x1 - 16, cy + 10)]))
    who = f"cpu{q.dequeuer_cpu}" if q.dequeuer_cpu >= 0 else "nobody"
    chip = QRectF(x0 + 10, cy + 36, x1 - x0 - 20, 24)
    # A chip too narrow for its longest words, or below the device's box, is left out (it was a sliver
    # in a narrow panel): the crown and the RUNNING bit's box still say who dequeues.
    p.setFont(fonts["bold"])
    if (
        chip.width() < p.fontMetrics().horizontalAdvance("nobody") + 6
        or chip.bottom() > lay.device[1] + lay.device[3]
    ):
        return
    p.setPen(palette.TEXT)
    p.setFont(fonts["text"])
    if x1 - x0 >= p.fontMetrics().horizontalAdvance("dequeued by") + 2 * LABEL_GAP:
        # Clear of the middle band's "sent" count, which ends where the gap begins.
        words = QRectF(x0 + LABEL_GAP, cy + 14, x1 - x0 - LABEL_GAP, 20)
        draw_text(p, words, Qt.AlignmentFlag.AlignCenter, "dequeued by")
    color = palette.cpu_color(q.dequeuer_cpu) if q.dequeuer_cpu >= 0 else palette.LIGHT_GREY
    p.setBrush(QBrush(color))
    p.setPen(Qt.PenStyle.NoPen)
    p.drawRoundedRect(chip, 5, 5)
    p.setPen(palette.text_on(color))
    p.setFont(fonts["bold"])
    draw_text(p, chip, Qt.AlignmentFlag.AlignCenter, who)
