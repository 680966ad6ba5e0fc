"""Which graphs the graphs panel shows, and where: as many as fit with every plot at least
``MIN_PLOT_H`` px high, the ones a story tells first (or the ones the user brought forward) in a grid
of equal columns; the legend rows under them while there is room; each title in its short form where
the long one would be cut; and the "More ▾" menu of every graph when some do not fit.
"""

from __future__ import annotations

from collections.abc import Callable

import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QAction, QFontMetrics
from PySide6.QtWidgets import QMenu, QToolButton, QWidget

from gui.draw import palette, theme
from gui.draw.axes import SpacedAxis
from gui.draw.graph_items import TITLE_PT, panel_font, title_size
from gui.draw.series import PLOT_SPECS, SHORT_TITLES, TINY_TITLES, grid_cells, grid_shape
from gui.panels.base import CHROME, styled_font
from gui.panels.dequeue_bars import DequeueBars

MIN_PLOT_H = 150  # px of data area every shown graph keeps, at the standard text size
# An axis's height follows its labels (a new SI prefix, a taller tick label), so a data area can lose
# a pixel or two a sample later: legends are kept only with this much to spare above MIN_PLOT_H.
LEGEND_SPARE_PX = 4
MIN_PLOT_W = 270
PLOT_CHROME_H = 104  # title, time axis and two legend rows around the data area (standard text size)

CHOOSER_TEXT = "More ▾"
CHOOSER_ARROW = "▾"  # where the words would cut a graph's title


class GraphGrid:
    """The graphs of ``view`` laid out in ``panel``: ``arrange()`` after a resize or a new run shape;
    ``shown`` lists the graphs placed. Choosing a graph in the menu calls ``choose(name)``."""

    def __init__(
        self,
        panel: QWidget,
        view: pg.GraphicsLayoutWidget,
        plots: dict[str, pg.PlotItem],
        cells: dict[str, pg.GraphicsLayout],
        bars: DequeueBars,
        choose: Callable[[str], None],
    ) -> None:
        self._panel, self._view, self._plots, self._cells, self._bars = panel, view, plots, cells, bars
        self._chooser = QToolButton()
        self._chooser.setText(CHOOSER_TEXT)
        self._chooser.setToolTip("More graphs: not every graph fits here; choose which ones to show")
        self._chooser.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self._chooser.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._chooser.setMenu(QMenu(self._chooser))
        styled_font(self._chooser, 10)
        self._choices: dict[str, QAction] = {}
        for name in plots:
            action = QAction(PLOT_SPECS[name][0], self._chooser)
            action.setCheckable(True)
            action.triggered.connect(lambda _=False, n=name: choose(n))
            self._choices[name] = action
        self._chooser.setProperty(CHROME, True)  # a panel's figure leaves it out
        self._chooser.setParent(panel)  # floats at the top right, over the graphs' title row
        self._chooser.raise_()
        self._placed: list[pg.GraphicsLayout] = []
        self._order: tuple[str, ...] = ()
        self._front: list[str] = []  # graphs the user brought forward, most recent first
        self._arrangement: tuple[object, ...] | None = None
        self.shown: list[str] = []
        self._cell_spans: dict[str, int] = {}
        self._titles: dict[str, str] = {}
        self._legends_on = True
        self._axis_names_on = True
        self._chrome_px = 0.0

    def set_order(self, order: tuple[str, ...]) -> None:
        """The graphs of the run, most telling first; a new order forgets the graphs brought forward."""
        if order != self._order:
            self._order, self._front = order, []

    def forget(self, measures: bool = False) -> None:
        """Lay the graphs out again at the next ``arrange`` (with ``measures``: measure the room around
        each data area again too, as after a theme change)."""
        self._arrangement = None
        if measures:
            self._chrome_px = 0.0

    def bring_forward(self, name: str) -> bool:
        """Rank graph ``name`` first, if it is not shown; True if the graphs need laying out again."""
        if name in self._order and name not in self.shown:
            self._front = [name, *(n for n in self._front if n != name)]
            self._arrangement = None
            return True
        return False

    def plot_rect(self, name: str) -> QRectF | None:
        """Where graph ``name`` is, in the panel's pixels (None if it is not shown)."""
        if name not in self.shown:
            return None
        scene_rect = self._cells[name].sceneBoundingRect()
        top_left = self._view.mapFromScene(scene_rect.topLeft())
        rect = QRectF(top_left.x(), top_left.y(), scene_rect.width(), scene_rect.height())
        chooser = QRectF(self._chooser.geometry())
        if self._chooser.isVisible() and rect.intersects(chooser):  # a frame around it goes round "More"
            rect = rect.united(chooser)
        return rect

    def _ranked(self) -> tuple[str, ...]:
        return (*self._front, *(n for n in self._order if n not in self._front))

    def arrange(self) -> None:
        """Place as many graphs as fit, most telling first (see ``grid_shape``)."""
        if not self._order:
            return
        ranked = self._ranked()
        chrome = self._chrome_px or theme.px(PLOT_CHROME_H)
        max_cols = 99
        for _attempt in range(6):  # the graphs placed may need more room around them: fewer, wider ones
            placed = self._place(ranked, chrome, max_cols)
            if _attempt == 0 and not placed:
                self.fit_legends()  # the same graphs, maybe at another width: their legends' rows
                self._fit_scene()
                if self._shortest_plot() >= MIN_PLOT_H + (LEGEND_SPARE_PX if self._legends_on else 0):
                    return
            if _attempt == 0:
                self._set_legends(True)
                self._set_axis_names(True)
            measured = self._measured_chrome()
            short = self._shortest_plot() < MIN_PLOT_H
            if measured > chrome + 2:
                chrome = self._chrome_px = measured
            elif short and len(self.shown) > 1:
                max_cols = len(self.shown) - 1  # wider graphs: their legends take fewer rows
            else:
                break
        # Still short (many CPU lanes above): the legend rows go to the data; the lines keep their
        # colours and hover read-outs.
        if self._shortest_plot() < MIN_PLOT_H + LEGEND_SPARE_PX:
            self._set_legends(False)
        if self._shortest_plot() < MIN_PLOT_H:  # and then the time axes' names: "280 ms" on the last tick
            self._set_axis_names(False)
        self._fit_scene()
        self.place_chooser()

    def _fit_scene(self) -> None:
        """The graphs' layout as big as the view again. Qt grows a top-level layout to its minimum size
        when it is activated, and a view that keeps its size never shrinks it back: an arrangement tried
        and dropped (more graphs, taller legends) would leave the graphs running off the panel."""
        view = self._view
        view.ci.setGeometry(QRectF(0, 0, view.width(), view.height()))
        view.ci.layout.activate()

    def place_chooser(self, clamp: bool = False) -> None:
        """The menu button at the panel's top right (with ``clamp``, never past its left edge)."""
        x = self._panel.width() - self._chooser.width() - 4
        self._chooser.move(max(x, 0) if clamp else x, 2)

    def _set_legends(self, on: bool) -> None:
        """Every graph's legend row under it, or none (a panel too short for both)."""
        if on == self._legends_on:
            return
        self._legends_on = on
        for plot in self._plots.values():
            plot.legend.fold(not on)  # its rows shrink to nothing, and stay so as it is laid out again
        self._view.ci.layout.activate()

    def _set_axis_names(self, on: bool) -> None:
        """Every time axis's name under its ticks, or the unit after the last tick instead (a short panel)."""
        if on == self._axis_names_on:
            return
        self._axis_names_on = on
        for plot in self._plots.values():
            axis = plot.getAxis("bottom")
            if isinstance(axis, SpacedAxis):
                axis.show_name(on)
                plot.layout.activate()  # the axis sits in the plot's own layout: its new height now
        self._view.ci.layout.activate()

    def _shortest_plot(self) -> float:
        return min((self._plots[n].getViewBox().geometry().height() for n in self.shown), default=MIN_PLOT_H)

    def _measured_chrome(self) -> float:
        """The most height any shown graph spends around its data area (title, axis, legend)."""
        self._fit_scene()
        out = 0.0
        for name in self.shown:
            plot = self._plots[name]
            cell = self._cells[name].geometry().height()
            out = max(out, cell - plot.getViewBox().geometry().height())
        return out

    def _place(self, ranked: tuple[str, ...], chrome: float, max_cols: int = 99) -> bool:
        """Put the graphs that fit with ``chrome`` px around each data area; False if nothing changed."""
        width, height = self._panel.width(), self._panel.height()
        min_h = chrome + MIN_PLOT_H
        min_w = max(theme.px(MIN_PLOT_W), width / max_cols)
        rows, cols = grid_shape(len(ranked), width, height, min_w - 0.5, min_h)
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
        self.fit_legends()
        return True

    def fit_legends(self) -> None:
        """Each shown legend takes as many entries a row as its graph's width holds."""
        if not self._arrangement:
            return
        cols = int(self._arrangement[2])  # type: ignore[call-overload]
        widths = {
            name: self._view.width() * self._cell_spans.get(name, 1) / max(cols, 1) for name in self.shown
        }
        self._fit_chooser(widths)
        for name, width in widths.items():
            self._plots[name].legend.fit_columns(width - theme.px(70))
            self._fit_title(name, self._title_room(width))

    def _title_room(self, width: float) -> float:
        """The room for the title of a graph ``width`` wide: less its y axis and the chooser beside it."""
        chooser = self._chooser.width() + 8 if self._chooser.isVisible() else 0
        return width - theme.px(68 + 24) - chooser

    def _fit_chooser(self, widths: dict[str, float]) -> None:
        """The menu button says "More ▾", or just "▾" where beside the words a graph's shortest title
        would be cut ("Bandwi…" in large text on a 1280-pixel screen); its tooltip says what it is."""
        if not self._chooser.isVisible():
            return
        metrics = _title_metrics()
        self._chooser.setText(CHOOSER_TEXT)
        self._chooser.adjustSize()
        if any(metrics.horizontalAdvance(TINY_TITLES[n]) > self._title_room(w) for n, w in widths.items()):
            self._chooser.setText(CHOOSER_ARROW)
            self._chooser.adjustSize()
        self.place_chooser()

    def _fit_title(self, name: str, width: float) -> None:
        """The graph's title, or its short form where the long one would be cut (its tiny form, and
        then that elided, where even that would be); the dequeue graph's "· Jain" goes where even the
        short form leaves no room for it (the headline shows it too)."""
        plot = self._plots[name]
        extra = " · Jain 0.00" if name == "dequeues" else ""
        metrics = _title_metrics()
        long_title = PLOT_SPECS[name][0]
        fits = metrics.horizontalAdvance(long_title + extra) <= width
        title = long_title if fits else SHORT_TITLES[name]
        if metrics.horizontalAdvance(title) > width:
            title = TINY_TITLES[name]
        if metrics.horizontalAdvance(title) > width:  # "Bandw…": the menu beside it names every graph
            title = metrics.elidedText(title, Qt.TextElideMode.ElideRight, max(int(width), 0))
        if name == "dequeues":
            self._bars.fit_title(fits or metrics.horizontalAdvance(title + extra) <= width)
        if self._titles.get(name) != title:
            self._titles[name] = title
            plot.setProperty("schedlab_title", title)
            plot.setTitle(
                title, size=title_size(), color=palette.TEXT, bold=theme.current().bold_titles, justify="left"
            )
            if name == "dequeues":
                self._bars.set_title(title)

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
        self.place_chooser()


def _title_metrics() -> QFontMetrics:
    """The metrics of a graph's title in the current look."""
    font = panel_font(TITLE_PT)
    font.setBold(theme.current().bold_titles)
    return QFontMetrics(font)
