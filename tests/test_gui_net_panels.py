"""The graphs panel and the qdisc panel: pure helpers first, then both panels fed snapshots.

Real snapshots come from the 2007 story (one CPU, no qdisc) and the 2011 story (four senders, a
prio qdisc); exact qdisc visuals get a hand-built ``QdiscView`` and fake ``cpuN_dequeued`` columns
grafted onto a real snapshot with ``dataclasses.replace``. The tests read the plot items' data back
(the bandwidth curve is the differenced series, the bars are the per-CPU counts, one marker per
toggle however many frames) and check that each panel paints a non-blank image of its own size.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPoint, QPointF, QRectF
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QWidget
from qt_guard import leak_guard  # noqa: F401 - autouse fixture

from gui.draw import graph_items as gi
from gui.draw import palette, theme
from gui.draw import qdisc_bands as qb
from gui.draw import qdisc_geometry as qg
from gui.draw import series as gs
from gui.draw import window_figures as wf
from gui.draw.axes import SpacedAxis
from gui.draw.text_log import DrawnText
from gui.panels import graphs as gp
from gui.panels.graphs import GraphsPanel
from gui.panels.headline import HeadlinePanel
from gui.panels.qdisc import PLACEHOLDER, QdiscPanel
from model.metrics import jain_index
from model.scenario import load_scenario
from model.simulation import SetTunable, Simulation
from model.snapshot import BandView, QdiscView, Snapshot

SAMPLE_NS = 100_000_000
TOGGLE_AT_NS = 2_000_000_000
PER_CPU = (21_853_354, 431_058, 481_975, 23_261_406)  # jamal's 3.0-rc4 run 1, one count per CPU


# ---- fixtures: real snapshots of the 2007 story, and a fake qdisc -----------------------------------


@pytest.fixture(scope="module")
def frames() -> list[Snapshot]:
    """Thirty frames of 100 ms under cfs-2.6.23; compat_yield flipped to 1 at 2 s."""
    sim = Simulation(load_scenario("cfs-yield-2007"), sample_ns=SAMPLE_NS)
    out = []
    for i in range(30):
        if i * SAMPLE_NS == TOGGLE_AT_NS:
            sim.apply(SetTunable("sched.compat_yield", 1))
        out.append(sim.advance(SAMPLE_NS))
    return out


def fake_qdisc(dequeuer: int = 3, per_cpu: tuple[int, ...] = PER_CPU, stopped: bool = False) -> QdiscView:
    bands = (
        BandView(0, 12, 100, 40_210, 0, ((3, 6), (0, 4), (3, 2))),
        BandView(1, 83, 100, 19_301_554, 1_204, ((0, 20), (3, 31), (1, 3), (2, 2), (0, 17), (3, 10))),
        BandView(2, 100, 100, 2_410_112, 88_113, ((3, 60), (0, 40))),
    )
    reasons = (("quota", 0), ("need_resched", 1_210), ("jiffy", 49_700), ("empty", 320), ("tx_busy", 0))
    return QdiscView(
        "prio", bands, 46_200_000, 46_027_793, 89_317, 412, 195, per_cpu, (11_600_000,) * 4,
        dequeuer, 1, (2,), dequeuer, "time", 64, 51_230, reasons, "nic", 480, 512, stopped,
        jain_index(list(per_cpu)),
    )  # fmt: skip


def with_qdisc(snap: Snapshot, rates: tuple[float, ...] = (0.47, 0.01, 0.01, 0.51)) -> Snapshot:
    """``snap`` with a 4-CPU qdisc: cumulative cpuN_dequeued columns growing at ``rates`` × 1e5 per
    sample, and a QdiscView whose per-CPU counts are the last row."""
    n = len(snap.series)
    steps = np.tile(np.array(rates) * 1e5, (n, 1)).astype(np.int64)
    cumulative = np.cumsum(steps, axis=0)
    series = np.hstack([snap.series, cumulative])
    series.flags.writeable = False
    width = len(snap.series_columns)
    columns = snap.series_columns + tuple(f"cpu{k}_dequeued" for k in range(4))
    layout = dataclasses.replace(snap.series_layout, cpu_dequeued=tuple(range(width, width + 4)))
    per_cpu = tuple(int(v) for v in cumulative[-1]) if n else (0,) * 4
    anchor = snap.series_anchor
    if anchor is not None:  # the fake counters at the anchor row (zeros before any change)
        row = int(np.searchsorted(snap.series[:, 0], anchor[0])) if anchor[0] else -1
        at = cumulative[row] if row >= 0 else np.zeros(4, dtype=np.int64)
        anchor = np.concatenate([anchor, at])
    return dataclasses.replace(
        snap,
        qdisc=fake_qdisc(per_cpu=per_cpu),
        series_columns=columns,
        series=series,
        series_layout=layout,
        series_anchor=anchor,
    )


@pytest.fixture
def graphs(qtbot) -> Iterator[GraphsPanel]:
    panel = GraphsPanel(window_ns=10 * 1_000_000_000)  # the frames' 100 ms samples: a 10 s window
    qtbot.addWidget(panel)
    panel.resize(1000, 520)
    panel.show()
    yield panel


@pytest.fixture
def qdisc_panel(qtbot) -> Iterator[QdiscPanel]:
    panel = QdiscPanel()
    qtbot.addWidget(panel)
    panel.resize(1000, 560)
    panel.show()
    yield panel


def assert_painted(widget: QWidget, path: Path) -> None:
    """The widget paints an image of its own size, with more than one colour in it, and saves it."""
    image = widget.grab().toImage()
    assert image.size() == widget.size()
    colours = {image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)}
    assert len(colours) > 3
    assert image.save(str(path))


def rendered(widget: QWidget) -> QImage:
    """The widget drawn through a QPainter on a white image, as the SVG export draws it."""
    image = QImage(widget.size(), QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    widget.render(painter, QPoint(0, 0))
    painter.end()
    return image


def inked(image: QImage) -> int:
    """Sampled pixels that are not white."""
    white = QColor("white").rgb()
    return sum(
        image.pixel(x, y) != white for x in range(0, image.width(), 5) for y in range(0, image.height(), 5)
    )


def markers_on(plot: pg.PlotItem) -> list[pg.InfiniteLine]:
    """The vertical toggle markers currently visible on a time graph."""
    return [i for i in plot.items if isinstance(i, pg.InfiniteLine) and i.angle == 90 and i.isVisible()]


# ---- pure helpers ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("x", "top"),
    [(0.0, 1.0), (0.7, 0.8), (1.0, 1.0), (63.3, 80.0), (94.1, 100.0), (101.0, 120.0), (3e6, 3e6)],
)
def test_nice_ceiling_is_a_round_number_at_or_above(x: float, top: float) -> None:
    assert gs.nice_ceiling(x) == pytest.approx(top)


def test_window_block_differences_only_the_window_and_starts_from_zero() -> None:
    series = np.array([[100, 5], [200, 12], [300, 30], [400, 31]], dtype=np.int64)
    edges, delta = gs.window_block(series, 0)
    assert edges.tolist() == [0.0, 1e-7, 2e-7, 3e-7, 4e-7]
    assert delta[:, 1].tolist() == [5, 7, 18, 1]
    edges, delta = gs.window_block(series, 250)  # intervals ending after 250 ns: the last two
    assert edges.tolist() == pytest.approx([2e-7, 3e-7, 4e-7])
    assert delta[:, 1].tolist() == [18, 1]


def test_toggle_marks_merges_close_toggles_and_keeps_the_window() -> None:
    toggles = [
        (1_000, "sched.compat_yield", 1),
        (5_000, "sched.compat_yield", 0),
        (5_010, "sched.compat_yield", 1),
        (5_020, "qdisc.weight_p", 16),
        (9_000, "qdisc.exit_rule", "quota"),
    ]
    assert gs.toggle_marks(toggles, 2_000, 10_000, 100, 10) == [
        (5_000, "compat_yield=0→1, weight_p=16"),
        (9_000, "exit_rule=quota"),
    ]
    assert gs.toggle_marks(toggles, 0, 10_000, 100, 1) == [(9_000, "exit_rule=quota")]
    assert gs.toggle_marks(toggles, 0, 10_000, 0, 10)[0] == (1_000, "compat_yield=1")


def test_counts_at_a_toggle_come_from_the_first_sample_after_it() -> None:
    series = np.array([[100, 1, 9], [200, 4, 9], [300, 8, 9]], dtype=np.int64)
    live = np.array([10, 9])
    assert gs.counts_at(series, [1, 2], 150, live).tolist() == [4, 9]
    assert gs.counts_at(series, [1, 2], 350, live).tolist() == [10, 9]


def overlaps(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def test_qdisc_layout_keeps_every_part_inside_the_panel_without_overlap() -> None:
    for width, height in ((1000.0, 560.0), (700.0, 400.0), (640.0, 360.0), (470.0, 300.0)):
        lay = qg.qdisc_layout(width, height, 4, 3)
        boxes = [*lay.cpus, lay.locks, *lay.bands, lay.device]
        for x, y, w, h in boxes:
            assert x >= 0 and x + w <= width and y >= 0 and y + h <= height and w > 0 and h > 0
        assert lay.locks_row == (width < qg.NARROW_BELOW_PX)
        columns = [lay.cpus[0], lay.bands[0], lay.device]
        if lay.locks_row:  # the locks in a strip above the CPUs, bands and device
            assert all(lay.locks[1] + lay.locks[3] < box[1] for box in columns)
        else:  # left to right: CPUs, locks, bands, device
            columns.insert(1, lay.locks)
        for left, right in itertools.pairwise(columns):
            assert left[0] + left[2] < right[0]
        assert lay.footer == (height >= 400)
    # The RUNNING token on any CPU's box stays clear of the column to its right (another column of
    # CPUs, the locks, the bands) and of the other CPUs' boxes, with 4 CPUs or 8 in two columns.
    for width, height, ncpus in ((1000.0, 560.0, 4), (700.0, 400.0, 4), (470.0, 300.0, 4), (470.0, 260.0, 8)):
        lay = qg.qdisc_layout(width, height, ncpus, 3)
        right = lay.bands[0][0] if lay.locks_row else lay.locks[0]
        for cpu in range(ncpus):
            x, y = qg.token_target(lay, cpu)
            r = lay.token_r + 3  # with its outline
            coin = (x - r, y - r, 2 * r, 2 * r)
            assert x + r + 2 <= right
            for other, box in enumerate(lay.cpus):
                if other != cpu:
                    assert not overlaps(coin, box), (width, height, ncpus, cpu, other)
    assert len({lay.cpus[k][0] for k in range(8)}) == 2, "8 CPUs in a short panel: two columns"


def test_a_band_s_count_stays_beside_its_name_in_the_longest_form_its_row_holds(qapp) -> None:
    # A full band on a narrow row (large text on 1280x720) showed no count at all: "100/100" did not
    # fit beside "band 1", and the full bar left no room inside it.
    from gui.draw.qdisc_style import qdisc_fonts

    image = QImage(10, 10, QImage.Format.Format_ARGB32)
    p = QPainter(image)
    try:
        fonts = qdisc_fonts()
        p.setFont(fonts["bold"])
        top, short = (p.fontMetrics().horizontalAdvance(n) + qb.LABEL_GAP for n in ("band 0 (top)", "band 0"))
        p.setFont(fonts["text"])
        form_w = [p.fontMetrics().horizontalAdvance(qb.queued_words(100, 100, k)) for k in range(3)]
        widths = (top + form_w[0], top + form_w[0] - 1, top + form_w[2], top + form_w[2] - 1)
        got = [qb.band_labels(p, fonts, w, 100) for w in (*widths, short + form_w[2], short + form_w[2] - 1)]
    finally:
        p.end()
    assert got[:3] == [("band 0 (top)", 0), ("band 0 (top)", 1), ("band 0 (top)", 2)]
    assert got[3][0] == "band 0"  # the count before the hint "(top)"
    assert got[4] == ("band 0", 2)
    # a row too narrow for any form keeps the hint; the count goes inside the bar where it fits
    assert got[5] == ("band 0 (top)", 2)
    assert [qb.queued_words(37, 100, k) for k in range(3)] == ["37 / 100 queued", "37/100", "37"]


def test_fifo_runs_start_at_the_head_on_the_right() -> None:
    spans = qg.fifo_runs(((3, 10), (0, 30)), 100, 500.0, 200.0)
    assert spans == [(3, 10, 480.0, 500.0), (0, 30, 420.0, 480.0)]
    full = qg.fifo_runs(((1, 80), (2, 80)), 100, 500.0, 200.0)  # more than the limit: clipped
    assert full[-1][2] == 300.0


def test_fifo_blocks_colour_each_block_by_its_main_sender() -> None:
    runs = ((1, 1), (2, 1), (1, 1), (0, 12), (3, 2))
    # blocks of 5 from the head: [1 2 1 0 0] → cpu1 (tied with cpu0, first to arrive), [0 0 0 0 0] ×2, [3 3]
    assert qg.fifo_blocks(runs, 17, 5) == [(1, 5), (0, 10), (3, 2)]
    assert qg.fifo_blocks(((0, 3),), 10, 1) == [(0, 3), (-1, 7)]  # the rest is not itemised
    assert qg.fifo_blocks(((0, 30),), 10, 5) == [(0, 10)]  # never more than the backlog
    assert sum(n for _cpu, n in qg.fifo_blocks(runs, 40, 5)) == 40


def test_the_device_shows_each_tx_ring_and_which_are_stopped() -> None:
    # 3.0 ixgbe: one ring per sending CPU; a ring that stops is named, the others keep their fill
    q = dataclasses.replace(
        fake_qdisc(stopped=True), ring_used=(64, 128, 128, 32), ring_stopped=(False, True, False, False)
    )
    assert qg.ring_fill(q) == [(0.5, False), (1.0, True), (1.0, False), (0.25, False)]
    assert qg.stopped_rings_text(q) == "ring 1 full"
    both = dataclasses.replace(q, ring_stopped=(False, True, True, False))
    assert qg.stopped_rings_text(both) == "rings 1, 2 full"
    assert qg.stopped_rings_text(dataclasses.replace(q, ring_stopped=(False,) * 4)) == ""
    whole = fake_qdisc(stopped=True)  # no per-ring detail: the device as one ring
    assert qg.ring_fill(whole) == [(480 / 512, True)]
    assert qg.stopped_rings_text(whole) == "ring full"


def test_busylock_line_leaves_out_its_holder() -> None:
    q = dataclasses.replace(fake_qdisc(dequeuer=0), busylock_owner=3, busylock_waiters=(3, 2, 1))
    assert qg.busylock_line(q) == [2, 1]
    assert qg.cpu_role(q, 2)[1] == "spinning #1"
    assert qg.cpu_role(q, 3)[1] == "holds busylock"


def test_cpu_roles_in_plain_words() -> None:
    q = fake_qdisc(dequeuer=3)  # the dequeuer holds the root lock (as the model has it), cpu1 busylock
    assert [qg.cpu_role(q, cpu)[:2] for cpu in range(4)] == [
        ("sending", "sending"),
        ("busylock", "holds busylock"),
        ("spinning", "spinning #1"),
        ("dequeuer", "DEQUEUER"),
    ]
    assert qg.exit_rule_words("time", 64)[0] == "3.0-rc4: until need_resched or the next jiffy"
    assert qg.exit_rule_words("quota", 64)[0] == "3.1+: 64-packet quota (weight_p)"
    assert qg.exit_rule_words("quota+jiffy", 64)[0].startswith("jamal's patch: 64 packets")
    assert [qg.fmt_count(n) for n in (12, 43_105, 431_058, 21_853_354)] == [
        "12",
        "43.1 k",
        "431.1 k",
        "21.9 M",
    ]


def test_token_eases_to_its_target_and_snaps() -> None:
    xy = (0.0, 0.0)
    path = []
    for _ in range(40):
        xy = qg.ease_toward(xy, (100.0, 0.0), qg.TOKEN_EASE)
        path.append(xy[0])
    assert 0 < path[0] < path[1] < 100.0  # it glides
    assert path[-1] == 100.0  # and lands exactly


# ---- the graphs panel -----------------------------------------------------------------------------


def test_bandwidth_curve_is_the_differenced_series(graphs: GraphsPanel, frames: list[Snapshot]) -> None:
    for snap in frames[:12]:
        graphs.render(snap)
    graphs.flush()  # the frames after the last sample draw what it left due
    snap = frames[11]
    col = snap.series_columns.index("acked_bytes")
    t = np.concatenate([[0], snap.series[:, 0]])
    acked = np.concatenate([[0], snap.series[:, col]])
    expected = np.diff(acked) * 8 / (np.diff(t) / 1e9) / 1e6
    x, y = graphs.bandwidth_curve.getData()
    assert y.tolist() == pytest.approx(expected.tolist())
    assert x.tolist() == pytest.approx((t / 1e9).tolist())
    assert 50 < y.mean() < 100  # the 2007 story's tens of Mbit/s


def moving_mean(series: np.ndarray, column: int, k: int) -> np.ndarray:
    """Counter ``column``'s rate over the last ``k`` intervals ending at each row (from zero at t = 0)."""
    out = []
    for i in range(len(series)):
        base = series[i - k] if i >= k else np.zeros(series.shape[1], dtype=np.int64)
        out.append((series[i, column] - base[column]) / (series[i, 0] - base[0]))
    return np.array(out)


def test_thread_and_cpu_shares_are_the_mean_over_the_last_second(
    graphs: GraphsPanel, frames: list[Snapshot]
) -> None:
    snap = frames[15]
    graphs.render(snap)
    col = {c: i for i, c in enumerate(snap.series_columns)}
    x_s = snap.series[:, 0] / 1e9
    for name, curve in graphs.thread_curves.items():
        x, y = curve.getData()
        assert x.tolist() == pytest.approx(x_s.tolist())
        expected = 100 * moving_mean(snap.series, col[f"{name}_exec_ns"], wf.MEAN_SAMPLES)
        assert y.tolist() == pytest.approx(expected.tolist())
    assert set(graphs.thread_curves) == {"iperf-data", "iperf-reporter"}
    levels = graphs.cpu_strips[0].levels  # one CPU: hardirq, softirq, user stacked from 0; top at 1
    hard = moving_mean(snap.series, col["cpu0_hardirq_ns"], wf.MEAN_SAMPLES)[1:]
    assert levels[1].tolist() == pytest.approx(hard.tolist())
    assert levels[-1].tolist() == [1.0] * len(hard)
    assert (np.diff(levels, axis=0) >= 0).all()


def test_no_qdisc_means_no_dequeue_graphs(graphs: GraphsPanel, frames: list[Snapshot]) -> None:
    graphs.render(frames[3])
    assert graphs.plots["dequeues"].scene() is None
    assert graphs.plots["fairness"].scene() is None
    assert graphs.plots["bandwidth"].scene() is not None


def test_a_short_panel_shows_the_key_graphs_first(graphs: GraphsPanel, frames: list[Snapshot]) -> None:
    assert gs.plot_order(True, None)[:3] == ("fairness", "dequeues", "bandwidth")
    assert gs.plot_order(False, "client") == ("bandwidth", "threads", "cpus")
    graphs.resize(1000, 620)
    graphs.render(with_qdisc(frames[3]))
    graphs.grab()
    tall = list(graphs.shown)
    assert len(tall) >= 3 and tall == list(gs.plot_order(True, None)[: len(tall)])
    graphs.resize(1000, 300)
    graphs.grab()
    assert graphs.shown and len(graphs.shown) < len(tall)
    assert graphs.shown == tall[: len(graphs.shown)]  # the most telling ones stay
    hidden = {name for name, plot in graphs.plots.items() if plot.scene() is None}
    assert hidden >= set(tall) - set(graphs.shown)


def test_a_toggle_gets_one_marker_on_every_time_graph(graphs: GraphsPanel, frames: list[Snapshot]) -> None:
    for snap in frames[:20]:
        graphs.render(snap)
    assert all(not markers_on(graphs.plots[n]) for n in gp.TIME_PLOTS)  # nothing toggled before 2 s
    for snap in frames[20:]:
        graphs.render(snap)
        graphs.render(snap)  # the same frame twice: still one marker
    assert frames[-1].toggles == ((TOGGLE_AT_NS, "sched.compat_yield", 1),)
    for name in ("bandwidth", "threads", "cpus"):
        (line,) = markers_on(graphs.plots[name])
        assert line.value() == pytest.approx(2.0)
        assert line.label.toPlainText() == "compat_yield=1"
        assert len(graphs.markers[name].lines) == 1  # created once, kept
    graphs.reset()
    assert all(not markers_on(graphs.plots[n]) for n in gp.TIME_PLOTS)


def test_markers_come_from_a_pool_not_one_per_frame(graphs: GraphsPanel) -> None:
    sim = Simulation(load_scenario("cfs-yield-2007"), sample_ns=SAMPLE_NS)
    for i in range(15):
        if i in (5, 10):
            sim.apply(SetTunable("sched.compat_yield", int(i == 5)))
        graphs.render(sim.advance(SAMPLE_NS))
    labels = graphs.markers["threads"].labels()
    assert labels == [(pytest.approx(0.5), "compat_yield=1"), (pytest.approx(1.0), "compat_yield=0")]
    assert len(graphs.markers["threads"].lines) == 2  # the first marker was not drawn again
    assert len(markers_on(graphs.plots["threads"])) == 2


def test_y_axis_only_grows_until_reset(graphs: GraphsPanel, frames: list[Snapshot]) -> None:
    tops = []
    for snap in frames:
        graphs.render(snap)
        tops.append(graphs.plots["bandwidth"].viewRange()[1][1])
    assert tops == sorted(tops) and tops[-1] > 60
    assert tops[-1] == pytest.approx(gi.HEADROOM * 100.0)  # 94 Mbit/s → axis top 100, + label room
    graphs.reset()
    assert graphs.plots["bandwidth"].viewRange()[1][1] < 2


def test_window_slides_with_the_samples(graphs: GraphsPanel) -> None:
    sim = Simulation(load_scenario("cfs-yield-2007"), sample_ns=SAMPLE_NS)
    graphs.set_window_s(1.0)
    graphs.render(sim.advance(3 * 1_000_000_000))
    lo, hi = graphs.plots["bandwidth"].viewRange()[0]
    assert (lo, hi) == pytest.approx((2.1, 3.1))  # the last second, and one interval of room
    x, _y = graphs.bandwidth_curve.getData()
    assert x[0] == pytest.approx(2.0) and len(x) == 11  # only the window's rows were converted


def test_a_sample_in_steady_play_is_drawn_one_graph_a_frame(
    graphs: GraphsPanel, frames: list[Snapshot], qtbot
) -> None:
    def last_x(name: str) -> float:
        curves = {"bandwidth": graphs.bandwidth_curve, "threads": next(iter(graphs.thread_curves.values()))}
        x, _y = curves[name].getData()
        return float(x[-1])

    graphs.resize(1600, 520)
    graphs.render(frames[3])  # the first sample: every graph at once
    shown = [name for name in graphs.shown if name in ("bandwidth", "threads")]
    assert len(shown) == 2, graphs.shown
    t = frames[3].series[-1, 0] / 1e9
    assert [last_x(name) for name in shown] == pytest.approx([t, t])
    graphs.render(frames[4])  # the next sample: the graph drawn longest ago first, the other waits
    t4 = frames[4].series[-1, 0] / 1e9
    assert [last_x(name) for name in shown] == pytest.approx([t4, t])
    qtbot.waitUntil(lambda: last_x(shown[1]) == pytest.approx(t4), timeout=1000)  # paused: the timer
    graphs.render(frames[5])
    graphs.render(frames[5])  # the same instant again (paused, an export): all that is due, now
    t5 = frames[5].series[-1, 0] / 1e9
    assert [last_x(name) for name in shown] == pytest.approx([t5, t5])
    for snap in frames[6:21]:  # over the toggle at 2 s: its sample is drawn everywhere at once
        graphs.render(snap)
        if len(snap.toggles) > len(frames[5].toggles):
            t_toggle = snap.series[-1, 0] / 1e9
            assert [last_x(name) for name in shown] == pytest.approx([t_toggle, t_toggle])
            break
    else:
        pytest.fail("no toggle in the frames")


def test_dequeue_bars_are_the_per_cpu_counts(graphs: GraphsPanel, frames: list[Snapshot]) -> None:
    graphs.resize(1600, 520)  # wide enough for "Dequeues per CPU · Jain 0.52"
    for snap in frames[18:25]:
        graphs.render(with_qdisc(snap))
    graphs.flush()
    snap = with_qdisc(frames[24])
    assert graphs.plots["dequeues"].scene() is not None
    assert graphs.dequeue_bars.bars.opts["height"].tolist() == list(snap.qdisc.per_cpu_dequeued)
    title = graphs.plots["dequeues"].titleLabel.text
    assert f"Jain {snap.qdisc.fairness_jain:.2f}" in title
    (label,) = graphs.dequeue_bars.ticks.labels()  # the toggle, marked across the bars
    assert label == "compat_yield=1"
    each, since, _mean = graphs.fairness_curves
    assert each.getData()[1].tolist() == pytest.approx([jain_index([47, 1, 1, 51])] * len(snap.series))
    assert since.getData()[1][-1] == pytest.approx(snap.qdisc.fairness_jain)


def test_the_2011_story_fills_both_panels(
    graphs: GraphsPanel, qdisc_panel: QdiscPanel, tmp_path: Path
) -> None:
    sim = Simulation(load_scenario("qdisc-fairness-2011"), sample_ns=SAMPLE_NS)
    for i in range(6):
        if i == 3:
            sim.apply(SetTunable("qdisc.exit_rule", "quota"))
        snap = sim.advance(SAMPLE_NS)
        graphs.render(snap)
        qdisc_panel.render(snap)
    assert snap.qdisc is not None
    assert graphs.plots["dequeues"].scene() is not None
    assert graphs.dequeue_bars.bars.opts["height"].tolist() == list(snap.qdisc.per_cpu_dequeued)
    assert graphs.dequeue_bars.ticks.labels() == ["exit_rule=quota"]
    assert graphs.markers["fairness"].labels() == [(pytest.approx(0.3), "exit_rule=quota")]
    assert set(graphs.thread_curves) == {t.name for t in snap.tasks}
    assert len(graphs.cpu_strips) == len(snap.cpus) == 4
    assert qdisc_panel.qdisc is snap.qdisc
    assert_painted(graphs, tmp_path / "graphs_2011.png")
    assert_painted(qdisc_panel, tmp_path / "qdisc_2011.png")


def test_graphs_paint_and_forward_qwidget_render(
    graphs: GraphsPanel, frames: list[Snapshot], tmp_path: Path
) -> None:
    for snap in frames:
        graphs.render(with_qdisc(snap))
    assert_painted(graphs, tmp_path / "graphs.png")
    assert inked(rendered(graphs)) > 200  # the SVG export path reaches QWidget.render, which paints


# ---- the qdisc panel ------------------------------------------------------------------------------


def test_qdisc_placeholder_without_a_qdisc(
    qdisc_panel: QdiscPanel, frames: list[Snapshot], tmp_path: Path
) -> None:
    qdisc_panel.render(frames[0])
    assert qdisc_panel.qdisc is None and qdisc_panel.token_xy is None
    assert "2011" in PLACEHOLDER
    assert_painted(qdisc_panel, tmp_path / "qdisc_none.png")


def test_running_token_glides_to_the_new_dequeuer(qdisc_panel: QdiscPanel, frames: list[Snapshot]) -> None:
    qdisc_panel.render(dataclasses.replace(frames[0], qdisc=fake_qdisc(dequeuer=3)))
    lay = qg.qdisc_layout(qdisc_panel.width(), qdisc_panel.height(), 4, 3)
    at_cpu3, at_cpu0 = qg.token_target(lay, 3), qg.token_target(lay, 0)
    assert qdisc_panel.token_xy == at_cpu3  # first frame: no glide from nowhere
    handed_off = dataclasses.replace(frames[1], qdisc=fake_qdisc(dequeuer=0))
    qdisc_panel.render(handed_off)
    assert at_cpu0[1] < qdisc_panel.token_xy[1] < at_cpu3[1]  # on its way up
    for _ in range(40):
        qdisc_panel.render(handed_off)
    assert qdisc_panel.token_xy == at_cpu0
    qdisc_panel.reset()
    assert qdisc_panel.qdisc is None and qdisc_panel.token_xy is None


@pytest.mark.parametrize("size", [(1000, 560), (640, 360)])
def test_qdisc_panel_paints(
    qdisc_panel: QdiscPanel, frames: list[Snapshot], tmp_path: Path, size: tuple[int, int]
) -> None:
    qdisc_panel.resize(*size)
    qdisc_panel.render(dataclasses.replace(frames[0], qdisc=fake_qdisc(stopped=True)))
    assert_painted(qdisc_panel, tmp_path / "qdisc.png")
    assert inked(rendered(qdisc_panel)) > 200  # the SVG export path reaches QWidget.render


def test_the_graphs_use_the_whole_width(graphs: GraphsPanel, frames: list[Snapshot]) -> None:
    graphs.resize(600, 480)  # laid out small first, as in a window that is not sized yet
    graphs.render(frames[3])
    graphs.grab()
    graphs.resize(1400, 520)  # then widened
    graphs.grab()  # lays the scene out
    rows: dict[float, float] = {}
    for name in graphs.shown:
        rect = graphs.plots[name].sceneBoundingRect()
        rows[round(rect.top())] = rows.get(round(rect.top()), 0.0) + rect.width()
    assert rows and all(width > 0.9 * 1400 for width in rows.values())  # no empty column in any row


def test_a_panel_too_short_for_axis_names_puts_the_unit_after_the_last_tick(
    graphs: GraphsPanel, frames: list[Snapshot]
) -> None:
    # Under many CPU lanes on a 720-line projector the graphs get little height: the legend rows go to
    # the data first, then the time axis's name, and the last tick says the unit instead ("2 s").
    from gui.panels.graph_grid import MIN_PLOT_H

    def bottom(name: str) -> SpacedAxis:
        return graphs.plots[name].getAxis("bottom")

    graphs.render(frames[-1])
    graphs.grab()
    first = graphs.shown[0]
    assert bottom(first).label.isVisible()
    assert not any(text.endswith("s") for text in bottom(first).tickStrings([1.0, 2.0], 1.0, 1.0))
    graphs.resize(1000, 228)
    graphs.grab()
    plot = graphs.plots[graphs.shown[0]]
    assert plot.getViewBox().sceneBoundingRect().height() >= MIN_PLOT_H - 0.5
    axis = bottom(graphs.shown[0])
    assert not axis.label.isVisible() and not plot.legend.isVisible()
    ticks = axis.tickStrings([2.0, 1.0, 3.0], axis.autoSIPrefixScale, 1.0)
    unit = f" {axis.labelUnitPrefix}s"
    assert ticks[2].endswith(unit) and not ticks[0].endswith(unit) and not ticks[1].endswith(unit), ticks
    graphs.resize(1000, 520)
    graphs.grab()
    assert bottom(graphs.shown[0]).label.isVisible(), "the name comes back with the room"


def test_the_bold_line_is_named_by_the_simulated_span_of_its_mean(graphs: GraphsPanel) -> None:
    # The bold line is the mean of the last MEAN_SAMPLES intervals: one second of play, but at Normal
    # speed 10 ms of simulated time. Called "last second", it read as the last simulated second, and
    # at t = 1 s it disagreed with "since the change" over that very second.
    def legend_names(plot: str) -> list[str]:
        return [label.text for _sample, label in graphs.plots[plot].legend.items]

    for sample_ns, name in ((1_000_000, "last 10 ms"), (100_000_000, "last 1 s")):
        graphs.reset()
        sim = Simulation(load_scenario("cfs-yield-2007"), sample_ns=sample_ns)
        graphs.render(sim.advance(30 * sample_ns))
        graphs.flush()
        assert name in legend_names("bandwidth"), legend_names("bandwidth")
    x, _y = graphs.bandwidth_mean.getData()
    assert len(x) > 0, "the bold line is drawn"
    graphs.reset()
    qdisc_run = Simulation(load_scenario("qdisc-fairness-2011"), sample_ns=1_000_000)
    graphs.render(qdisc_run.advance(20_000_000))
    graphs.flush()
    assert "last 10 ms" in legend_names("fairness"), legend_names("fairness")


def test_the_headline_gives_bandwidth_four_figures(qtbot) -> None:
    # 63.3 against 95.0 Mbit/s is the 2007 story; a tenth of a Mbit/s at 9 Gbit/s is only width.
    panel = HeadlinePanel()
    qtbot.addWidget(panel)
    for story, duration_ns, pattern in (
        ("cfs-yield-2007", 500_000_000, r"\d\d\.\d Mbit/s"),
        ("qdisc-fairness-2011", 20_000_000, r"\d\d\d\d Mbit/s"),
    ):
        sim = Simulation(load_scenario(story), sample_ns=1_000_000)
        panel.show_snapshot(sim.advance(duration_ns))
        (bandwidth,) = [t.number for t in panel.tiles if t.label == "bandwidth"]
        assert re.fullmatch(pattern, bandwidth), (story, bandwidth)


def test_the_headline_shows_the_interrupts_share_where_it_is_the_story(qtbot) -> None:
    # 2009: the server thread's tile read "1%" with nothing saying where the CPU went (the NIC's
    # interrupt). The interrupts' tiles are run --json's shares; a story where they take little has none.
    panel = HeadlinePanel()
    qtbot.addWidget(panel)
    shown = {}
    for story in ("bfs-saturated-2009", "cfs-yield-2007", "yield-playground"):
        sim = Simulation(load_scenario(story), sample_ns=1_000_000)
        panel.show_snapshot(sim.advance(500_000_000))
        shown[story] = {t.label: t.number for t in panel.tiles}
        cpu = sim.summary()["cpus"][0]
        if story == "bfs-saturated-2009":
            assert shown[story]["hardirq"] == f"{100 * cpu['hardirq']:.0f}%"
            assert shown[story]["softirq"] == f"{100 * cpu['softirq']:.0f}%"
            assert cpu["hardirq"] > 0.5  # the interrupt, not a thread, takes the CPU
        else:
            assert cpu["hardirq"] + cpu["softirq"] < 0.1
    assert "hardirq" in shown["bfs-saturated-2009"]
    assert "hardirq" not in shown["cfs-yield-2007"] and "softirq" not in shown["yield-playground"]
    # On several CPUs, in the threads' unit (a share of one CPU): every CPU's interrupt time together.
    sim = Simulation(
        load_scenario("bfs-saturated-2009").with_overrides({"machine.cpus": 4}), sample_ns=1_000_000
    )
    panel.show_snapshot(sim.advance(500_000_000))
    (hard,) = [t.number for t in panel.tiles if t.label == "hardirq"]
    assert hard == f"{100 * sum(c['hardirq'] for c in sim.summary()['cpus']):.0f}%" and int(hard[:-1]) > 50


def test_a_cpu_box_s_tip_says_where_it_dequeued_and_why_its_runs_ended() -> None:
    # Hovering cpu1 in the 3.0 story says why it dequeues so little: its runs end when a ring stops.
    from gui.draw.qdisc_tips import cpu_tip

    sim = Simulation(load_scenario("qdisc-fairness-2011"), trace="off")
    q = sim.advance(100_000_000).qdisc
    assert q is not None
    summary = sim.summary()["qdisc"]
    for cpu in range(4):
        by_context = dict(q.per_cpu_dequeued_by_context[cpu])
        assert by_context == summary["per_cpu_dequeued_by_context"][cpu]
        assert dict(q.per_cpu_exit_reasons[cpu]) == summary["per_cpu_exit_reasons"][cpu]
    tip = cpu_tip(q, 1).splitlines()
    ends = dict(q.per_cpu_exit_reasons[1])
    assert tip[0].startswith("cpu1: ")
    assert f"{dict(q.per_cpu_dequeued_by_context[1])['sender']} in its sender" in tip[1]
    assert tip[2] == "its dequeuer runs ended: " + ", ".join(f"{k} {n}" for k, n in ends.items() if n)
    assert "tx_busy" in tip[2]
    quiet = dataclasses.replace(q, per_cpu_exit_reasons=(), per_cpu_dequeued_by_context=())
    assert len(cpu_tip(quiet, 1).splitlines()) == 2  # a view without them: the counts alone


@pytest.mark.parametrize("stopped", [False, True])
def test_the_device_box_words_stay_inside_a_narrow_box(qapp, stopped: bool) -> None:
    # Large text with seven or eight CPUs left the device box 60 px wide: "10G NIC" ran past both its
    # sides and the ring's reading "114/3584" was cut at them. Each line now takes a shorter wording.
    from PySide6.QtCore import QRectF

    from gui.draw import text_log
    from gui.draw.qdisc_device import device_lines, draw_device_frame, draw_tx_ring
    from gui.draw.qdisc_style import qdisc_fonts

    q = dataclasses.replace(fake_qdisc(stopped=stopped), tx_ring_used=1114, tx_ring_size=3584)
    fonts = qdisc_fonts()
    for rect in (QRectF(10, 10, 60, 90), QRectF(10, 10, 60, 240), QRectF(10, 10, 160, 90)):
        image = QImage(200, 300, QImage.Format.Format_ARGB32)
        with text_log.recording() as drawn:
            p = text_log.painter(image)
            lines = device_lines(rect, q)
            draw_device_frame(p, fonts, rect, stopped, lines)
            draw_tx_ring(p, fonts, rect, q)
            p.end()
        assert drawn, "the box has words"
        for d in drawn:
            assert rect.left() <= d.visible.left() and d.visible.right() <= rect.right(), (rect, d.text)
        if rect.width() >= 160:
            assert any(d.text in ("10G NIC", "1114/3584") for d in drawn)  # a wide box: the long words


def test_a_label_too_long_for_its_box_takes_its_shorter_wording_before_an_ellipsis(qapp) -> None:
    # A narrow CPU box said "holds busy…" and a narrow band "71.5 k dro…": each label now offers
    # wordings longest first, and only the last one is ever cut.
    from gui.draw.qdisc_style import fitted_words, qdisc_fonts

    image = QImage(10, 10, QImage.Format.Format_ARGB32)
    p = QPainter(image)
    p.setFont(qdisc_fonts()["bold"])
    fm = p.fontMetrics()
    words = ("holds busylock", "busylock")
    long_w, short_w = (fm.horizontalAdvance(w) for w in words)
    assert fitted_words(p, words, long_w) == "holds busylock"
    assert fitted_words(p, words, long_w - 1) == "busylock"
    assert fitted_words(p, words, short_w) == "busylock"
    cut = fitted_words(p, words, short_w - 1)
    assert cut.endswith("…") and fm.horizontalAdvance(cut) <= short_w - 1
    assert fitted_words(p, "holds busylock", long_w - 1).endswith("…")
    p.end()
    # Every detail a CPU box can show, and every long headline, has a shorter wording.
    q = fake_qdisc(dequeuer=3)  # cpu0 sending, cpu1 busylock, cpu2 spinning, cpu3 the dequeuer
    views = (q, dataclasses.replace(q, root_lock_owner=0))  # and cpu0 holding the root lock
    roles = {qg.cpu_role(view, cpu) for view in views for cpu in range(4)}
    assert {role for role, _h, _d in roles} == {"sending", "busylock", "spinning", "dequeuer", "root"}
    for _role, headline, detail in roles:
        assert len(qg.ROLE_SHORT[detail]) < len(detail), detail
        if len(headline) > len("DEQUEUER") and not headline.startswith("spinning"):
            assert len(qg.ROLE_SHORT[headline]) < len(headline), headline
    assert [len(w) for w in qg.exit_rule_words("time", 64)] == sorted(
        (len(w) for w in qg.exit_rule_words("time", 64)), reverse=True
    )


def test_the_pointer_reads_each_line_by_its_legend_name_in_the_axis_unit(graphs: GraphsPanel) -> None:
    # The tooltip said "recent mean: 89.5 Mbit/s (t = 0.227000 s)" under a legend that says "last 10 ms"
    # over an axis in milliseconds; it now names each line as the legend does, its time as the axis does.
    sim = Simulation(load_scenario("cfs-yield-2007"), sample_ns=1_000_000)
    graphs.render(sim.advance(300_000_000))
    graphs.flush()
    text = graphs.describe_plot("bandwidth", 0.2275)
    names = {label.text for _sample, label in graphs.plots["bandwidth"].legend.items}
    lines = text.splitlines()
    assert {line.split(":")[0] for line in lines} <= names | {"each interval"}, (lines, names)
    assert any(line.startswith("last 10 ms: ") for line in lines), lines
    assert all(re.search(r"\(t = (\d+(\.\d+)? ms|0 to \d+(\.\d+)? ms)\)$", line) for line in lines), lines
    assert "recent mean" not in text


def test_the_counters_and_the_exit_reasons_have_shorter_forms_for_a_narrow_panel() -> None:
    # At 3840x2160 (device pixel ratio 2) the counters read "dropped 667.7…" and the reasons
    # "packet qu…", "need_resc…": each now has shorter forms, tried longest first.
    from gui.panels import qdisc as qp

    forms = [qp._counter_row("band 1", 380_512, 667_734, 100, form) for form in range(3)]
    assert forms[0].endswith("backlog 100p") and "667.7 k" in forms[1] and "667.7k" in forms[2]
    assert [len(f) for f in forms] == sorted((len(f) for f in forms), reverse=True)
    assert len(set(forms)) == 3
    for _key, words in qp.EXIT_REASONS:
        assert len(words) >= 2 and [len(w) for w in words] == sorted((len(w) for w in words), reverse=True)


def test_two_labels_on_a_line_shorten_together_before_either_is_cut(qapp) -> None:
    # At 1280x720 a band's line read "281.0k dr…  sent 160.4 k": each label had a shorter form, but
    # the right one took its longest first. The pair now steps down together.
    from gui.draw import palette
    from gui.draw.qdisc_style import PAIR_GAP, pair_words, qdisc_fonts

    fonts = qdisc_fonts()
    image = QImage(10, 10, QImage.Format.Format_ARGB32)
    p = QPainter(image)
    left = (("281.0 k dropped", "281.0k drops", "281k drops"), "text", palette.TEXT)
    right = (("sent 160.4 k", "sent 160.4k", "sent 160k"), "text", palette.TEXT)

    def width(words: str) -> int:
        p.setFont(fonts["text"])
        return p.fontMetrics().horizontalAdvance(words)

    full = width("281.0 k dropped") + PAIR_GAP + width("sent 160.4 k")
    assert pair_words(p, fonts, full, left, right)[:2] == ("281.0 k dropped", "sent 160.4 k")
    assert pair_words(p, fonts, full - 1, left, right)[:2] == ("281.0k drops", "sent 160.4k")
    tightest = width("281k drops") + PAIR_GAP + width("sent 160k")
    assert pair_words(p, fonts, tightest, left, right)[:2] == ("281k drops", "sent 160k")
    assert pair_words(p, fonts, tightest - 30, left, right)[:2] == ("281k drops", "sent 160k")  # then cut
    p.end()


def test_the_all_on_one_cpu_label_sits_under_its_line_where_no_data_can_be(graphs: GraphsPanel) -> None:
    # Jain's index of n CPUs' dequeues is never below 1/n, the dotted line: its label, above the line,
    # sat on the data line whenever the skew was worst. Under the line nothing can cover it.
    sim = Simulation(load_scenario("qdisc-fairness-2011"), sample_ns=1_000_000)
    graphs.resize(500, 700)
    graphs.render(sim.advance(40_000_000))
    graphs.flush()
    floor = graphs._fair_floor
    view = graphs.plots["fairness"].getViewBox()
    line_y = view.mapViewToScene(QPointF(0.0, floor.value())).y()
    label = floor.label.mapRectToScene(floor.label.boundingRect())
    assert floor.value() == pytest.approx(0.25) and label.top() >= line_y - 1, (label, line_y)


def painted_2011(
    panel: QdiscPanel, mode: str, size: tuple[int, int], cpus: int = 4, run_ns: int = 300_000_000
) -> tuple[list[DrawnText], qg.QdiscLayout, float]:
    """The texts ``panel`` paints (``text_log``) for the 2011 story on ``cpus`` CPUs after ``run_ns``, in
    display ``mode`` at ``size``; its layout and zoom."""
    from gui.draw import text_log

    theme.set_theme(theme.make_theme(mode, 1.0))
    try:
        panel.apply_theme()
        sim = Simulation(load_scenario("qdisc-fairness-2011").with_overrides({"machine.cpus": cpus}))
        panel.resize(*size)
        panel.render(sim.advance(run_ns))
        assert panel.qdisc is not None
        image = QImage(panel.size(), QImage.Format.Format_ARGB32)
        with text_log.recording() as drawn:  # every part painted afresh, not copied from a cached layer
            panel.render(image)
        return drawn, panel._layout(panel.qdisc), panel.zoom
    finally:
        theme.set_theme(theme.make_theme("standard", 1.0))  # the look is process-wide


@pytest.mark.parametrize(("size", "cpus"), [((480, 290), 8), ((1000, 560), 8), ((500, 350), 4)])
def test_a_narrow_cpu_box_names_its_cpu_rather_than_cut_it(qdisc_panel: QdiscPanel, size, cpus) -> None:
    # Projector text at 1280x720 with eight CPUs drew "cp…" in every CPU box: the name was cut in the
    # room left beside the crown's. Only the dequeuer's box keeps that room now, and a name that still
    # does not fit is the CPU's number beside its colour strip.
    drawn, lay, zoom = painted_2011(qdisc_panel, "projector", size, cpus, 50_000_000)
    assert len(lay.cpus) == cpus
    for cpu, box in enumerate(lay.cpus):
        inside = [d.text for d in drawn if QRectF(*box).contains(d.visible.center() / zoom)]
        assert inside, f"cpu{cpu}'s box has words"
        assert not any(t.startswith("cp") and t.endswith("…") for t in inside), inside
        assert not any(t.endswith("…") for t in inside), inside  # "DEQUEU…" beside the crown
        assert f"cpu{cpu}" in inside or str(cpu) in inside or any(t.startswith(f"cpu{cpu} ·") for t in inside)


def test_every_cpu_box_writes_its_count_the_same_way(qdisc_panel: QdiscPanel) -> None:
    # Large text at 1920x1080: the dequeuer's box, narrowed by the crown, said "345.5k deq." beside
    # the others' "38.8 k dequeued"; a short word now goes before a different number format.
    drawn, _, _ = painted_2011(qdisc_panel, "large", (750, 500))
    counts = [d.text for d in drawn if d.text.endswith(("dequeued", "deq."))]
    assert len(counts) == 4, counts
    assert any(t.endswith("deq.") for t in counts), counts  # the case this checks: one box is narrower
    assert not any(re.search(r"\d[kM]", t) for t in counts), counts  # "93.9 k", never "93.9k"


def test_a_narrow_bands_name_is_drawn_in_ink(qdisc_panel: QdiscPanel) -> None:
    # Large text at 1366x768: a band whose count did not fit beside its name drew the name alone on its
    # line with the pen the packets' white gaps left behind: white on white, bands 0 and 1 unnamed.
    drawn, _, _ = painted_2011(qdisc_panel, "large", (485, 300))
    names = [d for d in drawn if d.text.startswith("band ")]
    assert len(names) == 3, [d.text for d in names]
    assert all(d.ink == palette.TEXT.name() for d in names), [(d.text, d.ink) for d in names]


@pytest.mark.parametrize(
    ("mode", "size"), [("standard", (760, 400)), ("standard", (1200, 450)), ("large", (900, 420))]
)
def test_every_band_states_how_full_it_is_the_same_way(qdisc_panel: QdiscPanel, mode: str, size) -> None:
    # A 760-pixel panel said "0/100" beside band 0's longer name and "100 / 100 queued" beside bands 1
    # and 2: one form is chosen for every band, from band 0's name and a full band's count.
    drawn, _, _ = painted_2011(qdisc_panel, mode, size)
    counts = [d.text for d in drawn if re.fullmatch(r"\d+ ?/ ?100( queued)?", d.text)]
    assert len(counts) == 3, counts
    assert len({t.endswith("queued") for t in counts}) == 1, counts


@pytest.mark.parametrize("mode", ["standard", "projector", "large"])
def test_the_parked_token_covers_no_word_of_the_running_box(qdisc_panel: QdiscPanel, mode: str) -> None:
    # Large text at 1280x720, before the first packet: the locks in a strip above the CPUs, and the
    # parked coin sat on the end of "RUNNING", which was centred over the whole box.
    from gui.draw.qdisc_locks import token_bounds

    drawn, lay, zoom = painted_2011(qdisc_panel, mode, (480, 290), run_ns=0)
    assert lay.locks_row
    assert qdisc_panel.qdisc is not None and qdisc_panel.qdisc.dequeuer_cpu < 0  # the token is parked
    coin = token_bounds(lay.token_park)
    words = [d for d in drawn if not d.visible.isEmpty()]
    assert any(d.text.startswith("RUN") for d in words), [d.text for d in words]
    under = [
        d.text for d in words if QRectF(d.visible.topLeft() / zoom, d.visible.size() / zoom).intersects(coin)
    ]
    assert not under, under


def test_the_dequeued_by_chip_is_left_out_where_it_would_be_a_sliver(qapp) -> None:
    from gui.draw import text_log
    from gui.draw.qdisc_bands import draw_path
    from gui.draw.qdisc_style import qdisc_fonts

    q = fake_qdisc(dequeuer=3)
    for width, chip in ((1000, True), (440, False)):
        lay = qg.qdisc_layout(width, 560, 4, 3)
        image = QImage(width, 560, QImage.Format.Format_ARGB32)
        with text_log.recording() as drawn:
            p = text_log.painter(image)
            draw_path(p, qdisc_fonts(), lay, q)
            p.end()
        assert ("cpu3" in [d.text for d in drawn]) == chip, width
        assert bool(drawn) == chip, "a panel too narrow for the chip draws none of it"


def test_the_counters_call_the_qdiscs_packets_offered_not_enqueued(qdisc_panel: QdiscPanel) -> None:
    # "tc -s qdisc show · 1.04 M enqueued" over "sent 378.2 k dropped 663.7 k": the count takes in the
    # tail drops, which the qdisc never enqueued (a CPU's "enqueued" in its tooltip counts only those taken).
    drawn, _, _ = painted_2011(qdisc_panel, "standard", (1000, 560))
    q = qdisc_panel.qdisc
    assert q is not None and q.dropped > 0  # the 2011 senders overrun the band: the case in question
    assert q.enqueued == q.dequeued + q.dropped + q.backlog
    assert sum(q.per_cpu_enqueued) == q.enqueued - q.dropped
    titles = [d.text for d in drawn if d.text.startswith("tc -s qdisc show")]
    assert titles and all("enqueued" not in t for t in titles), titles
    assert any("offered" in t for t in titles), titles
