"""``schedlab run --csv FILE``: the run's time series, one row per sampling interval.

Columns: ``t_s``, ``bandwidth_mbps``, then a CPU share per ``*_ns`` counter and a rate per
``*_yields`` counter of the simulation's series. The file is written beside its destination under a
temporary name and renamed into place once complete, so a failed write never leaves half a file.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from model.metrics import per_interval
from model.scenario import ScenarioError
from model.sched.base import NSEC_PER_SEC
from model.simulation import Simulation


def series_table(sim: Simulation) -> tuple[list[str], NDArray[np.float64]]:
    """The CSV's header and its rows (one per sampling interval)."""
    data = sim.series.view()
    cols = sim.series.columns
    t = data[:, 0]
    dt = np.diff(t, prepend=0).astype(np.float64)
    dt[dt == 0] = 1
    header = ["t_s", "bandwidth_mbps"]
    out = [t / NSEC_PER_SEC, per_interval(data[:, cols.index("acked_bytes")]) * 8e3 / dt]
    for i, name in enumerate(cols):
        if name.endswith("_ns") and name != "t_ns":
            header.append(name[:-3] + "_share")
            out.append(per_interval(data[:, i]) / dt)
        elif name.endswith("_yields"):
            header.append(name + "_per_s")
            out.append(per_interval(data[:, i]) * 1e9 / dt)
    return header, np.column_stack(out)


def write_csv(sim: Simulation, path: Path) -> None:
    header, rows = series_table(sim)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        with partial.open("w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(header)
            for row in rows:
                w.writerow([f"{v:.6g}" for v in row])
        os.replace(partial, path)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise ScenarioError(f"--csv {path}: cannot write: {exc.strerror}") from None
