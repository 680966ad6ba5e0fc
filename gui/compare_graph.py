"""The compare window's graph: every side's curve on one time axis, told apart by colour, line style
and a legend under the data.

It is the main window's graph as that window makes it (its fonts, its legend row, its fixed Jain axis
with the floor where all dequeues are on one CPU), and it shows what the comparison is about: the
qdisc's Jain index; else the bandwidth where the runs move bytes; else the CPU share of the thread
whose share differs most between the sides. The view sits in a box of its own, which a figure draws
(pyqtgraph's view overrides ``render()`` with another signature, so it cannot be drawn as a plain
widget is).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QVBoxLayout, QWidget

from gui.draw import palette
from gui.draw.graph_items import (
    TICK_PT,
    LegendRow,
    grow_y_top,
    make_plot,
    panel_font,
    place_floor_label,
    restyle_plot,
    set_y_top,
)
from gui.draw.series import PLOT_SPECS, moving_block
from model.compare import Side
from model.metrics import KERNEL_ROLES, bandwidth_mbps, jain_rows, share
from model.scenario import Scenario
from model.snapshot import Snapshot

SIDE_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7")
SIDE_STYLES = (Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DotLine, Qt.PenStyle.DashDotLine)
MEAN_SAMPLES = 10


class CompareGraph(QWidget):
    def __init__(self, sides: Sequence[Side], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view = pg.GraphicsLayoutWidget()
        self.view.setBackground(palette.BACKGROUND)
        self.plot, cell = make_plot(*PLOT_SPECS["bandwidth"][:2], legend_columns=len(sides))
        self.view.addItem(cell)
        self.curves = [
            self.plot.plot(
                [],
                [],
                name=f"{s.label}: {s.name}",
                pen=pg.mkPen(SIDE_COLOURS[i], width=3, style=SIDE_STYLES[i]),
            )
            for i, s in enumerate(sides)
        ]
        self.floor = pg.InfiniteLine(
            angle=0,
            pen=pg.mkPen(palette.TEXT, width=1, style=Qt.PenStyle.DotLine),
            label="all on one CPU",
            # Under the line: Jain is never below 1/n, so the label never covers a curve.
            labelOpts={"position": 0.02, "color": palette.TEXT, "anchors": [(0, 0), (0, 0)]},
        )
        self.floor.label.setFont(panel_font(TICK_PT))
        self.floor.setVisible(False)
        self.plot.addItem(self.floor, ignoreBounds=True)
        # As in the main window: unlabelled where a short graph has no room under the line for its words.
        self.plot.getViewBox().sigResized.connect(lambda view: place_floor_label(view, self.floor))
        self.view.setMinimumHeight(180)
        self.kind = ""  # what the graph shows ("jain", "bandwidth", "share:NAME"): known at the first frame
        self._y_top = 0.0  # the bandwidth axis's round top (it only grows)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.view)

    def kind_for(self, base: Scenario, snapshots: Sequence[Snapshot]) -> str:
        """What the graph shows: the qdisc's Jain index; else the bandwidth where the run moves bytes;
        else ("share:NAME") the CPU share of the thread whose share differs most between the sides."""
        lay = snapshots[0].series_layout if snapshots else None
        if lay is not None and len(lay.cpu_dequeued) > 1:
            return "jain"
        if base.iperf.enabled or base.has_qdisc or not snapshots:
            return "bandwidth"
        name = self._thread_to_draw(snapshots)
        return f"share:{name}" if name else "bandwidth"

    def _thread_to_draw(self, snapshots: Sequence[Snapshot]) -> str:
        """The thread whose CPU share since the start differs most between the sides, among those that
        call sched_yield() if any does (what a comparison without network is most often about), else
        among all; the one drawn stays until another's difference is half as large again."""
        per_side = [_newest(snap, snap.series_layout.task_exec_ns, per_ns=True) for snap in snapshots]
        names = [
            n
            for n in per_side[0]
            if n.partition("/")[0] not in KERNEL_ROLES and all(n in p for p in per_side)
        ]
        yields = [_newest(snap, snap.series_layout.task_yields) for snap in snapshots]
        names = [n for n in names if any(y.get(n) for y in yields)] or names
        if not names:
            return ""
        spread = {n: max(p[n] for p in per_side) - min(p[n] for p in per_side) for n in names}
        best = max(names, key=lambda n: spread[n])
        now = self.kind.partition(":")[2]
        if now in spread and spread[best] <= 1.5 * spread[now] + 0.01:
            return now
        return best

    def draw(self, base: Scenario, snapshots: Sequence[Snapshot], t_from: int) -> None:
        """Every side's curve from ``t_from`` on, each a moving mean over MEAN_SAMPLES samples."""
        kind = self.kind_for(base, snapshots)
        if kind != self.kind:
            self._set_up(kind, snapshots)
        top = 0.0
        for curve, snap in zip(self.curves, snapshots, strict=True):
            series = snap.series
            if len(series) < 2:
                curve.setData([], [])
                continue
            ends, moving = moving_block(series, t_from, MEAN_SAMPLES)
            dt = np.maximum(moving[:, 0], 1).astype(np.float64)
            if kind == "jain":
                values = jain_rows(moving[:, list(snap.series_layout.cpu_dequeued)])
            elif kind.startswith("share:"):
                name = kind.partition(":")[2]
                cols = zip(snap.tasks, snap.series_layout.task_exec_ns, strict=True)
                col = next(c for task, c in cols if task.name == name)
                values = 100.0 * share(moving[:, col], dt)
            else:
                values = bandwidth_mbps(moving[:, snap.series_layout.acked_bytes], dt)
                top = max(top, float(values.max(initial=0.0)))
            curve.setData(ends, values)
        if kind == "bandwidth":
            self._y_top = grow_y_top(self.plot, self._y_top, top)

    def _set_up(self, kind: str, snapshots: Sequence[Snapshot]) -> None:
        """Title, y label and axis for ``kind``: Jain from 0 to 1 with its floor (1/n: every dequeue on
        one CPU) where every side has the same CPUs, or bandwidth up to a round top that only grows."""
        self.kind = kind
        if kind.startswith("share:"):
            title, y_label = f"{kind.partition(':')[2]}: its CPU share", PLOT_SPECS["threads"][1]
        else:
            title, y_label = PLOT_SPECS["fairness" if kind == "jain" else "bandwidth"][:2]
        self.plot.setProperty("schedlab_title", title)
        self.plot.setProperty("schedlab_y_label", y_label)
        restyle_plot(self.plot)
        if kind.startswith("share:"):
            set_y_top(self.plot, 100.0, [(float(v), str(v)) for v in range(0, 101, 25)])
            self.floor.setVisible(False)
        elif kind == "jain":
            set_y_top(self.plot, 1.0, [(v, f"{v:.2f}") for v in (0.0, 0.25, 0.5, 0.75, 1.0)])
            ncpus = {len(snap.series_layout.cpu_dequeued) for snap in snapshots}
            self.floor.setVisible(len(ncpus) == 1)
            self.floor.setValue(1.0 / max(ncpus))
            place_floor_label(self.plot.getViewBox(), self.floor)
        else:
            self.plot.getAxis("left").setTicks(None)
            self._y_top = grow_y_top(self.plot, 0.0, 1.0)
            self.floor.setVisible(False)

    def restyle(self) -> None:
        """Fonts and lines at the display mode and zoom now."""
        restyle_plot(self.plot)
        self.floor.label.setFont(panel_font(TICK_PT))
        place_floor_label(self.plot.getViewBox(), self.floor)
        self.fit_legend()

    def fit_legend(self) -> None:
        """As many legend entries a row as the graph's width holds (its own width: the window's, in the
        window's resize, is from before the layout)."""
        legend = self.plot.legend
        if isinstance(legend, LegendRow):
            legend.fit_columns(self.width())


def _newest(snap: Snapshot, columns: Sequence[int], per_ns: bool = False) -> dict[str, float]:
    """Each thread's newest value of a cumulative counter (its yields), or with ``per_ns`` that over
    the time since the start (its CPU time: its share)."""
    if not len(snap.series) or snap.series[-1, 0] <= 0:
        return {}
    row = snap.series[-1]
    scale = float(row[0]) if per_ns else 1.0
    return {task.name: float(row[col]) / scale for task, col in zip(snap.tasks, columns, strict=True)}
