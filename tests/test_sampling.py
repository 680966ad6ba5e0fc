"""Sampling only observes, the window's bounded series, the anchor row of a live change, the interval
figures the window shows."""

from __future__ import annotations

import numpy as np
import pytest

from model.metrics import Series, interval_figures
from model.scenario import load_scenario
from model.simulation import SetTunable, Simulation

MS = 1_000_000


def _summary(sim: Simulation) -> dict:
    out = sim.summary()
    out.pop("sim")  # the work counter counts sample events too
    return out


@pytest.mark.parametrize("name", ["cfs-yield-2007", "qdisc-fairness-2011"])
def test_retuning_the_sampling_interval_leaves_the_run_unchanged(name: str) -> None:
    sc = load_scenario(name)
    plain = Simulation(sc, sample_ns=50 * MS, trace="full")
    plain.advance(300 * MS)
    tuned = Simulation(sc, sample_ns=50 * MS, trace="full", keep_rows=64)
    for k, sample_ns in enumerate((MS // 4, 7 * MS, 100_000, 20 * MS)):
        tuned.set_sample_ns(sample_ns)
        tuned.advance(70 * MS + k)
    tuned.advance(300 * MS - tuned.now_ns)
    assert _summary(tuned) == _summary(plain)
    assert tuned.machine.trace.records == plain.machine.trace.records
    rows = tuned.series.view()
    assert np.all(np.diff(rows[:, 0]) > 0), "rows in time order"


def test_a_bounded_series_keeps_the_newest_rows_and_never_changes_a_view_handed_out() -> None:
    counter = iter(range(10**6))
    series = Series({"n": lambda: next(counter)}, capacity=4, keep_rows=8)
    views = []
    for t in range(100):
        series.sample(t)
        views.append((t, series.view().copy(), series.view()))
    assert 8 <= len(series.view()) <= 16
    assert series.view()[-1, 0] == 99 and series.dropped + len(series.view()) == 100
    for _t, copied, view in views:
        assert np.array_equal(copied, view), "a later append changed an earlier view"


def test_a_live_change_samples_the_anchor_row_and_the_interval_figures_match_the_summary() -> None:
    sc = load_scenario("cfs-yield-2007")
    sim = Simulation(sc, sample_ns=100 * MS)
    snap = sim.advance(1000 * MS)
    assert not snap.series_anchor.any(), "zeros before any change"
    whole = interval_figures(snap.series_layout, snap.series_anchor, snap.series[-1])
    summary = sim.summary()
    assert whole is not None and whole.t1_ns == sim.now_ns
    assert whole.bandwidth_mbps == pytest.approx(summary["bandwidth_mbps"], rel=1e-12)
    for task, share in zip(snap.tasks, whole.task_share, strict=True):
        assert share == pytest.approx(summary["threads"][task.name]["share"], rel=1e-12)
    assert whole.switches_per_s == pytest.approx(summary["system_context_switches_per_s"], rel=1e-12)
    for cpu, hard, soft, busy in zip(
        summary["cpus"], whole.cpu_hardirq, whole.cpu_softirq, whole.cpu_busy, strict=True
    ):
        assert (hard, soft, busy) == pytest.approx((cpu["hardirq"], cpu["softirq"], cpu["busy"]), rel=1e-12)
    sim.advance(3 * MS)
    sim.apply(SetTunable("sched.compat_yield", 1))
    snap = sim.advance(500 * MS)
    assert snap.series_anchor[0] == 1003 * MS
    row = np.flatnonzero(snap.series[:, 0] == 1003 * MS)
    assert len(row) == 1 and np.array_equal(snap.series[row[0]], snap.series_anchor)
    since = interval_figures(snap.series_layout, snap.series_anchor, snap.series[-1])
    assert since is not None and since.t0_ns == 1003 * MS and since.t1_ns == 1500 * MS


def test_interval_figures_of_a_transmit_path_give_per_cpu_dequeues_and_jain() -> None:
    sim = Simulation(load_scenario("qdisc-fairness-2011"), sample_ns=50 * MS)
    snap = sim.advance(200 * MS)
    figures = interval_figures(snap.series_layout, snap.series_anchor, snap.series[-1])
    assert figures is not None and len(figures.dequeued) == 4
    assert figures.fairness_jain == pytest.approx(sim.summary()["fairness_jain"], rel=1e-12)
    assert interval_figures(snap.series_layout, snap.series[-1], snap.series[-1]) is None
