"""Time series of the machine's counters, sampled at a fixed simulated interval.

Each probe is a named function returning a cumulative integer counter (bytes acknowledged, a
CPU's hardirq ns, a task's yields, ...). Rows are appended into a growing int64 array; readers get
read-only views of the rows written so far, which later appends never change.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray


class Series:
    def __init__(self, probes: dict[str, Callable[[], int]], capacity: int = 256) -> None:
        self.columns = ["t_ns", *probes]
        self._probes = list(probes.values())
        self._data: NDArray[np.int64] = np.zeros((capacity, len(self.columns)), dtype=np.int64)
        self.rows = 0

    def sample(self, t_ns: int) -> None:
        if self.rows == len(self._data):
            self._data = np.concatenate([self._data, np.zeros_like(self._data)])
        row = self._data[self.rows]
        row[0] = t_ns
        for i, probe in enumerate(self._probes, start=1):
            row[i] = probe()
        self.rows += 1

    def view(self) -> NDArray[np.int64]:
        """The rows sampled so far (read-only)."""
        out = self._data[: self.rows]
        out.flags.writeable = False
        return out


def per_interval(cumulative: NDArray[np.int64]) -> NDArray[np.int64]:
    """Differences between consecutive samples (the first sample counts from zero)."""
    return np.diff(cumulative, prepend=0)


def jain_index(values: NDArray[np.int64] | list[int]) -> float:
    """Jain's fairness index (Σx)² / (n·Σx²): 1 when all equal, 1/n when one takes everything."""
    x = np.asarray(values, dtype=np.float64)
    if len(x) == 0 or not x.any():
        return 1.0
    return float(x.sum() ** 2 / (len(x) * (x * x).sum()))
