"""CPU lanes: one lane per CPU showing what runs now and a scrolling Gantt strip of the recent past.

The panel keeps a bounded history per CPU (``gui.draw.lane_history.LaneHistory``) built from the switch,
interrupt and yield trace records of each snapshot, and picks the width of its window of simulated time
from the density of those records unless told one (``gui.draw.lane_window``). ``render`` turns the
history into pixel runs once per frame; ``paintEvent`` only draws them (``gui.draw.lane_painting``).
Hardirq time is black, softirq hatched, both over the lower part of the task they interrupted (where
they crowd, as the 2011 NIC's do, each pixel column is shaded by the share of it they take:
``lane_history.irq_runs``); idle is blank; yields are marks above the strip, and with a qdisc the CPU's
turns as its dequeuer yellow bars there. The pointer's gestures on the strips (zoom, pan into the past
``MAX_PAN_WINDOWS`` windows back, mark an interval, click a task to follow it: ``follow`` fades the
others) are ``gui.panels.strip_window``'s; hovering says what is drawn there, with its exact times
(``gui.draw.lane_tips``), and inside the marked interval how each CPU spent it.
"""

from __future__ import annotations

import functools

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QFont, QPainter, QPaintEvent
from PySide6.QtWidgets import QWidget

from gui import pyside_fix  # noqa: F401 - before any paint or emit
from gui.draw import palette
from gui.draw.handler_guard import guarded
from gui.draw.lane_brushes import forget_brushes
from gui.draw.lane_history import (
    LaneHistory,
    bar_runs,
    ingest,
    irq_runs,
    pixel_runs,
    quiet_rows,
    yield_columns,
)
from gui.draw.lane_legend import LegendFlow, flow_legend
from gui.draw.lane_measure import describe_spent, paint_interval, time_spent
from gui.draw.lane_painting import (
    LaneFonts,
    LaneRuns,
    paint_axis,
    paint_lane_head,
    paint_legend,
    paint_strip,
    shown_code,
    veil_others,
)
from gui.draw.lane_tips import describe_head, describe_strip, describe_tenure
from gui.draw.layer_cache import LayerCache
from gui.panels.strip_window import StripWindowPanel
from model.metrics import KERNEL_ROLES
from model.snapshot import CpuView, Snapshot

MAX_PAN_WINDOWS = 8  # how many windows back a drag may pan (the lanes keep that much history)
MERGE_PX = 1600  # segments shorter than window / MERGE_PX are merged as they arrive

AXIS_H, LEFT_W, PAD = 28, 290, 8
MIN_LANE_H = 20.0
ROOMY_LANE_H = 76  # a lane in the height the panel asks for: two-line heads, a tall strip
YIELD_SPACING = 4  # px between yield marks: a tick is 2 px wide, and closer ones run into a bar
COMPACT_LANE_H = 18.0  # the least lane on a stage short of room even after every other fold
FOOT_PAD = PAD / 2  # under the time axis: the headline below has its own margin
MIN_W = 480  # the panel's least width: LEFT_W of heads and a strip of MIN_W - LEFT_W - 2 * PAD
# A comparison of three or four sides (``allow_narrow``): the heads give way down to NARROW_HEAD_W,
# their words elided, so that the strip keeps what it has at MIN_W; at the least width (four sides on a
# 1280-pixel screen) the strip has NARROW_STRIP_W.
NARROW_HEAD_W = 130
NARROW_STRIP_W = 150
NARROW_MIN_W = NARROW_HEAD_W + 2 * PAD + NARROW_STRIP_W
FOLDED_TOP = 6.0  # above the first lane when the legend is folded


def lane_height(avail_px: float, ncpus: int, least: float = MIN_LANE_H) -> float:
    return max(least, min(110.0, avail_px / max(ncpus, 1)))


def lanes_top(legend_h: float) -> float:
    """Where the first lane starts: under the legend, or near the top with the legend folded (room
    only for the badges' outlines above the first head)."""
    return PAD + legend_h + 4 if legend_h > 0 else FOLDED_TOP


# ---- the panel ------------------------------------------------------------------------------------


GESTURES = (  # the time axis's tip: what the strips answer to
    "On the strips: the wheel zooms about the pointer, a drag goes back in time, a double-click returns "
    "to now; Shift+drag marks an interval and hovering in it says how each CPU spent it, Shift+click "
    "clears it; a click on a task follows it, fading the others in every panel, another click stops; "
    "Escape clears both."
)


class CpuLanesPanel(StripWindowPanel):
    """One lane per CPU: the task running now, need_resched, the dequeuer token, and a Gantt strip."""

    needed_height_changed = Signal()  # the legend took another row, or a CPU came or went

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(MAX_PAN_WINDOWS, parent)
        self.setMinimumSize(MIN_W, 120)
        self._least_w = MIN_W
        self.roomy_lane_h = ROOMY_LANE_H  # a lane's height in the size the panel asks for
        font = QFont(self.font().family(), 11)
        bold = QFont(font)
        bold.setBold(True)
        big = QFont(bold)
        big.setPointSize(13)
        self._fonts = LaneFonts(font, bold, big)
        self._legend_cache: tuple[tuple[object, ...], LegendFlow] | None = None
        self._parts = LayerCache()
        self._needed_h = 0  # the needed_height() the window last heard of
        self.legend_folded = False  # the window's choice (``fold_legend``) on a short stage
        self.quiet_merged = False  # the window's choice (``merge_quiet``) on a stage shorter still
        self.compact = False  # the window's choice (``compact_lanes``) on a stage shorter again
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)  # paints all of itself: nothing beneath
        self.setMouseTracking(True)
        self.reset()

    # ---- public API ---------------------------------------------------------------------------------

    def reset(self) -> None:
        """Forget all history (after a restart)."""
        self.lanes: list[LaneHistory] = []
        self.clock.restart()
        self._names: dict[int, str] = {}
        self._kernel: frozenset[int] = frozenset()  # per-CPU kernel threads: not counted against the lanes
        self._cpus: tuple[CpuView, ...] = ()
        self._dequeuer = -1
        self._yields_seen = False
        self._tenures_seen = False  # the dequeuer's tenures: the band above the strips and the legend
        self._layout_size = QSize()
        self._runs: list[LaneRuns] = []
        self._rows: list[tuple[int, int]] = []  # (first CPU, last CPU) of each row drawn
        self.measured = None  # the interval marked by a Shift+drag
        self.followed = 0  # the task followed (a click on it, in any panel), 0 for none
        self.update()

    def follow(self, tid: int) -> None:
        """Fade every task but ``tid`` (0: none) on the strips."""
        self.followed = tid
        self.update()

    def follows_after_click(self, tid: int) -> int:
        """The task to follow once task ``tid`` is clicked (in any panel): it, or none when it is the
        one followed already."""
        return 0 if tid == self.followed else tid

    @property
    def lane_count(self) -> int:
        return len(self.lanes)

    def show_snapshot(self, snapshot: Snapshot) -> None:
        """Take in the records since the previous snapshot and redraw."""
        now = snapshot.t_ns
        self._names.update((t.tid, t.name) for t in snapshot.tasks)
        self._kernel |= {t.tid for t in snapshot.tasks if t.role in KERNEL_ROLES}
        while len(self.lanes) < len(snapshot.cpus):
            self.lanes.append(LaneHistory())
        del self.lanes[len(snapshot.cpus) :]
        seen = ingest(self.lanes, snapshot.events, now - self.kept_ns, self._quantum())
        self._yields_seen |= seen.yields
        self._tenures_seen |= seen.tenures
        previous = self.clock.last_ns
        self.clock.observe(now, seen.counted)
        for lane, cpu in zip(self.lanes, snapshot.cpus, strict=True):
            lane.catch_up(cpu, snapshot.qdisc, now, now if previous is None else previous, self._quantum())
            self._tenures_seen |= lane.open_tenure is not None
            lane.prune(now - self.kept_ns)
        self._cpus = snapshot.cpus
        self._dequeuer = snapshot.qdisc.dequeuer_cpu if snapshot.qdisc is not None else -1
        self._relayout()

    def needed_height(
        self, legend: bool | None = None, merged: bool | None = None, compact: bool | None = None
    ) -> int:
        """The least height that shows every CPU's lane (at their smallest) with the axis and the legend
        (``legend`` True: as if shown, False: as if folded; None: as it is now), the quiet CPUs each
        in a lane of their own or sharing one as ``merged`` says, the lanes compact or not as
        ``compact`` says (None: as they are now)."""
        lanes_h = max(len(self._row_spans(merged)), 1) * self._least_lane(compact)
        return int((lanes_top(self._legend_h(legend)) + lanes_h + AXIS_H + FOOT_PAD) * self.zoom)

    def size_hint_height(self, legend: bool | None = None, merged: bool | None = None) -> int:
        """The height the lanes would like (roomy lanes), with the legend and the quiet CPUs as for
        ``needed_height``."""
        n = max(len(self._row_spans(merged)), 1)
        return int((self._legend_h(legend) + AXIS_H + 2 * PAD + 4 + n * self.roomy_lane_h) * self.zoom)

    def sizeHint(self) -> QSize:
        return QSize(1000, self.size_hint_height())

    def legend_height(self) -> int:
        """The height the legend takes when shown, in widget pixels."""
        return int(self._legend_h(True) * self.zoom)

    def fold_legend(self, folded: bool) -> None:
        """Leave the legend out (``folded``) or show it. A stage too short for the lanes, the middle
        panel and the graphs gives the legend's rows to the panels below: each lane's head still names
        and colours its task, and hovering a strip says what each part of it shows."""
        if folded == self.legend_folded:
            return
        self.legend_folded = folded
        self._needed_h = self.needed_height()  # the window asked for this: no signal back to it
        self._relayout()

    def merge_quiet(self, merged: bool) -> None:
        """Let neighbouring quiet CPUs (nothing but idle in the window: no task, no interrupt) share one
        lane, "CPU 2–7 idle" (``merged``), or give each its own. A stage too short for every CPU's
        lane even with the legend folded (large text, many CPUs, a one-CPU story) gives the room of
        the idle ones to the panels below; a CPU that starts to run something gets its lane back."""
        if merged == self.quiet_merged:
            return
        self.quiet_merged = merged
        self._needed_h = self.needed_height()  # the window asked for this: no signal back to it
        self._relayout()

    def compact_lanes(self, compact: bool) -> None:
        """Let the lanes go down to ``COMPACT_LANE_H`` (``compact``): the last of the folds a stage
        short of room makes, with the headline's compact tiles."""
        if compact == self.compact:
            return
        self.compact = compact
        self._needed_h = self.needed_height()  # the window asked for this: no signal back to it
        self._relayout()

    def _least_lane(self, compact: bool | None = None) -> float:
        return COMPACT_LANE_H if (self.compact if compact is None else compact) else MIN_LANE_H

    def _row_spans(self, merged: bool | None) -> list[tuple[int, int]]:
        """The rows drawn: (first CPU, last CPU) each, with the quiet CPUs merged as ``merged`` says."""
        if merged is None:
            merged = self.quiet_merged
        if not merged:
            return [(i, i) for i in range(len(self.lanes))]
        cpus, deq = self._cpus, self._dequeuer
        quiet = [
            lane.quiet()
            and deq != i
            and (i >= len(cpus) or (cpus[i].state == "idle" and not cpus[i].need_resched))
            for i, lane in enumerate(self.lanes)
        ]
        return quiet_rows(quiet)

    def _legend_h(self, legend: bool | None) -> float:
        if legend is False or (legend is None and self.legend_folded):
            return 0.0
        return self._flowed_legend()[1]

    def lane_rects(self) -> list[QRectF]:
        """Each CPU's lane (its head and strip), in widget pixels; quiet CPUs sharing a lane share its
        rectangle."""
        _, top, lane_h, _ = self._geometry()
        z = self.zoom
        return [
            QRectF(0, (top + row * lane_h) * z, self.width(), (lane_h - 4) * z)
            for row, (first, last) in enumerate(self._rows)
            for _ in range(first, last + 1)
        ]

    def min_lane_px(self) -> float:
        return (self._least_lane() - 4) * self.zoom

    def apply_theme(self) -> None:
        self._parts.clear()
        forget_brushes()
        self._relayout()

    def minimumSizeHint(self) -> QSize:
        return QSize(self._least_w, 120)

    def allow_narrow(self) -> None:
        """Let the panel go down to NARROW_MIN_W, its heads narrower than LEFT_W (a comparison's
        third and fourth sides would not fit a 1280-pixel screen at MIN_W each)."""
        self._least_w = NARROW_MIN_W
        self.setMinimumWidth(NARROW_MIN_W)
        self.updateGeometry()

    def head_w(self) -> float:
        """The lane heads' width: LEFT_W; on a panel allowed narrow (``allow_narrow``) and narrower
        than MIN_W, what is left beside a strip as wide as at MIN_W, at least NARROW_HEAD_W."""
        if self._least_w == MIN_W:
            return float(LEFT_W)
        return max(float(NARROW_HEAD_W), min(float(LEFT_W), self.lw() - (MIN_W - LEFT_W)))

    # ---- ingest -------------------------------------------------------------------------------------

    def _quantum(self) -> int:
        return max(self.window_ns // MERGE_PX, 1)

    # ---- geometry -----------------------------------------------------------------------------------

    def _legend_layout(self) -> LegendFlow:
        """The legend as drawn: flowed into rows, or nothing while it is folded."""
        return ([], 0.0) if self.legend_folded else self._flowed_legend()

    def _flowed_legend(self) -> LegendFlow:
        """The legend flowed into rows (``gui.draw.lane_legend``), again only when its words or width
        changed."""
        names = tuple(sorted(self._names.items()))
        key: tuple[object, ...] = (
            self._yields_seen,
            self._tenures_seen,
            names,
            self._kernel,
            self.lw(),
            len(self.lanes),
            self._fonts.plain,
        )
        if self._legend_cache is not None and self._legend_cache[0] == key:
            return self._legend_cache[1]  # the same words in the same width: the same flow (every frame)
        tasks = [(tid, name, tid in self._kernel) for tid, name in names]
        seen = self._yields_seen, self._tenures_seen
        flowed = flow_legend(tasks, *seen, self.lw(), len(self.lanes), self._fonts.plain, PAD)
        self._legend_cache = (key, flowed)
        return flowed

    def _geometry(self) -> tuple[float, float, float, float]:
        """(legend height, lane top, lane height, strip width)."""
        _, legend_h = self._legend_layout()
        top = lanes_top(legend_h)
        avail = self.lh() - top - AXIS_H - FOOT_PAD
        rows = len(self._rows) if self._rows else len(self.lanes)
        lane_h = lane_height(avail, rows, self._least_lane())
        return legend_h, top, lane_h, max(self.lw() - self.head_w() - 2 * PAD, 10)

    def _relayout(self) -> None:
        self._layout_size = self.size()
        self._rows = self._row_spans(None)
        _, _, _, strip_w = self._geometry()
        x0, now, win = self.head_w() + PAD, self.view_end_ns, self.window_ns
        lanes = [self.lanes[first] for first, _ in self._rows]  # a shared lane is drawn as its first CPU's
        self._runs = [
            (
                pixel_runs(lane.task_segments(self.clock.now_ns, now - win), now, win, x0, strip_w),
                irq_runs(lane.irq_entries(now - win, self.clock.now_ns), now, win, x0, strip_w),
                yield_columns(lane.yields, now, win, x0, strip_w, YIELD_SPACING),
                bar_runs(lane.tenure_spans(now - win, self.clock.now_ns), now, win, x0, strip_w),
            )
            for lane in lanes
        ]
        needed = self.needed_height()
        if needed != self._needed_h:
            self._needed_h = needed
            self.needed_height_changed.emit()
        self.update()

    @guarded
    def resizeEvent(self, event: object) -> None:
        if self.size() != self._layout_size:  # grab() may deliver a pending resize of the same size
            self._relayout()

    # ---- painting -----------------------------------------------------------------------------------

    @guarded
    def paintEvent(self, event: QPaintEvent) -> None:
        p = self.begin_painting()
        p.fillRect(self.logical_rect(), palette.BACKGROUND)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        _, top, lane_h, strip_w = self._geometry()
        left = self.head_w()
        # The legend and the lane heads read the same from frame to frame (a head changes when its CPU
        # switches): each is copied from a pixmap while it does (``gui.draw.layer_cache``). Every
        # repaint still draws them all: a grab or a video frame of the panel shows everything.
        legend_key = (self.legend_folded, self._legend_cache[0] if self._legend_cache else None)
        items, _ = self._legend_layout()
        paint = functools.partial(paint_legend, items=items, font=self._fonts.plain)
        self._parts.draw(p, "legend", legend_key, QRectF(0, 0, self.lw(), top), paint)
        for row, runs in enumerate(self._runs):
            y = top + row * lane_h
            head = QRectF(PAD, y, left - PAD, lane_h - 4)
            self._parts.draw(
                p,
                ("head", row),
                self._head_key(row, head),
                head.adjusted(-3, -3, 3, 3),  # and the badges' outlines
                functools.partial(self._paint_lane_head, row=row, r=head),
            )
            strip = QRectF(left + PAD, y, strip_w, lane_h - 6)
            band = self._yields_seen or self._tenures_seen
            paint_strip(p, runs, strip, self._names, self._fonts.bold, band)
            if self.followed:
                veil_others(p, runs[0], strip, self.followed)
        self._parts.end_frame()
        if self.measured is not None:
            strips = QRectF(left + PAD, top, strip_w, len(self._runs) * lane_h - 6)
            paint_interval(p, self.measured, strips, self.shown, self._fonts.bold)
        paint_axis(
            p, top + len(self._runs) * lane_h, PAD, (left + PAD, strip_w), self.shown, self._fonts.plain
        )
        p.end()

    def _head_key(self, row: int, r: QRectF) -> tuple[object, ...]:
        """What row ``row``'s head in ``r`` shows: its CPUs, their state, task and badges, in the words
        drawn."""
        i, last = self._rows[row]
        if i >= len(self._cpus):
            return (i, last, r.getRect())
        cpu = self._cpus[i]
        names = (self._names.get(cpu.curr_tid), self._names.get(shown_code(cpu)))
        return (i, last, r.getRect(), cpu.curr_tid, cpu.state, cpu.need_resched, self._dequeuer == i, names)

    def _paint_lane_head(self, p: QPainter, row: int, r: QRectF) -> None:
        i, last = self._rows[row]
        cpu = self._cpus[i] if i < len(self._cpus) else None
        # Compact lanes name their CPU in the task names' size: the larger one is taller than the lane.
        fonts = self._fonts._replace(big=self._fonts.bold) if self.compact else self._fonts
        paint_lane_head(p, r, i, cpu, self._names, self._dequeuer == i, fonts, last_cpu=last)

    # ---- what is under the pointer ---------------------------------------------------------------

    def _strips_x(self) -> tuple[float, float]:
        _, _, _, strip_w = self._geometry()
        return self.head_w() + PAD, strip_w

    def _marks_from(self) -> float:
        return self.head_w()  # the pad before the strips too: a mark may start at the window's very start

    def _row_at(self, pos: QPointF) -> int:
        """The row drawn at ``pos`` (logical pixels), -1 where there is none."""
        _, top, lane_h, _ = self._geometry()
        row = int((pos.y() - top) // lane_h) if pos.y() >= top else -1
        return row if 0 <= row < min(len(self._rows), len(self._runs)) else -1

    def describe_at(self, pos: QPointF) -> str:
        """What is drawn at ``pos`` (logical pixels), in words with exact times: a lane's head, a task's
        stretch on the CPU, an interrupt, a yield, inside a marked interval how the CPU spent it; on the
        time axis, what the strips answer to; "" where nothing is."""
        _, top, lane_h, strip_w = self._geometry()
        row = self._row_at(pos)
        if row < 0:
            below = top + len(self._runs) * lane_h
            return GESTURES if below <= pos.y() <= below + AXIS_H else ""
        i, last = self._rows[row]
        if last > i:
            return f"CPU {i}–{last}: idle all through the window, so they share one lane"
        if pos.x() < self.head_w():
            cpu = self._cpus[i] if i < len(self._cpus) else None
            return describe_head(i, cpu, self._names, self._dequeuer == i)
        win, t = self.window_ns, self._time_at(pos.x())
        iv = self.measured
        if iv is not None and iv.a_ns <= t <= iv.b_ns:
            spent = describe_spent(i, iv, time_spent(self.lanes[i], iv, self.clock.now_ns), self._names)
        else:
            spent = ""
        here = describe_strip(
            i,
            self.lanes[i],
            t,
            px_ns=win / strip_w,
            now_ns=self.clock.now_ns,
            quantum_ns=self._quantum(),
            names=self._names,
        )
        tenure = describe_tenure(i, self.lanes[i], t, self.clock.now_ns)
        here = "\n".join(words for words in (here, tenure) if words)
        return "\n\n".join(words for words in (spent, here) if words)

    def tid_at(self, pos: QPointF) -> int:
        """The task drawn at ``pos`` (a segment or a lane's "now" swatch), 0 if none."""
        row = self._row_at(pos)
        if row < 0 or self._rows[row][1] > self._rows[row][0]:  # a shared lane: idle, no task
            return 0
        i = self._rows[row][0]
        if pos.x() < self.head_w():
            return self._cpus[i].curr_tid if i < len(self._cpus) else 0
        for xa, xb, code in self._runs[row][0]:
            if xa <= pos.x() < xb:
                return max(code, 0)
        return 0
