"""The derived series (model.metrics) and wire time (model.net.wire), each defined once: numbers by hand."""

from __future__ import annotations

import numpy as np
import pytest

from model.metrics import bandwidth_mbps, interval_table, jain_index, jain_rows, rate_per_s, seconds, share
from model.net.wire import MSS_BYTES, frame_bytes, frame_ns, tcp_goodput_mbps, tcp_payload_ns


def test_jain_index_of_equal_skewed_and_empty_sets() -> None:
    assert jain_index([5, 5, 5, 5]) == 1.0
    assert jain_index([10, 0, 0, 0]) == 0.25  # one of four takes everything: 1/n
    assert jain_index([3, 1]) == pytest.approx(16 / 20)  # (3 + 1)² / (2 · (9 + 1))
    assert jain_index([0, 0, 0]) == 1.0 and jain_index([]) == 1.0  # nobody was treated unfairly


def test_jain_rows_is_jain_index_row_by_row() -> None:
    rows = np.array([[5, 5, 5, 5], [10, 0, 0, 0], [0, 0, 0, 0], [3, 1, 0, 0]], dtype=np.int64)
    assert jain_rows(rows).tolist() == [jain_index(list(r)) for r in rows] == [1.0, 0.25, 1.0, 0.4]


def test_bandwidth_shares_and_rates_of_an_interval() -> None:
    assert bandwidth_mbps(1_250_000, 100_000_000) == pytest.approx(100.0)  # 10 Mbit in 0.1 s
    assert seconds(2_500_000_000) == 2.5
    assert share(25_000_000, 100_000_000) == 0.25
    assert rate_per_s(30, 100_000_000) == pytest.approx(300.0)
    deltas, dt = np.array([1_250_000, 625_000]), np.array([100_000_000, 100_000_000])
    assert bandwidth_mbps(deltas, dt).tolist() == pytest.approx([100.0, 50.0])  # arrays alike


def test_interval_table_differences_each_counter_per_sample() -> None:
    columns = ["t_ns", "acked_bytes", "cpu0_task_ns", "hog_yields", "switches"]
    rows = np.array(
        [[100_000_000, 1_250_000, 40_000_000, 10, 3], [200_000_000, 1_875_000, 140_000_000, 10, 5]],
        dtype=np.int64,
    )
    table = dict(interval_table(columns, rows))
    assert list(table) == ["t_s", "bandwidth_mbps", "cpu0_task_share", "hog_yields_per_s"]
    assert table["t_s"].tolist() == [0.1, 0.2]
    assert table["bandwidth_mbps"].tolist() == pytest.approx([100.0, 50.0])
    assert table["cpu0_task_share"].tolist() == pytest.approx([0.4, 1.0])
    assert table["hog_yields_per_s"].tolist() == pytest.approx([100.0, 0.0])


def test_interval_table_gives_each_cpus_dequeues_and_their_jain_index() -> None:
    columns = ["t_ns", "acked_bytes", "cpu0_dequeued", "cpu1_dequeued"]
    rows = np.array(
        [[100_000_000, 0, 30, 10], [200_000_000, 0, 30, 10], [300_000_000, 0, 50, 30]], dtype=np.int64
    )
    table = dict(interval_table(columns, rows))
    assert list(table)[2:] == ["cpu0_dequeues_per_s", "cpu1_dequeues_per_s", "fairness_jain"]
    assert table["cpu0_dequeues_per_s"].tolist() == pytest.approx([300.0, 0.0, 200.0])
    assert table["cpu1_dequeues_per_s"].tolist() == pytest.approx([100.0, 0.0, 200.0])
    # (30 + 10)² / (2 · (30² + 10²)) = 0.8; nobody dequeued: 1; 20 and 20: 1
    assert table["fairness_jain"].tolist() == pytest.approx([0.8, 1.0, 1.0])


def test_wire_time_of_a_frame_and_tcp_goodput() -> None:
    assert frame_bytes(1500) == 1538  # 14 header + 4 FCS + 8 preamble + 12 gap
    assert frame_ns(1500, 100) == 123_040  # 1538 · 8 bits at 100 Mbit/s
    assert frame_ns(1500, 10_000) == 1_231  # 1230.4 ns, rounded up
    assert MSS_BYTES == 1448
    assert tcp_payload_ns(MSS_BYTES, 100) == frame_ns(1500, 100)  # a full segment is one frame
    assert tcp_payload_ns(16 * MSS_BYTES, 1000) == 16 * 12_304
    assert tcp_goodput_mbps(100) == pytest.approx(94.148, abs=1e-3)  # 1448 / 1538 of the line


def _csv_rows_before_interval_table(sim) -> tuple[list[str], list[list[str]]]:
    """The CSV's header and printed rows as ``model/cli/series_csv.py`` computed them before it used
    ``interval_table``: kept here as the reference the one definition must reproduce."""
    data = sim.series.view()
    cols = sim.series.columns
    t = data[:, 0]
    dt = np.diff(t, prepend=0).astype(np.float64)
    dt[dt == 0] = 1
    header = ["t_s", "bandwidth_mbps"]
    out = [t / 1_000_000_000, np.diff(data[:, cols.index("acked_bytes")], prepend=0) * 8e3 / dt]
    for i, name in enumerate(cols):
        if name.endswith("_ns") and name != "t_ns":
            header.append(name[:-3] + "_share")
            out.append(np.diff(data[:, i], prepend=0) / dt)
        elif name.endswith("_yields"):
            header.append(name + "_per_s")
            out.append(np.diff(data[:, i], prepend=0) * 1e9 / dt)
    # Added since: with a qdisc, each CPU's dequeues per second and Jain's index of the interval's counts.
    counts = [np.diff(data[:, i], prepend=0) for i, name in enumerate(cols) if name.endswith("_dequeued")]
    for cpu, c in enumerate(counts):
        header.append(f"cpu{cpu}_dequeues_per_s")
        out.append(c * 1e9 / dt)
    if counts:
        header.append("fairness_jain")
        x = np.column_stack(counts).astype(np.float64)
        squares = (x * x).sum(axis=1)
        out.append(np.where(squares > 0, x.sum(axis=1) ** 2 / (len(counts) * np.maximum(squares, 1)), 1.0))
    return header, [[f"{v:.6g}" for v in row] for row in np.column_stack(out)]


@pytest.mark.parametrize(
    ("name", "seconds"),
    # 2011's 3.0 transmit path steps every packet: half a second (5 rows) is enough for the table
    [("cfs-yield-2007", 2), ("bfs-saturated-2009", 2), ("qdisc-fairness-2011", 0.5), ("yield-playground", 2)],
)
def test_the_csv_is_interval_table_printed_as_before(name: str, seconds: float) -> None:
    """model.metrics defines the CSV's series once; the CSV it writes is today's, to the printed digit."""
    import csv
    import io

    from model.cli.series_csv import csv_bytes
    from model.scenario import load_scenario
    from model.simulation import Simulation

    sim = Simulation(load_scenario(name).with_overrides({"scenario.duration_s": seconds}), trace="off")
    sim.advance(round(seconds * 1e9))
    header, rows = _csv_rows_before_interval_table(sim)
    written = list(csv.reader(io.StringIO(csv_bytes(sim).decode("utf-8"))))
    assert written[0] == header
    assert written[1:] == rows
    assert len(rows) == round(seconds * 10)


def test_interrupt_shares_add_up_every_cpu_and_only_where_they_matter() -> None:
    from model.metrics import INTERRUPTS_NOTABLE, interrupt_shares

    # A share of one CPU, as a thread's: two CPUs each half in hard interrupts make one whole CPU.
    assert interrupt_shares([0.5, 0.5], [0.05, 0.0]) == (1.0, 0.05)
    assert interrupt_shares([0.94], [0.04]) == (0.94, 0.04)
    below = INTERRUPTS_NOTABLE / 2
    assert interrupt_shares([below * 0.9], [below]) is None  # together under the line: none
    assert interrupt_shares([below], [below]) is not None
    assert interrupt_shares([], []) is None
