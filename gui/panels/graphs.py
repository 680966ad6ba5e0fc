"""Live graphs of a run: bandwidth, CPU time per thread and per CPU, per-CPU dequeues and fairness.

Every time graph reads the cumulative counters of ``Snapshot.series`` inside a sliding window whose
width follows the playback speed (``set_window_ns``; the playback retunes the sampling so that a point
arrives every 0.1 s of wall time at any speed). Each graph draws the mean over the last
``MEAN_SAMPLES`` intervals (one second of play; its legend names the simulated span, "last 10 ms") as
its bold line; bandwidth and fairness also draw each interval as thin steps, and a dashed line at
the mean since the last live change (from the snapshot's anchor row), the number the headline panel
prints; the numbers come from ``gui.draw.window_figures``.
Every graph marks the moments a live setting was toggled. Plot items are created once per run shape
(columns, CPUs) and updated with ``setData``; y axes only grow, to round numbers, until ``reset()``.
This panel owns the plot items and decides when each graph is drawn (a new sample one graph a frame in
steady play); ``GraphGrid`` chooses which graphs are shown, ``DequeueBars`` draws the bars.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import QBrush, QColor, QCursor, QHideEvent, QResizeEvent
from PySide6.QtWidgets import QGraphicsView, QToolTip, QVBoxLayout, QWidget

from gui import pyside_fix  # noqa: F401 - before any paint or emit
from gui.draw import palette, theme
from gui.draw.graph_items import (
    NS_PER_S,
    StackedSteps,
    ToggleMarkers,
    fill_legend_sample,
    grow_y_top,
    make_plot,
    panel_font,
    place_floor_label,
    restyle_plot,
    set_y_top,
    step_curve,
)
from gui.draw.graph_readout import curve_readout
from gui.draw.handler_guard import guarded
from gui.draw.series import PLOT_SPECS, plot_order, toggle_marks, window_ns_for
from gui.draw.window_figures import SPLIT_PARTS, WindowRows, since_change, window_span
from gui.panels.base import SnapshotPanel
from gui.panels.dequeue_bars import DequeueBars
from gui.panels.graph_grid import GraphGrid
from gui.playback import FRAME_INTERVAL_MS, SPEED_NORMAL
from model.snapshot import Snapshot

MAX_MARKERS = 24  # toggle markers drawn per graph: the most recent ones inside the window
MERGE_PER_WINDOW = 60  # toggles closer than 1/60 of the window share one marker (labels would collide)
LINE_STYLES = (
    Qt.PenStyle.SolidLine,
    Qt.PenStyle.DashLine,
    Qt.PenStyle.DotLine,
    Qt.PenStyle.DashDotLine,
    Qt.PenStyle.DashDotDotLine,
)
TIME_PLOTS = ("bandwidth", "threads", "cpus", "fairness")


class GraphsPanel(SnapshotPanel):
    """The live graphs. ``render(snapshot)`` each frame; ``reset()`` after a restart."""

    def __init__(self, parent: QWidget | None = None, window_ns: int | None = None) -> None:
        super().__init__(parent)
        self.window_ns = window_ns or window_ns_for(SPEED_NORMAL)
        self._view = pg.GraphicsLayoutWidget()
        self._view.setBackground(palette.BACKGROUND)
        # pyqtgraph keeps the background in a pixmap and copies it under every repaint (a blend, spread
        # over threads, of the whole exposed area); a solid colour filled in place is the same pixels.
        self._view.setCacheMode(QGraphicsView.CacheModeFlag.CacheNone)
        self._view.scene().sigMouseMoved.connect(self._on_hover)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(0)
        box.addWidget(self._view, 1)
        self.plots: dict[str, pg.PlotItem] = {}
        cells: dict[str, pg.GraphicsLayout] = {}
        for name, (title, y_label, timed, columns) in PLOT_SPECS.items():
            self.plots[name], cells[name] = make_plot(title, y_label, timed, columns)
        self._build_fixed_curves()
        self.markers = {name: ToggleMarkers(self.plots[name]) for name in TIME_PLOTS}
        self.dequeue_bars = DequeueBars(self.plots["dequeues"])
        self.grid = GraphGrid(self, self._view, self.plots, cells, self.dequeue_bars, self.bring_forward)
        self._run_items: list[tuple[pg.PlotItem, object]] = []  # per-run items, rebuilt with the shape
        self.thread_curves: dict[str, pg.PlotCurveItem] = {}
        self._thread_cols: list[int] = []
        self.cpu_strips: list[StackedSteps] = []
        self._drawn: list[str] = []  # the graphs shown when the last sample arrived
        self._due: list[str] = []  # graphs still to draw from the newest sample, oldest first
        self._last: Snapshot | None = None
        self._drain = QTimer(self)  # draws what is due when no frame comes to do it (paused)
        self._drain.setSingleShot(True)
        self._drain.setInterval(FRAME_INTERVAL_MS)
        self._drain.timeout.connect(lambda: self._last is not None and self._draw_due(self._last, 1))
        self._raw = True
        self.reset()

    def _build_fixed_curves(self) -> None:
        """The curves every run has: bandwidth and fairness, and the fairness graph's floor."""
        set_y_top(self.plots["threads"], 100.0, [(float(v), str(v)) for v in range(0, 101, 25)])
        set_y_top(self.plots["fairness"], 1.0, [(v, f"{v:.2f}") for v in (0.0, 0.25, 0.5, 0.75, 1.0)])
        self.bandwidth_curve = self._curve("bandwidth", "each interval", palette.SKY_BLUE, 0, 1)
        self.bandwidth_mean = self._curve("bandwidth", "recent mean", palette.BLUE, 0, 3, steps=False)
        self.bandwidth_since = self._curve("bandwidth", "since the change", palette.VERMILLION, 1, 2)
        self.fairness_curves = (
            self._curve("fairness", "each interval", palette.SKY_BLUE, 0, 1),
            self._curve("fairness", "since the change", palette.VERMILLION, 1, 2),
            self._curve("fairness", "recent mean", palette.BLUE, 0, 3, steps=False),
        )
        self._fair_floor = pg.InfiniteLine(
            angle=0,
            pen=pg.mkPen(palette.TEXT, width=1, style=Qt.PenStyle.DotLine),
            label="all on one CPU",
            # Under the line: Jain is never below 1/n, so the label never covers the data.
            labelOpts={"position": 0.02, "color": palette.TEXT, "anchors": [(0, 0), (0, 0)]},
        )
        self._fair_floor.label.setFont(panel_font(11))
        self.plots["fairness"].addItem(self._fair_floor, ignoreBounds=True)
        self.plots["fairness"].getViewBox().sigResized.connect(self._place_floor_label)

    def _place_floor_label(self) -> None:
        place_floor_label(self.plots["fairness"].getViewBox(), self._fair_floor)

    def _curve(
        self, plot: str, name: str, color: QColor, style: int, width: float, steps: bool = True
    ) -> pg.PlotCurveItem:
        pen = pg.mkPen(color, width=theme.line(width), style=LINE_STYLES[style % len(LINE_STYLES)])
        if steps:
            curve = step_curve(pen=pen, name=name)
        else:
            curve = pg.PlotCurveItem(x=np.zeros(0), y=np.zeros(0), pen=pen, name=name, skipFiniteCheck=True)
        curve.setProperty("base_width", width)
        self.plots[plot].addItem(curve)
        return curve

    @property
    def shown(self) -> list[str]:
        """The graphs on screen, in the grid's order."""
        return self.grid.shown

    # ---- lifecycle -------------------------------------------------------------------------------

    def set_window_s(self, window_s: float) -> None:
        """Show the last ``window_s`` seconds of simulated time."""
        self.set_window_ns(int(window_s * NS_PER_S))

    def set_window_ns(self, window_ns: int) -> None:
        """Show the last ``window_ns`` of simulated time (the playback speed chooses it)."""
        if window_ns != self.window_ns:
            self.window_ns = window_ns
            self._rows, self._toggles = -1, -1
            self.dequeue_bars.invalidate()

    def reset(self) -> None:
        """Forget the run: data, toggle markers and the grown y axes."""
        self._rows = self._toggles = -1
        self._last, self._drawn, self._due = None, [], []
        self._drain.stop()
        self._lo_ns, self._hi_ns = 0, self.window_ns
        for name in TIME_PLOTS:
            self.plots[name].setXRange(0.0, self.window_ns / NS_PER_S, padding=0)
        self._bandwidth_top = 1.0
        set_y_top(self.plots["bandwidth"], 1.0)
        self.dequeue_bars.reset()
        for markers in self.markers.values():
            markers.clear()
        for curve in (self.bandwidth_curve, self.bandwidth_since, *self.fairness_curves[:2]):
            curve.setData(np.zeros(1), np.zeros(0))
        for curve in (self.bandwidth_mean, self.fairness_curves[2]):
            curve.setData(np.zeros(0), np.zeros(0))
        self._shape: tuple[object, ...] = ()

    def apply_theme(self) -> None:
        """Text sizes and line widths for the theme now; the grid is laid out again."""
        self._view.setBackground(palette.BACKGROUND)
        for plot in self.plots.values():
            restyle_plot(plot)
        for plot in self.plots.values():
            for item in plot.items:
                base = item.property("base_width") if isinstance(item, pg.PlotCurveItem) else None
                if base is not None:
                    pen = pg.mkPen(item.opts["pen"])
                    pen.setWidthF(theme.line(float(base)))
                    item.setPen(pen)
        self.dequeue_bars.restyle()
        self._fair_floor.label.setFont(panel_font(11))
        self._place_floor_label()
        self.grid.forget(measures=True)
        self._layout()

    # ---- per frame -------------------------------------------------------------------------------

    def show_snapshot(self, snapshot: Snapshot) -> None:
        """Update the shown graphs from ``snapshot``. A new sample in steady play is drawn one graph a
        frame (``_due``): drawn together, a sample's graphs make one frame in three (at 30 frames a
        second) a few milliseconds slower than the others, and that frame is the one a viewer sees
        stutter. Anything else (the first sample, a toggle, a landing, a graph newly shown) is drawn at
        once, and so is all that is due when the run did not move (paused, or drawn again to export)."""
        same_instant = self._last is not None and snapshot.t_ns == self._last.t_ns
        self._last = snapshot
        self._ensure_shape(snapshot)
        rows, toggles = len(snapshot.series), len(snapshot.toggles)
        if (rows, toggles) != (self._rows, self._toggles) or self._drawn != self.shown:
            steady = (
                self._rows >= 0 and self._drawn == self.shown and toggles == self._toggles
            ) and 0 < rows - self._rows <= 2
            self._take_sample(snapshot, at_once=same_instant or not steady)
        self._draw_due(snapshot, len(self._due) if same_instant else 1)

    def _take_sample(self, snapshot: Snapshot, at_once: bool) -> None:
        """``snapshot``'s rows are the ones to draw: every shown graph is due (all drawn now if
        ``at_once``), the window moves and the toggle markers follow it."""
        self._rows, self._toggles, self._drawn = len(snapshot.series), len(snapshot.toggles), list(self.shown)
        self._lo_ns, self._hi_ns = window_span(snapshot.series, self.window_ns)
        self._due += [name for name in self._drawable() if name not in self._due]
        if at_once:
            self._draw_due(snapshot, len(self._due))
        self._update_markers(snapshot)

    def flush(self) -> None:
        """Draw every graph still due from the last snapshot (the drain timer's work, now)."""
        if self._last is not None:
            self._draw_due(self._last, len(self._due))

    def _drawable(self) -> list[str]:
        """The graphs a sample redraws: the shown ones (a graph that does not fit costs nothing)."""
        return [name for name in self.shown if name in TIME_PLOTS or (name == "dequeues" and self._shape[3])]

    def _draw_due(self, snapshot: Snapshot, count: int) -> None:
        """Draw the next ``count`` graphs due, oldest first; the rest wait for the next frame or, if
        none comes (paused), for the drain timer."""
        names, self._due = self._due[:count], self._due[count:]
        timed = [name for name in names if name in TIME_PLOTS]
        if timed:
            self._update_time_graphs(snapshot, timed)
            for name in timed:
                self.plots[name].setXRange(self._lo_ns / NS_PER_S, self._hi_ns / NS_PER_S, padding=0)
        if "dequeues" in names:
            self.dequeue_bars.update(snapshot, self.window_ns // MERGE_PER_WINDOW)
        if self._due:
            self._drain.start()
        else:
            self._drain.stop()

    def _catch_up(self) -> None:
        """After the graphs shown changed: draw the newly shown ones from the last snapshot at once (the
        run may be paused, and no snapshot is coming)."""
        if self._last is not None and self._drawn != self.shown and self._shape:
            self._take_sample(self._last, at_once=True)

    def _update_markers(self, snapshot: Snapshot) -> None:
        merge_ns = self.window_ns // MERGE_PER_WINDOW
        marks = toggle_marks(snapshot.toggles, self._lo_ns, snapshot.t_ns, merge_ns, MAX_MARKERS)
        for markers in self.markers.values():
            markers.update(marks)

    def _update_time_graphs(self, snapshot: Snapshot, names: list[str]) -> None:
        """The time graphs ``names`` from the window's rows."""
        series = snapshot.series
        if not len(series):
            return
        lay = snapshot.series_layout
        rows = WindowRows.of(series, self.window_ns)
        self._show_raw(rows.raw_worth_drawing())
        mean_label = rows.mean_label()
        for plot, curve in (("bandwidth", self.bandwidth_mean), ("fairness", self.fairness_curves[2])):
            self.plots[plot].legend.rename(curve, mean_label)
        since_x, since_mbps, since_jain = since_change(snapshot)
        if "bandwidth" in names:
            self.bandwidth_curve.setData(rows.edges, rows.each_mbps(lay.acked_bytes))
            mean_mbps = rows.mean_mbps(lay.acked_bytes)
            self.bandwidth_mean.setData(rows.ends, mean_mbps)
            self.bandwidth_since.setData(since_x, since_mbps)
            top = max(float(mean_mbps.max(initial=0.0)), float(since_mbps.max(initial=0.0)))
            self._bandwidth_top = grow_y_top(self.plots["bandwidth"], self._bandwidth_top, top)
        if "threads" in names:
            for ci, curve in zip(self._thread_cols, self.thread_curves.values(), strict=True):
                curve.setData(rows.ends, rows.mean_percent(ci))
        if "cpus" in names:
            split = rows.split_levels(lay, len(self.cpu_strips))  # none before the second sample
            for strip, levels in zip(self.cpu_strips, split, strict=False):
                strip.setData(rows.ends, levels)
        dq = list(lay.cpu_dequeued)
        if dq and "fairness" in names:
            each, since_curve, mean = self.fairness_curves
            each.setData(rows.edges, rows.each_jain(dq))
            mean.setData(rows.ends, rows.mean_jain(dq))
            since_curve.setData(since_x, since_jain)

    def _show_raw(self, raw: bool) -> None:
        """Each interval's own steps (and their legend entry) only where intervals are long enough."""
        if raw == self._raw:
            return
        self._raw = raw
        for plot, curve in (("bandwidth", self.bandwidth_curve), ("fairness", self.fairness_curves[0])):
            curve.setVisible(raw)
            legend = self.plots[plot].legend
            legend.removeItem(curve)
            if raw:
                legend.addItem(curve, "each interval")
        self.grid.forget()  # the legends changed height: lay the graphs out again
        self._layout()

    # ---- run shape: per-thread curves, per-CPU strips, bars, layout ------------------------------

    def _ensure_shape(self, snapshot: Snapshot) -> None:
        nbars = len(snapshot.series_layout.cpu_dequeued)
        if snapshot.qdisc is not None:
            nbars = len(snapshot.qdisc.per_cpu_dequeued)
        iperf = snapshot.settings.get("iperf.mode") if snapshot.settings.get("iperf.enabled") else None
        order = plot_order(bool(nbars) or snapshot.qdisc is not None, str(iperf) if iperf else None)
        shape = (snapshot.series_columns, len(snapshot.cpus), order, nbars)
        if shape == self._shape:
            return
        self._shape = shape
        self._rows, self._toggles = -1, -1
        self.dequeue_bars.invalidate()
        for plot, item in self._run_items:
            plot.removeItem(item)
        self._run_items = []
        for name in ("threads", "cpus"):  # their legends list only per-run items
            self.plots[name].legend.clear()
        self._build_threads(snapshot)
        self._build_split(len(snapshot.cpus))
        self.dequeue_bars.build(nbars)
        self._fair_floor.setValue(1.0 / max(nbars, 1))
        self._fair_floor.setVisible(nbars > 1)  # one CPU: "all on one CPU" is the fair share itself
        self._place_floor_label()
        self.grid.set_order(order)
        self._layout()

    def _add(self, plot: str, item: object, legend: str | None = None) -> None:
        self.plots[plot].addItem(item)
        self._run_items.append((self.plots[plot], item))
        if legend is not None:
            self.plots[plot].legend.addItem(item, legend)

    def _build_threads(self, snapshot: Snapshot) -> None:
        self.thread_curves, self._thread_cols = {}, []
        for i, (task, column) in enumerate(
            zip(snapshot.tasks, snapshot.series_layout.task_exec_ns, strict=True)
        ):
            if task.name in self.thread_curves:
                continue  # tasks of the same name share their counters' columns
            pen = pg.mkPen(palette.task_color(task.tid), width=theme.line(3), style=LINE_STYLES[i % 5])
            curve = pg.PlotCurveItem(x=np.zeros(0), y=np.zeros(0), pen=pen, skipFiniteCheck=True)
            curve.setProperty("base_width", 3)
            self.thread_curves[task.name] = curve
            self._add("threads", curve, task.name)
            self._thread_cols.append(column)

    def _build_split(self, ncpus: int) -> None:
        self.cpu_strips = []
        for n in range(ncpus):
            brushes = [_split_brush(part, n) for part in SPLIT_PARTS]
            self.cpu_strips.append(StackedSteps(brushes))
            self._add("cpus", self.cpu_strips[-1])
        legend = self.plots["cpus"].legend
        for part in ("hardirq", "softirq", "idle"):
            legend.addItem(fill_legend_sample(_split_brush(part, 0)), part)
        name = "threads" if ncpus == 1 else "threads (in the CPU's colour)"
        legend.addItem(fill_legend_sample(_split_brush("user", 0)), name)
        if ncpus == 1:
            set_y_top(self.plots["cpus"], 1.0, [(v / 4, f"{25 * v}%") for v in range(5)])
            self.plots["cpus"].setLabel("left", "% of the CPU")
        else:
            step = max(1, -(-ncpus // 4))  # at most four names on the axis
            ticks = [(n + 0.5, f"cpu{n}") for n in range(0, ncpus, step)]
            set_y_top(self.plots["cpus"], float(ncpus), ticks)
            self.plots["cpus"].setLabel("left", "one strip per CPU")

    # ---- hover: the values under the pointer ------------------------------------------------------

    def _on_hover(self, scene_pos: QPointF) -> None:
        for name in self.shown:
            vb = self.plots[name].getViewBox()
            if vb.sceneBoundingRect().contains(scene_pos):
                point = vb.mapSceneToView(scene_pos)
                text = self.describe_plot(name, point.x())
                if text:
                    QToolTip.showText(QCursor.pos(), text, self._view)
                return
        QToolTip.hideText()

    def describe_plot(self, name: str, x: float) -> str:
        """The values graph ``name`` shows at ``x`` (seconds on a time graph, a CPU on the bars)."""
        if name == "dequeues":
            return self.dequeue_bars.describe(x)
        return curve_readout(self.plots[name], x, PLOT_SPECS[name][1], self._curve_label)

    def _curve_label(self, item: pg.PlotCurveItem) -> str:
        return next((task for task, curve in self.thread_curves.items() if curve is item), "")

    # ---- which graphs, where --------------------------------------------------------------------

    def plot_rect(self, name: str) -> QRectF | None:
        """Where graph ``name`` is, in the panel's pixels (None if it is not shown)."""
        return self.grid.plot_rect(name)

    def bring_forward(self, name: str) -> None:
        """Show graph ``name`` among those that fit (it goes first; the last shown one makes room)."""
        if self.grid.bring_forward(name):
            self._layout()

    def _layout(self) -> None:
        """Place as many graphs as fit, most telling first (see ``GraphGrid``), and draw the ones
        that were not shown before."""
        self.grid.arrange()
        self._catch_up()

    @guarded
    def hideEvent(self, event: QHideEvent) -> None:
        """Hidden (the window closed, another tab in front): what is due waits for the next frame."""
        self._drain.stop()
        super().hideEvent(event)

    @guarded
    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self._shape:
            self._layout()
            self.grid.fit_legends()
        self.grid.place_chooser(clamp=True)


def _split_brush(part: str, cpu: int) -> QBrush:
    if part == "user":  # lighter than the CPU's own colour, so it never reads as one task's line
        return QBrush(palette.cpu_color(cpu).lighter(130))
    if part == "idle":
        return QBrush(palette.LIGHT_GREY)
    return QBrush(palette.STATE_COLORS[part], palette.STATE_PATTERNS[part])
