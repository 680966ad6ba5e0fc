"""The numbers the time graphs draw, read off a snapshot's cumulative counters: the window's span for
the playback speed, each sampling interval and the moving mean over the last ``MEAN_SAMPLES``
intervals in it, the "since the last change" figures from the snapshot's anchor row, and the stacked
levels of the per-CPU time strips. All of it comes from ``model.metrics``; no Qt, nothing drawn here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from gui.draw.formats import format_duration
from gui.draw.series import NS_PER_S, moving_block, window_block
from model.metrics import bandwidth_mbps, interval_figures, jain_rows, share
from model.snapshot import SeriesLayout, Snapshot

MEAN_SAMPLES = 10  # the bold line: the mean over the last 10 intervals, one second of play
RAW_MIN_NS = 10_000_000  # shorter sampling intervals are not drawn one by one
# CPU time strips, bottom to top: interrupts first, so that the 2009 story's hardirq cost stands out.
SPLIT_PARTS = ("hardirq", "softirq", "user", "idle")


def window_span(series: NDArray[np.int64], window_ns: int) -> tuple[int, int]:
    """The window's ``(lo_ns, hi_ns)``: it moves when a sample arrives (not every frame: between
    samples nothing new is drawn), leaving one interval at the right for what happens before the next
    sample."""
    last_ns = int(series[-1, 0]) if len(series) else 0
    step_ns = last_ns - int(series[-2, 0]) if len(series) > 1 else last_ns
    hi_ns = max(window_ns, last_ns + step_ns)
    return hi_ns - window_ns, hi_ns


def since_change(snapshot: Snapshot) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
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


@dataclass(frozen=True)
class WindowRows:
    """The rows of the window ending at the last sample: each interval (``edges``, ``delta``) and the
    moving mean ending at each sample (``ends``, ``moving``), with their lengths in ns."""

    edges: NDArray[np.float64]
    delta: NDArray[np.int64]
    dt_ns: NDArray[np.float64]
    ends: NDArray[np.float64]
    moving: NDArray[np.int64]
    mdt: NDArray[np.float64]

    @classmethod
    def of(cls, series: NDArray[np.int64], window_ns: int) -> WindowRows:
        """The last ``window_ns`` of ``series`` (which has at least one row)."""
        t_from = int(series[-1, 0]) - window_ns
        edges, delta = window_block(series, t_from)
        ends, moving = moving_block(series, t_from, MEAN_SAMPLES)
        dt_ns = np.maximum(delta[:, 0], 1).astype(np.float64)
        mdt = np.maximum(moving[:, 0], 1).astype(np.float64)
        return cls(edges, delta, dt_ns, ends, moving, mdt)

    def mean_label(self) -> str:
        """What the bold line's legend calls it: the simulated span of its mean, ``MEAN_SAMPLES`` of
        the current intervals ("last 10 ms" at Normal speed, "last 1 s" at Fast). It is one second of
        play, but a class reads a graph's legend in simulated time, like its axis."""
        return f"last {format_duration(MEAN_SAMPLES * float(self.dt_ns[-1]))}"

    def raw_worth_drawing(self) -> bool:
        # Each interval on its own is worth drawing only where intervals are long enough to mean
        # something (10 ms and more: a frame of iperf's data loop is half a millisecond).
        return float(np.median(self.dt_ns)) >= RAW_MIN_NS

    # (model.metrics's arithmetic serves numbers and arrays alike: its results are typed Any)
    def each_mbps(self, column: int) -> NDArray[np.float64]:
        mbps: NDArray[np.float64] = bandwidth_mbps(self.delta[:, column], self.dt_ns)
        return mbps

    def mean_mbps(self, column: int) -> NDArray[np.float64]:
        mbps: NDArray[np.float64] = bandwidth_mbps(self.moving[:, column], self.mdt)
        return mbps

    def mean_percent(self, column: int) -> NDArray[np.float64]:
        """The moving mean of a thread's share of one CPU, in %."""
        percent: NDArray[np.float64] = 100.0 * share(self.moving[:, column], self.mdt)
        return percent

    def each_jain(self, columns: list[int]) -> NDArray[np.float64]:
        return jain_rows(self.delta[:, columns])

    def mean_jain(self, columns: list[int]) -> NDArray[np.float64]:
        return jain_rows(self.moving[:, columns])

    def split_levels(self, lay: SeriesLayout, ncpus: int) -> list[NDArray[np.float64]]:
        """CPU ``n``'s strip [n, n + 1]: hardirq, softirq, user stacked, idle the rest of the second;
        the levels of each strip (``len(SPLIT_PARTS) + 1`` rows) over the steps between ``ends``, or
        nothing for fewer than two samples."""
        if len(self.ends) < 2:
            return []
        shares = share(self.moving, self.mdt[:, None])[1:]  # the mean of the second ending at each sample
        out = []
        for n in range(ncpus):
            levels = np.full((len(SPLIT_PARTS) + 1, len(shares)), float(n))
            columns = (lay.cpu_hardirq_ns[n], lay.cpu_softirq_ns[n], lay.cpu_task_ns[n])  # as SPLIT_PARTS
            for k, column in enumerate(columns, start=1):
                used = np.clip(shares[:, column], 0.0, 1.0)
                levels[k] = np.minimum(levels[k - 1] + used, n + 1.0)
            levels[-1] = n + 1.0
            out.append(levels)
        return out
