"""The graphs' axes: pyqtgraph axes that keep still while their range slides, label only as many ticks
as their room holds apart, write counts as the bars do, and put the unit on the last tick when a
short graph hides the axis's name.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtGui import QFont, QFontMetrics, QPainter

from gui.draw.formats import nice_step


class QuietAxis(pg.AxisItem):  # type: ignore[misc]
    """An axis that sets its name's text again only when it changed. pyqtgraph rebuilds the name (rich
    text, and the axis's size with it) on every change of range, for its SI prefix: the time axes
    slide with every new point, and their names change only when the prefix does. A y axis given its
    ticks (``setTicks``) labels only as many of them as its height holds apart (``thin_ticks``)."""

    _label_html: str | None = None
    _tickLevels: list[list[tuple[float, str]]] | None  # pyqtgraph's: the ticks given to setTicks
    LINE_GAP = 1.25  # a labelled tick's room, in lines of the tick font

    def generateDrawSpecs(self, p: QPainter) -> object:
        given = self._tickLevels
        lo, hi = self.range
        if given is None or self.orientation not in ("left", "right") or hi <= lo:
            return super().generateDrawSpecs(p)
        px_per_unit = self.geometry().height() / (hi - lo)
        room = QFontMetrics(self.style["tickFont"] or QFont()).height() * self.LINE_GAP
        self._tickLevels = [thin_ticks(level, px_per_unit, room) for level in given]
        try:
            return super().generateDrawSpecs(p)
        finally:
            self._tickLevels = given

    def _updateLabel(self) -> None:  # pyqtgraph's hook behind setLabel and the SI prefix
        html = self.labelString()
        if html != self._label_html:
            self._label_html = html
            super()._updateLabel()
            return
        self.picture = None  # the ticks are drawn again, as pyqtgraph does after a change of range
        self.update()


def thin_ticks(ticks: list[tuple[float, str]], px_per_unit: float, room_px: float) -> list[tuple[float, str]]:
    """Every k-th of the evenly spaced ``ticks`` (k = 1, 2, 4, … counted from the first, at most one
    short of their number), the smallest k that puts labelled neighbours ``room_px`` apart at
    ``px_per_unit``: 0, 25, 50, 75, 100 become 0, 50, 100, then 0, 100."""
    if len(ticks) < 3:
        return ticks
    step_px = abs(ticks[1][0] - ticks[0][0]) * px_per_unit
    every = 1
    while every < len(ticks) - 1 and step_px * every < room_px:
        every *= 2
    return ticks[::every]


class CountAxis(QuietAxis):
    """A y axis that writes counts the way the bars do ("2M", not "2e+06")."""

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        return [
            f"{v / 1e6:g}M" if abs(v) >= 1e6 else f"{v / 1e3:g}k" if abs(v) >= 1e4 else f"{v:g}"
            for v in values
        ]


class SpacedAxis(QuietAxis):
    """A bottom axis whose labelled ticks never crowd: the step is the smallest 1-2-5 one that leaves a
    label's width and a gap between neighbours, for the widest label the axis would write."""

    GAP_PX = 14
    units_on_ticks = False  # the name hidden (a graph short of room): the last tick says "280 ms"

    def show_name(self, shown: bool) -> None:
        """The axis's name under its ticks, or (``shown`` False) the unit after the last tick's number."""
        self.units_on_ticks = not shown
        self.showLabel(shown)
        self.updateAutoSIPrefix()

    def updateAutoSIPrefix(self) -> None:  # pyqtgraph's: it drops the SI prefix while the name is hidden
        if not self.units_on_ticks:
            super().updateAutoSIPrefix()
            return
        scale, prefix = 1.0, ""
        value = max(abs(self.range[0]), abs(self.range[1])) * self.scale
        if any(low <= value <= high for low, high in self.getSIPrefixEnableRanges()):
            scale, prefix = pg.functions.siScale(value, power=self.unitPower)
        self.autoSIPrefixScale, self.labelUnitPrefix = scale, prefix
        self._updateLabel()

    def unit_suffix(self) -> str:
        """What follows the last tick's number while the name is hidden (" ms"), else nothing."""
        return f" {self.labelUnitPrefix}{self.labelUnits}" if self.units_on_ticks and self.labelUnits else ""

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        out: list[str] = super().tickStrings(values, scale, spacing)
        suffix = self.unit_suffix()
        if suffix and out:
            out[self._unit_tick(values, out, suffix)] += suffix
        return out

    def _unit_tick(self, values: list[float], labels: list[str], suffix: str) -> int:
        """The rightmost tick whose label, with the unit, still lies inside the axis (pyqtgraph leaves
        out a label that would stick out past either end)."""
        fm = QFontMetrics(self.style["tickFont"] or QFont())
        lo, hi = self.range
        width = self.geometry().width()
        order = sorted(range(len(values)), key=values.__getitem__, reverse=True)
        for i in order:
            x = (values[i] - lo) / (hi - lo) * width if hi > lo else 0.0
            half = fm.horizontalAdvance(labels[i] + suffix) / 2
            if half <= x <= width - half:
                return i
        return order[0]

    def tickSpacing(self, minVal: float, maxVal: float, size: float) -> list[tuple[float, float]]:
        span = maxVal - minVal
        if span <= 0 or size <= 0 or self.orientation not in ("bottom", "top"):
            return super().tickSpacing(minVal, maxVal, size)  # type: ignore[no-any-return]
        fm = QFontMetrics(self.style["tickFont"] or QFont())
        # The last label is wider by the unit: half of that more between it and its neighbour.
        extra = fm.horizontalAdvance(self.unit_suffix()) / 2
        step = nice_step(span, max(int(size // 40), 1))
        for _ in range(12):
            labels = super().tickStrings([minVal, maxVal, minVal + step], self.scale, step)
            widest = max(fm.horizontalAdvance(text) for text in labels)
            if step / span * size >= widest + extra + self.GAP_PX:
                break
            step = nice_step(step * 1.5, 1)
        return [(step, 0.0)]
