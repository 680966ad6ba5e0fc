"""What the graphs plot, from ``Snapshot.series``: the rows of a sliding window, toggle markers, round axis
tops and the grid of graphs. Pure functions of numbers: no Qt, no model state."""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

NS_PER_S = 1e9


def nice_ceiling(x: float) -> float:
    """The smallest round number (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 × 10^k) at or above ``x``: an axis
    top that does not jitter."""
    if not math.isfinite(x) or x <= 0:
        return 1.0
    exp = math.floor(math.log10(x))
    for mantissa in (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0):
        top = mantissa * 10.0**exp
        if top >= x * (1 - 1e-9):
            return top
    return 10.0 ** (exp + 1)


def window_block(series: NDArray[np.int64], t_from_ns: int) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Interval edges (s) and per-interval deltas of every column, for intervals ending after ``t_from_ns``.

    Counters are cumulative from zero at t = 0, so the first sample's interval starts at a zero row.
    Only the rows of the window are touched, however long the run.
    """
    i0 = int(np.searchsorted(series[:, 0], t_from_ns, side="right")) if len(series) else 0
    zero = np.zeros((1, series.shape[1]), dtype=np.int64)
    block = series[i0 - 1 :] if i0 > 0 else np.vstack([zero, series])
    return block[:, 0] / NS_PER_S, np.diff(block, axis=0)


def toggle_label(key: str, value: int | str) -> str:
    """``sched.compat_yield``, 1 → ``compat_yield=1``."""
    return f"{key.rsplit('.', 1)[-1]}={value}"


def toggle_marks(
    toggles: Sequence[tuple[int, str, int | str]], lo_ns: int, hi_ns: int, merge_ns: int, cap: int
) -> list[tuple[int, str]]:
    """Markers ``(t_ns, label)`` for the toggles in [lo, hi], the ``cap`` most recent. Toggles closer
    than ``merge_ns`` share one marker; a key set several times there reads "compat_yield=0→1"."""
    i = bisect_left(toggles, lo_ns, key=lambda tog: tog[0])
    j = bisect_right(toggles, hi_ns, key=lambda tog: tog[0])
    groups: list[tuple[int, dict[str, list[int | str]]]] = []
    for t_ns, key, value in toggles[i:j]:
        if not groups or t_ns - groups[-1][0] > merge_ns:
            groups.append((t_ns, {}))
        values = groups[-1][1].setdefault(key, [value, value])
        values[1] = value
    return [
        (t, ", ".join(toggle_label(k, v[1] if v[0] == v[1] else f"{v[0]}→{v[1]}") for k, v in kv.items()))
        for t, kv in groups[-cap:]
    ]


def counts_at(
    series: NDArray[np.int64], cols: list[int], t_ns: int, live: NDArray[np.int64]
) -> NDArray[np.int64]:
    """The counters of ``cols`` at the first sample at or after ``t_ns`` (``live`` when none yet)."""
    i = int(np.searchsorted(series[:, 0], t_ns, side="left")) if len(series) else 0
    return series[i, cols] if i < len(series) else live


def grid_cells(has_qdisc: bool, one_row: bool) -> list[tuple[str, int, int, int]]:
    """``(graph, row, column, column span)`` of each graph shown. Two rows: bandwidth over thread and
    CPU time, with the dequeue bars and fairness on the top row when there is a qdisc. One row (a short
    panel): the three graphs that tell the story, the packet ones first when there is a qdisc."""
    if one_row:
        names = ("dequeues", "fairness", "bandwidth") if has_qdisc else ("bandwidth", "threads", "cpus")
        return [(name, 0, col, 1) for col, name in enumerate(names)]
    if has_qdisc:
        top = [("bandwidth", 0, 0, 1), ("dequeues", 0, 1, 1), ("fairness", 0, 2, 1)]
        return [*top, ("threads", 1, 0, 1), ("cpus", 1, 1, 2)]
    return [("bandwidth", 0, 0, 2), ("threads", 1, 0, 1), ("cpus", 1, 1, 1)]
