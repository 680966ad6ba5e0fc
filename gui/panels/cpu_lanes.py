"""CPU lanes: one lane per CPU showing what runs now and a scrolling Gantt strip of the recent past.

The panel keeps a bounded history per CPU (``gui.draw.lane_history.LaneHistory``) built from the switch,
interrupt and yield trace records of each snapshot, and picks the width of its window of simulated time
from the density of those records unless told one. ``render`` turns the history into pixel runs once
per frame; ``paintEvent`` only draws them. Hardirq time is black, softirq hatched, both over the lower
part of the task they interrupted; idle is blank; yields are ticks above the strip. The wheel zooms
the strip about the pointer, a drag pans it into the past (``MAX_PAN_WINDOWS`` windows back),
a double-click returns to now; hovering says what is drawn there, with its exact times.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence

from PySide6.QtCore import QLineF, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QMouseEvent,
    QPainter,
    QPainterPath,
    QPaintEvent,
    QPen,
    QPolygonF,
    QWheelEvent,
)
from PySide6.QtWidgets import QWidget

from gui import pyside_fix  # noqa: F401 - before any paint or emit
from gui.draw import palette
from gui.draw.formats import exact_duration, exact_time, format_duration, nice_step, tick_label
from gui.draw.lane_history import HARDIRQ, IDLE, SOFTIRQ, LaneHistory, pixel_runs, time_to_x, yield_columns
from gui.draw.layer_cache import LayerCache
from gui.draw.static_text import font_metrics
from gui.panels.base import HoverTipsPanel
from model.snapshot import CpuView, IrqRecord, Snapshot, SwitchRecord, TraceRecord, YieldRecord

# Window widths offered by the automatic choice (a 1-2-5 ladder, 100 µs .. 10 s).
WINDOW_LADDER_NS: tuple[int, ...] = (*(m * 10**e for e in range(5, 10) for m in (1, 2, 5)), 10**10)
DEFAULT_WINDOW_NS = 50_000_000
MAX_PAN_WINDOWS = 8  # how many windows back a drag may pan (the lanes keep that much history)
ZOOM_STEP = 1.25  # one wheel notch
ZOOM_BOUNDS_NS = (10_000, 10_000_000_000)
TARGET_RECORDS_IN_WINDOW = 60  # switches + interrupts a lane should show, for the automatic width
MERGE_PX = 1600  # segments shorter than window / MERGE_PX are merged as they arrive

Runs = list[tuple[int, int, int]]  # pixel runs (x0, x1, code)
LaneRuns = tuple[Runs, Runs, list[tuple[int, bool]]]  # tasks, interrupts, yield marks

YIELD_LEGEND = ("yield → switched", "yield → kept the CPU")
LEGEND_ROW_H, AXIS_H, LEFT_W, PAD, YIELD_H = 26, 28, 290, 8, 10
MIN_LANE_H = 22.0
LegendFlow = tuple[list[tuple[QRectF, str, int | None]], float]  # (swatch, text, code) entries, height


# ---- pure helpers ---------------------------------------------------------------------------------


def axis_ticks(window_ns: int, max_ticks: int) -> list[int]:
    """Tick offsets from now (0, -step, -2·step, …) that fit in the window."""
    step = int(nice_step(window_ns, max_ticks))
    return [-k * step for k in range(window_ns // step + 1)]


def choose_window_ns(rate_per_ns: float, current_ns: int) -> int:
    """A ladder width showing about TARGET_RECORDS_IN_WINDOW records; sticky within a factor 2.5."""
    if rate_per_ns <= 0:
        return current_ns
    ideal = TARGET_RECORDS_IN_WINDOW / rate_per_ns
    if 0.4 < ideal / current_ns < 2.5:
        return current_ns
    return min(WINDOW_LADDER_NS, key=lambda w: abs(math.log(w / ideal)))


def lane_height(avail_px: float, ncpus: int) -> float:
    return max(MIN_LANE_H, min(110.0, avail_px / max(ncpus, 1)))


def text_on(color: QColor) -> QColor:
    """Dark or white text, whichever reads on ``color``."""
    lum = 0.299 * color.red() + 0.587 * color.green() + 0.114 * color.blue()
    return palette.TEXT if lum > 140 else palette.BACKGROUND


@functools.lru_cache(maxsize=256)
def code_brush(code: int) -> QBrush:
    """The brush of a segment code (a tid, or idle / hardirq / softirq), made once."""
    if code > 0:
        return QBrush(palette.task_color(code), palette.task_pattern(code))
    state = {HARDIRQ: "hardirq", SOFTIRQ: "softirq"}.get(code, "idle")
    return QBrush(palette.STATE_COLORS[state], palette.STATE_PATTERNS[state])


# ---- the panel ------------------------------------------------------------------------------------


PER_CPU_THREADS = ("ksoftirqd/",)  # bound to one CPU each: not counted against the lanes


class CpuLanesPanel(HoverTipsPanel):
    """One lane per CPU: the task running now, need_resched, the dequeuer token, and a Gantt strip."""

    task_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setMinimumSize(480, 120)
        self._font = QFont(self.font().family(), 11)
        self._bold = QFont(self._font)
        self._bold.setBold(True)
        self._big = QFont(self._bold)
        self._big.setPointSize(13)
        self._fixed_window_ns: int | None = None
        self._offset_ns = 0  # panned into the past: the strip ends this long before now
        self._drag: tuple[float, int] | None = None  # (x where a drag began, offset then)
        self._dragged = False
        self._legend_cache: tuple[tuple[object, ...], LegendFlow] | None = None
        self._parts = LayerCache()
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)  # paints all of itself: nothing beneath
        self.setMouseTracking(True)
        self.reset()

    # ---- public API ---------------------------------------------------------------------------------

    def reset(self) -> None:
        """Forget all history (after a restart)."""
        self.lanes: list[LaneHistory] = []
        self._offset_ns = 0
        self._names: dict[int, str] = {}
        self._cpus: tuple[CpuView, ...] = ()
        self._now_ns = 0
        self._last_t: int | None = None
        self._auto_window_ns = DEFAULT_WINDOW_NS
        self._density = (0.0, 0.0)  # (records, ns), decayed over about one window of simulated time
        self._dequeuer = -1
        self._yields_seen = False
        self._layout_size = QSize()
        self._runs: list[LaneRuns] = []
        self.update()

    def set_window_ns(self, window_ns: int | None) -> None:
        """Show the last ``window_ns`` of simulated time; ``None`` or 0 chooses from the event density."""
        self._fixed_window_ns = int(window_ns) if window_ns else None
        self._relayout()

    @property
    def window_ns(self) -> int:
        return self._fixed_window_ns or self._auto_window_ns

    @property
    def view_end_ns(self) -> int:
        """Where the strip ends: now, or earlier when panned into the past."""
        return max(self._now_ns - self._offset_ns, 0)

    @property
    def kept_ns(self) -> int:
        """How much of the past the lanes keep: enough to pan back ``MAX_PAN_WINDOWS`` windows."""
        return (MAX_PAN_WINDOWS + 2) * self.window_ns

    def zoom_strip(self, factor: float, anchor_x: float | None = None) -> None:
        """Show ``factor`` times the time (wheel): about the instant under ``anchor_x``, else the end."""
        _, _, _, strip_w = self._geometry()
        x0, win = LEFT_W + PAD, self.window_ns
        end = self.view_end_ns
        frac = 1.0 if anchor_x is None else min(max((anchor_x - x0) / strip_w, 0.0), 1.0)
        anchor_t = end - (1.0 - frac) * win
        new_win = int(min(max(win * factor, ZOOM_BOUNDS_NS[0]), ZOOM_BOUNDS_NS[1]))
        self._fixed_window_ns = new_win
        self._offset_ns = self._clamp_offset(int(self._now_ns - (anchor_t + (1.0 - frac) * new_win)))
        self._relayout()

    def pan(self, offset_ns: int) -> None:
        """End the strip ``offset_ns`` before now (0: live)."""
        self._offset_ns = self._clamp_offset(offset_ns)
        self._relayout()

    def live(self) -> None:
        """Back to now and the automatic window (double-click)."""
        self._offset_ns, self._fixed_window_ns = 0, None
        self._relayout()

    def _clamp_offset(self, offset_ns: int) -> int:
        return max(0, min(offset_ns, MAX_PAN_WINDOWS * self.window_ns, self._now_ns))

    @property
    def lane_count(self) -> int:
        return len(self.lanes)

    def show_snapshot(self, snapshot: Snapshot) -> None:
        """Take in the records since the previous snapshot and redraw."""
        now = snapshot.t_ns
        self._names.update((t.tid, t.name) for t in snapshot.tasks)
        while len(self.lanes) < len(snapshot.cpus):
            self.lanes.append(LaneHistory())
        del self.lanes[len(snapshot.cpus) :]
        counted = self._ingest(snapshot.events, now - self.kept_ns)
        if self._last_t is not None and now > self._last_t:
            dt = now - self._last_t
            keep = math.exp(-dt / self._auto_window_ns)
            records, span = self._density[0] * keep + counted, self._density[1] * keep + dt
            self._density = (records, span)
            self._auto_window_ns = choose_window_ns(records / span, self._auto_window_ns)
        for lane, cpu in zip(self.lanes, snapshot.cpus, strict=True):
            if lane.open_code is None:  # nothing switched yet: it has run since the previous frame
                lane.open_code, lane.open_start = cpu.curr_tid, now if self._last_t is None else self._last_t
            elif lane.open_code != cpu.curr_tid:  # records lost to the machine's trace limit
                lane.switch(now, cpu.curr_tid, lane.open_code, self._quantum())
            lane.prune(now - self.kept_ns)
        self._cpus, self._now_ns, self._last_t = snapshot.cpus, now, now
        self._dequeuer = snapshot.qdisc.dequeuer_cpu if snapshot.qdisc is not None else -1
        self._relayout()

    def needed_height(self) -> int:
        """The least height that shows every CPU's lane (at their smallest) with the legend and axis."""
        _, legend_h = self._legend_layout()
        return int((PAD + legend_h + 4 + max(len(self.lanes), 1) * MIN_LANE_H + AXIS_H + PAD) * self.zoom)

    def sizeHint(self) -> QSize:
        n = max(len(self.lanes), 1)
        _, legend_h = self._legend_layout()
        return QSize(1000, int((legend_h + AXIS_H + 2 * PAD + 4 + n * 76) * self.zoom))

    def lane_rects(self) -> list[QRectF]:
        """Each CPU's lane (its head and strip), in widget pixels."""
        _, top, lane_h, _ = self._geometry()
        z = self.zoom
        return [
            QRectF(0, (top + i * lane_h) * z, self.width(), (lane_h - 4) * z) for i in range(len(self._runs))
        ]

    def min_lane_px(self) -> float:
        return (MIN_LANE_H - 4) * self.zoom

    def apply_theme(self) -> None:
        self._parts.clear()
        code_brush.cache_clear()
        _fill_style.cache_clear()
        self._relayout()

    def minimumSizeHint(self) -> QSize:
        return QSize(480, 120)

    # ---- ingest -------------------------------------------------------------------------------------

    def _quantum(self) -> int:
        return max(self.window_ns // MERGE_PX, 1)

    def _ingest(self, events: Sequence[TraceRecord], cutoff_ns: int) -> int:
        """Feed the records to the lanes; records before ``cutoff_ns`` only update what runs. Returns the
        number of switch and irq records (the density that picks the automatic window)."""
        lanes, quantum, counted = self.lanes, self._quantum(), 0
        for r in events:
            if r.cpu >= len(lanes):
                continue
            lane = lanes[r.cpu]
            if isinstance(r, SwitchRecord):
                counted += 1
                if r.t_ns < cutoff_ns:
                    lane.open_code, lane.open_start = r.tid, r.t_ns
                else:
                    lane.switch(r.t_ns, r.tid, r.prev_tid, quantum)
            elif isinstance(r, IrqRecord):
                counted += 1
                if r.t_ns + r.dur_ns >= cutoff_ns:
                    lane.irq(r.t_ns, r.hardirq_ns, r.softirq_ns)
            elif isinstance(r, YieldRecord) and r.t_ns >= cutoff_ns:
                lane.yields.append((r.t_ns, r.switched))
                self._yields_seen = True
        return counted

    # ---- geometry -----------------------------------------------------------------------------------

    def _legend_layout(self) -> LegendFlow:
        """Flow the legend into rows: (swatch rect, text, code; None for the yield marks), and its height.

        The yield marks are listed once a yield was seen. Where the tasks would take more than one row
        and there are no more of them than lanes, they are left out: each lane's head names and colours
        the task it runs, and every segment wide enough says whose it is."""
        names = tuple(sorted(self._names.items()))
        key: tuple[object, ...] = (self._yields_seen, names, self.lw(), len(self.lanes), self._font)
        if self._legend_cache is not None and self._legend_cache[0] == key:
            return self._legend_cache[1]  # the same words in the same width: the same flow (every frame)
        flowed = self._flow_legend()
        self._legend_cache = (key, flowed)
        return flowed

    def _flow_legend(self) -> LegendFlow:
        fm = font_metrics(self._font)
        states: list[tuple[str, int | None]] = [("idle", IDLE), ("hardirq", HARDIRQ), ("softirq", SOFTIRQ)]
        if self._yields_seen:
            states += [(YIELD_LEGEND[0], None), (YIELD_LEGEND[1], None)]
        tasks: list[tuple[str, int | None]] = [(n, t) for t, n in sorted(self._names.items())]
        widths = sum(28 + fm.horizontalAdvance(text) + 18 for text, _ in (*tasks, *states))
        # per-CPU kernel threads (ksoftirqd/N) run on their own lane only, whose head names them
        senders = [t for t in tasks if not t[0].startswith(PER_CPU_THREADS)]
        if widths > self.lw() - 2 * PAD and len(senders) <= len(self.lanes):
            tasks = []
        entries = tasks + states
        x, y, out = float(PAD), float(PAD), []
        for text, brush in entries:
            w = 28 + fm.horizontalAdvance(text) + 18
            if x + w > self.lw() - PAD and x > PAD:
                x, y = float(PAD), y + LEGEND_ROW_H
            out.append((QRectF(x, y + 5, 22, 16), text, brush))
            x += w
        return out, y + LEGEND_ROW_H - PAD

    def _geometry(self) -> tuple[float, float, float, float]:
        """(legend height, lane top, lane height, strip width)."""
        _, legend_h = self._legend_layout()
        top = PAD + legend_h + 4
        avail = self.lh() - top - AXIS_H - PAD
        return legend_h, top, lane_height(avail, len(self.lanes)), max(self.lw() - LEFT_W - 2 * PAD, 10)

    def _relayout(self) -> None:
        self._layout_size = self.size()
        _, _, _, strip_w = self._geometry()
        x0, now, win = LEFT_W + PAD, self.view_end_ns, self.window_ns
        self._runs = [
            (
                pixel_runs(lane.task_segments(self._now_ns, now - win), now, win, x0, strip_w),
                pixel_runs(lane.irq_segments(now - win), now, win, x0, strip_w),
                yield_columns(lane.yields, now, win, x0, strip_w),
            )
            for lane in self.lanes
        ]
        self.update()

    def resizeEvent(self, event: object) -> None:
        if self.size() != self._layout_size:  # grab() may deliver a pending resize of the same size
            self._relayout()

    # ---- painting -----------------------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        p = self.begin_painting()
        p.fillRect(self.logical_rect(), palette.BACKGROUND)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        _, top, lane_h, strip_w = self._geometry()
        # The legend and the lane heads read the same from frame to frame (a head changes when its CPU
        # switches): each is copied from a pixmap while it does (``gui.draw.layer_cache``). Every
        # repaint still draws them all: a grab or a video frame of the panel shows everything.
        legend_key = self._legend_cache[0] if self._legend_cache else None
        self._parts.draw(p, "legend", legend_key, QRectF(0, 0, self.lw(), top), self._paint_legend)
        for i, runs in enumerate(self._runs):
            y = top + i * lane_h
            head = QRectF(PAD, y, LEFT_W - PAD, lane_h - 4)
            self._parts.draw(
                p,
                ("head", i),
                self._head_key(i, head),
                head.adjusted(-3, -3, 3, 3),  # and the badges' outlines
                functools.partial(self._paint_lane_head, i=i, r=head),
            )
            self._paint_strip(p, runs, QRectF(LEFT_W + PAD, y, strip_w, lane_h - 6))
        self._parts.end_frame()
        self._paint_axis(p, top + len(self._runs) * lane_h, strip_w)
        p.end()

    def _head_key(self, i: int, r: QRectF) -> tuple[object, ...]:
        """What lane ``i``'s head in ``r`` shows: its CPU's state, task and badges, in the words drawn."""
        if i >= len(self._cpus):
            return (i, r.getRect())
        cpu = self._cpus[i]
        shown = {"hardirq": HARDIRQ, "softirq": SOFTIRQ}.get(cpu.state, cpu.curr_tid)
        names = (self._names.get(cpu.curr_tid), self._names.get(shown))
        return (i, r.getRect(), cpu.curr_tid, cpu.state, cpu.need_resched, self._dequeuer == i, names)

    def _paint_legend(self, p: QPainter) -> None:
        items, _ = self._legend_layout()
        p.setFont(self._font)
        for rect, text, code in items:
            if code is None:  # the yield marks, drawn as on the lanes
                _yield_marks(p, [(rect.center().x(), text == YIELD_LEGEND[0])], rect.top() + 3)
            else:
                _fill(p, rect, code)
                p.setPen(QPen(palette.TEXT, 1))
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.drawRect(rect)
            p.setPen(palette.TEXT)
            p.drawText(QPointF(rect.right() + 6, rect.bottom() - 2), text)

    def _paint_lane_head(self, p: QPainter, i: int, r: QRectF) -> None:
        """The CPU's name, what it runs now (swatch and words), and its badges: need_resched, dequeuer.

        Tall lanes use two lines (badges beside the name); short ones one line, badges at its end."""
        cpu = self._cpus[i] if i < len(self._cpus) else None
        fm = font_metrics(self._big)
        two_lines = r.height() >= 46
        base = r.top() + 2 + fm.ascent() if two_lines else r.center().y() + fm.ascent() / 2 - 2
        p.setFont(self._big)
        p.setPen(palette.TEXT)
        p.drawText(QPointF(r.left(), base), f"CPU {i}")
        if cpu is None:
            return
        badges = [("need_resched" if two_lines else "resched", False)] if cpu.need_resched else []
        badges += [("dequeuer", True)] if self._dequeuer == i else []
        right = r.right()
        for text, filled in reversed(badges):
            right = _badge(p, right, base, text, self._font, filled) - 4
        code = {"hardirq": HARDIRQ, "softirq": SOFTIRQ}.get(cpu.state, cpu.curr_tid)
        label = self._names.get(code, f"task {code}") if code > 0 else cpu.state
        if code < 0 and cpu.curr_tid:
            label += f" (over {self._names.get(cpu.curr_tid, cpu.curr_tid)})"
        if two_lines:
            swatch, right = QRectF(r.left(), base + 8, 22, 16), r.right()
        else:
            swatch = QRectF(r.left() + fm.horizontalAdvance("CPU 00") + 4, base - 13, 22, 16)
        _fill(p, swatch, code)
        p.setPen(QPen(palette.TEXT, 1))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(swatch)
        p.setFont(self._bold if code > 0 else self._font)
        room = int(right - swatch.right() - 8)
        words = font_metrics(p.font()).elidedText(label, Qt.TextElideMode.ElideRight, room)
        p.drawText(QPointF(swatch.right() + 6, swatch.bottom() - 2), words)

    def _paint_strip(self, p: QPainter, runs: LaneRuns, r: QRectF) -> None:
        tasks, irqs, yields = runs
        bar = QRectF(r.left(), r.top() + YIELD_H, r.width(), r.height() - YIELD_H)
        p.setPen(QPen(palette.GREY, 1))
        p.setBrush(palette.BACKGROUND)
        p.drawRect(bar)
        irq_top = bar.top() + bar.height() * 0.6
        labels: list[tuple[QRectF, int]] = []
        fm = font_metrics(self._bold)
        for xa, xb, code in tasks:
            if code == IDLE:
                continue
            seg = QRectF(xa, bar.top(), xb - xa, bar.height())
            _fill(p, seg, code)
            if xb - xa > 44 and irq_top - bar.top() >= fm.height():
                labels.append((QRectF(xa + 5, bar.top(), xb - xa - 8, irq_top - bar.top()), code))
        for xa, xb, code in irqs:
            _fill(p, QRectF(xa, irq_top, xb - xa, bar.bottom() - irq_top), code)
        p.setFont(self._bold)
        for rect, code in labels:
            solid = _fill_style(code) == (False, True)
            p.setPen(text_on(palette.task_color(code)) if solid else palette.TEXT)
            name = fm.elidedText(self._names.get(code, ""), Qt.TextElideMode.ElideRight, int(rect.width()))
            p.drawText(rect, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, name)
        _yield_marks(p, yields, r.top())

    def _paint_axis(self, p: QPainter, y: float, strip_w: float) -> None:
        x0, win, end, now = LEFT_W + PAD, self.window_ns, self.view_end_ns, self._now_ns
        p.setPen(QPen(palette.TEXT, 1))
        p.setFont(self._font)
        fm = font_metrics(self._font)
        p.drawLine(QPointF(x0, y), QPointF(x0 + strip_w, y))
        max_ticks = max(int(strip_w // 90), 1)
        free_right = x0 + strip_w  # labels go right to left; one that would touch its neighbour is left out
        step = int(nice_step(win, max_ticks))
        first = end - end % step if end % step else end
        t = first
        while t >= end - win:
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
            t -= step
        ago = f", ending {format_duration(self._offset_ns)} ago" if self._offset_ns else ""
        p.drawText(
            QPointF(PAD, y + 5 + fm.ascent()), f"t = {format_duration(now)} · {format_duration(win)}{ago}"
        )

    # ---- input --------------------------------------------------------------------------------------

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self._drag, self._dragged = (event.position().x(), self._offset_ns), False

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._drag is None:
            return
        x_start, offset = self._drag
        dx = (event.position().x() - x_start) / self.zoom
        if abs(dx) > 3:
            self._dragged = True
        _, _, _, strip_w = self._geometry()
        self.pan(int(offset + dx * self.window_ns / strip_w))  # dragging right goes into the past

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self._drag is not None and not self._dragged:
            tid = self.tid_at(self.to_logical(event.position()))
            if tid > 0:
                self.task_clicked.emit(tid)
        self._drag = None

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        self.live()

    def wheelEvent(self, event: QWheelEvent) -> None:
        steps = event.angleDelta().y() / 120
        if steps:
            self.zoom_strip(ZOOM_STEP ** (-steps), self.to_logical(event.position()).x())

    def describe_at(self, pos: QPointF) -> str:
        """What is drawn at ``pos`` (logical pixels), in words with exact times: a lane's head, a task's
        stretch on the CPU, an interrupt, a yield; "" where nothing is."""
        _, top, lane_h, strip_w = self._geometry()
        i = int((pos.y() - top) // lane_h) if pos.y() >= top else -1
        if not 0 <= i < len(self.lanes):
            return ""
        if pos.x() < LEFT_W:
            return self._describe_head(i)
        x0, win, end = LEFT_W + PAD, self.window_ns, self.view_end_ns
        t = end - (1.0 - (pos.x() - x0) / strip_w) * win
        px_ns = win / strip_w
        lane = self.lanes[i]
        for yt, switched in lane.yields:
            if abs(yt - t) <= 3 * px_ns:
                kept = "gave the CPU up" if switched else "kept the CPU"
                return f"sched_yield() on CPU {i} at t = {exact_time(yt)}: it {kept}"
        for start, hard_end, irq_end in lane.irqs:
            if start <= t < irq_end:
                hard, soft = hard_end - start, irq_end - hard_end
                return (
                    f"interrupt on CPU {i} at t = {exact_time(start)}:\n"
                    f"hardirq {exact_duration(hard)}, softirq {exact_duration(soft)}"
                )
        for start, stop, code in lane.task_segments(self._now_ns):
            if start <= t < stop:
                who = self._names.get(code, f"task {code}") if code > 0 else "idle"
                merged = " (shorter stretches merged)" if stop - start < 3 * self._quantum() else ""
                until = "now" if stop == self._now_ns else f"t = {exact_time(stop)}"
                span = f"from t = {exact_time(start)} to {until},\n{exact_duration(stop - start)}"
                return f"{who} on CPU {i}: {span}{merged}"
        return ""

    def _describe_head(self, i: int) -> str:
        if i >= len(self._cpus):
            return f"CPU {i}"
        cpu = self._cpus[i]
        task = self._names.get(cpu.curr_tid, f"task {cpu.curr_tid}") if cpu.curr_tid else "nothing"
        parts = [f"CPU {i}: {cpu.state}, running {task}"]
        if cpu.need_resched:
            parts.append("need_resched is set: it reschedules at the next chance")
        if self._dequeuer == i:
            parts.append("it holds the qdisc's dequeuer role")
        parts.append(f"{cpu.switches} context switches so far")
        return "; ".join(parts)

    def tid_at(self, pos: QPointF) -> int:
        """The task drawn at ``pos`` (a segment or a lane's "now" swatch), 0 if none."""
        _, top, lane_h, _ = self._geometry()
        i = int((pos.y() - top) // lane_h) if pos.y() >= top else -1
        if not 0 <= i < len(self._runs):
            return 0
        if pos.x() < LEFT_W:
            return self._cpus[i].curr_tid if i < len(self._cpus) else 0
        for xa, xb, code in self._runs[i][0]:
            if xa <= pos.x() < xb:
                return max(code, 0)
        return 0


@functools.lru_cache(maxsize=256)
def _fill_style(code: int) -> tuple[bool, bool]:
    """(white first, then the brush) for a code: patterns go over white so they read on any background."""
    style = code_brush(code).style()
    return style != Qt.BrushStyle.SolidPattern, style != Qt.BrushStyle.NoBrush


def _fill(p: QPainter, rect: QRectF, code: int) -> None:
    under, over = _fill_style(code)
    if under:
        p.fillRect(rect, palette.BACKGROUND)
    if over:
        p.fillRect(rect, code_brush(code))


def _yield_marks(p: QPainter, marks: Iterable[tuple[float, bool]], top: float) -> None:
    """Yields on a lane: a solid triangle where one switched, a tick where the yielder kept the CPU."""
    triangles, ticks = QPainterPath(), []
    for x, switched in marks:
        if switched:
            triangles.addPolygon(
                QPolygonF([QPointF(x - 4, top), QPointF(x + 4, top), QPointF(x, top + YIELD_H - 1)])
            )
        else:
            ticks.append(QLineF(x, top + 1, x, top + YIELD_H - 1))
    p.fillPath(triangles, palette.TEXT)
    if ticks:
        p.setPen(QPen(palette.TEXT, 2))
        p.drawLines(ticks)


def _badge(p: QPainter, right: float, base: float, text: str, font: QFont, filled: bool) -> float:
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
