"""The CPU lanes' legend flowed into rows: a swatch and a name for each task, then idle, hardirq and
softirq, and the two yield marks once a yield was seen. Where the tasks would take more than one row and
there are no more of them than lanes, they are left out: each lane's head names and colours the task it
runs, and every segment wide enough says whose it is."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QRectF
from PySide6.QtGui import QFont

from gui.draw.lane_history import HARDIRQ, IDLE, SOFTIRQ, TENURE
from gui.draw.lane_painting import TENURE_LEGEND, YIELD_LEGEND
from gui.draw.static_text import font_metrics

LEGEND_ROW_H = 26
LegendFlow = tuple[list[tuple[QRectF, str, int | None]], float]  # (swatch, text, code) entries, height


def flow_legend(
    tasks: Sequence[tuple[int, str, bool]],
    yields_seen: bool,
    tenures_seen: bool,
    width: float,
    lanes: int,
    font: QFont,
    pad: float,
) -> LegendFlow:
    """The legend's entries in ``width`` (margins ``pad``): (swatch rect, text, code; None for the yield
    marks), and its height. ``tasks`` are (tid, name, per-CPU kernel thread) in tid order; the
    dequeuer's tenures and the yield marks are listed once one was seen."""
    fm = font_metrics(font)
    states: list[tuple[str, int | None]] = [("idle", IDLE), ("hardirq", HARDIRQ), ("softirq", SOFTIRQ)]
    if tenures_seen:
        states.append((TENURE_LEGEND, TENURE))
    if yields_seen:
        states += [(YIELD_LEGEND[0], None), (YIELD_LEGEND[1], None)]
    named: list[tuple[str, int | None]] = [(name, tid) for tid, name, _ in tasks]
    widths = sum(28 + fm.horizontalAdvance(text) + 18 for text, _ in (*named, *states))
    # per-CPU kernel threads (ksoftirqd/N) run on their own lane only, whose head names them
    senders = [t for t in tasks if not t[2]]
    if widths > width - 2 * pad and len(senders) <= lanes:
        named = []
    x, y, out = float(pad), float(pad), []
    for text, code in named + states:
        w = 28 + fm.horizontalAdvance(text) + 18
        if x + w > width - pad and x > pad:
            x, y = float(pad), y + LEGEND_ROW_H
        out.append((QRectF(x, y + 5, 22, 16), text, code))
        x += w
    return out, y + LEGEND_ROW_H - pad
