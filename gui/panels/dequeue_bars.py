"""The dequeue graph's bars: one bar per CPU of the packets it dequeued since the start (the qdisc's
live counts, else the series' last row), its count over it, a tick across every bar at its count when
a setting was toggled, and the graph's title with the Jain index where the title has room for it. The
bars move with the samples, as the time graphs do, and touch the scene only when what they show
changed.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from numpy.typing import NDArray
from PySide6.QtGui import QBrush

from gui.draw import palette, theme
from gui.draw.formats import short_count
from gui.draw.graph_items import BarToggleTicks, grow_y_top, panel_font, set_y_top, title_size
from gui.draw.qdisc_geometry import fmt_count
from gui.draw.series import PLOT_SPECS, counts_at, toggle_marks
from model.snapshot import Snapshot


class DequeueBars:
    """The bars on ``plot``: ``build(ncpus)`` for a run's shape, ``update(snapshot)`` with each sample."""

    _key: tuple[object, ...]  # what the bars last showed: unchanged frames touch nothing
    _ticks_key: tuple[object, ...]  # (toggles, samples) the ticks on the bars last showed

    def __init__(self, plot: pg.PlotItem) -> None:
        self.plot = plot
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.6)
        plot.addItem(self.bars)
        self.ticks = BarToggleTicks(plot)
        self.count = 0  # bars: as many as brushes
        self.labels: list[pg.TextItem] = []
        self.title = PLOT_SPECS["dequeues"][0]  # the title the graph's width holds, without the Jain
        self.jain_fits = True  # the title has room for "· Jain 0.58"
        self.reset()

    def reset(self) -> None:
        """Forget the run: the counts, the ticks and the grown y axis."""
        self.invalidate()
        self._shown_title = ""
        self._narrow: bool | None = None
        self.top = 1.0
        set_y_top(self.plot, 1.0)
        self.ticks.clear()
        self.bars.setOpts(x=np.zeros(0), height=np.zeros(0))

    def invalidate(self) -> None:
        """The next ``update`` draws, whatever it shows (a new window or run shape)."""
        self._key = self._ticks_key = ()

    def restyle(self) -> None:
        """Text sizes for the theme now."""
        for label in self.labels:
            label.setFont(panel_font(11))
        self._shown_title = ""
        self._key = ()

    def fit_title(self, jain_fits: bool) -> None:
        """Whether the graph's width holds "· Jain" after the title (the headline shows it too)."""
        if jain_fits != self.jain_fits:
            self.jain_fits, self._shown_title, self._key = jain_fits, "", ()

    def set_title(self, title: str) -> None:
        """The title the graph's width holds (its short form in a narrow graph)."""
        self.title, self._shown_title, self._key = title, "", ()

    def build(self, ncpus: int) -> None:
        """Brushes, CPU names and count labels for ``ncpus`` bars."""
        for label in self.labels:
            self.plot.removeItem(label)
        self.count = ncpus
        self.bars.setOpts(x=np.zeros(0), height=np.zeros(0))
        if ncpus:  # (pyqtgraph 0.14 fails on an empty pens list)
            brushes = [QBrush(palette.cpu_color(n), palette.cpu_pattern(n)) for n in range(ncpus)]
            self.bars.setOpts(brushes=brushes, pens=[pg.mkPen(palette.TEXT, width=1)] * ncpus)
        self.plot.getAxis("bottom").setTicks([[(float(n), f"cpu{n}") for n in range(ncpus)], []])
        self.plot.setXRange(-0.6, max(ncpus, 1) - 0.4, padding=0)
        self.labels = []
        for _ in range(ncpus):
            label = pg.TextItem("", color=palette.TEXT, anchor=(0.5, 1.0))
            label.setFont(panel_font(11))
            self.plot.addItem(label)
            self.labels.append(label)

    def update(self, snapshot: Snapshot, merge_ns: int) -> None:
        """The bars move with the samples, as the time graphs do: a frame between two samples (about
        two in three at 30 frames a second) leaves them, and the scene, untouched."""
        when = (len(snapshot.series), len(snapshot.toggles))
        if when == self._key[2:]:
            return
        dq = list(snapshot.series_layout.cpu_dequeued)
        if snapshot.qdisc is not None:
            live = np.asarray(snapshot.qdisc.per_cpu_dequeued, dtype=np.int64)
        else:
            live = snapshot.series[-1, dq] if len(snapshot.series) else np.zeros(len(dq), dtype=np.int64)
        live = live[: self.count]  # as many bars as brushes
        jain = snapshot.qdisc.fairness_jain if snapshot.qdisc is not None else None
        key = (tuple(live.tolist()), jain, *when)
        if key == self._key:
            return  # nothing new: leave the scene untouched, so nothing repaints
        self._key = key
        self._draw_counts(live)
        self._show_title(jain)
        if key[2:] != self._ticks_key:  # a toggle, or a sample that pins a toggle's counts
            self._ticks_key = key[2:]
            marks = (
                toggle_marks(snapshot.toggles, 0, snapshot.t_ns, merge_ns, 3) if len(dq) == len(live) else []
            )
            self.ticks.update([(label, counts_at(snapshot.series, dq, t, live)) for t, label in marks])

    def _draw_counts(self, live: NDArray[np.int64]) -> None:
        self.bars.setOpts(x=np.arange(len(live), dtype=np.float64), height=live.astype(np.float64))
        self.top = grow_y_top(self.plot, self.top, float(live.max(initial=0)))
        narrow = self.plot.getViewBox().width() / max(len(live), 1) < theme.px(80)
        if narrow != self._narrow:  # narrow bars: "0 1 2 3" under them, the axis says "CPU"
            self._narrow = narrow
            names = [(float(n), str(n) if narrow else f"cpu{n}") for n in range(len(live))]
            axis = self.plot.getAxis("bottom")
            axis.setTicks([names, []])
            axis.setLabel("CPU" if narrow else "")
            axis.showLabel(narrow)
        for n, label in enumerate(self.labels[: len(live)]):
            text = short_count(int(live[n])) if narrow else fmt_count(int(live[n]))
            if text != label.toPlainText():  # re-laying out text is the costly part
                label.setText(text)
            label.setPos(float(n), float(live[n]))

    def _show_title(self, jain: float | None) -> None:
        title = self.title + (f" · Jain {jain:.2f}" if jain is not None and self.jain_fits else "")
        if (
            title != self._shown_title
        ):  # a new title re-lays out the whole plot: only when it reads differently
            self._shown_title = title
            self.plot.setTitle(title, size=title_size(), color=palette.TEXT, justify="left")

    def describe(self, x: float) -> str:
        """What the pointer reads at ``x`` (a CPU)."""
        heights = self.bars.opts.get("height")
        n = round(x)
        if heights is None or not 0 <= n < len(heights):
            return ""
        return f"cpu{n}: {int(heights[n])} packets dequeued since the start"
