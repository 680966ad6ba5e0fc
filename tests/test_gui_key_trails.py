"""The key trails of the run-queue view (CFS: above the chips; EEVDF: each vruntime, behind both lanes):
the samples, and that each point drawn is the model's key at the instant it stands for."""

from __future__ import annotations

import itertools

import pytest
from PySide6.QtCore import QPointF
from qt_guard import leak_guard  # noqa: F401 - autouse fixture

from gui.draw.formats import exact_duration, exact_time, signed_duration
from gui.draw.key_axes import cfs_keys, trail_keys
from gui.draw.key_trails import GAP_PARTS, KeyTrails, trail_span_ns
from gui.panels.runqueue import RunqueuePanel
from model.scenario import load_scenario
from model.simulation import Simulation
from model.snapshot import Cfs2623View, Cfs2624View, EevdfView, Snapshot, SwitchRecord, YieldRecord


def test_trails_break_where_a_task_is_away_and_start_anew_when_time_goes_back() -> None:
    trails = KeyTrails()
    for t in range(101):  # task 1 all along, task 2 from t = 50, task 3 from 60 to 70
        trails.add(0, t, {1: -t} | ({2: t} if t >= 50 else {}) | ({3: 0} if 60 <= t <= 70 else {}))
    # From 60 back: the samples since, and the one before so that a trail reaches the top; a task's
    # run ends where it is away (task 3, closed first), or starts where it came.
    assert trails.paths(0, 100, 60) == [
        (3, [(t, 0) for t in range(60, 71)]),
        (1, [(t, -t) for t in range(39, 101)]),
        (2, [(t, t) for t in range(50, 101)]),
    ]
    assert trails.paths(1, 100, 60) == []  # another section: nothing yet
    trails.add(0, 100, {1: 7})  # the same instant again: it replaces the sample
    assert trails.paths(0, 100, 60)[-1] == (1, [*((t, -t) for t in range(39, 100)), (100, 7)])
    assert (2, [(t, t) for t in range(50, 100)]) in trails.paths(0, 100, 60)
    trails.add(0, 5, {1: 1})  # back in time (a rewind): the past starts anew
    assert trails.paths(0, 5, 60) == []


def test_samples_far_apart_are_not_joined() -> None:
    # A jump (the scrubber, a lesson's run) or frames far apart at high speed: no line over the gap.
    trails = KeyTrails()
    for t in (0, 1, 2, 100, 101):
        trails.add(0, t, {1: -t})
    assert GAP_PARTS * 10 == 300
    assert trails.paths(0, 101, 300) == [(1, [(0, 0), (1, -1), (2, -2)]), (1, [(100, -100), (101, -101)])]
    assert trails.paths(0, 101, 3_000) == [(1, [(0, 0), (1, -1), (2, -2), (100, -100), (101, -101)])]


def test_trail_span_crosses_the_axis_once_at_the_rate_keys_fall_behind() -> None:
    assert trail_span_ns((-10e6, 20e6), 2) == 100_000_000  # 30 ms × 2 tasks, up to a 1-2-5 step
    assert trail_span_ns((-1e6, 1e6), 1) == 2_000_000
    assert trail_span_ns((-1e6, 1e6), 0) == 2_000_000


@pytest.mark.parametrize("policy", ["cfs-2.6.23", "cfs-2.6.24", "eevdf"])
def test_each_trail_point_is_the_models_key_at_its_instant(qtbot, policy: str) -> None:
    clock = {"cfs-2.6.23": "fair_clock", "cfs-2.6.24": "min_vruntime", "eevdf": "V"}[policy]
    key = "vruntime" if policy == "eevdf" else "key"
    panel = RunqueuePanel()
    qtbot.addWidget(panel)
    panel.resize(700, 480)
    sim = Simulation(load_scenario("cfs-yield-2007").with_overrides({"sched.policy": policy}))
    sim.advance(100_000_000)
    seen: dict[int, dict[int, int]] = {}
    running: dict[int, set[int]] = {}
    for _ in range(120):
        snap = sim.advance(500_000)
        panel.render(snap)
        rq = snap.runqueues[0]
        assert isinstance(rq, (Cfs2623View, Cfs2624View, EevdfView))
        keys = trail_keys(rq)
        assert keys is not None
        seen[snap.t_ns] = keys
        if isinstance(rq, EevdfView):  # the lanes' words: left of V (a trail crossing it) is eligible
            assert all(e.eligible == (keys[e.tid] <= 0) for e in rq.entries)
        ran = {r.tid for r in snap.events if isinstance(r, SwitchRecord)}  # switched in during the frame
        running[snap.t_ns] = ran | {e.tid for e in rq.entries if e.running}
    now = snap.t_ns
    trails = panel.scene.trails
    tids = {tr.tid for tr in trails}
    assert len(tids) == 2, "the reporter and the data thread each leave a trail"
    lo, hi = panel._ranges[0]
    checked = 0
    for tr in trails:
        clip, per_px = tr.clip, tr.span_ns / tr.clip.height()
        ns_per_x = (hi - lo) / clip.width()
        assert tr.span_ns >= 10_000_000, "the trails reach back past a few switches"
        for pt in tr.points:
            t = now - (clip.bottom() - pt.y()) * per_px
            instant = min(seen, key=lambda s: abs(s - t))
            assert abs(instant - t) <= per_px, "each point stands at a sampled instant"
            if instant < now - tr.span_ns:
                continue  # the sample before the span: above the top, clipped
            rel = lo + (pt.x() - clip.left()) * ns_per_x
            assert rel == pytest.approx(seen[instant][tr.tid], abs=ns_per_x), "at the model's key"
            assert clip.left() - 1 <= pt.x() <= clip.right() + 1, "the axis takes every trail in"
            checked += 1
    assert checked > 100
    # The tip's words, checked on the model: a task's key moves right only over samples where it ran
    # (CPU time charged) and never moves right while it waits (the clock advances; EEVDF's V, a mean,
    # also jumps when a task joins or leaves the queue).
    moves = {"right": 0, "left": 0}
    for a, b in itertools.pairwise(sorted(seen)):
        for tid in seen[a].keys() & seen[b].keys():
            if seen[b][tid] > seen[a][tid]:
                joined_or_left = key == "vruntime" and seen[a].keys() != seen[b].keys()
                ran = tid in running[a] | running[b]
                assert ran or joined_or_left, f"task {tid} moved right at {b} without running"
                moves["right"] += 1
            elif seen[b][tid] < seen[a][tid]:
                moves["left"] += 1
    assert min(moves.values()) > 5, moves
    if key == "vruntime":  # the tip's and README's words: trails cross V as tasks turn (in)eligible
        crossings = [
            tid
            for a, b in itertools.pairwise(sorted(seen))
            for tid in seen[a].keys() & seen[b].keys()
            if (seen[a][tid] <= 0) != (seen[b][tid] <= 0)
        ]
        assert len(set(crossings)) == 2, crossings
    # Drawn: each task's trail changes the picture above the chips (over the clock's line too).
    top_chip = min(c.rect.top() for c in panel.scene.chips)
    with_trails = panel.grab().toImage()
    drawn, panel.scene.trails = panel.scene.trails, []
    without = panel.grab().toImage()
    panel.scene.trails = drawn
    shown = {
        tr.tid
        for tr in trails
        for pt in tr.points
        if pt.y() < top_chip - 4 and tr.clip.contains(pt)
        if with_trails.pixel(int(pt.x()), int(pt.y())) != without.pixel(int(pt.x()), int(pt.y()))
    }
    assert shown == tids
    inside = next(tr.clip for tr in trails)
    words = panel.describe_at(QPointF(inside.center().x(), inside.top() + 3))
    assert f"Trails: where each task's {key} sat" in words
    # Hovering a point names its sample: the task, the instant and the model's key there, exactly.
    tr = max(trails, key=lambda tr: len(tr.points))
    k = len(tr.points) // 2
    t_ns, rel_ns = tr.samples[k]
    assert rel_ns == seen[t_ns][tr.tid]
    said = panel.describe_at(tr.points[k]).split("\n")[0]
    name = next(t.name for t in snap.tasks if t.tid == tr.tid)
    assert said.startswith(f"{name} at t = {exact_time(t_ns)}")
    side = "past" if rel_ns >= 0 else "before"
    assert said.endswith(f"its {key} {exact_duration(abs(rel_ns))} {side} {clock}")


def test_a_compat_yield_sends_the_reporters_trail_to_the_right_end() -> None:
    """2007 lesson, watch 4: with sched_compat_yield = 1 a yield moves the reporter's key (what its
    trail draws) to the right of every other key, up from where it was."""
    sim = Simulation(load_scenario("cfs-yield-2007").with_overrides({"sched.compat_yield": 1}))
    sim.advance(100_000_000)
    reporter = next(t.tid for t in sim.advance(0).tasks if t.name == "iperf-reporter")
    before = cfs_keys(_cfs_view(sim.advance(0)))
    jumps = 0
    for _ in range(4_000):
        snap = sim.advance(20_000)
        keys = cfs_keys(_cfs_view(snap))
        moved = [
            r for r in snap.events if isinstance(r, YieldRecord) and r.tid == reporter and not r.outcome.noop
        ]
        if moved and len(keys) > 1 and reporter in before:
            assert keys[reporter] == max(keys.values()) and keys[reporter] > before[reporter]
            jumps += 1
        before = keys
    assert jumps > 10


def _cfs_view(snap: Snapshot) -> Cfs2623View:
    rq = snap.runqueues[0]
    assert isinstance(rq, Cfs2623View)
    return rq


def test_no_trail_joins_frames_as_far_apart_as_fast_speed_makes_them(qtbot) -> None:
    # At Fast (real time, 30 frames a second) a frame is 33 ms of the run: the keys zigzag every few
    # ms in between, and a line from frame to frame would draw motion that never happened.
    panel = RunqueuePanel()
    qtbot.addWidget(panel)
    panel.resize(700, 480)
    sim = Simulation(load_scenario("cfs-yield-2007"))
    for _ in range(30):
        panel.render(sim.advance(33_333_333))
    assert panel.scene.trails == []
    for _ in range(30):
        panel.render(sim.advance(333_333))  # Normal: 1/100 of real time
    assert {tr.tid for tr in panel.scene.trails} == {t.tid for t in sim.advance(0).tasks}  # both threads


def test_the_clock_line_stays_in_sight_where_a_trail_runs_along_it(qtbot) -> None:
    # Under 2.6.24 the reporter is leftmost most of the time: its key is min_vruntime, so its trail runs
    # down the clock's line. The line is drawn again, dashed, over the trails: both show.
    panel = RunqueuePanel()
    qtbot.addWidget(panel)
    panel.resize(700, 480)
    sim = Simulation(load_scenario("cfs-yield-2007").with_overrides({"sched.policy": "cfs-2.6.24"}))
    sim.advance(100_000_000)
    for _ in range(120):
        panel.render(sim.advance(500_000))
    ((top, _, pen),) = panel.scene.over_trails
    x = round(top.x())
    clip = panel.scene.trails[0].clip
    top_chip = min(c.rect.top() for c in panel.scene.chips)
    along = {  # the rows where a trail's segment runs down the clock's line
        y
        for tr in panel.scene.trails
        for p, q in itertools.pairwise(tr.points)
        if abs(p.x() - x) <= 1 and abs(q.x() - x) <= 1
        for y in range(round(min(p.y(), q.y())), round(max(p.y(), q.y())) + 1)
    }
    rows = sorted(along & set(range(int(clip.top()) + 1, int(top_chip) - 1)))  # in sight, above the chips
    assert len(rows) > 100, "a trail runs along the clock's line"
    image = panel.grab().toImage()
    clock_ink = pen.color().rgb()
    inked = sum(1 for y in rows if image.pixel(x, y) == clock_ink)
    assert inked > 0.3 * len(rows), (inked, len(rows))
    panel.scene.over_trails.clear()  # without the dashes over them, the trail hides the line
    hidden = panel.grab().toImage()
    assert sum(1 for y in rows if hidden.pixel(x, y) == clock_ink) < 0.1 * len(rows)


def test_a_runaway_eevdf_deadline_stays_off_the_axis_and_the_trails_keep_their_cap(qtbot) -> None:
    # Before 6.17 each yield pushes the yielder's deadline a slice on: it runs seconds past V. On the
    # axis it squeezed every chip onto V, and trails ten widths long said "↑ 100 s ago".
    from gui.draw.key_axes import EEVDF_TRAIL_MOST_NS

    panel = RunqueuePanel()
    qtbot.addWidget(panel)
    panel.resize(700, 480)
    sim = Simulation(
        load_scenario("yield-playground").with_overrides({"sched.policy": "eevdf", "sched.yield_forfeit": 0})
    )
    sim.advance(2_000_000_000)
    for _ in range(100):
        snap = sim.advance(500_000)
        panel.render(snap)
    rq = snap.runqueues[0]
    assert isinstance(rq, EevdfView)
    tids = {t.name: t.tid for t in snap.tasks}
    yielder = next(e for e in rq.entries if e.tid == tids["yielder"])
    assert yielder.deadline_ns - rq.avg_vruntime_ns > 1_000_000_000, (
        "the yielder's deadline runs seconds past V"
    )
    _lo, hi = panel._ranges[0]
    assert hi < 20_000_000, "the axis keeps to the vruntimes and the near deadlines"
    said = [t[1] for t in panel.scene.texts if t[1].startswith("deadline ")]
    assert said == [f"deadline {signed_duration(yielder.deadline_ns - rq.avg_vruntime_ns)}"]
    assert panel.scene.trails and all(tr.span_ns <= EEVDF_TRAIL_MOST_NS for tr in panel.scene.trails)
