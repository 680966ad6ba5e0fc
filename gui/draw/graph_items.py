"""The pyqtgraph items the graphs panel is built from: projector-legible plots with their legend row,
per-interval step curves, stacked step areas, and the markers that show when a setting was toggled
(their axes: ``gui.draw.axes``).

Each item is created once and fed numpy arrays; nothing here knows about snapshots or the model.
"""

from __future__ import annotations

import itertools

import numpy as np
import pyqtgraph as pg
from numpy.typing import NDArray
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QFont, QPainter, QPainterPath
from PySide6.QtWidgets import QGraphicsItem, QGraphicsLayout, QSizePolicy

from gui import pyside_fix  # noqa: F401 - before any paint or emit
from gui.draw import palette, theme
from gui.draw.axes import CountAxis, QuietAxis, SpacedAxis
from gui.draw.series import nice_ceiling

NS_PER_S = 1_000_000_000
TITLE_PT = 12
TICK_PT = 11
LABEL_PT = 10
HEADROOM = 1.2  # the view reaches 20 % above the data's axis top: room for the toggle labels


def title_size() -> str:
    return f"{theme.pt(TITLE_PT):.1f}pt"


def panel_font(point_size: float) -> QFont:
    """A graph's text at ``point_size`` points of the standard theme, scaled to the theme now."""
    return theme.font(point_size)


class LegendRow(pg.LegendItem):  # type: ignore[misc]
    """A legend laid out under its plot, so it never hides data: up to ``columns`` entries a row, as many
    as its graph's width holds (more rows when narrow, so that no entry is cut), never wider than it."""

    ROW_PX = 21.0
    folded = False  # hidden to give its rows to the data (``fold``), whatever its entries

    def __init__(self, columns: int) -> None:
        super().__init__(
            colCount=columns,
            labelTextSize=f"{theme.pt(LABEL_PT):.1f}pt",
            labelTextColor=palette.TEXT,
            frame=False,
        )
        self.most_columns = columns
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setFlag(self.GraphicsItemFlag.ItemClipsChildrenToShape)
        self.layout.setContentsMargins(4.0, 0.0, 4.0, 0.0)

    def fold(self, folded: bool) -> None:
        """Hide the legend and give its rows to the data, or show it again under its graph."""
        self.folded = folded
        self.setVisible(not folded)
        self.updateSize()

    def addItem(self, item: object, name: str) -> None:
        super().addItem(item, name)
        self.items[-1][1].setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)  # packed left
        keep_picture(self.items[-1][1].item)

    def rename(self, item: object, name: str) -> None:
        """Call ``item``'s entry ``name`` (its row stays where it is), and the item itself, which the
        pointer's read-out names it by."""
        for sample, label in self.items:
            if sample.item is item and label.text != name:
                label.setText(name, size=self.opts["labelTextSize"], color=self.opts["labelTextColor"])
                self.updateSize()
                if isinstance(getattr(item, "opts", None), dict):
                    item.opts["name"] = name

    def fit_columns(self, width: float) -> None:
        """As many entries a row as ``width`` holds without cutting one (at most ``most_columns``)."""
        if not self.items:
            return
        entry = max(
            sample.boundingRect().width() + label.item.boundingRect().width() + 12
            for sample, label in self.items
        )
        columns = max(1, min(self.most_columns, int((width - 8) // max(entry, 1.0))))
        self.relayout(columns)

    def relayout(self, columns: int | None = None) -> None:
        """Lay the entries out again in ``columns`` a row (after entries came or went: the base class
        leaves gaps where an entry was removed)."""
        self.columnCount: int = columns or int(self.columnCount)
        self.rowCount = -(-len(self.items) // max(self.columnCount, 1))
        for i in range(self.layout.count() - 1, -1, -1):
            self.layout.removeAt(i)
        for sample, label in self.items:
            self._addItemToLayout(sample, label)
        self.updateSize()

    def updateSize(self) -> None:  # the enclosing layout places it (the base class would move it to 0, 0)
        rows = 0 if self.folded else -(-len(self.items) // max(self.columnCount, 1))
        row_px = max(
            [theme.px(self.ROW_PX)] + [label.item.boundingRect().height() for _s, label in self.items]
        )
        self.setMinimumHeight(row_px * rows)  # an empty (or folded) legend takes no room
        self.setMaximumHeight(row_px * rows)
        self.setMinimumWidth(0.0)
        self.setMaximumWidth(1e6)  # as wide as its graph, whatever its entries ask for
        self.updateGeometry()
        cell = self.parentLayoutItem()  # re-lay out the graph's cell now, not at the next event loop
        if isinstance(cell, QGraphicsLayout):  # turn: an export may grab before that
            cell.activate()


def _let_shrink(label: pg.LabelItem) -> None:
    """Let a title be clipped rather than widen its graph past the panel (LabelItem pins its width)."""
    pin = label.updateMin

    def update_min() -> None:
        pin()
        label.setMinimumWidth(0.0)
        label._sizeHint[Qt.SizeHint.MinimumSize] = (0.0, label._sizeHint[Qt.SizeHint.MinimumSize][1])

    label.updateMin = update_min
    label.updateMin()


def keep_picture(item: QGraphicsItem) -> None:
    """Keep ``item``'s picture as a pixmap, painted again only when the item changes: its text (rich
    text, laid out on every paint) or ticks are then a copy in every repaint that crosses it."""
    item.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)


def make_plot(
    title: str, y_label: str, time_axis: bool = True, legend_columns: int = 4
) -> tuple[pg.PlotItem, pg.GraphicsLayout]:
    """A white, projector-legible plot the mouse cannot pan, with its legend row under it, in one
    layout cell. ``time_axis``: x is simulated seconds; otherwise y counts packets (the bars)."""
    # Left and bottom only: an axis named here is shown.
    axes = {"left": QuietAxis("left"), "bottom": SpacedAxis("bottom")}
    axes |= {} if time_axis else {"left": CountAxis("left"), "bottom": QuietAxis("bottom")}
    plot = pg.PlotItem(axisItems=axes)
    plot.setProperty("schedlab_title", title)
    plot.setProperty("schedlab_y_label", y_label)
    plot.setProperty("schedlab_time_axis", time_axis)
    _let_shrink(plot.titleLabel)
    plot.setMenuEnabled(False)
    plot.setMouseEnabled(x=False, y=False)
    plot.hideButtons()
    # Horizontal grid lines only, at the labelled ticks: semi-transparent grid lines are most of a
    # graph's paint time, and the toggle markers already mark the moments that matter on the time axis.
    plot.showGrid(x=False, y=True, alpha=0.25)
    plot.getAxis("left").setStyle(maxTickLevel=0)
    for side in ("left", "bottom"):
        # An axis is painted again whenever anything under its rectangle changes (the left one draws
        # the grid across the data area: every new point), and replaying its picture lays out each tick
        # label anew; kept as a pixmap, that is a copy until its ticks or size change.
        keep_picture(plot.getAxis(side))
        keep_picture(plot.getAxis(side).label)
    keep_picture(plot.titleLabel.item)
    for side in ("top", "right"):  # hidden, yet linked they rebuild their (rich text) name at every slide
        plot.getAxis(side).unlinkFromView()
    cell = pg.GraphicsLayout()
    cell.layout.setContentsMargins(0, 0, 0, 0)
    cell.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)  # columns share equally
    cell.addItem(plot, row=0, col=0)
    plot.legend = LegendRow(legend_columns)
    cell.addItem(plot.legend, row=1, col=0)
    restyle_plot(plot)
    return plot, cell


def restyle_plot(plot: pg.PlotItem) -> None:
    """Title, axis text and pens at the theme's sizes (at creation, and after a mode or zoom change).
    The time axis says its unit, with an SI prefix that follows the window (s, ms, µs)."""
    title = plot.property("schedlab_title")
    plot.setTitle(
        title, size=title_size(), color=palette.TEXT, bold=theme.current().bold_titles, justify="left"
    )
    pen = pg.mkPen(palette.TEXT, width=theme.line(1))
    for side in ("left", "bottom"):
        axis = plot.getAxis(side)
        axis.setTickFont(panel_font(TICK_PT))
        axis.setPen(pen)
        axis.setTextPen(pen)
    plot.getAxis("left").setWidth(round(theme.px(68)))  # fixed: labels show at once, graphs line up
    style = {"font-size": f"{theme.pt(LABEL_PT):.1f}pt", "color": palette.TEXT.name()}
    plot.setLabel("left", plot.property("schedlab_y_label"), **style)
    if plot.property("schedlab_time_axis"):
        plot.setLabel("bottom", "simulated time", units="s", **style)
    legend = plot.legend
    if legend is not None:
        legend.opts["labelTextSize"] = f"{theme.pt(LABEL_PT):.1f}pt"
        legend.opts["labelTextColor"] = palette.TEXT
        for _sample, label in legend.items:
            label.setText(label.text, size=legend.opts["labelTextSize"], color=palette.TEXT)
        legend.updateSize()


def set_y_top(plot: pg.PlotItem, top: float, ticks: list[tuple[float, str]] | None = None) -> None:
    """The y range up to the axis top ``top`` (and the labelled ``ticks``, if given)."""
    plot.setYRange(-0.06 * top, top * HEADROOM, padding=0)
    if ticks is not None:
        plot.getAxis("left").setTicks([ticks, []])


def grow_y_top(plot: pg.PlotItem, top: float, value: float) -> float:
    """The axis top that shows ``value``: y axes only grow, to round numbers (``top`` or more)."""
    grown = nice_ceiling(value)
    if grown > top:
        set_y_top(plot, grown)
        return grown
    return top


def step_curve(**opts: object) -> pg.PlotCurveItem:
    """A curve of per-interval values: x holds the interval edges, one more than the values."""
    return pg.PlotCurveItem(x=np.zeros(1), y=np.zeros(0), stepMode="center", skipFiniteCheck=True, **opts)


def fill_legend_sample(brush: QBrush) -> pg.BarGraphItem:
    """A legend swatch for a filled area (the legend draws bar items as a filled square)."""
    return pg.BarGraphItem(x=[0.0], height=[0.0], width=1.0, brush=brush, pen=pg.mkPen(palette.TEXT))


class ToggleMarkers:
    """Dashed vertical lines, labelled at the top, at the moments a setting was toggled on one graph.

    The lines come from a pool that only grows to the number of markers shown at once, so a long run
    with many toggles never creates an item per frame; ``clear()`` (on reset) removes them.
    """

    def __init__(self, plot: pg.PlotItem) -> None:
        self.plot = plot
        self.lines: list[pg.InfiniteLine] = []
        self.shown: list[tuple[int, str]] = []

    def update(self, marks: list[tuple[int, str]]) -> None:
        if marks == self.shown:
            return
        line_h = min(0.25, 20.0 / max(self.plot.getViewBox().height(), 1.0))  # one text line, in view

        while len(self.lines) < len(marks):
            line = pg.InfiniteLine(
                angle=90,
                pen=pg.mkPen(palette.TEXT, width=2, style=Qt.PenStyle.DashLine),
                label=" ",
                labelOpts={"color": palette.TEXT, "anchors": [(0, 0.5), (0, 0.5)]},
            )
            line.label.setFont(panel_font(11))
            self.plot.addItem(line, ignoreBounds=True)
            self.lines.append(line)
        for i, line in enumerate(self.lines):
            line.setVisible(i < len(marks))
            if i < len(marks):
                t_ns, text = marks[i]
                line.setValue(t_ns / NS_PER_S)
                line.label.setFormat(text.replace("{", "{{").replace("}", "}}"))
                line.label.setPosition(1.0 - line_h * (0.6 + i % 2))  # neighbours' labels at two heights
        self.shown = list(marks)

    def labels(self) -> list[tuple[float, str]]:
        """The markers on screen: (time in s, label)."""
        return [(ln.value(), ln.label.toPlainText()) for ln in self.lines if ln.isVisible()]

    def clear(self) -> None:
        for line in self.lines:
            self.plot.removeItem(line)
        self.lines, self.shown = [], []


class BarToggleTicks:
    """On the dequeue bars: for each recent toggle, a dashed tick across every CPU's bar at that CPU's
    count when the setting changed (so what stands above the tick came after), named in the legend."""

    STYLES = (Qt.PenStyle.DashLine, Qt.PenStyle.DotLine, Qt.PenStyle.DashDotLine)

    def __init__(self, plot: pg.PlotItem) -> None:
        self.plot = plot
        self.curves: list[pg.PlotCurveItem] = []
        self.shown: list[str] = []

    def update(self, ticks: list[tuple[str, NDArray[np.int64]]]) -> None:
        while len(self.curves) < len(ticks):
            style = self.STYLES[len(self.curves) % len(self.STYLES)]
            self.curves.append(pg.PlotCurveItem(pen=pg.mkPen(palette.TEXT, width=3, style=style)))
            self.plot.addItem(self.curves[-1], ignoreBounds=True)
        for i, curve in enumerate(self.curves):
            curve.setVisible(i < len(ticks))
            if i < len(ticks):
                n = np.arange(len(ticks[i][1]), dtype=np.float64)
                x = np.column_stack([n - 0.4, n + 0.4]).ravel()
                curve.setData(x, np.repeat(ticks[i][1], 2).astype(np.float64), connect="pairs")
        labels = [label for label, _counts in ticks]
        if labels != self.shown and self.plot.legend is not None:
            for curve in self.curves:
                self.plot.legend.removeItem(curve)
            for curve, label in zip(self.curves, labels, strict=False):
                self.plot.legend.addItem(curve, f"counts when {label}")
        self.shown = labels

    def labels(self) -> list[str]:
        """The toggles marked on the bars, oldest first."""
        return list(self.shown)

    def clear(self) -> None:
        for curve in self.curves:
            self.plot.removeItem(curve)
            if self.plot.legend is not None:
                self.plot.legend.removeItem(curve)
        self.curves, self.shown = [], []


class StackedSteps(pg.GraphicsObject):  # type: ignore[misc]
    """Stacked areas over sampling intervals: area ``k`` lies between ``levels[k]`` and ``levels[k + 1]``.

    One item draws every area with its own brush, so patterned brushes (softirq hatching) never let
    another area show through, and one frame costs one path per area, built with numpy.
    """

    def __init__(self, brushes: list[QBrush]) -> None:
        super().__init__()
        self.brushes = brushes
        self.paths: list[QPainterPath] = []
        self.levels: NDArray[np.float64] = np.zeros((len(brushes) + 1, 0))
        self._rect = QRectF()
        self._pen = pg.mkPen(palette.TEXT, width=0.5)

    def setData(self, edges: NDArray[np.float64], levels: NDArray[np.float64]) -> None:
        """``edges``: n + 1 interval boundaries; ``levels``: (areas + 1, n) boundaries, bottom first."""
        self.levels = levels
        x = np.repeat(edges, 2)[1:-1]  # e0 e1 e1 e2 e2 ... en: each interval as a flat step
        ring_x = np.concatenate([x, x[::-1]])
        self.paths = []
        for lower, upper in itertools.pairwise(levels):
            ring_y = np.concatenate([np.repeat(upper, 2), np.repeat(lower, 2)[::-1]])
            path = pg.arrayToQPath(ring_x, ring_y) if len(ring_x) else QPainterPath()
            path.closeSubpath()
            self.paths.append(path)
        self.prepareGeometryChange()
        if len(edges) > 1:
            self._rect = QRectF(edges[0], levels.min(), edges[-1] - edges[0], levels.max() - levels.min())
        self.update()

    def boundingRect(self) -> QRectF:
        return self._rect

    def paint(self, p: QPainter, *args: object) -> None:
        p.setPen(self._pen)
        for path, brush in zip(self.paths, self.brushes, strict=False):
            p.setBrush(brush)
            p.drawPath(path)


def place_floor_label(view: pg.ViewBox, floor: pg.InfiniteLine) -> None:
    """ "all on one CPU" goes under its line, where Jain (never below 1/n) cannot run over it; where
    the plot has no room for it there (many CPUs put the line near the time axis, a short plot
    leaves it a few pixels), the line goes unlabelled rather than over the axis or the data."""
    y_min, y_max = view.viewRange()[1]
    below = (floor.value() - y_min) / max(y_max - y_min, 1e-9) * view.height()
    floor.label.setVisible(below >= floor.label.boundingRect().height() + 2)
