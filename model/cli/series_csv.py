"""``schedlab run --csv FILE``: the run's time series, one row per sampling interval.

The columns and their arithmetic are ``model.metrics.interval_table`` (``t_s``, ``bandwidth_mbps``,
a CPU share per ``*_ns`` counter, a rate per ``*_yields`` counter; with a qdisc, each CPU's dequeues
per second and their Jain index), printed to six significant digits. The file is written as every
output is (``model.cli.outputs``): whole, or not at all.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from model.cli.outputs import write_bytes_atomic
from model.metrics import interval_table
from model.simulation import Simulation


def series_table(sim: Simulation) -> tuple[list[str], NDArray[np.float64]]:
    """The CSV's header and its rows (one per sampling interval)."""
    table = interval_table(sim.series.columns, sim.series.view())
    return [name for name, _ in table], np.column_stack([column for _, column in table])


def csv_bytes(sim: Simulation) -> bytes:
    header, rows = series_table(sim)
    text = io.StringIO(newline="")
    w = csv.writer(text)
    w.writerow(header)
    for row in rows:
        w.writerow([f"{v:.6g}" for v in row])
    return text.getvalue().encode("utf-8")


def write_csv(sim: Simulation, path: Path, what: str) -> None:
    write_bytes_atomic(path, what, csv_bytes(sim))
