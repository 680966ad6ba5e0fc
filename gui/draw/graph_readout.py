"""What the pointer reads on a time graph: the value every visible curve shows at a time, with the
interval it belongs to (a step curve's edges) or the sample it is (a line's point), for the tooltip.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyqtgraph as pg

from gui.draw.formats import format_duration


def curve_readout(plot: pg.PlotItem, x: float, unit: str, label_of: Callable[[pg.PlotCurveItem], str]) -> str:
    """One line a visible curve of ``plot`` at ``x`` seconds, in ``unit``; a curve without a name in
    the legend is named by ``label_of``."""
    lines = []
    for item in plot.items:
        if not isinstance(item, pg.PlotCurveItem) or not item.isVisible():
            continue
        xs, ys = item.getData()
        if xs is None or ys is None or not len(ys):
            continue
        stepped = len(xs) == len(ys) + 1
        i = int(np.searchsorted(xs, x, side="right")) - 1 if stepped else int(np.abs(xs - x).argmin())
        if not 0 <= i < len(ys):
            continue
        at = format_duration(xs[i] * 1e9)
        when = f"t = {at} to {format_duration(xs[i + 1] * 1e9)}" if stepped else f"t = {at}"
        label = item.opts.get("name") or label_of(item)
        lines.append(f"{label}: {ys[i]:.4g} {unit} ({when})")
    return "\n".join(lines)
