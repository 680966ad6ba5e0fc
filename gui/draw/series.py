"""What the graphs plot, from ``Snapshot.series``: the rows of a sliding window, toggle markers, round axis
tops, the graphs' titles and the grid of graphs. Pure functions of numbers: no Qt, no model state."""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

NS_PER_S = 1e9

# The graphs follow the playback speed: a new point every POINT_WALL_S of wall time, and a window that
# shows the last WINDOW_WALL_S of play, at any speed (within the bounds below).
POINT_WALL_S = 0.1
WINDOW_WALL_S = 10.0
SAMPLE_BOUNDS_NS = (10_000, 100_000_000)
WINDOW_BOUNDS_NS = (1_000_000, 20_000_000_000)


def nice_floor(x: float) -> float:
    """The largest 1-2-5 × 10^k value at or below ``x`` (x > 0)."""
    exp = math.floor(math.log10(x))
    for mantissa in (5.0, 2.0, 1.0):
        if mantissa * 10.0**exp <= x * (1 + 1e-9):
            return mantissa * 10.0**exp
    return 10.0 ** (exp - 1) * 5.0  # pragma: no cover


def sample_ns_for(speed: float) -> int:
    """The sampling interval that gives a graph point every ``POINT_WALL_S`` of wall time at ``speed``
    (simulated seconds per wall second), on a 1-2-5 step."""
    lo, hi = SAMPLE_BOUNDS_NS
    return int(nice_floor(min(max(speed * POINT_WALL_S * NS_PER_S, lo), hi)))


def window_ns_for(speed: float) -> int:
    """The graphs' window of simulated time: the last ``WINDOW_WALL_S`` of play at ``speed``."""
    lo, hi = WINDOW_BOUNDS_NS
    return int(nice_floor(min(max(speed * WINDOW_WALL_S * NS_PER_S, lo), hi)))


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


def moving_block(
    series: NDArray[np.int64], t_from_ns: int, k: int
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Times (s) and deltas of every column over the last ``k`` sampling intervals ending at each sample
    after ``t_from_ns`` (and the one before it, so the line enters the window): a moving window read
    off the cumulative counters, exact however uneven the intervals. Early samples count from zero."""
    if not len(series):
        return np.zeros(0), np.zeros((0, series.shape[1]), dtype=np.int64)
    i0 = max(int(np.searchsorted(series[:, 0], t_from_ns, side="right")) - 1, 0)
    ends = np.arange(i0, len(series))
    begins = ends - k
    start = np.where((begins >= 0)[:, None], series[np.maximum(begins, 0)], 0)
    return series[ends, 0] / NS_PER_S, series[ends] - start


# The graphs in the order a story tells them: the first ones are shown when not all fit.
PLOT_ORDER = {
    # The 2011 story's key figure is the fairness of the dequeues (Jain 0.58 vs 0.96): its graph comes
    # first, so that the smallest classroom screen shows it; the per-CPU counts are in the headline.
    "qdisc": ("fairness", "dequeues", "bandwidth", "threads", "cpus"),
    "server": ("bandwidth", "cpus", "threads"),
    "client": ("bandwidth", "threads", "cpus"),
    "tasks": ("threads", "cpus"),  # no network traffic: no bandwidth graph
}


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
TINY_TITLES = {  # where even the short form would run into the "More" button
    "bandwidth": "Bandwidth",
    "threads": "Threads",
    "cpus": "CPUs",
    "dequeues": "Dequeues",
    "fairness": "Fairness",
}


def plot_order(has_qdisc: bool, iperf_mode: str | None) -> tuple[str, ...]:
    """The graphs of a run, most telling first: ``iperf_mode`` is "client", "server" or None (no iperf)."""
    if has_qdisc:
        return PLOT_ORDER["qdisc"]
    return PLOT_ORDER[iperf_mode] if iperf_mode in ("client", "server") else PLOT_ORDER["tasks"]


CELL_ASPECT = 1.8  # width / height a graph reads best at


def grid_shape(count: int, width: float, height: float, min_w: float, min_h: float) -> tuple[int, int]:
    """(rows, columns) for up to ``count`` graphs in a ``width`` × ``height`` panel, every cell at least
    ``min_w`` × ``min_h``: as many graphs as fit (at least one), in the grid whose cells come closest
    to ``CELL_ASPECT``."""
    cols_fit = max(int(width // min_w), 1)
    rows_fit = max(int(height // min_h), 1)
    shown = min(count, cols_fit * rows_fit)
    best: tuple[float, int, int] | None = None
    for rows in range(1, rows_fit + 1):
        cols = -(-shown // rows)
        if cols > cols_fit or (rows - 1) * cols >= shown:
            continue
        aspect = (width / cols) / (height / rows)
        score = abs(math.log(aspect / CELL_ASPECT))
        if best is None or score < best[0]:
            best = (score, rows, cols)
    assert best is not None
    return best[1], best[2]


def grid_cells(order: tuple[str, ...], rows: int, cols: int) -> list[tuple[str, int, int, int]]:
    """``(graph, row, column, column span)`` for the first ``rows × cols`` graphs of ``order``; a last
    row with fewer graphs spreads them over the whole width."""
    shown = list(order[: rows * cols])
    cells = []
    for r in range(rows):
        names = shown[r * cols : (r + 1) * cols]
        if not names:
            break
        span, extra = divmod(cols, len(names))
        col = 0
        for i, name in enumerate(names):
            width = span + (1 if i < extra else 0)
            cells.append((name, r, col, width))
            col += width
    return cells
