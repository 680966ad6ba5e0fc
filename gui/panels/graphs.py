"""Live graphs of a run: bandwidth, CPU time per thread and per CPU, per-CPU dequeues and fairness.

Every time graph reads the cumulative counters of ``Snapshot.series`` inside a sliding window whose
width follows the playback speed (``set_window_ns``; the playback retunes the sampling so that a point
arrives every 0.1 s of wall time at any speed). Each graph draws the mean over the last
``MEAN_SAMPLES`` intervals (one second of play) as its bold line; bandwidth and fairness also draw each
interval as thin steps, and a dashed line at the mean since the last live change (from the snapshot's
anchor row), the number the headline panel prints. All of it comes from ``model.metrics``. Every
graph marks the moments a live setting was toggled. Plot items are created once per run shape
(columns, CPUs) and updated with ``setData``; y axes only grow, to round numbers, until ``reset()``.
The panel shows the graphs a story tells first, as many as fit with every plot at least
``MIN_PLOT_H`` px high; the others are one click away on the row of graph buttons.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from numpy.typing import NDArray
from PySide6.QtCore import QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import QAction, QBrush, QColor, QCursor, QFontMetrics, QHideEvent, QResizeEvent
from PySide6.QtWidgets import QGraphicsView, QMenu, QToolButton, QToolTip, QVBoxLayout, QWidget

from gui import pyside_fix  # noqa: F401 - before any paint or emit
from gui.draw import palette, theme
from gui.draw.formats import short_count
from gui.draw.graph_items import (
    NS_PER_S,
    TITLE_PT,
    BarToggleTicks,
    StackedSteps,
    ToggleMarkers,
    fill_legend_sample,
    make_plot,
    panel_font,
    restyle_plot,
    step_curve,
    title_size,
)
from gui.draw.qdisc_geometry import fmt_count
from gui.draw.series import (
    counts_at,
    grid_cells,
    grid_shape,
    moving_block,
    nice_ceiling,
    plot_order,
    toggle_marks,
    window_block,
    window_ns_for,
)
from gui.panels.base import SnapshotPanel, styled_font
from gui.playback import FRAME_INTERVAL_MS, SPEED_NORMAL
from model.metrics import bandwidth_mbps, interval_figures, jain_rows, share
from model.snapshot import SeriesLayout, Snapshot

MEAN_SAMPLES = 10  # the bold line: the mean over the last 10 intervals, one second of play
RAW_MIN_NS = 10_000_000  # shorter sampling intervals are not drawn one by one
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
TIME_PLOTS = ("bandwidth", "threads", "cpus", "fairness")
HEADROOM = 1.2  # the view reaches 20 % above the data's axis top: room for the toggle labels
MIN_PLOT_H = 150  # px of data area every shown graph keeps, at the standard text size
MIN_PLOT_W = 270
LEGEND_MAX_H = 1e6  # a legend row's height when shown: what its entries need
PLOT_CHROME_H = 104  # title, time axis and two legend rows around the data area (standard text size)
PLOT_SPECS = {  # name: (title, y label, has a time axis, legend entries a row)
    "bandwidth": ("Bandwidth", "Mbit/s", True, 3),
    "threads": ("CPU share per thread", "% of one CPU", True, 4),
    "cpus": ("CPU time per CPU", "", True, 2),
    "dequeues": ("Dequeues per CPU", "packets", False, 1),
    "fairness": ("Fairness (Jain index)", "1 = fair", True, 3),
}
SHORT_TITLES = {  # for a narrow graph
    "bandwidth": "Bandwidth",
    "threads": "CPU per thread",
    "cpus": "CPU time",
    "dequeues": "Dequeues",
    "fairness": "Fairness (Jain)",
}


class GraphsPanel(SnapshotPanel):
    """The live graphs. ``render(snapshot)`` each frame; ``reset()`` after a restart."""

    _bars_key: tuple[object, ...]  # what the bars last showed: unchanged frames touch nothing
    _ticks_key: tuple[object, ...]  # (toggles, samples) the ticks on the bars last showed

    def __init__(self, parent: QWidget | None = None, window_ns: int | None = None) -> None:
        super().__init__(parent)
        self.window_ns = window_ns or window_ns_for(SPEED_NORMAL)
        self._view = pg.GraphicsLayoutWidget()
        self._view.setBackground(palette.BACKGROUND)
        # pyqtgraph keeps the background in a pixmap and copies it under every repaint (a blend, spread
        # over threads, of the whole exposed area); a solid colour filled in place is the same pixels.
        self._view.setCacheMode(QGraphicsView.CacheModeFlag.CacheNone)
        self._view.scene().sigMouseMoved.connect(self._on_hover)
        self._chooser = QToolButton()
        self._chooser.setText("More ▾")
        self._chooser.setToolTip("More graphs: not every graph fits here; choose which ones to show")
        self._chooser.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self._chooser.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._chooser.setMenu(QMenu(self._chooser))
        styled_font(self._chooser, 10)
        self._choices: dict[str, QAction] = {}
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(0)
        box.addWidget(self._view, 1)
        self._chooser.setParent(self)  # floats at the top right, over the graphs' title row
        self._chooser.raise_()
        self.plots: dict[str, pg.PlotItem] = {}
        self._cells: dict[str, pg.GraphicsLayout] = {}
        for name, (title, y_label, timed, columns) in PLOT_SPECS.items():
            self.plots[name], self._cells[name] = make_plot(title, y_label, timed, columns)
            action = QAction(title, self._chooser)
            action.setCheckable(True)
            action.triggered.connect(lambda _=False, n=name: self.bring_forward(n))
            self._choices[name] = action
        self._set_y("threads", 100.0, [(float(v), str(v)) for v in range(0, 101, 25)])
        self._set_y("fairness", 1.0, [(v, f"{v:.2f}") for v in (0.0, 0.25, 0.5, 0.75, 1.0)])
        self.bandwidth_curve = self._curve("bandwidth", "each interval", palette.SKY_BLUE, 0, 1)
        self.bandwidth_mean = self._curve("bandwidth", "last second", palette.BLUE, 0, 3, steps=False)
        self.bandwidth_since = self._curve("bandwidth", "since the change", palette.VERMILLION, 1, 2)
        self.fairness_curves = (
            self._curve("fairness", "each interval", palette.SKY_BLUE, 0, 1),
            self._curve("fairness", "since the change", palette.VERMILLION, 1, 2),
            self._curve("fairness", "last second", palette.BLUE, 0, 3, steps=False),
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
        self._order: tuple[str, ...] = ()
        self._front: list[str] = []  # graphs the user brought forward, most recent first
        self._arrangement: tuple[object, ...] | None = None
        self.shown: list[str] = []
        self._drawn: list[str] = []  # the graphs shown when the last sample arrived
        self._due: list[str] = []  # graphs still to draw from the newest sample, oldest first
        self._last: Snapshot | None = None
        self._drain = QTimer(self)  # draws what is due when no frame comes to do it (paused)
        self._drain.setSingleShot(True)
        self._drain.setInterval(FRAME_INTERVAL_MS)
        self._drain.timeout.connect(lambda: self._last is not None and self._draw_due(self._last, 1))
        self._cell_spans: dict[str, int] = {}
        self._titles: dict[str, str] = {}
        self._bars_jain = True  # the dequeue graph's title has room for "· Jain 0.58"
        self._legends_on = True
        self._chrome_px = 0.0
        self._raw = True
        self.reset()

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

    def _set_y(self, plot: str, top: float, ticks: list[tuple[float, str]] | None = None) -> None:
        self.plots[plot].setYRange(-0.06 * top, top * HEADROOM, padding=0)
        if ticks is not None:
            self.plots[plot].getAxis("left").setTicks([ticks, []])

    # ---- lifecycle -------------------------------------------------------------------------------

    def set_window_s(self, window_s: float) -> None:
        """Show the last ``window_s`` seconds of simulated time."""
        self.set_window_ns(int(window_s * NS_PER_S))

    def set_window_ns(self, window_ns: int) -> None:
        """Show the last ``window_ns`` of simulated time (the playback speed chooses it)."""
        if window_ns != self.window_ns:
            self.window_ns = window_ns
            self._rows, self._toggles, self._bars_key, self._ticks_key = -1, -1, (), ()

    def reset(self) -> None:
        """Forget the run: data, toggle markers and the grown y axes."""
        self._rows = self._toggles = -1
        self._last, self._drawn, self._due = None, [], []
        self._drain.stop()
        self._bars_key = self._ticks_key = ()
        self._bars_title = ""
        self._narrow_bars: bool | None = None
        self._lo_ns, self._hi_ns = 0, self.window_ns
        for name in TIME_PLOTS:
            self.plots[name].setXRange(0.0, self.window_ns / NS_PER_S, padding=0)
        self._tops = {"bandwidth": 1.0, "dequeues": 1.0}
        for name in self._tops:
            self._set_y(name, 1.0)
        for markers in self.markers.values():
            markers.clear()
        self.bar_ticks.clear()
        for curve in (self.bandwidth_curve, self.bandwidth_since, *self.fairness_curves[:2]):
            curve.setData(np.zeros(1), np.zeros(0))
        for curve in (self.bandwidth_mean, self.fairness_curves[2]):
            curve.setData(np.zeros(0), np.zeros(0))
        self.bars.setOpts(x=np.zeros(0), height=np.zeros(0))
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
        for label in self._bar_labels:
            label.setFont(panel_font(11))
        self._fair_floor.label.setFont(panel_font(11))
        self._arrangement = None
        self._chrome_px = 0.0
        self._bars_title = ""
        self._bars_key = ()
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
        self._window_for(snapshot)
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
            self._update_bars(snapshot)
        if self._due:
            self._drain.start()
        else:
            self._drain.stop()

    def _catch_up(self) -> None:
        """After the graphs shown changed: draw the newly shown ones from the last snapshot at once (the
        run may be paused, and no snapshot is coming)."""
        if self._last is not None and self._drawn != self.shown and self._shape:
            self._take_sample(self._last, at_once=True)

    def _window_for(self, snapshot: Snapshot) -> None:
        """The window moves when a sample arrives (not every frame: between samples nothing new is
        drawn), leaving one interval at the right for what happens before the next sample."""
        series = snapshot.series
        last_ns = int(series[-1, 0]) if len(series) else 0
        step_ns = last_ns - int(series[-2, 0]) if len(series) > 1 else last_ns
        self._hi_ns = max(self.window_ns, last_ns + step_ns)
        self._lo_ns = self._hi_ns - self.window_ns

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
        t_from = int(series[-1, 0]) - self.window_ns
        edges, delta = window_block(series, t_from)
        dt_ns = np.maximum(delta[:, 0], 1).astype(np.float64)
        # Each interval on its own is worth drawing only where intervals are long enough to mean
        # something (10 ms and more: a frame of iperf's data loop is half a millisecond).
        self._show_raw(float(np.median(dt_ns)) >= RAW_MIN_NS)
        ends, moving = moving_block(series, t_from, MEAN_SAMPLES)
        mdt = np.maximum(moving[:, 0], 1).astype(np.float64)
        since_x, since_mbps, since_jain = self._since_change(snapshot)
        if "bandwidth" in names:
            self.bandwidth_curve.setData(edges, bandwidth_mbps(delta[:, lay.acked_bytes], dt_ns))
            mean_mbps = bandwidth_mbps(moving[:, lay.acked_bytes], mdt)
            self.bandwidth_mean.setData(ends, mean_mbps)
            self.bandwidth_since.setData(since_x, since_mbps)
            self._grow(
                "bandwidth", max(float(mean_mbps.max(initial=0.0)), float(since_mbps.max(initial=0.0)))
            )
        if "threads" in names:
            for ci, curve in zip(self._thread_cols, self.thread_curves.values(), strict=True):
                curve.setData(ends, 100.0 * share(moving[:, ci], mdt))
        if "cpus" in names:
            self._update_split(ends, share(moving, mdt[:, None]), lay)
        dq = list(lay.cpu_dequeued)
        if dq and "fairness" in names:
            each, since_curve, mean = self.fairness_curves
            each.setData(edges, jain_rows(delta[:, dq]))
            mean.setData(ends, jain_rows(moving[:, dq]))
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
        self._arrangement = None  # the legends changed height: lay the graphs out again
        self._layout()

    def _since_change(
        self, snapshot: Snapshot
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """The dashed "since the last change" lines' data: the interval's edges (s), its Mbit/s and its
        Jain index (no step before the first change)."""
        anchor = snapshot.series_anchor
        last = snapshot.series[-1]
        fig = interval_figures(snapshot.series_layout, anchor, last) if anchor is not None else None
        if fig is None:
            return np.zeros(1), np.zeros(0), np.zeros(0)
        x = np.array([fig.t0_ns, fig.t1_ns], dtype=np.float64) / NS_PER_S
        jain = fig.fairness_jain if fig.fairness_jain is not None else 1.0
        return x, np.array([fig.bandwidth_mbps]), np.array([jain])

    def _update_split(
        self, ends: NDArray[np.float64], shares: NDArray[np.float64], lay: SeriesLayout
    ) -> None:
        """CPU ``n``'s strip [n, n + 1]: hardirq, softirq, user stacked, idle the rest of the second."""
        if len(ends) < 2:
            return
        edges, shares = ends, shares[1:]  # the mean of the second ending at each sample, as a step
        for n, strip in enumerate(self.cpu_strips):
            levels = np.full((len(SPLIT_PARTS) + 1, len(shares)), float(n))
            columns = (lay.cpu_hardirq_ns[n], lay.cpu_softirq_ns[n], lay.cpu_task_ns[n])  # as SPLIT_PARTS
            for k, column in enumerate(columns, start=1):
                used = np.clip(shares[:, column], 0.0, 1.0)
                levels[k] = np.minimum(levels[k - 1] + used, n + 1.0)
            levels[-1] = n + 1.0
            strip.setData(edges, levels)

    def _update_bars(self, snapshot: Snapshot) -> None:
        """The bars move with the samples, as the time graphs do: a frame between two samples (about
        two in three at 30 frames a second) leaves them, and the scene, untouched."""
        when = (len(snapshot.series), len(snapshot.toggles))
        if when == self._bars_key[2:]:
            return
        dq = list(snapshot.series_layout.cpu_dequeued)
        if snapshot.qdisc is not None:
            live = np.asarray(snapshot.qdisc.per_cpu_dequeued, dtype=np.int64)
        else:
            live = snapshot.series[-1, dq] if len(snapshot.series) else np.zeros(len(dq), dtype=np.int64)
        live = live[: self._shape[3]]  # as many bars as brushes
        jain = snapshot.qdisc.fairness_jain if snapshot.qdisc is not None else None
        key = (tuple(live.tolist()), jain, *when)
        if key == self._bars_key:
            return  # nothing new: leave the scene untouched, so nothing repaints
        self._bars_key = key
        self.bars.setOpts(x=np.arange(len(live), dtype=np.float64), height=live.astype(np.float64))
        self._grow("dequeues", float(live.max(initial=0)))
        narrow = self.plots["dequeues"].getViewBox().width() / max(len(live), 1) < theme.px(80)
        if narrow != self._narrow_bars:  # narrow bars: "0 1 2 3" under them, the axis says "CPU"
            self._narrow_bars = narrow
            names = [(float(n), str(n) if narrow else f"cpu{n}") for n in range(len(live))]
            axis = self.plots["dequeues"].getAxis("bottom")
            axis.setTicks([names, []])
            axis.setLabel("CPU" if narrow else "")
            axis.showLabel(narrow)
        for n, label in enumerate(self._bar_labels[: len(live)]):
            text = short_count(int(live[n])) if narrow else fmt_count(int(live[n]))
            if text != label.toPlainText():  # re-laying out text is the costly part
                label.setText(text)
            label.setPos(float(n), float(live[n]))
        title = self._titles.get("dequeues", PLOT_SPECS["dequeues"][0]) + (
            f" · Jain {jain:.2f}" if jain is not None and self._bars_jain else ""
        )
        if (
            title != self._bars_title
        ):  # a new title re-lays out the whole plot: only when it reads differently
            self._bars_title = title
            self.plots["dequeues"].setTitle(title, size=title_size(), color=palette.TEXT, justify="left")
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
        iperf = snapshot.settings.get("iperf.mode") if snapshot.settings.get("iperf.enabled") else None
        order = plot_order(bool(nbars) or snapshot.qdisc is not None, str(iperf) if iperf else None)
        shape = (snapshot.series_columns, len(snapshot.cpus), order, nbars)
        if shape == self._shape:
            return
        self._shape = shape
        self._rows, self._toggles, self._bars_key, self._ticks_key = -1, -1, (), ()
        for plot, item in self._run_items:
            plot.removeItem(item)
        self._run_items = []
        for name in ("threads", "cpus"):  # their legends list only per-run items
            self.plots[name].legend.clear()
        self._build_threads(snapshot)
        self._build_split(len(snapshot.cpus))
        self._build_bars(nbars)
        if order != self._order:
            self._order, self._front = order, []
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
            self._set_y("cpus", 1.0, [(v / 4, f"{25 * v}%") for v in range(5)])
            self.plots["cpus"].setLabel("left", "% of the CPU")
        else:
            step = max(1, -(-ncpus // 4))  # at most four names on the axis
            ticks = [(n + 0.5, f"cpu{n}") for n in range(0, ncpus, step)]
            self._set_y("cpus", float(ncpus), ticks)
            self.plots["cpus"].setLabel("left", "one strip per CPU")

    def _build_bars(self, ncpus: int) -> None:
        plot = self.plots["dequeues"]
        self.bars.setOpts(x=np.zeros(0), height=np.zeros(0))
        if ncpus:  # (pyqtgraph 0.14 fails on an empty pens list)
            brushes = [QBrush(palette.cpu_color(n), palette.cpu_pattern(n)) for n in range(ncpus)]
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

    # ---- which graphs, where --------------------------------------------------------------------

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
            heights = self.bars.opts.get("height")
            n = round(x)
            if heights is None or not 0 <= n < len(heights):
                return ""
            return f"cpu{n}: {int(heights[n])} packets dequeued since the start"
        lines = []
        for item in self.plots[name].items:
            if not isinstance(item, pg.PlotCurveItem) or not item.isVisible():
                continue
            xs, ys = item.getData()
            if xs is None or ys is None or not len(ys):
                continue
            stepped = len(xs) == len(ys) + 1
            i = int(np.searchsorted(xs, x, side="right")) - 1 if stepped else int(np.abs(xs - x).argmin())
            if not 0 <= i < len(ys):
                continue
            when = f"t = {xs[i]:.6f}–{xs[i + 1]:.6f} s" if stepped else f"t = {xs[i]:.6f} s"
            label = item.opts.get("name") or self._curve_label(item)
            lines.append(f"{label}: {ys[i]:.4g} {PLOT_SPECS[name][1]} ({when})")
        return "\n".join(lines)

    def _curve_label(self, item: pg.PlotCurveItem) -> str:
        return next((task for task, curve in self.thread_curves.items() if curve is item), "")

    def plot_rect(self, name: str) -> QRectF | None:
        """Where graph ``name`` is, in the panel's pixels (None if it is not shown)."""
        if name not in self.shown:
            return None
        scene_rect = self._cells[name].sceneBoundingRect()
        top_left = self._view.mapFromScene(scene_rect.topLeft())
        return QRectF(top_left.x(), top_left.y(), scene_rect.width(), scene_rect.height())

    def bring_forward(self, name: str) -> None:
        """Show graph ``name`` among those that fit (it goes first; the last shown one makes room)."""
        if name in self._order and name not in self.shown:
            self._front = [name, *(n for n in self._front if n != name)]
            self._arrangement = None
            self._layout()

    def _ranked(self) -> tuple[str, ...]:
        return (*self._front, *(n for n in self._order if n not in self._front))

    def _layout(self) -> None:
        """Place as many graphs as fit, most telling first (see ``grid_shape``), and draw the ones
        that were not shown before."""
        self._arrange()
        self._catch_up()

    def _arrange(self) -> None:
        if not self._order:
            return
        ranked = self._ranked()
        chrome = self._chrome_px or theme.px(PLOT_CHROME_H)
        max_cols = 99
        for _attempt in range(6):  # the graphs placed may need more room around them: fewer, wider ones
            if not self._place(ranked, chrome, max_cols) and _attempt == 0:
                return
            if _attempt == 0:
                self._set_legends(True)
            measured = self._measured_chrome()
            short = self._shortest_plot() < MIN_PLOT_H
            if measured > chrome + 2:
                chrome = self._chrome_px = measured
            elif short and len(self.shown) > 1:
                max_cols = len(self.shown) - 1  # wider graphs: their legends take fewer rows
            else:
                break
        if self._shortest_plot() < MIN_PLOT_H:  # still short (many CPU lanes above): the legend rows
            self._set_legends(False)  # go to the data; the lines keep their colours and hover read-outs
        self._chooser.move(self.width() - self._chooser.width() - 4, 2)

    def _set_legends(self, on: bool) -> None:
        """Every graph's legend row under it, or none (a panel too short for both)."""
        if on == self._legends_on:
            return
        self._legends_on = on
        for plot in self.plots.values():
            plot.legend.setMaximumHeight(LEGEND_MAX_H if on else 0.0)  # its row shrinks to nothing
            plot.legend.setVisible(on)
        self._view.ci.layout.activate()

    def _shortest_plot(self) -> float:
        return min((self.plots[n].getViewBox().geometry().height() for n in self.shown), default=MIN_PLOT_H)

    def _measured_chrome(self) -> float:
        """The most height any shown graph spends around its data area (title, axis, legend)."""
        self._view.ci.layout.activate()
        out = 0.0
        for name in self.shown:
            plot = self.plots[name]
            cell = self._cells[name].geometry().height()
            out = max(out, cell - plot.getViewBox().geometry().height())
        return out

    def _place(self, ranked: tuple[str, ...], chrome: float, max_cols: int = 99) -> bool:
        """Put the graphs that fit with ``chrome`` px around each data area; False if nothing changed."""
        min_h = chrome + MIN_PLOT_H
        min_w = max(theme.px(MIN_PLOT_W), self.width() / max_cols)
        rows, cols = grid_shape(len(ranked), self.width(), self.height(), min_w - 0.5, min_h)
        arrangement = (ranked, rows, cols)
        if arrangement == self._arrangement:
            return False
        self._arrangement = arrangement
        grid = self._view.ci
        for cell in self._placed:
            grid.removeItem(cell)
        cells = grid_cells(ranked, rows, cols)
        for name, row, col, span in cells:
            grid.addItem(self._cells[name], row=row, col=col, colspan=span)
        for col in range(5):  # used columns share the width equally, whatever their titles and legends
            grid.layout.setColumnStretchFactor(col, 1 if col < cols else 0)
        self._placed = [self._cells[name] for name, *_ in cells]
        self.shown = [name for name, *_ in cells]
        self._cell_spans = {name: span for name, _row, _col, span in cells}
        self._show_chooser(ranked)
        self._fit_legends()
        return True

    def _fit_legends(self) -> None:
        """Each shown legend takes as many entries a row as its graph's width holds."""
        if not self._arrangement:
            return
        cols = int(self._arrangement[2])  # type: ignore[call-overload]
        for name in self.shown:
            width = self._view.width() * self._cell_spans.get(name, 1) / max(cols, 1)
            self.plots[name].legend.fit_columns(width - theme.px(70))
            chooser = self._chooser.width() + 8 if self._chooser.isVisible() else 0
            self._fit_title(name, width - theme.px(68 + 24) - chooser)  # less the y axis, the chooser

    def _fit_title(self, name: str, width: float) -> None:
        """The graph's title, or its short form where the long one would be cut; the dequeue graph's
        "· Jain" goes where even the short form leaves no room for it (the headline shows it too)."""
        plot = self.plots[name]
        extra = " · Jain 0.00" if name == "dequeues" else ""
        font = panel_font(TITLE_PT)
        font.setBold(theme.current().bold_titles)
        metrics = QFontMetrics(font)
        long_title = PLOT_SPECS[name][0]
        fits = metrics.horizontalAdvance(long_title + extra) <= width
        title = long_title if fits else SHORT_TITLES[name]
        if name == "dequeues":
            jain = fits or metrics.horizontalAdvance(title + extra) <= width
            if jain != self._bars_jain:
                self._bars_jain, self._bars_title, self._bars_key = jain, "", ()
        if self._titles.get(name) != title:
            self._titles[name] = title
            plot.setProperty("schedlab_title", title)
            plot.setTitle(
                title, size=title_size(), color=palette.TEXT, bold=theme.current().bold_titles, justify="left"
            )
            if name == "dequeues":
                self._bars_title, self._bars_key = "", ()

    def _show_chooser(self, ranked: tuple[str, ...]) -> None:
        """The "More graphs" menu, only when some graphs do not fit: every graph, the shown ones ticked."""
        hidden = len(self.shown) < len(ranked)
        menu = self._chooser.menu()
        menu.clear()
        for name in self._order:
            action = self._choices[name]
            action.setChecked(name in self.shown)
            menu.addAction(action)
        self._chooser.setVisible(hidden)
        self._chooser.adjustSize()
        self._chooser.move(self.width() - self._chooser.width() - 4, 2)

    def hideEvent(self, event: QHideEvent) -> None:
        """Hidden (the window closed, another tab in front): what is due waits for the next frame."""
        self._drain.stop()
        super().hideEvent(event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self._shape:
            self._layout()
            self._fit_legends()
        self._chooser.move(max(self.width() - self._chooser.width() - 4, 0), 2)


def _split_brush(part: str, cpu: int) -> QBrush:
    if part == "user":  # lighter than the CPU's own colour, so it never reads as one task's line
        return QBrush(palette.cpu_color(cpu).lighter(130))
    if part == "idle":
        return QBrush(palette.LIGHT_GREY)
    return QBrush(palette.STATE_COLORS[part], palette.STATE_PATTERNS[part])
