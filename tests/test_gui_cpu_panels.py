"""The CPU lanes and the run-queue panel: pure geometry first, then both panels fed real snapshots.

Every policy runs the 2007 story (and a 2-CPU scenario written here); the tests check what each panel
keeps (lanes, bounded history, the last yield landing and its words) and that it paints a non-blank
image of its size. A fake wall clock drives the landing's fade, so nothing sleeps.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from fakes import TWO_CPUS
from PySide6.QtCore import QPoint, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QImage, QPainter
from PySide6.QtWidgets import QWidget
from qt_guard import leak_guard  # noqa: F401 - autouse fixture

from gui.draw import formats as fmt
from gui.draw import landing as ldg
from gui.draw import lane_history as ch
from gui.draw import lane_window as lw
from gui.draw import palette
from gui.draw import runqueue_layouts as rl
from gui.draw import runqueue_scene as rs
from gui.draw.lane_history import LaneHistory
from gui.panels import cpu_lanes as cl
from gui.panels import runqueue as rp
from gui.panels.cpu_lanes import CpuLanesPanel
from gui.panels.runqueue import RunqueuePanel
from model.scenario import load_scenario
from model.sched import POLICIES
from model.simulation import SetTunable, Simulation
from model.snapshot import (
    BandView,
    BfsEntry,
    BfsView,
    Cfs2623View,
    EevdfEntry,
    EevdfView,
    O1Entry,
    QdiscView,
    Snapshot,
    YieldOutcome,
    YieldRecord,
)

# Where the first yield that does something lands under each policy (model/sched/*.yield_task).
LANDINGS = {
    "o1": "expired_array",
    "cfs-2.6.23": "in_place",
    "cfs-2.6.24": "in_place",
    "bfs": "new_deadline",
    "eevdf": "forfeit",
}
VIEW_KINDS = {"o1": "O1View", "cfs-2.6.23": "Cfs2623View", "cfs-2.6.24": "Cfs2624View", "bfs": "BfsView"}


def story(policy: str, compat: int = 0) -> Simulation:
    sim = Simulation(load_scenario("cfs-yield-2007").with_overrides({"sched.policy": policy}))
    if compat:
        sim.apply(SetTunable("sched.compat_yield", compat))
    return sim


@pytest.fixture
def two_cpus(tmp_path: Path) -> Path:
    path = tmp_path / "two.toml"
    path.write_text(TWO_CPUS)
    return path


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def ink_pixels(widget: QWidget) -> int:
    """How many sampled pixels of the widget's image are not background white."""
    img = widget.grab().toImage()
    white = QColor("#FFFFFF").rgb()
    return sum(img.pixel(x, y) != white for x in range(0, img.width(), 4) for y in range(0, img.height(), 4))


def run_until_landing(sim: Simulation, panels: list, landing: str, dt_ns: int = 20_000) -> Snapshot:
    """Advance in small frames (Normal speed) until a frame holds a yield that lands at ``landing``."""
    for _ in range(20_000):
        snap = sim.advance(dt_ns)
        for panel in panels:
            panel.render(snap)
        if any(isinstance(r, YieldRecord) and r.outcome.landing == landing for r in snap.events):
            return snap
    raise AssertionError(f"no yield landing at {landing!r}")


# ---- pure helpers: CPU lanes ----------------------------------------------------------------------


def test_format_duration_picks_the_unit_a_class_reads() -> None:
    assert fmt.format_duration(0) == "0"
    assert fmt.format_duration(500) == "500 ns"
    assert fmt.format_duration(1_500) == "1.5 µs"
    assert fmt.format_duration(20_000_000) == "20 ms"
    assert fmt.format_duration(999_999) == "1 ms"
    assert fmt.format_duration(1_250_000_000) == "1.25 s"
    assert fmt.signed_duration(-2_000_000) == "−2 ms" and fmt.signed_duration(0) == "0"


def test_axis_ticks_are_a_1_2_5_step_back_from_now() -> None:
    assert fmt.nice_step(50_000_000, 5) == 10_000_000
    assert fmt.nice_step(50_000_000, 3) == 20_000_000
    assert lw.axis_ticks(50_000_000, 5) == [0, -(10**7), -2 * 10**7, -3 * 10**7, -4 * 10**7, -5 * 10**7]


def test_axis_tick_instants_are_round_and_inside_the_window() -> None:
    ticks = [40_000_000, 30_000_000, 20_000_000, 10_000_000, 0]
    assert lw.tick_instants(47_000_000, 50_000_000, 5) == (10_000_000, ticks)
    assert lw.tick_instants(50_000_000, 50_000_000, 5)[1] == [50_000_000, *ticks]  # a round now is a tick
    assert lw.tick_instants(20_000_000, 50_000_000, 5)[1] == [20_000_000, 10_000_000, 0]  # none before t = 0


class _TextPainter(QPainter):
    """A painter that also keeps the texts it draws."""

    def __init__(self, image: QImage) -> None:
        super().__init__(image)
        self.texts: list[str] = []

    def drawText(self, *args: Any) -> None:  # type: ignore[override]  # Qt override
        self.texts.append(args[-1])
        super().drawText(*args)


def test_a_narrow_strip_s_time_axis_labels_two_ticks_where_its_step_would_leave_one(qapp: Any) -> None:
    """A comparison's side on a projector: a 260 px strip over 5 ms. Two ticks at most would make the
    step 5 ms, one tick inside the window: no scale. The axis takes the next finer step that fits two."""
    from gui.draw.graph_items import panel_font
    from gui.draw.lane_painting import paint_axis

    image = QImage(400, 60, QImage.Format.Format_RGB32)
    p = _TextPainter(image)
    shown = lw.ShownWindow(width_ns=5_000_000, end_ns=1_010_000_020, now_ns=1_010_000_020, offset_ns=0)
    paint_axis(p, 10.0, 0.0, (100.0, 260.0), shown, panel_font(15))
    p.end()
    labels = [t for t in p.texts if not t.startswith("t = ")]
    assert labels == ["1010 ms", "1006 ms"]


def test_zoom_keeps_the_instant_under_the_pointer_and_stays_in_bounds() -> None:
    win, end = lw.zoom_window(10_000_000, 100_000_000, 0.5, 2.0)
    assert win == 20_000_000 and end - 0.5 * win == 95_000_000
    assert lw.zoom_window(10_000_000, 100_000_000, 1.0, 1e-9) == (lw.ZOOM_BOUNDS_NS[0], 100_000_000)


def test_time_to_x_puts_now_at_the_right_edge() -> None:
    assert ch.time_to_x(1_000, 1_000, 100, 50, 200) == 250
    assert ch.time_to_x(900, 1_000, 100, 50, 200) == 50
    assert ch.time_to_x(950, 1_000, 100, 50, 200) == 150


def test_window_follows_density_with_hysteresis() -> None:
    rate = lw.TARGET_RECORDS_IN_WINDOW / 20_000_000  # ideal: 20 ms
    assert lw.choose_window_ns(rate, 50_000_000) == 20_000_000
    assert lw.choose_window_ns(rate, 30_000_000) == 30_000_000  # within a factor 2.5: sticky
    assert lw.choose_window_ns(0.0, 30_000_000) == 30_000_000
    assert lw.choose_window_ns(1.0, 50_000_000) == min(lw.WINDOW_LADDER_NS)


def test_strip_clock_pans_within_what_is_kept_and_a_restart_keeps_a_fixed_width() -> None:
    clock = lw.StripClock(pan_windows=8)
    clock.fix(1_000_000)
    clock.observe(100_000_000, 0)
    clock.pan(50_000_000)
    assert clock.offset_ns == 8_000_000 and clock.end_ns == 92_000_000  # eight windows back at most
    assert clock.time_at(0.5) == 91_500_000 and clock.kept_ns == 10_000_000
    clock.zoom(1.0, 2.0)
    assert clock.window_ns == 2_000_000 and clock.end_ns == 92_000_000  # about the end: it stays put
    clock.restart()
    assert (clock.window_ns, clock.offset_ns, clock.now_ns, clock.last_ns) == (2_000_000, 0, 0, None)
    clock.pan(5)
    assert clock.offset_ns == 0  # nothing before the start to pan to
    clock.live()
    assert clock.window_ns == lw.DEFAULT_WINDOW_NS


def test_pixel_runs_clip_merge_and_own_each_column_once() -> None:
    # 400 alternating 1-ns segments inside one pixel (1000 ns): one run, not 400.
    tiny = [(10_000 + k, 10_001 + k, 1 + k % 2) for k in range(400)]
    runs = ch.pixel_runs(tiny, 100_000, 100_000, 0, 100)
    assert len(runs) == 1 and runs[0][1] - runs[0][0] == 1
    # Clipped to the window, neighbours of one code merged, a short one still gets a pixel.
    segs = [(-50, 40_000, 1), (40_000, 60_000, 1), (60_000, 60_010, 2), (60_010, 100_000, 3)]
    assert ch.pixel_runs(segs, 100_000, 100_000, 0, 100) == [(0, 60, 1), (60, 61, 2), (61, 100, 3)]


def test_yield_columns_mark_a_column_switched_if_any_yield_in_it_switched() -> None:
    yields = [(500, False), (503, True), (900, False), (50, True), (1_200, True)]
    marks = ch.yield_columns(yields, 1_000, 1_000, 0, 100)  # 10 ns per pixel; t=1200 is in the future
    assert marks == [(5, True), (50, True), (90, False)]
    dense = [(t, t % 20 == 0) for t in range(0, 1_000, 10)]  # a yield a pixel, every other switched
    spaced = ch.yield_columns(dense, 1_000, 1_000, 0, 100, spacing=4)
    assert [x for x, _ in spaced] == list(range(0, 101, 4))  # a comb, not a bar
    assert all(switched for _, switched in spaced[1:-1])  # each 4 px column holds a switched yield


def test_lane_history_merges_sub_quantum_segments_and_stays_bounded() -> None:
    lane = LaneHistory(maxlen=50)
    lane.switch(0, 1, 0, 100)
    lane.switch(1_000, 2, 1, 100)  # task 1 for 1000 ns: kept as is
    for k in range(40):  # 40 switches 10 ns apart: merged into buckets of >= 100 ns
        lane.switch(1_010 + 10 * k, 1 + k % 2, 2 - k % 2, 100)
    assert lane.segments[0] == (0, 1_000, 1)
    assert all(end - start >= 100 for start, end, _ in list(lane.segments)[1:])
    for k in range(500):
        lane.switch(10_000 + 1_000 * k, 1 + k % 3, 1 + (k - 1) % 3, 100)
    assert len(lane.segments) == 50
    lane.prune(400_000)
    assert lane.segments[0][1] >= 400_000
    assert lane.task_segments(600_000)[-1] == (509_000, 600_000, lane.open_code)


def test_neighbouring_quiet_cpus_share_a_row_and_only_they() -> None:
    assert ch.quiet_rows([False, False, True, True, True]) == [(0, 0), (1, 1), (2, 4)]
    assert ch.quiet_rows([True, False, True, False]) == [(0, 0), (1, 1), (2, 2), (3, 3)]  # alone: own row
    assert ch.quiet_rows([True, True, False, True, True]) == [(0, 1), (2, 2), (3, 4)]
    assert ch.quiet_rows([]) == []


def test_a_lane_is_quiet_until_anything_but_idle_shows_on_it() -> None:
    lane = LaneHistory()
    assert lane.quiet()
    lane.switch(0, 0, 0, 100)
    assert lane.quiet()  # idle to idle
    busy = LaneHistory()
    busy.switch(0, 5, 0, 100)
    busy.switch(1_000, 0, 5, 100)  # task 5 ran from t = 0 to 1 us, idle since
    assert not busy.quiet()
    irq = LaneHistory()
    irq.irq(500, 100, 200)
    assert not irq.quiet()
    running = LaneHistory()
    running.open_code = 3
    assert not running.quiet()


# ---- pure helpers: run queues ---------------------------------------------------------------------


def test_key_axis_range_is_stable_while_the_keys_fit() -> None:
    lo, hi = rs.stable_range(-2_000_000, 6_000_000, None)
    assert lo <= -2_000_000 and hi >= 6_000_000 and lo <= 0 <= hi
    assert rs.stable_range(-1_000_000, 5_000_000, (lo, hi)) == (lo, hi)
    assert rs.stable_range(0, 60_000_000, (lo, hi))[1] >= 60_000_000
    assert rs.stable_range(0, 100, None)[1] - rs.stable_range(0, 100, None)[0] >= rs.MIN_SPAN_NS
    assert rs.key_to_x(0, (-10, 30), 100, 400) == 200


def o1_entry(tid: int, array: str, prio: int, running: bool = False) -> O1Entry:
    return O1Entry(tid, running, False, array, prio, 120, 99 * 4_000_000, 100 * 4_000_000, 0)  # type: ignore[arg-type]


def test_prio_rows_stack_levels_and_words() -> None:
    entries = [o1_entry(1, "active", 125, True), o1_entry(2, "expired", 120), o1_entry(3, "active", 125)]
    assert rs.prio_rows(entries) == [120, 125]
    assert rs.o1_slice_words(entries[0], 4_000_000) == "slice 99/100 jiffies"
    assert rs.stack_levels([(0, 50), (30, 80), (60, 90), (100, 120)], gap=5) == [0, 1, 0, 0]
    bfs = BfsEntry(4, True, False, 41, False, 3_000_000, 1, 0)
    assert (
        rs.bfs_wordings(bfs, 38)[0]
        == "deadline 41 (now +3 jiffies) · running on cpu 1, slice 3 ms left · cpu 0 only"
    )
    # A row short of room leaves whole clauses out, the deadline's words last.
    assert rs.bfs_wordings(bfs, 38)[1:] == [
        "deadline 41 (now +3 jiffies) · slice 3 ms left · cpu 0 only",
        "deadline 41 (now +3 jiffies) · slice 3 ms left",
        "deadline 41 (now +3 jiffies)",
        "deadline 41",
    ]


def test_a_label_above_its_ring_keeps_its_leader_line_off_other_boxes() -> None:
    # The playground's "yield: picked again at once" sat up and to the right of the yielder, and its
    # leader line ran through the hog's box and its "wait_runtime" line. Straight above is free here.
    ring, hog = QRectF(100, 200, 200, 40), QRectF(210, 140, 140, 45)
    size, bounds = QSize(260, 24), QRectF(0, 0, 460, 250)
    spot = ldg.free_spot(ring, size, bounds, [ring, hog])
    assert spot is not None and spot.bottom() < ring.top() and not spot.intersects(hog)
    a, b = QPointF(spot.center().x(), spot.bottom()), QPointF(ring.center().x(), ring.top())
    assert not any(hog.contains(a + (b - a) * (k / 50)) for k in range(51)), spot
    assert not ldg._leader_crosses(spot, ring, [hog])
    assert ldg._leader_crosses(QRectF(200, 90, 260, 24), ring, [hog])  # where it went before


def test_free_spot_avoids_what_is_taken() -> None:
    ring, size, bounds = QRectF(100, 100, 50, 20), QSize(60, 20), QRectF(0, 0, 400, 300)
    first = ldg.free_spot(ring, size, bounds, [])
    assert first.left() > ring.right() and first.center().y() == ring.center().y()
    assert first is not None
    other = ldg.free_spot(ring, size, bounds, [first])
    assert other is not None and not other.intersects(first) and bounds.contains(other)
    assert ldg.free_spot(ring, size, bounds, [bounds]) is None  # no room anywhere: no label


def test_arrow_bulges_up_for_a_rightward_move() -> None:
    ctrl = ldg.arrow_control(QPointF(0, 100), QPointF(200, 100))
    assert ctrl.x() == 100 and ctrl.y() < 100


def _curve(a: QPointF, ctrl: QPointF, b: QPointF) -> list[QPointF]:
    return [a * (1 - t) ** 2 + ctrl * (2 * t * (1 - t)) + b * t**2 for t in (k / 40 for k in range(41))]


@pytest.mark.parametrize(
    ("frm", "ring"),
    [
        (QRectF(100, 130, 200, 40), QRectF(190, 85, 190, 44)),  # CFS: the row above, touching (2007)
        (QRectF(100, 200, 200, 40), QRectF(300, 40, 150, 40)),  # O(1): active to expired, far apart
        (QRectF(100, 40, 120, 40), QRectF(300, 40, 120, 40)),  # along one row
    ],
)
def test_a_yields_arrow_starts_on_an_edge_and_crosses_no_chip(frm: QRectF, ring: QRectF) -> None:
    # The arrow started at the centre of the spot the yielder ran in, where the chip picked after it now
    # is: its dot and line covered "iperf-data" and its wait_runtime in the 2007 run queue.
    a, ctrl, b = ldg.arrow_path(frm, ring)
    inside = [pt for pt in _curve(a, ctrl, b) for r in (frm, ring) if r.adjusted(2, 2, -2, -2).contains(pt)]
    assert not inside, inside
    assert not frm.adjusted(1, 1, -1, -1).contains(a) and frm.adjusted(-1, -1, 1, 1).contains(a)


@pytest.mark.parametrize(
    ("frm", "ring", "wanted"),
    [
        (QRectF(100, 130, 200, 40), QRectF(190, 85, 190, 45), True),  # the row above, outlines touching
        (QRectF(100, 40, 120, 40), QRectF(300, 40, 120, 40), True),  # along one row, clear of each other
        (QRectF(584, 630, 196, 46), QRectF(574, 632, 198, 44), False),  # 2007: in place, 10 px to the left
        (QRectF(100, 40, 200, 40), QRectF(150, 60, 200, 40), False),  # half over its old spot
    ],
)
def test_a_yield_that_lands_where_it_ran_gets_no_arrow(frm: QRectF, ring: QRectF, wanted: bool) -> None:
    # An arrow between overlapping spots ran from one edge back across the chip to the other, through the
    # reporter's "wait_runtime −7.09 ms" (the README's 2007 screenshot).
    assert ldg.arrow_wanted(frm, ring) is wanted


# ---- the CPU lanes --------------------------------------------------------------------------------


@pytest.fixture
def lanes(qtbot) -> Iterator[CpuLanesPanel]:
    panel = CpuLanesPanel()
    qtbot.addWidget(panel)
    panel.resize(1000, 220)
    yield panel


@pytest.mark.parametrize("policy", POLICIES)
def test_lanes_draw_every_policy(lanes: CpuLanesPanel, policy: str) -> None:
    sim = story(policy)
    sim.advance(50_000_000)
    for _ in range(30):
        lanes.render(sim.advance(1_000_000))
    assert lanes.lane_count == 1
    segs = lanes.lanes[0].task_segments(sim.now_ns)
    assert {code for _, _, code in segs} <= {0, 1, 2} and segs
    assert lanes.lanes[0].irqs, "the NIC's interrupts show on the lane"
    assert lanes.grab().size() == QSize(1000, 220)
    assert ink_pixels(lanes) > 500


def test_lanes_two_cpus_and_clicks(lanes: CpuLanesPanel, qtbot, two_cpus: Path) -> None:
    sim = Simulation(load_scenario(str(two_cpus)))
    for _ in range(40):
        lanes.render(sim.advance(500_000))
    assert lanes.lane_count == 2
    assert all(lane.segments for lane in lanes.lanes)
    _, top, lane_h, _ = lanes._geometry()
    xa, xb, tid = lanes._runs[1][0][-1]
    with qtbot.waitSignal(lanes.task_clicked) as blocker:
        qtbot.mouseClick(
            lanes, Qt.MouseButton.LeftButton, pos=QPoint((xa + xb) // 2, int(top + 1.5 * lane_h))
        )
    assert blocker.args == [tid]


def test_following_a_task_fades_the_others_on_the_strips(lanes: CpuLanesPanel) -> None:
    sim = story("cfs-2.6.23")
    for _ in range(60):
        lanes.render(sim.advance(1_000_000))
    runs = lanes._runs[0][0]
    followed = max(code for _, _, code in runs)
    other = next(r for r in runs if 0 < r[2] != followed and r[1] - r[0] > 4)
    mine = next(r for r in runs if r[2] == followed and r[1] - r[0] > 4)
    _, top, lane_h, _ = lanes._geometry()
    y = int(top + lane_h * 0.55)  # under the names, above the interrupts
    before = lanes.grab().toImage()
    lanes.follow(followed)
    after = lanes.grab().toImage()
    assert after.pixelColor(other[0] + 2, y).lightness() > before.pixelColor(other[0] + 2, y).lightness() + 40
    assert after.pixelColor(mine[0] + 2, y) == before.pixelColor(mine[0] + 2, y)


def test_lanes_history_stays_bounded_when_fast_forwarding(lanes: CpuLanesPanel) -> None:
    sim = story("o1")
    for _ in range(15):
        snap = sim.advance(250_000_000)  # a fast-forward frame: hundreds of records
        lanes.render(snap)
    assert len(snap.events) > 200
    lane = lanes.lanes[0]
    assert len(lane.segments) <= ch.HISTORY_MAX and len(lane.irqs) <= ch.IRQS_MAX
    assert lanes.kept_ns < sim.now_ns  # the run is longer than what the lanes keep
    assert lane.segments[0][1] >= sim.now_ns - lanes.kept_ns  # older history was dropped
    assert sum(len(r[0]) for r in lanes._runs) <= 1000  # at most one run per pixel column


def test_idle_cpus_share_a_lane_when_asked_until_one_runs_something(lanes: CpuLanesPanel, qtbot) -> None:
    sim = Simulation(load_scenario("cfs-yield-2007").with_overrides({"machine.cpus": 8}))
    for _ in range(20):
        lanes.render(sim.advance(1_000_000))
    assert [r for r, *_ in lanes._rows] == list(range(8))  # a lane each until the window asks
    full = lanes.needed_height()
    with qtbot.assertNotEmitted(lanes.needed_height_changed):  # the window asked: no signal back to it
        lanes.merge_quiet(True)
    assert lanes._rows == [(0, 0), (1, 1), (2, 7)]  # the story's two threads on CPU 0 and 1
    assert lanes.needed_height() < full and lanes.needed_height(merged=False) == full
    rects = lanes.lane_rects()
    assert len(rects) == 8 and len({r.getRect() for r in rects[2:]}) == 1  # CPU 2-7 in one lane
    assert rects[2].top() > rects[1].bottom()
    head = QPointF(20, (rects[2].center().y()) / lanes.zoom)
    assert lanes.describe_at(head).startswith("CPU 2–7: idle")
    assert lanes.tid_at(head) == 0
    lanes.lanes[4].switch(sim.now_ns - 20_000, 1, 0, 1)  # something ran on CPU 4
    lanes.lanes[4].switch(sim.now_ns - 10_000, 0, 1, 1)
    with qtbot.waitSignal(lanes.needed_height_changed, timeout=0):  # the window lays out again
        lanes._relayout()
    assert lanes._rows == [(0, 0), (1, 1), (2, 3), (4, 4), (5, 7)]
    lanes.merge_quiet(False)
    assert len(lanes._rows) == 8


def test_compact_lanes_asked_for_by_the_window_are_closer_together(lanes: CpuLanesPanel, qtbot) -> None:
    sim = Simulation(load_scenario("qdisc-fairness-2011").with_overrides({"machine.cpus": 4}))
    lanes.render(sim.advance(2_000_000))
    lanes.resize(800, lanes.needed_height())
    full, least = lanes.needed_height(), lanes.min_lane_px()
    with qtbot.assertNotEmitted(lanes.needed_height_changed):  # the window asked: no signal back to it
        lanes.compact_lanes(True)
    step = (cl.MIN_LANE_H - cl.COMPACT_LANE_H) * lanes.zoom
    assert lanes.needed_height() == pytest.approx(full - 4 * step, abs=1)
    assert lanes.needed_height(compact=False) == full and lanes.min_lane_px() == least - step
    lanes.resize(800, lanes.needed_height())
    rects = lanes.lane_rects()
    assert len(rects) == 4 and all(r.height() >= lanes.min_lane_px() - 0.5 for r in rects)
    assert all(a.bottom() < b.top() for a, b in itertools.pairwise(rects))
    lanes.compact_lanes(False)
    assert lanes.needed_height() == full


def test_a_strip_with_no_yields_to_mark_gives_their_band_to_the_tasks(qapp) -> None:
    # With eight CPUs a lane's strip is 14 px, and the yield marks' 10 px band above it left the 2011
    # senders (which never yield) a 4 px line. Until a yield is seen the strip takes the band's height.
    from gui.draw.lane_painting import YIELD_H, paint_strip

    def pixel_at(y: int, yield_band: bool) -> QColor:
        image = QImage(120, 20, QImage.Format.Format_ARGB32)
        image.fill(palette.BACKGROUND)
        p = QPainter(image)
        paint_strip(p, ([(10.0, 110.0, 1)], [], [], []), QRectF(0, 0, 120, 14), {1: "x"}, QFont(), yield_band)
        p.end()
        return image.pixelColor(60, y)

    assert pixel_at(2, True) == palette.BACKGROUND  # the band, empty
    assert pixel_at(2, False) != palette.BACKGROUND  # the task's colour
    assert pixel_at(YIELD_H + 2, True) == pixel_at(YIELD_H + 2, False) != palette.BACKGROUND
    assert pixel_at(7, True) != palette.BACKGROUND  # a short strip's band takes at most 40 % of it


def test_lanes_window_reset_and_dequeuer(lanes: CpuLanesPanel) -> None:
    sim = story("cfs-2.6.24")
    snap = sim.advance(30_000_000)
    lanes.set_window_ns(5_000_000)
    lanes.render(snap)
    assert lanes.window_ns == 5_000_000
    lanes.set_window_ns(None)
    assert lanes.window_ns == lanes.clock.auto_ns
    qdisc = QdiscView(
        "prio", (BandView(0, 1, 100, 5, 0, ((0, 1),)),), 6, 5, 0, 0, 1, (5,), (6,), 0, -1, (), -1,
        "time", 64, 3, (), "dummy", 0, 0, False, 1.0,
    )  # fmt: skip
    lanes.render(dataclasses.replace(sim.advance(1_000_000), qdisc=qdisc))
    assert lanes._dequeuer == 0
    lanes.reset()
    assert lanes.lane_count == 0 and lanes._runs == []
    assert ink_pixels(lanes) > 0  # the legend and axis still paint


def test_render_with_a_paint_device_is_qwidget_render(lanes: CpuLanesPanel) -> None:
    lanes.render(story("o1").advance(60_000_000))
    img = QImage(lanes.size(), QImage.Format.Format_ARGB32)
    img.fill(QColor("#FF0000"))
    lanes.render(img)  # how an export draws one panel
    assert img.pixelColor(2, 2) == QColor("#FFFFFF")


# ---- the run-queue panel --------------------------------------------------------------------------


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def rq_panel(qtbot, clock: FakeClock) -> Iterator[RunqueuePanel]:
    panel = RunqueuePanel(clock=clock)
    qtbot.addWidget(panel)
    panel.resize(1000, 320)
    yield panel


@pytest.mark.parametrize("policy", POLICIES)
def test_runqueue_draws_each_policy_and_marks_the_landing(rq_panel: RunqueuePanel, policy: str) -> None:
    sim = story(policy)
    sim.advance(60_000_000)
    snap = run_until_landing(sim, [rq_panel], LANDINGS[policy])
    assert rq_panel.section_kinds == [VIEW_KINDS.get(policy, "EevdfView")]
    landing = rq_panel.last_landing
    assert landing is not None and landing.outcome.landing == LANDINGS[policy]
    assert landing.words == POLICIES[policy].describe_landing(landing.outcome)  # the policy's own words
    assert landing.name == "iperf-reporter" and landing.text.startswith("sched_yield() by iperf-reporter")
    assert landing.to_rect is not None and landing.label_rect is not None  # the mark is drawn
    assert {c.tid for c in rq_panel.scene.chips} == {e.tid for e in snap.runqueues[0].entries}
    assert rq_panel.grab().size() == QSize(1000, 320)
    assert ink_pixels(rq_panel) > 500


def test_o1_yield_lands_in_the_expired_array_with_an_arrow(rq_panel: RunqueuePanel) -> None:
    sim = story("o1")
    sim.advance(60_000_000)
    for _ in range(50):  # a yield while the data thread sleeps is picked again at once: wait for another
        snap = run_until_landing(sim, [rq_panel], "expired_array")
        landing = rq_panel.last_landing
        assert landing is not None
        if not landing.picked_again:
            break
    entry = next(e for e in snap.runqueues[0].entries if e.tid == landing.tid)
    assert entry.array == "expired"  # the data thread runs; the reporter waits for the swap
    assert landing.to_rect is not None and landing.to_rect.left() > rq_panel.width() / 2
    assert landing.from_rect is not None and landing.from_rect.left() < rq_panel.width() / 2
    assert ldg.landing_label(landing) == "yield sent it here"


def test_cfs_2623_in_place_yield_is_picked_again(rq_panel: RunqueuePanel) -> None:
    """The 2007 lesson: the reporter's yield re-keys it in place, it stays leftmost and keeps the CPU."""
    sim = story("cfs-2.6.23")
    sim.advance(60_000_000)
    kept = 0
    for _ in range(10):
        run_until_landing(sim, [rq_panel], "in_place")
        landing = rq_panel.last_landing
        assert landing is not None
        kept += landing.picked_again
    assert kept >= 5
    assert ldg.landing_label(landing) in ("yield: picked again at once", "yield sent it here")
    tags = [t for c in rq_panel.scene.chips for t, _ in c.tags]
    assert "leftmost: picked again" in tags or "runs next" in tags


def test_a_chip_whose_key_is_at_the_right_end_keeps_over_it_and_its_tag_goes_left(
    rq_panel: RunqueuePanel,
) -> None:
    # The 2009 story under CFS 2.6.24: the server's key is min_vruntime, at the axis's right end, and its
    # "leftmost: picked again" tag at its right pushed the chip 15 ms to the left of its key.
    sim = Simulation(load_scenario("bfs-saturated-2009"))
    rq_panel.resize(500, 320)
    sim.advance(1_999_000_000)
    for _ in range(110):  # played: the keys' trails hold the reporter's at its wakeup at 2 s, 20 ms left
        rq_panel.render(sim.advance(100_000))
    (chip,) = rq_panel.scene.chips  # the reporter asleep again: the server alone
    fm = QFontMetrics(rq_panel._fonts[rs.BOLD])
    (tag,) = chip.tag_rects(fm)
    stems = [a.x() for a, b, _pen in rq_panel.scene.lines if a.x() == b.x() and a.y() == chip.rect.bottom()]
    assert stems and chip.rect.left() <= stems[0] <= chip.rect.right(), (chip.rect, stems)
    assert chip.tags_left and tag.right() <= chip.rect.left()
    assert tag.left() >= 0 and chip.rect.right() <= rq_panel.width()


@pytest.mark.parametrize(("width", "label"), [(480, "120"), (640, "prio 120")])
def test_an_o1_row_label_gives_way_to_the_chip_s_name(
    rq_panel: RunqueuePanel, width: int, label: str
) -> None:
    # At 1280x720 "prio 120" left the running chip "▶ iperf-rep…"; where the row is that narrow the
    # label is the number alone (the caption says "by prio"), and the name shows whole.
    rq_panel.resize(width, 320)
    rq_panel.render(story("o1").advance(2_000_000_000))
    assert [c.title for c in rq_panel.scene.chips] == ["▶ iperf-reporter"]
    texts = [t[1] for t in rq_panel.scene.texts]
    assert texts.count(label) == 2  # a row in each array
    assert ("active array, by prio" in texts) == (label == "120")


def test_compat_yield_sends_the_reporter_rightmost(rq_panel: RunqueuePanel) -> None:
    sim = story("cfs-2.6.24", compat=1)
    sim.advance(60_000_000)
    run_until_landing(sim, [rq_panel], "rightmost")
    landing = rq_panel.last_landing
    assert landing is not None and landing.words.startswith("rightmost (vruntime ")


def test_landing_fades_after_a_few_wall_seconds_but_its_words_stay(
    rq_panel: RunqueuePanel, clock: FakeClock
) -> None:
    sim = story("cfs-2.6.23")
    sim.advance(60_000_000)
    run_until_landing(sim, [rq_panel], "in_place")
    landing = rq_panel.last_landing
    assert landing is not None and rq_panel.landing_alpha(landing) == 1.0
    clock.now += rp.LANDING_S + 1
    assert rq_panel.landing_alpha(landing) == 0.0
    assert rq_panel.last_landing is landing  # the footer keeps saying what the last yield did
    assert ink_pixels(rq_panel) > 500


def texts_after_an_in_place_yield(rq_panel: RunqueuePanel, size: tuple[int, int]) -> list[str]:
    """The texts the panel paints at ``size`` once the 2007 reporter's yield has landed in place."""
    from gui.draw import text_log

    sim = story("cfs-2.6.23")
    sim.advance(60_000_000)
    run_until_landing(sim, [rq_panel], "in_place")
    rq_panel.resize(*size)
    rq_panel.render(sim.advance(1))
    image = QImage(rq_panel.size(), QImage.Format.Format_ARGB32)
    with text_log.recording() as drawn:
        rq_panel.render(image)
    return [d.text for d in drawn]


def test_a_narrow_footer_says_where_the_yield_went_in_full(rq_panel: RunqueuePanel) -> None:
    # A projector's run-queue panel drew "last sched_yield() by yielder → in place (fair_k…": it drops
    # "last", then the key's value, before it cuts anything.
    footer = [t for t in texts_after_an_in_place_yield(rq_panel, (480, 320)) if "sched_yield() by" in t]
    assert footer and not footer[0].endswith("…"), footer
    assert footer[0].startswith(("last sched_yield() by iperf-reporter → in place", "sched_yield() by"))
    assert "in place" in footer[0]


def test_large_text_in_a_narrow_section_keeps_its_headline_and_footer_whole(rq_panel: RunqueuePanel) -> None:
    # Large text at 1366x768: "CPU 0 · CFS: by fair_key, leftm…" over "sched_yield() by iperf-reporter
    # → in…". A lone section's headline may leave "CPU 0" out, and the footer says "yield by", before
    # either is cut.
    from gui.draw import theme

    theme.set_theme(theme.make_theme("large", 1.0))
    try:
        rq_panel.apply_theme()
        texts = texts_after_an_in_place_yield(rq_panel, (460, 330))
    finally:
        theme.set_theme(theme.make_theme("standard", 1.0))
    assert "CFS: by fair_key, leftmost first" in texts, texts
    footer = [t for t in texts if "iperf-reporter →" in t]
    assert footer == ["yield by iperf-reporter → in place"], texts


def test_a_headline_names_its_cpu_unless_it_is_alone_and_short_of_room() -> None:
    view = Cfs2623View(cpu=1, entries=(), fair_clock_ns=0)
    wide, narrow = rs.HEADLINES[Cfs2623View]
    assert rs.headline(view, 900, False, lambda t: True) == f"CPU 1 · {wide}"
    assert rs.headline(view, 500, False, lambda t: True) == f"CPU 1 · {narrow}"
    assert rs.headline(view, 900, False, lambda t: "tasks" not in t) == f"CPU 1 · {narrow}"
    assert rs.headline(view, 500, True, lambda t: not t.startswith("CPU")) == narrow
    assert rs.headline(view, 500, False, lambda t: False) == f"CPU 1 · {narrow}"  # to be cut: it says CPU 1


def test_a_noop_yield_does_not_replace_a_fresh_landing(rq_panel: RunqueuePanel, clock: FakeClock) -> None:
    snap = story("o1").advance(70_000_000)
    moved = (YieldRecord(snap.t_ns, 0, 2, YieldOutcome("expired_array", prio=125), True),)
    rq_panel.render(dataclasses.replace(snap, events=moved))
    noop = (YieldRecord(snap.t_ns, 0, 2, YieldOutcome("unchanged", "alone", noop=True), False),)
    clock.now += rp.HOLD_S / 2
    rq_panel.render(dataclasses.replace(snap, events=noop))
    assert rq_panel.last_landing is not None and rq_panel.last_landing.words == "expired array (prio 125)"
    clock.now += rp.HOLD_S
    rq_panel.render(dataclasses.replace(snap, events=noop))
    assert rq_panel.last_landing is not None and rq_panel.last_landing.words == "alone: no-op"


@pytest.mark.parametrize("policy", POLICIES)
def test_runqueue_two_cpus(rq_panel: RunqueuePanel, qtbot, two_cpus: Path, policy: str) -> None:
    sim = Simulation(load_scenario(str(two_cpus)).with_overrides({"sched.policy": policy}))
    rq_panel.resize(1000, 560)
    for _ in range(40):
        rq_panel.render(sim.advance(500_000))
    # BFS keeps one global queue: drawn once.
    assert len(rq_panel.section_kinds) == (1 if policy == "bfs" else 2)
    chip = rq_panel.scene.chips[-1]
    with qtbot.waitSignal(rq_panel.task_clicked) as blocker:
        qtbot.mouseClick(rq_panel, Qt.MouseButton.LeftButton, pos=chip.rect.center().toPoint())
    assert blocker.args == [chip.tid]
    assert ink_pixels(rq_panel) > 500
    rq_panel.reset()
    assert rq_panel.last_landing is None and rq_panel.scene.chips == []


def test_bfs_flags_expired_deadlines_below_the_jiffy_line(rq_panel: RunqueuePanel) -> None:
    entries = (
        BfsEntry(1, True, False, 9, False, 6_000_000, 0, -1),
        BfsEntry(2, False, True, 4, True, 0, -1, -1),
        BfsEntry(3, False, False, 12, False, 0, -1, -1),
    )
    snap = story("bfs").advance(10_000_000)
    rq_panel.render(dataclasses.replace(snap, runqueues=(BfsView(0, entries, 6),)))
    tags = {c.tid: [t for t, _ in c.tags] for c in rq_panel.scene.chips}
    assert tags == {1: [], 2: ["expired deadline", "runs next"], 3: []}
    texts = [t[1] for t in rq_panel.scene.texts]
    assert any("now: jiffies 6" in t for t in texts)


def test_bfs_s_now_line_keeps_its_words_inside_a_narrow_panel(rq_panel: RunqueuePanel) -> None:
    # At 500 px the line read "now: jiffies 100; deadlines above this line have passe" and ran off the
    # panel; and the first chip's landing ring crossed the headline above it.
    entries = (
        BfsEntry(1, True, False, 9, False, 6_000_000, 0, -1),
        BfsEntry(2, False, True, 4, True, 0, -1, -1),
    )
    snap = story("bfs").advance(10_000_000)
    rq_panel.resize(500, 320)
    rq_panel.render(dataclasses.replace(snap, runqueues=(BfsView(0, entries, 6),)))
    (now,) = [(rect, words) for rect, words, *_ in rq_panel.scene.texts if words.startswith("now")]
    assert now[0].right() <= rq_panel.width() - 8 and now[1] == "now: jiffies 6"
    # Right of the chips' column, where a yield's arrow between two chips never crosses the words.
    assert now[0].left() > max(c.rect.right() for c in rq_panel.scene.chips)
    assert rq_panel.describe_at(now[0].center()) == rl.now_tip(6)  # the rest is said on hover
    bounds = rq_panel.scene.section_rects[0]
    assert all(c.rect.top() - 5 >= bounds.top() for c in rq_panel.scene.chips)
    assert rl.now_words(6, lambda words: True).endswith("this line have passed")
    assert rl.now_words(6, lambda words: False) == "now"


def test_eevdf_lanes_and_tags_are_the_views_own(rq_panel: RunqueuePanel) -> None:
    """The panel draws eligibility and the next pick as the model says, even where a naive reading of the
    numbers would say otherwise (here: the earliest deadline is not the one picked)."""
    entries = (
        EevdfEntry(1, True, False, 1_000_000, 1_700_000, -200_000, 700_000, False),
        EevdfEntry(2, False, False, 600_000, 1_000_000, 200_000, 700_000, True),
        EevdfEntry(3, False, True, 700_000, 1_400_000, 100_000, 700_000, True),
    )
    snap = story("eevdf").advance(10_000_000)
    rq_panel.render(dataclasses.replace(snap, runqueues=(EevdfView(0, entries, 600_000, 800_000),)))
    tags = {c.tid: [t for t, _ in c.tags] for c in rq_panel.scene.chips}
    assert tags == {1: [], 2: [], 3: ["runs next"]}
    # The tag is no task's colour: a blue "runs next" beside task 3 read as task 1's (blue).
    (tag_color,) = [color for c in rq_panel.scene.chips for _, color in c.tags]
    assert tag_color.name() not in {palette.task_color(c.tid).name() for c in rq_panel.scene.chips}
    assert tag_color.name() not in {color.name() for color in palette.TASK_COLORS}
    rects = rq_panel.scene.rects
    assert rects[(0, 1)].top() > rects[(0, 2)].bottom()  # the running entry sits in the ineligible lane


@pytest.mark.parametrize(("height", "longest"), [(200, 1), (230, 3), (320, 4)])
def test_eevdf_lanes_say_what_they_hold_in_the_words_that_fit(
    rq_panel: RunqueuePanel, height: int, longest: int
) -> None:
    # Large text on a 1280x720 screen cut "vruntime left of the line, may run" off at its third line.
    entries = (
        EevdfEntry(1, True, False, 1_000_000, 1_700_000, -200_000, 700_000, False),
        EevdfEntry(2, False, True, 600_000, 1_000_000, 200_000, 700_000, True),
    )
    snap = story("eevdf").advance(10_000_000)
    rq_panel.resize(700, height)
    rq_panel.render(dataclasses.replace(snap, runqueues=(EevdfView(0, entries, 600_000, 800_000),)))
    line_h = QFontMetrics(rq_panel._fonts[rs.PLAIN]).lineSpacing()
    lanes = ("eligible", "ineligible")
    said = [(r, words) for r, words, *_ in rq_panel.scene.texts if words.startswith(lanes)]
    assert [words.split(":")[0].split("\n")[0] for _, words in said] == ["eligible", "ineligible"]
    for rect, words in said:
        assert (words.count("\n") + 1) * line_h <= rect.height() or "\n" not in words
    assert max(words.count("\n") + 1 for _, words in said) == longest  # the longest form that fits


def test_two_cpus_sit_side_by_side_where_stacked_they_would_be_rows(qtbot) -> None:
    # Two CPUs in a wide, short panel (1920x1080, 260 px) got a row each: one chip in 125 px of blank.
    assert rs.section_grid(2, 1000, 260) == (2, 1)  # side by side, each the panel's full height
    assert rs.section_grid(2, 1000, 400) == (1, 2)  # tall enough: stacked, each the panel's width
    assert rs.section_grid(2, 900, 260) == (1, 2)  # too narrow for two: the rows layout takes over
    assert rs.section_grid(1, 1000, 260) == (1, 1)
    assert rs.section_grid(4, 1000, 900) == (2, 2)  # as before: past two CPUs, two columns if wide
    panel = RunqueuePanel()
    qtbot.addWidget(panel)
    panel.resize(1000, 260)
    sim = Simulation(load_scenario("yield-playground").with_overrides({"machine.cpus": 2}))
    panel.render(sim.advance(50_000_000))
    left, right = panel.scene.section_rects[0], panel.scene.section_rects[1]
    assert left.top() == right.top() and right.left() > left.right() and left.height() > 200
    assert any(words.startswith("CPU 1 · CFS") for _, words, *_ in panel.scene.texts)  # a key axis each


def test_lane_ticks_read_round_instants_in_the_steps_unit() -> None:
    assert fmt.tick_label(2_345_000_000, 5_000_000) == "2345 ms"  # not "2.35 s" for two ticks
    assert fmt.tick_label(1_500_000, 500_000) == "1500 µs"
    assert fmt.tick_label(2_500_000_000, 500_000_000) == "2500 ms"
    assert fmt.tick_label(3_000_000_000, 1_000_000_000) == "3 s"


def test_many_cpus_in_a_short_panel_put_their_rows_in_columns(qtbot, clock: FakeClock) -> None:
    # Eight one-line rows do not fit 150 px one above the other (they once ran off the panel's bottom);
    # the playground's short task names fit two columns, CPU 0-3 down the first.
    panel = RunqueuePanel(clock=clock)
    qtbot.addWidget(panel)
    panel.resize(640, 150)
    sim = Simulation(load_scenario("yield-playground").with_overrides({"machine.cpus": 8}))
    panel.render(sim.advance(50_000_000))
    rects = panel.scene.section_rects
    assert sorted(rects) == list(range(8))
    assert all(QRectF(panel.rect()).contains(r) for r in rects.values()), rects
    assert rects[0].left() == rects[3].left() < rects[4].left() == rects[7].left()
    queued = {e.tid for rq in sim.snapshot().runqueues for e in rq.entries}
    assert {c.tid for c in panel.scene.chips} <= queued
    assert panel.scene.chips, "the tasks are drawn, not folded into '+n more'"


def test_idle_cpus_share_a_row_where_the_rows_would_run_off_the_panel(qtbot, clock: FakeClock) -> None:
    # The 2007 story on eight CPUs: two busy CPUs and six with nothing to run. The task names are too
    # long for two columns, and eight rows do not fit 150 px; CPU 2-7 once fell off the panel's foot.
    panel = RunqueuePanel(clock=clock)
    qtbot.addWidget(panel)
    panel.resize(420, 150)
    sim = Simulation(load_scenario("cfs-yield-2007").with_overrides({"machine.cpus": 8}))
    snap = sim.advance(50_000_000)
    idle = [rq.cpu for rq in snap.runqueues if not rq.entries]
    assert idle == [2, 3, 4, 5, 6, 7], idle  # the model's own answer: no load balancing moves them
    panel.render(snap)
    rects = panel.scene.section_rects
    assert sorted(rects) == list(range(8))
    assert all(QRectF(panel.rect()).contains(r) for r in rects.values()), rects
    assert len({rects[i].getRect() for i in idle}) == 1, "the idle CPUs share one row"
    assert rects[0].bottom() <= rects[1].top() and rects[1].bottom() <= rects[2].top()
    words = [text for _rect, text, *_ in panel.scene.texts]
    assert "CPU 2–7" in words and "CPU 0" in words and "CPU 1" in words, words
    assert {c.tid for c in panel.scene.chips} == {e.tid for rq in snap.runqueues for e in rq.entries}


def test_a_narrow_eevdf_axis_keeps_a_scale(rq_panel: RunqueuePanel) -> None:
    # The playground under EEVDF, its run queue 480 px wide: the axis showed "▲ avg_vruntime (V)" and
    # no number at all (its one tick, at V, under the name). It now names V short and labels two ticks.
    from gui.draw.formats import finer_step

    sim = Simulation(load_scenario("yield-playground").with_overrides({"sched.policy": "eevdf"}))
    rq_panel.resize(480, 320)
    for _ in range(20):
        rq_panel.render(sim.advance(5_000_000))
    words = [text for _rect, text, *_ in rq_panel.scene.texts]
    numbers = [w for w in words if w[:1] in "−+" and w.endswith(("ms", "µs", "ns", " s"))]
    assert "▲ V" in words and len(numbers) >= 2, words
    rects = [r for r, text, *_ in rq_panel.scene.texts if text in numbers or text == "▲ V"]
    assert not any(a.intersects(b) for i, a in enumerate(rects) for b in rects[i + 1 :])
    assert [finer_step(x) for x in (5e6, 2e6, 1e6, 0.5)] == [2e6, 1e6, 5e5, 0.2]


def test_idle_runs_join_only_neighbours_with_nothing_to_run() -> None:
    from gui.draw.runqueue_layouts import idle_runs

    def view(cpu: int, busy: bool) -> Any:
        return SimpleNamespace(cpu=cpu, entries=[object()] if busy else [])

    busy = [True, False, False, True, False, True, False, False, False]
    assert idle_runs([view(i, b) for i, b in enumerate(busy)]) == [[0], [1, 2], [3], [4], [5], [6, 7, 8]]


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("width", [1000, 470, 300])
def test_a_task_box_stays_inside_its_panel_and_off_the_panels_words(rq_panel, policy, width) -> None:
    # At 1366x768 the O(1) view's running "▶ iperf-reporter" box was wider than its row of the active
    # array: it ran over the expired array's "prio 120"; EEVDF's box with its tag was pushed left over
    # the words "eligible: vruntime left of the line". A box too wide for its room sheds its tags, then
    # its detail, then cuts its name. (300 px is below the panel's least width.)
    rq_panel.resize(width, 300)
    sim = story(policy)
    sim.advance(60_000_000)
    for _ in range(40):
        rq_panel.render(sim.advance(1_000_000))
        panel = QRectF(rq_panel.rect())
        for chip in rq_panel.scene.chips:
            assert panel.contains(chip.rect), (chip.title, chip.rect)
            for rect, words, *_ in rq_panel.scene.texts:
                assert not rect.intersects(chip.rect), (chip.title, words, chip.rect, rect)


# ---- an interval measured on the lanes ------------------------------------------------------------


def test_time_spent_takes_each_interrupt_off_the_task_it_ran_over() -> None:
    from gui.draw.lane_measure import Interval, time_spent

    lane = LaneHistory()
    lane.add(0, 1000, 5, 1)  # task 5, then idle, then task 7
    lane.add(1000, 1500, ch.IDLE, 1)
    lane.add(1500, 3000, 7, 1)
    lane.irq(800, 100, 300)  # hardirq 800-900 over task 5, softirq 900-1200 over task 5 and idle
    spent = time_spent(lane, Interval(500, 2000), 3000)
    assert spent == {5: 300, ch.IDLE: 300, 7: 500, ch.HARDIRQ: 100, ch.SOFTIRQ: 300}
    assert sum(spent.values()) == 1500


@pytest.mark.parametrize("scenario", ["cfs-yield-2007", "bfs-saturated-2009", "qdisc-fairness-2011"])
def test_a_measured_interval_says_what_the_model_charged(lanes: CpuLanesPanel, scenario: str) -> None:
    # The tip inside a marked interval gives each task's, hardirq's and softirq's time on the CPU as
    # the lane draws it: here the same nanoseconds the model charged (its sampled counters). In 2011
    # the lanes drew a sender running through its CPU's softirqs.
    from gui.draw.lane_measure import Interval, time_spent

    sim = Simulation(load_scenario(scenario), sample_ns=1_000_000)
    lanes.set_window_ns(50_000_000)
    for _ in range(300):
        snap = sim.advance(1_000_000)
        lanes.render(snap)
    lay, rows = snap.series_layout, {int(r[0]): r for r in snap.series}
    a, b = rows[200_000_000], rows[290_000_000]
    iv = Interval(200_000_000, 290_000_000)
    spent_by_cpu = [time_spent(lane, iv, sim.now_ns) for lane in lanes.lanes]
    assert len(spent_by_cpu) == len(snap.cpus)
    for cpu, spent in enumerate(spent_by_cpu):
        assert sum(spent.values()) == 90_000_000
        assert spent.get(ch.HARDIRQ, 0) == b[lay.cpu_hardirq_ns[cpu]] - a[lay.cpu_hardirq_ns[cpu]]
        assert spent.get(ch.SOFTIRQ, 0) == b[lay.cpu_softirq_ns[cpu]] - a[lay.cpu_softirq_ns[cpu]]
    assert sum(s.get(ch.SOFTIRQ, 0) for s in spent_by_cpu) > 0
    for k, task in enumerate(snap.tasks):
        got = sum(spent.get(task.tid, 0) for spent in spent_by_cpu)
        assert got == b[lay.task_exec_ns[k]] - a[lay.task_exec_ns[k]], task.name


def test_an_open_contexts_stretches_take_one_entry_where_nothing_is_lost() -> None:
    lane = LaneHistory()
    lane.irq(100, 20, 0)  # a hard interrupt, its NAPI softirq, more softirq: one entry
    lane.irq(120, 0, 30)
    lane.irq(150, 0, 50)
    lane.irq(200, 10, 0)  # a hard interrupt over the softirq: a new entry
    lane.irq(210, 0, 40)
    lane.irq(300, 0, 5)  # later, a softirq alone: no hardirq drawn for it
    assert list(lane.irqs) == [(100, 120, 200), (200, 210, 250), (300, 300, 305)]
    assert lane.irq_segments() == [
        (100, 120, ch.HARDIRQ),
        (120, 200, ch.SOFTIRQ),
        (200, 210, ch.HARDIRQ),
        (210, 250, ch.SOFTIRQ),
        (300, 305, ch.SOFTIRQ),
    ]


def test_a_shift_drag_marks_an_interval_and_a_shift_click_clears_it(lanes: CpuLanesPanel, qtbot) -> None:
    sim = story("cfs-2.6.23")
    for _ in range(60):
        lanes.render(sim.advance(1_000_000))
    _, top, lane_h, strip_w = lanes._geometry()
    y = int(top + lane_h / 2)
    x0, x1 = cl.LEFT_W + cl.PAD + 200, cl.LEFT_W + cl.PAD + 500
    shift = Qt.KeyboardModifier.ShiftModifier
    qtbot.mousePress(lanes, Qt.MouseButton.LeftButton, shift, QPoint(x0, y))
    qtbot.mouseMove(lanes, QPoint(x1, y))
    qtbot.mouseRelease(lanes, Qt.MouseButton.LeftButton, shift, QPoint(x1, y))
    iv = lanes.measured
    assert iv is not None and lanes.shown.offset_ns == 0, "a Shift+drag marks; it does not pan"
    assert iv.length_ns == pytest.approx(300 * lanes.window_ns / strip_w, rel=0.01)
    tip = lanes.describe_at(QPointF(x0 + 150, y))
    assert tip.startswith("the marked interval:") and "iperf-data" in tip and "%" in tip
    assert lanes.describe_at(QPointF(x0 - 50, y)).split("\n")[0] != tip.split("\n")[0]  # outside: no sum
    qtbot.mouseClick(lanes, Qt.MouseButton.LeftButton, shift, QPoint(x0, y))
    assert lanes.measured is None
    axis_y = top + len(lanes._runs) * lane_h + 10
    assert "Shift+drag" in lanes.describe_at(QPointF(x0, axis_y))  # the axis's tip says how


def test_crowded_interrupts_are_shaded_by_their_share_and_sparse_ones_stay_ticks() -> None:
    # The 2011 NIC's microsecond interrupts, about one every 100 µs, drew a solid black band at one
    # pixel each over lanes that spend 2 % of their time in hardirq.
    crowded = [(t, t + 1_500, t + 1_500) for t in range(0, 100_000_000, 100_000)]  # hardirq alone
    runs = ch.irq_runs(crowded, 100_000_000, 100_000_000, 0, 1000)  # 100 µs a pixel
    assert runs == [(0, 1000, ch.HARDIRQ, 0.25)]  # 1.5 % of each column, shown faint
    half = [(t, t, t + 50_000) for t in range(0, 100_000_000, 100_000)]  # softirq, half of every column
    assert ch.irq_runs(half, 100_000_000, 100_000_000, 0, 1000) == [(0, 1000, ch.SOFTIRQ, 0.5)]
    mixed = [(t, t + 30_000, t + 40_000) for t in range(0, 100_000_000, 100_000)]
    assert ch.irq_runs(mixed, 100_000_000, 100_000_000, 0, 1000) == [(0, 1000, ch.HARDIRQ, 0.5)]
    sparse = [(t, t + 20_000, t + 50_000) for t in range(0, 100_000_000, 1_000_000)]
    runs = ch.irq_runs(sparse, 100_000_000, 100_000_000, 0, 1000)
    segments = [(a, b, ch.HARDIRQ) for a, b, _ in sparse] + [(b, c, ch.SOFTIRQ) for _, b, c in sparse]
    expected = ch.pixel_runs(sorted(segments), 100_000_000, 100_000_000, 0, 1000)
    assert runs == [(xa, xb, code, 1.0) for xa, xb, code in expected]  # each a black tick, as before


def test_a_strips_tip_names_a_softirq_alone_as_a_softirq() -> None:
    # The 2011 transmit path's NET_TX softirq on a sender's CPU is no interrupt: its tip said
    # "interrupt on CPU 0 …: hardirq 0 ns, softirq …".
    from gui.draw.lane_tips import describe_strip

    lane = LaneHistory()
    lane.add(0, 10_000, 5, 1)
    lane.irq(2_000, 0, 3_000)
    lane.irq(7_000, 500, 1_000)
    words = {"px_ns": 10.0, "now_ns": 10_000, "quantum_ns": 1, "names": {5: "sender.0"}}
    assert (
        describe_strip(0, lane, 3_000, **words)
        == "softirq on CPU 0 from t = 0.000 002 000 s:\n3 000 ns (3 µs)"
    )
    assert describe_strip(0, lane, 7_200, **words).startswith(
        "interrupt on CPU 0 at t = 0.000 007 000 s:\nhardirq 500 ns"
    )


def test_time_spent_leaves_out_what_the_lane_no_longer_knows_of_its_interrupts() -> None:
    # Past the oldest interrupt a full lane keeps, the tasks would have been given the interrupts' time.
    from gui.draw.lane_measure import Interval, time_spent

    lane = LaneHistory(maxlen=4)
    lane.add(0, 100_000, 5, 1)
    for t in range(0, ch.IRQS_MAX + 10):
        lane.irq(10 * t, 0, 2)  # more than the lane keeps
    first = lane.irqs[0][0]
    assert lane.complete_from() == first > 0
    spent = time_spent(lane, Interval(0, first + 100), 100_000)
    assert spent == {5: 80, ch.SOFTIRQ: 20}  # only what it still knows: the last 100 ns


def test_the_lanes_mark_who_held_the_dequeuer_role_and_when(lanes: CpuLanesPanel) -> None:
    # The 2011 story is who dequeues: the lane heads named the dequeuer now, and nothing showed who had
    # been it. Each tenure is a yellow bar above its CPU's strip, the one in progress too.
    sim = Simulation(load_scenario("qdisc-fairness-2011"), sample_ns=1_000_000)
    lanes.resize(1000, 300)
    lanes.set_window_ns(50_000_000)
    for _ in range(200):
        snap = sim.advance(1_000_000)
        lanes.render(snap)
    assert snap.qdisc is not None
    held = [
        sum(row[1] - row[0] for row in lane.tenure_spans(snap.t_ns - 50_000_000, snap.t_ns).tolist())
        for lane in lanes.lanes
    ]
    assert max(held) > 0 and held.index(max(held)) in (0, 3)  # the CPUs without the NIC's interrupts
    now = snap.qdisc.dequeuer_cpu
    if now >= 0:  # the tenure in progress is drawn up to now
        assert lanes.lanes[now].open_tenure == snap.qdisc.dequeuer_since_ns <= snap.t_ns
    assert any(text == "dequeuer (RUNNING bit)" for _, text, _ in lanes._legend_layout()[0])
    image = lanes.grab().toImage()
    _, top, lane_h, _ = lanes._geometry()
    busiest = held.index(max(held))
    xs = [x for xa, xb, _ in lanes._runs[busiest][3] for x in range(xa, xb)]
    y = int(top + busiest * lane_h + 4)  # in the band above the strip
    assert sum(image.pixelColor(x, y) == palette.YELLOW for x in xs) > len(xs) / 2
    start, end, packets, _ = lanes.lanes[busiest].tenures[-1]
    tip = describe_strip_at(lanes, busiest, (start + end) / 2)
    assert f"CPU {busiest} held the dequeuer role" in tip and f"{packets} packets" in tip


def describe_strip_at(lanes: CpuLanesPanel, cpu: int, t: float) -> str:
    _, top, lane_h, strip_w = lanes._geometry()
    x = cl.LEFT_W + cl.PAD + strip_w * (1 - (lanes.view_end_ns - t) / lanes.window_ns)
    return lanes.describe_at(QPointF(x, top + cpu * lane_h + lane_h / 2))


@pytest.mark.parametrize("seed", range(20))
def test_bar_runs_are_the_pixel_runs_of_one_code(seed: int) -> None:
    import random

    rng = random.Random(seed)
    t, spans = 0, []
    for _ in range(rng.randint(0, 300)):
        t += rng.choice([0, 1, 50, 300, 3_000, 40_000])
        d = rng.choice([1, 20, 400, 5_000, 90_000])
        spans.append((t, t + d, ch.TENURE))
        t += d
    now = t + rng.randint(0, 50_000)
    for window, width in ((t // 2 + 1, 700.0), (200_000, 333.5), (10_000_000, 1000.0)):
        assert ch.bar_runs(spans, now, window, 298, width) == ch.pixel_runs(spans, now, window, 298, width)


def test_a_span_log_keeps_the_newest_rows_in_order_through_growth_and_drops() -> None:
    from collections import deque

    from gui.draw.span_log import SpanLog

    log, ref = SpanLog(3, 1000, end=2), deque(maxlen=1000)
    for k in range(5000):  # past its first array, its bound, and several compactions
        row = (10 * k, 10 * k + 3, 10 * k + 5)
        log.append(row)
        ref.append(row)
        if k % 7 == 0:  # an edit of the newest row, as a merged interrupt is
            row = (row[0], row[1], row[2] + 2)
            log.set_last(row)
            ref[-1] = row
        if k % 1500 == 1499:
            log.drop_ending_before(10 * k - 5000)
            while ref and ref[0][2] < 10 * k - 5000:
                ref.popleft()
    assert list(log) == list(ref) and len(log) == len(ref)
    assert log[0] == ref[0] and log[-1] == ref[-1]
    tail = log.ending_after(49_900)
    assert [tuple(r) for r in tail.tolist()] == [r for r in ref if r[2] > 49_900]
    with pytest.raises(IndexError):
        log[len(ref)]


def test_chips_a_short_lane_cannot_stack_go_side_by_side_instead_of_on_each_other(qtbot) -> None:
    from gui.draw.static_text import font_metrics

    # Large text on 1280x720: the EEVDF lanes hold one chip's height, and three chips near V were drawn
    # one over the other (their tags over their neighbours too).
    panel = RunqueuePanel()
    qtbot.addWidget(panel)
    panel.resize(470, 170)
    sets = {"sched.policy": "eevdf", "sched.yield_forfeit": 0}
    sim = Simulation(load_scenario("yield-playground").with_overrides(sets))
    sim.advance(2_000_000_000)
    crowded = 0
    for _ in range(40):
        panel.render(sim.advance(500_000))
        fm = font_metrics(panel._fonts[rs.BOLD])
        feet = [(c.footprint(fm), c.tid) for c in panel.scene.chips]
        for (a, ta), (b, tb) in itertools.combinations(feet, 2):
            assert not a.intersects(b), (ta, tb)
        crowded += len(feet) > 1
    assert crowded > 10, "the lanes held several chips at once"
