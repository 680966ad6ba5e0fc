"""The story's key numbers, large: bandwidth, each thread's CPU share (and the interrupts' where they
take a notable part), Jain's fairness index and the share of dequeues per CPU, each the mean since
the last live change (or since the start).

The figures are ``model.metrics.interval_figures`` of the interval from the snapshot's anchor row (the
counters when a setting last changed) to its last sampled row: the same arithmetic as the graphs'
dashed lines and as ``schedlab run --json``. ``render`` works out the tiles' words; ``paintEvent``
only draws them, shrinking the big numbers to fit a narrow panel rather than cutting them.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from gui.draw import palette, theme
from gui.draw.formats import format_duration
from gui.draw.handler_guard import guarded
from gui.draw.series import toggle_label
from gui.draw.static_text import font_metrics
from gui.panels.base import SnapshotPanel
from model.metrics import IntervalFigures, interrupt_shares, interval_figures
from model.snapshot import Snapshot

LABEL_PT, NUMBER_PT, MIN_NUMBER_PT, CAPTION_PT = 10, 22, 12, 10
SHORT_LABELS_FROM_PT = 18  # the big numbers' size below which the tiles take their short labels first
COMPACT_NUMBER_PT = 10  # the big numbers' floor in compact tiles (a stage short of room asks for them)
MAX_THREAD_TILES = 6
PAD = 8
INSET, TIGHT_INSET, TIGHT_GAP = 14.0, 10.0, 4.0  # a tile's room beside its words; tight: many tiles
CAPTION_WRAP = Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap


def _font(pt: float, bold: bool = False) -> QFont:
    """A font at its standard size: the painter's scale applies the theme's."""
    f = QFont()
    f.setPointSizeF(pt)
    f.setBold(bold)
    return f


@dataclass(frozen=True, slots=True)
class Tile:
    label: str  # small, above
    number: str  # large
    color: QColor | None = None  # a swatch (a task's or CPU's colour) before the label
    pattern: Qt.BrushStyle = Qt.BrushStyle.SolidPattern
    tip: str = ""
    short: str = ""  # a shorter label, for a row that does not hold the tiles otherwise
    short_number: str = ""  # the number that goes with the short label (its unit moved into the label)
    compact: str = ""  # the shortest label (a CPU's number beside its swatch), for compact tiles

    def label_for(self, short: bool, compact: bool = False) -> str:
        if compact and self.compact:
            return self.compact
        return self.short if short and self.short else self.label

    def number_for(self, short: bool) -> str:
        return self.short_number if short and self.short_number else self.number


@dataclass(frozen=True, slots=True)
class Flow:
    rows: list[list[int]]  # tile indexes, row by row
    widths: list[float]
    big: QFont  # the big numbers' font
    gap: float  # between tiles, and before the first
    short: bool = False  # the tiles show their short labels
    compact: bool = False  # and their compact ones (a stage short of room asked for them)


def number_room(number: str) -> str:
    """The widest number of ``number``'s kind: every digit an 8, a share as wide as "100%"."""
    if number.endswith("%"):
        return "888%"
    return "".join("8" if c.isdigit() else c for c in number)


def _room(tiles: list[Tile]) -> list[tuple[str, str, str, str]]:
    """What the tiles' widths depend on."""
    return [(t.label, t.compact, number_room(t.number), number_room(t.short_number)) for t in tiles]


def tiles_for(snapshot: Snapshot, figures: IntervalFigures) -> list[Tile]:
    """The tiles a story's snapshot calls for: dequeue fairness first where there is a qdisc, then
    bandwidth where there is traffic, then the interrupts' and the threads' CPU shares (one per task
    name)."""
    out: list[Tile] = []
    if figures.fairness_jain is not None:
        out.append(
            Tile(
                "fairness (Jain)",
                f"{figures.fairness_jain:.2f}",
                tip="1 = every CPU dequeued as much",
                short="Jain",
            )
        )
        total = sum(figures.dequeued) or 1
        for cpu, count in enumerate(figures.dequeued):
            out.append(
                Tile(
                    f"cpu{cpu}",
                    f"{100 * count / total:.0f}%",
                    palette.cpu_color(cpu),
                    palette.cpu_pattern(cpu),
                    f"its share of the dequeues: {count} packets",
                    compact=str(cpu),
                )
            )
    traffic = snapshot.qdisc is not None or bool(snapshot.settings.get("iperf.enabled"))
    if traffic:
        mbps = figures.bandwidth_mbps  # four figures: 63.3 against 95.0 matters, 9076.6 against 9076 not
        number = f"{mbps:.1f}" if mbps < 999.95 else f"{mbps:.0f}"
        out.append(Tile("bandwidth", f"{number} Mbit/s", short="Mbit/s", short_number=number))
    if figures.fairness_jain is None:
        out += interrupt_tiles(figures)
        seen: dict[str, tuple[float, int]] = {}
        for task, task_share in zip(snapshot.tasks, figures.task_share, strict=True):
            if task.name not in seen:
                seen[task.name] = (task_share, task.tid)
        for name, (task_share, tid) in list(seen.items())[:MAX_THREAD_TILES]:
            out.append(
                Tile(
                    f"{name} CPU",
                    f"{100 * task_share:.0f}%",
                    palette.task_color(tid),
                    palette.task_pattern(tid),
                    "share of one CPU",
                    short=name,  # the swatch and the "%" say the rest
                )
            )
    return out


def interrupt_tiles(figures: IntervalFigures) -> list[Tile]:
    """Hard and soft interrupts' shares of one CPU, where they take a notable part of it
    (``model.metrics.interrupt_shares``): the 2009 story's point is that the NIC's interrupt leaves its server
    thread almost nothing, which the threads' tiles alone ("iperf-server CPU 1%") do not say."""
    shares = interrupt_shares(figures.cpu_hardirq, figures.cpu_softirq)
    if shares is None:
        return []
    hard, soft = shares
    where = "" if len(figures.cpu_hardirq) == 1 else " (every CPU's together)"
    return [
        Tile(
            state,
            f"{100 * value:.0f}%",
            palette.STATE_COLORS[state],
            palette.STATE_PATTERNS[state],
            f"{words}: share of one CPU{where}",
        )
        for state, value, words in (
            ("hardirq", hard, "hard interrupts"),
            ("softirq", soft, "softirqs (NET_RX, NET_TX, …)"),
        )
    ]


def caption_for(snapshot: Snapshot, figures: IntervalFigures) -> str:
    """ "mean since compat_yield=1 at t = 2.35 s (the last 1.2 s)"."""
    span = format_duration(figures.duration_ns)
    what = "cpuN: share of the dequeues; " if figures.fairness_jain is not None else ""
    if not snapshot.toggles:
        return f"{what}mean since the start (the last {span})"
    _t, key, value = snapshot.toggles[-1]
    since = f"{toggle_label(key, value)} at t = {format_duration(figures.t0_ns)}"
    return f"{what}mean since {since} (the last {span})"


class HeadlinePanel(SnapshotPanel):
    """Large numbers: what the graphs' dashed lines say, to be read from the back of the room."""

    height_changed = Signal()  # its tiles needed another row (or one less): the stage lays out again

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)  # paints all of itself
        self.tiles: list[Tile] = []
        self.caption = ""
        self._shown_key: tuple[object, ...] | None = None  # what the tiles were made from
        self._flow_cache: tuple[tuple[object, ...], Flow] | None = None
        self.caption_folded = False  # the window's choice (``fold_caption``) on a stage short of room
        self.tiles_compact = False  # the window's choice (``compact_tiles``) on a stage shorter still
        self.apply_theme()

    def reset(self) -> None:
        self.tiles, self.caption = [], ""
        self._shown_key = None
        self.update()

    def apply_theme(self) -> None:
        self._shown_key = None  # the tiles' colours come from the palette
        self._flow_cache = None
        self._label_font = _font(LABEL_PT)
        self._caption_font = _font(CAPTION_PT)
        self._fit_height()
        self.update()

    def _tile_h(self, big: QFont) -> float:
        return font_metrics(self._label_font).height() + font_metrics(big).height() + PAD / 2 + 3

    def _caption_beside(self, flow: Flow) -> bool:
        """Whether the caption fits to the right of the last row of tiles, within their height (else it
        goes under them, where it costs the panels below a line)."""
        if not flow.rows:
            return False
        return self._caption_height(self.lw() - self._caption_x(flow) - PAD, flow.big) is not None

    @staticmethod
    def _caption_x(flow: Flow) -> float:
        return flow.gap + sum(flow.widths[i] + flow.gap for i in flow.rows[-1]) + PAD

    def _caption_height(self, width: float, big: QFont) -> float | None:
        """The caption's height in ``width``, on one line or wrapped onto as many as the tiles' height
        holds beside them (at least two); None if it needs more."""
        fm = font_metrics(self._caption_font)
        if width <= 0:
            return None
        if fm.horizontalAdvance(self.caption) <= width:
            return float(fm.height())
        lines = max(2, int((self._tile_h(big) - 4) // fm.lineSpacing()))
        wrapped = fm.boundingRect(QRect(0, 0, int(width), 10_000), CAPTION_WRAP, self.caption)
        fits = wrapped.width() <= width and round(wrapped.height() / fm.lineSpacing()) <= lines
        return float(wrapped.height()) if fits else None

    def full_height(self, caption: bool = True, compact: bool | None = None) -> int:
        """The height with the caption shown beside or under the tiles (``caption``), or left out, and
        the tiles compact or not as ``compact`` says (None: as they are now)."""
        flow = self._rows(self.lw(), compact)
        rows = max(len(flow.rows), 1)
        under = caption and not self._caption_beside(flow)
        caption_h = font_metrics(self._caption_font).height() if under else 0
        foot = 0 if flow.compact else PAD  # compact: no more under the tiles than between their rows
        return round((rows * (self._tile_h(flow.big) + PAD / 2) + caption_h + foot) * self.zoom)

    def caption_under_height(self) -> int:
        """What the caption adds under the tiles as they flow before any compact fold (0 where it fits
        beside them), in widget pixels."""
        return self.full_height(compact=False) - self.full_height(caption=False, compact=False)

    def fold_caption(self, folded: bool) -> None:
        """Leave the caption out where it would go under the tiles (``folded``): a stage short of room
        even with the lanes' legend out and the idle CPUs sharing a lane gives its line to the panels
        below. The tiles' tooltip still says what the numbers are means of."""
        if folded != self.caption_folded:
            self.caption_folded = folded
            self._fit_height(tell=False)  # the window asked for this: no signal back to it
            self.update()

    def compact_saving(self) -> int:
        """What compact tiles with the caption left out would save against the tiles as they are with
        the caption shown, in widget pixels."""
        return self.full_height(compact=False) - self.full_height(caption=False, compact=True)

    def compact_tiles(self, compact: bool) -> None:
        """Flow the tiles compact (``compact``): the CPUs' tiles labelled by their number beside their
        swatch and the big numbers allowed smaller, so that a stage short of room even with the caption
        folded keeps one row of tiles. Their tooltip still names each tile."""
        if compact != self.tiles_compact:
            self.tiles_compact = compact
            self._fit_height(tell=False)  # the window asked for this: no signal back to it
            self.update()

    def _fit_height(self, tell: bool = True) -> None:
        """As many rows of tiles as the width needs, and the caption beside or under them (or left out,
        when folded and it would go under)."""
        height = self.full_height(caption=not self.caption_folded)
        if height != self.height():
            self.setFixedHeight(height)
            if tell:
                self.height_changed.emit()

    def sizeHint(self) -> QSize:
        return QSize(600, self.height())

    def minimumSizeHint(self) -> QSize:
        return QSize(200, self.height())

    def show_snapshot(self, snapshot: Snapshot) -> None:
        rows = snapshot.series
        anchor = snapshot.series_anchor
        # The figures change with a new sample or a new anchor (about one frame in three): the same
        # last row, anchor, last toggle, traffic and tasks give the same tiles and caption.
        key = (
            len(rows),
            rows[-1].tobytes() if len(rows) else b"",
            anchor.tobytes() if anchor is not None else None,
            snapshot.toggles[-1:],
            snapshot.qdisc is not None,
            bool(snapshot.settings.get("iperf.enabled")),
            tuple((t.tid, t.name) for t in snapshot.tasks),
        )
        if key == self._shown_key:
            return
        self._shown_key = key
        figures = (
            interval_figures(snapshot.series_layout, anchor, rows[-1])
            if len(rows) and anchor is not None
            else None
        )
        tiles = tiles_for(snapshot, figures) if figures is not None else []
        caption = caption_for(snapshot, figures) if figures is not None else "waiting for the first sample"
        if (tiles, caption) != (self.tiles, self.caption):
            resize = _room(tiles) != _room(self.tiles) or len(caption) != len(self.caption)
            self.tiles, self.caption = tiles, caption
            self.setToolTip(
                "\n".join(
                    [f"{t.label}: {t.number} ({t.tip})" if t.tip else f"{t.label}: {t.number}" for t in tiles]
                    + [caption]
                )
            )
            if resize:
                self._fit_height()
            self.update()

    @guarded
    def resizeEvent(self, event: object) -> None:
        self._fit_height()

    # ---- layout and painting ----------------------------------------------------------------------

    def _rows(self, width: float, compact: bool | None = None) -> Flow:
        """The tiles flowed into rows of ``width``, compact or not (None: as they are now); the same
        words' rooms in the same width give the same flow as the previous frame's."""
        compact = self.tiles_compact if compact is None else compact
        key = (width, compact, _room(self.tiles))
        if self._flow_cache is None or self._flow_cache[0] != key:
            self._flow_cache = (key, self._flow_tiles(width, compact))
        return self._flow_cache[1]

    def _flow_tiles(self, width: float, compact: bool = False) -> Flow:
        """Big numbers shrink (to ``SHORT_LABELS_FROM_PT``), then at each smaller size (to
        ``MIN_NUMBER_PT``) the tiles first draw closer together and take their short labels, then (where
        the window asked for ``compact`` tiles) take their compact labels and smaller numbers, before a
        tile moves to another row. A tile is as wide as its label and the widest number of its kind
        (``number_room``), so the rows hold still as numbers change."""
        if not self.tiles:  # before the first sample: a row no taller than any the tiles will need
            return Flow([], [], _font(MIN_NUMBER_PT, bold=True), PAD)
        for pt in range(NUMBER_PT, MIN_NUMBER_PT - 1, -1):
            big = _font(pt, bold=True)
            widths = [self._tile_width(t, big) for t in self.tiles]
            if sum(widths) + PAD * (len(widths) + 1) <= width:
                return self._flow(widths, big, PAD, width)
            if pt > SHORT_LABELS_FROM_PT:
                continue
            # The numbers are what a class reads from the back: below this size the tiles draw closer,
            # then take their short labels, before the numbers shrink further.
            for short in (False, True):
                tight = [self._tile_width(t, big, TIGHT_INSET, short) for t in self.tiles]
                if sum(tight) + TIGHT_GAP * (len(tight) + 1) <= width:
                    return self._flow(tight, big, TIGHT_GAP, width, short)
        for pt in range(MIN_NUMBER_PT, COMPACT_NUMBER_PT - 1, -1) if compact else ():
            small = _font(pt, bold=True)
            tight = [self._tile_width(t, small, TIGHT_INSET, True, True) for t in self.tiles]
            if sum(tight) + TIGHT_GAP * (len(tight) + 1) <= width:
                return self._flow(tight, small, TIGHT_GAP, width, True, True)
        return self._flow(widths, big, PAD, width)  # more than one row

    @staticmethod
    def _flow(
        widths: list[float], big: QFont, gap: float, width: float, short: bool = False, compact: bool = False
    ) -> Flow:
        rows: list[list[int]] = []
        x = gap
        for i, w in enumerate(widths):
            if not rows or (x + w > width - gap and rows[-1]):
                rows.append([])
                x = gap
            rows[-1].append(i)
            x += w + gap
        return Flow(rows, widths, big, gap, short, compact)

    def _tile_width(
        self, tile: Tile, big: QFont, inset: float = INSET, short: bool = False, compact: bool = False
    ) -> float:
        swatch = 18.0 if tile.color is not None else 0.0
        label_w = font_metrics(self._label_font).horizontalAdvance(tile.label_for(short, compact)) + swatch
        number_w = font_metrics(big).horizontalAdvance(number_room(tile.number_for(short)))
        return max(label_w, number_w) + inset

    @guarded
    def paintEvent(self, event: QPaintEvent) -> None:
        p = self.begin_painting()
        p.fillRect(self.logical_rect(), palette.BACKGROUND)
        flow = self._rows(self.lw())
        big = flow.big
        label_h = font_metrics(self._label_font).height()
        big_h = font_metrics(big).height()
        tile_h = self._tile_h(big)
        y = PAD / 2
        for row in flow.rows:
            x = flow.gap
            for i in row:
                box = QRectF(x, y, flow.widths[i], tile_h)
                self._paint_tile(p, self.tiles[i], box, big, label_h, big_h, flow.short, flow.compact)
                x += flow.widths[i] + flow.gap
            y += tile_h + PAD / 2
        p.setFont(self._caption_font)
        p.setPen(palette.TEXT)
        fm = font_metrics(self._caption_font)
        if self._caption_beside(flow):  # to the right of the last row, at its foot
            x = self._caption_x(flow)
            h = self._caption_height(self.lw() - x - PAD, big) or fm.height()
            caption_rect = QRectF(x, y - PAD / 2 - h - 4, self.lw() - x - PAD, h)
            p.drawText(caption_rect, CAPTION_WRAP, self.caption)
        elif not self.caption_folded:
            caption_rect = QRectF(PAD, y, self.lw() - 2 * PAD, fm.height())
            words = fm.elidedText(self.caption, Qt.TextElideMode.ElideRight, int(caption_rect.width()))
            p.drawText(caption_rect, Qt.AlignmentFlag.AlignLeft, words)
        p.end()

    def _paint_tile(
        self,
        p: QPainter,
        tile: Tile,
        box: QRectF,
        big: QFont,
        label_h: float,
        big_h: float,
        short: bool,
        compact: bool,
    ) -> None:
        p.setPen(QPen(palette.GREY, theme.stroke(1)))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRoundedRect(box, 5, 5)
        lx = box.left() + 6
        if tile.color is not None:
            swatch = QRectF(lx, box.top() + (label_h - 12) / 2 + 2, 12, 12)
            p.fillRect(swatch, palette.BACKGROUND)
            p.fillRect(swatch, QBrush(tile.color, tile.pattern))
            p.setPen(QPen(palette.TEXT, 1))
            p.drawRect(swatch)
            lx += 18
        p.setPen(palette.TEXT)
        p.setFont(self._label_font)
        p.drawText(
            QRectF(lx, box.top() + 2, box.right() - lx, label_h),
            Qt.AlignmentFlag.AlignLeft,
            tile.label_for(short, compact),
        )
        p.setFont(big)
        number = QRectF(box.left() + 6, box.top() + label_h + 3, box.width() - 8, big_h)
        p.drawText(number, Qt.AlignmentFlag.AlignLeft, tile.number_for(short))
