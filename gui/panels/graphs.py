"""Live graphs of a run: bandwidth, CPU time per thread and per CPU, per-CPU dequeues and fairness.

Every time graph reads the cumulative counters of ``Snapshot.series`` and differences them per sample
interval inside a sliding window (only the rows of that window are converted each frame), drawn as
steps because each value is the average of one interval. Every graph marks the moments a live setting
was toggled. Plot items are created once per run shape (columns, CPUs) and updated with ``setData``;
y axes only grow, to round numbers, until ``reset()``.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from numpy.typing import NDArray
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QResizeEvent
from PySide6.QtWidgets import QVBoxLayout, QWidget

from gui import pyside_fix  # noqa: F401 - before any paint or emit
from gui.draw import palette
from gui.draw.formats import short_count
from gui.draw.graph_items import (
    NS_PER_S,
    TITLE_SIZE,
    BarToggleTicks,
    StackedSteps,
    ToggleMarkers,
    fill_legend_sample,
    make_plot,
    panel_font,
    step_curve,
)
from gui.draw.qdisc_geometry import fmt_count
from gui.draw.series import counts_at, grid_cells, nice_ceiling, toggle_marks, window_block
from gui.panels.base import SnapshotPanel
from model.metrics import bandwidth_mbps, jain_rows, share
from model.snapshot import SeriesLayout, Snapshot

DEFAULT_WINDOW_S = 10.0
MAX_MARKERS = 24  # toggle markers drawn per graph: the most recent ones inside the window
MERGE_PER_WINDOW = 60  # toggles closer than 1/60 of the window share one marker (labels would collide)
LINE_STYLES = (
    Qt.PenStyle.SolidLine,
    Qt.PenStyle.DashLine,
    Qt.PenStyle.DotLine,
    Qt.PenStyle.DashDotLine,
    Qt.PenStyle.DashDotDotLine,
)
# CPU time strips, bottom to top: interrupts first, so that the 2009 story's hardirq cost stands out.
SPLIT_PARTS = ("hardirq", "softirq", "user", "idle")


# ---- the panel -----------------------------------------------------------------------------------

TIME_PLOTS = ("bandwidth", "threads", "cpus", "fairness")
ONE_ROW_BELOW_PX = 460  # a shorter panel shows one row of three graphs, each tall enough to read
HEADROOM = 1.2  # the view reaches 20 % above the data's axis top: room for the toggle labels
PLOT_SPECS = {  # name: (title, y label, has a time axis, legend entries a row)
    "bandwidth": ("Bandwidth", "Mbit/s", True, 1),
    "threads": ("CPU share per thread", "% of one CPU", True, 4),
    "cpus": ("CPU time per CPU", "", True, 2),
    "dequeues": ("Dequeues per CPU", "packets", False, 1),
    "fairness": ("Fairness (Jain index)", "1 = fair", True, 2),
}


class GraphsPanel(SnapshotPanel):
    """The live graphs. ``render(snapshot)`` each frame; ``reset()`` after a restart."""

    _bars_key: tuple[object, ...]  # what the bars last showed: unchanged frames touch nothing
    _marks_key: tuple[int, ...]  # (toggles, samples) the markers last showed
    _ticks_key: tuple[object, ...]  # (toggles, samples) the ticks on the bars last showed

    def __init__(self, parent: QWidget | None = None, window_s: float = DEFAULT_WINDOW_S) -> None:
        super().__init__(parent)
        self.window_ns = int(window_s * NS_PER_S)
        self._view = pg.GraphicsLayoutWidget()
        self._view.setBackground("w")
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self._view)
        self.plots: dict[str, pg.PlotItem] = {}
        self._cells: dict[str, pg.GraphicsLayout] = {}
        for name, (title, y_label, timed, columns) in PLOT_SPECS.items():
            self.plots[name], self._cells[name] = make_plot(title, y_label, timed, columns)
        self._set_y("threads", 100.0, [(float(v), str(v)) for v in range(0, 101, 25)])
        self._set_y("fairness", 1.0, [(v, f"{v:.2f}") for v in (0.0, 0.25, 0.5, 0.75, 1.0)])
        self.bandwidth_curve = self._curve("bandwidth", "acknowledged data", palette.BLUE, 0)
        self.fairness_curves = (
            self._curve("fairness", "each interval", palette.BLUE, 0),
            self._curve("fairness", "since the start", palette.VERMILLION, 1),
        )
        self._fair_floor = pg.InfiniteLine(
            angle=0,
            pen=pg.mkPen(palette.TEXT, width=1, style=Qt.PenStyle.DotLine),
            label="all on one CPU",
            labelOpts={"position": 0.02, "color": palette.TEXT, "anchors": [(0, 1), (0, 1)]},
        )
        self._fair_floor.label.setFont(panel_font(11))
        self.plots["fairness"].addItem(self._fair_floor, ignoreBounds=True)
        self.markers = {name: ToggleMarkers(self.plots[name]) for name in TIME_PLOTS}
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.6)
        self.plots["dequeues"].addItem(self.bars)
        self.bar_ticks = BarToggleTicks(self.plots["dequeues"])
        self._run_items: list[tuple[pg.PlotItem, object]] = []  # per-run items, rebuilt with the shape
        self.thread_curves: dict[str, pg.PlotCurveItem] = {}
        self._thread_cols: list[int] = []
        self.cpu_strips: list[StackedSteps] = []
        self._bar_labels: list[pg.TextItem] = []
        self._placed: list[pg.GraphicsLayout] = []
        self._has_qdisc = False
        self._arrangement: tuple[bool, bool] | None = None
        self.reset()

    def _curve(self, plot: str, name: str, color: QColor, style: int) -> pg.PlotCurveItem:
        pen = pg.mkPen(color, width=3, style=LINE_STYLES[style % len(LINE_STYLES)])
        curve = step_curve(pen=pen, name=name)
        self.plots[plot].addItem(curve)
        return curve

    def _set_y(self, plot: str, top: float, ticks: list[tuple[float, str]] | None = None) -> None:
        self.plots[plot].setYRange(-0.06 * top, top * HEADROOM, padding=0)
        if ticks is not None:
            self.plots[plot].getAxis("left").setTicks([ticks, []])

    # ---- lifecycle -------------------------------------------------------------------------------

    def set_window_s(self, window_s: float) -> None:
        """Show the last ``window_s`` seconds of simulated time."""
        self.window_ns = int(window_s * NS_PER_S)
        self._rows, self._bars_key, self._marks_key, self._ticks_key = -1, (), (), ()

    def reset(self) -> None:
        """Forget the run: data, toggle markers and the grown y axes."""
        self._rows = -1
        self._bars_key = self._marks_key = self._ticks_key = ()
        self._bars_title = ""
        self._lo_ns = 0
        for name in TIME_PLOTS:
            self.plots[name].setXRange(0.0, self.window_ns / NS_PER_S, padding=0)
        self._tops = {"bandwidth": 1.0, "dequeues": 1.0}
        for name in self._tops:
            self._set_y(name, 1.0)
        for markers in self.markers.values():
            markers.clear()
        self.bar_ticks.clear()
        for curve in (self.bandwidth_curve, *self.fairness_curves):
            curve.setData(np.zeros(1), np.zeros(0))
        self.bars.setOpts(x=np.zeros(0), height=np.zeros(0))
        self._shape: tuple[object, ...] = ()

    # ---- per frame -------------------------------------------------------------------------------

    def show_snapshot(self, snapshot: Snapshot) -> None:
        """Update every graph from ``snapshot``."""
        self._ensure_shape(snapshot)
        if len(snapshot.series) != self._rows:
            self._rows = len(snapshot.series)
            self._update_time_graphs(snapshot)
            self._slide(snapshot)
        if (len(snapshot.toggles), self._rows) != self._marks_key:  # a toggle, or the window slid
            self._marks_key = (len(snapshot.toggles), self._rows)
            merge_ns = self.window_ns // MERGE_PER_WINDOW
            marks = toggle_marks(snapshot.toggles, self._lo_ns, snapshot.t_ns, merge_ns, MAX_MARKERS)
            for markers in self.markers.values():
                markers.update(marks)
        if self._shape[3]:
            self._update_bars(snapshot)

    def _slide(self, snapshot: Snapshot) -> None:
        """Move the window when a sample arrives (not every frame: between samples nothing new is
        drawn), leaving one interval at the right for what happens before the next sample."""
        series = snapshot.series
        last_ns = int(series[-1, 0]) if len(series) else 0
        step_ns = last_ns - int(series[-2, 0]) if len(series) > 1 else last_ns
        hi_ns = max(self.window_ns, last_ns + step_ns)
        self._lo_ns = hi_ns - self.window_ns
        for name in TIME_PLOTS:
            self.plots[name].setXRange(self._lo_ns / NS_PER_S, hi_ns / NS_PER_S, padding=0)

    def _update_time_graphs(self, snapshot: Snapshot) -> None:
        series = snapshot.series
        if not len(series):
            return
        lay = snapshot.series_layout
        edges, delta = window_block(series, int(series[-1, 0]) - self.window_ns)
        dt_ns = np.maximum(delta[:, 0], 1).astype(np.float64)
        mbps = bandwidth_mbps(delta[:, lay.acked_bytes], dt_ns)
        self.bandwidth_curve.setData(edges, mbps)
        self._grow("bandwidth", float(mbps.max(initial=0.0)))
        for ci, curve in zip(self._thread_cols, self.thread_curves.values(), strict=True):
            curve.setData(edges, 100.0 * share(delta[:, ci], dt_ns))
        self._update_split(edges, share(delta, dt_ns[:, None]), lay)
        dq = list(lay.cpu_dequeued)
        if dq:
            self.fairness_curves[0].setData(edges, jain_rows(delta[:, dq]))
            self.fairness_curves[1].setData(edges, jain_rows(series[len(series) - len(delta) :, dq]))

    def _update_split(
        self, edges: NDArray[np.float64], shares: NDArray[np.float64], lay: SeriesLayout
    ) -> None:
        """CPU ``n``'s strip [n, n + 1]: hardirq, softirq, user stacked, idle the rest of the interval."""
        for n, strip in enumerate(self.cpu_strips):
            levels = np.full((len(SPLIT_PARTS) + 1, len(shares)), float(n))
            columns = (lay.cpu_hardirq_ns[n], lay.cpu_softirq_ns[n], lay.cpu_task_ns[n])  # as SPLIT_PARTS
            for k, column in enumerate(columns, start=1):
                used = np.clip(shares[:, column], 0.0, 1.0)
                levels[k] = np.minimum(levels[k - 1] + used, n + 1.0)
            levels[-1] = n + 1.0
            strip.setData(edges, levels)

    def _update_bars(self, snapshot: Snapshot) -> None:
        dq = list(snapshot.series_layout.cpu_dequeued)
        if snapshot.qdisc is not None:
            live = np.asarray(snapshot.qdisc.per_cpu_dequeued, dtype=np.int64)
        else:
            live = snapshot.series[-1, dq] if len(snapshot.series) else np.zeros(len(dq), dtype=np.int64)
        live = live[: self._shape[3]]  # as many bars as brushes
        jain = snapshot.qdisc.fairness_jain if snapshot.qdisc is not None else None
        key = (tuple(live.tolist()), jain, len(snapshot.toggles), len(snapshot.series))
        if key == self._bars_key:
            return  # nothing new: leave the scene untouched, so nothing repaints
        self._bars_key = key
        self.bars.setOpts(x=np.arange(len(live), dtype=np.float64), height=live.astype(np.float64))
        self._grow("dequeues", float(live.max(initial=0)))
        narrow = self.plots["dequeues"].getViewBox().width() / max(len(live), 1) < 80
        for n, label in enumerate(self._bar_labels[: len(live)]):
            text = short_count(int(live[n])) if narrow else fmt_count(int(live[n]))
            if text != label.toPlainText():  # re-laying out text is the costly part
                label.setText(text)
            label.setPos(float(n), float(live[n]))
        title = PLOT_SPECS["dequeues"][0] + (f" · Jain {jain:.2f}" if jain is not None else "")
        if (
            title != self._bars_title
        ):  # a new title re-lays out the whole plot: only when it reads differently
            self._bars_title = title
            self.plots["dequeues"].setTitle(title, size=TITLE_SIZE, color=palette.TEXT)
        if key[2:] != self._ticks_key:  # a toggle, or a sample that pins a toggle's counts
            self._ticks_key = key[2:]
            merge_ns = self.window_ns // MERGE_PER_WINDOW
            marks = (
                toggle_marks(snapshot.toggles, 0, snapshot.t_ns, merge_ns, 3) if len(dq) == len(live) else []
            )
            self.bar_ticks.update([(label, counts_at(snapshot.series, dq, t, live)) for t, label in marks])

    def _grow(self, plot: str, value: float) -> None:
        top = nice_ceiling(value)
        if top > self._tops[plot]:
            self._tops[plot] = top
            self._set_y(plot, top)

    # ---- run shape: per-thread curves, per-CPU strips, bars, layout ------------------------------

    def _ensure_shape(self, snapshot: Snapshot) -> None:
        nbars = len(snapshot.series_layout.cpu_dequeued)
        if snapshot.qdisc is not None:
            nbars = len(snapshot.qdisc.per_cpu_dequeued)
        shape = (snapshot.series_columns, len(snapshot.cpus), snapshot.qdisc is not None, nbars)
        if shape == self._shape:
            return
        self._shape = shape
        self._rows, self._bars_key, self._marks_key, self._ticks_key = -1, (), (), ()
        for plot, item in self._run_items:
            plot.removeItem(item)
        self._run_items = []
        for name in ("threads", "cpus"):  # their legends list only per-run items
            self.plots[name].legend.clear()
        self._build_threads(snapshot)
        self._build_split(len(snapshot.cpus))
        self._build_bars(nbars)
        self._has_qdisc = bool(nbars) or snapshot.qdisc is not None
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
            pen = pg.mkPen(palette.task_color(task.tid), width=3, style=LINE_STYLES[i % 5])
            self.thread_curves[task.name] = step_curve(pen=pen)
            self._add("threads", self.thread_curves[task.name], task.name)
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
            self._set_y("cpus", 1.0, [(v / 4, f"{25 * v}%") for v in range(5)])
            self.plots["cpus"].setLabel("left", "% of the CPU")
        else:
            self._set_y("cpus", float(ncpus), [(n + 0.5, f"cpu{n}") for n in range(ncpus)])
            self.plots["cpus"].setLabel("left", "one strip per CPU (100%)")

    def _build_bars(self, ncpus: int) -> None:
        plot = self.plots["dequeues"]
        self.bars.setOpts(x=np.zeros(0), height=np.zeros(0))
        if ncpus:  # (pyqtgraph 0.14 fails on an empty pens list)
            brushes = [QBrush(palette.cpu_color(n)) for n in range(ncpus)]
            self.bars.setOpts(brushes=brushes, pens=[pg.mkPen(palette.TEXT, width=1)] * ncpus)
        plot.getAxis("bottom").setTicks([[(float(n), f"cpu{n}") for n in range(ncpus)], []])
        plot.setXRange(-0.6, max(ncpus, 1) - 0.4, padding=0)
        self._bar_labels = []
        for _ in range(ncpus):
            label = pg.TextItem("", color=palette.TEXT, anchor=(0.5, 1.0))
            label.setFont(panel_font(11))
            self._add("dequeues", label)
            self._bar_labels.append(label)
        self._fair_floor.setValue(1.0 / max(ncpus, 1))

    def _layout(self) -> None:
        """Place the graphs for the story and the panel's height (see ``grid_cells``)."""
        one_row = self.height() < ONE_ROW_BELOW_PX
        if (self._has_qdisc, one_row) == self._arrangement:
            return
        self._arrangement = (self._has_qdisc, one_row)
        grid = self._view.ci
        for cell in self._placed:
            grid.removeItem(cell)
        cells = grid_cells(self._has_qdisc, one_row)
        for name, row, col, span in cells:
            grid.addItem(self._cells[name], row=row, col=col, colspan=span)
        used = max(col + span for _, _, col, span in cells)
        for col in range(3):  # used columns share the width equally, whatever their titles and legends
            grid.layout.setColumnStretchFactor(col, 1 if col < used else 0)
        self._placed = [self._cells[name] for name, *_ in grid_cells(self._has_qdisc, one_row)]
        for name in TIME_PLOTS:  # a short panel spends no height on the axis name ("s" is in the title)
            self.plots[name].getAxis("bottom").showLabel(not one_row)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self._shape:
            self._layout()


def _split_brush(part: str, cpu: int) -> QBrush:
    if part == "user":  # lighter than the CPU's own colour, so it never reads as one task's line
        return QBrush(palette.cpu_color(cpu).lighter(130))
    if part == "idle":
        return QBrush(palette.LIGHT_GREY)
    return QBrush(palette.STATE_COLORS[part], palette.STATE_PATTERNS[part])
