"""Scrub benchmark: ``python -m gui.scrub_bench`` prints, per story, how long landing at an instant of a
recorded run takes (the scrubber, Back one second, Back one event), in wall time.

Each story is played to ``--seconds`` of simulated time (10: a lesson's stretch) as the window does,
with a toggle of its live setting half-way (so that landings replay a recorded setting), and the
recording's checkpoints are parked as the run passes them and refilled as the idle timer would (the
columns say what that cost: playing the run, refilling, the rungs, their spacing and memory, one copy's
wall time, and the process's resident memory after recording). Then the playback lands at ``--points``
instants spread over the run, each just before a rung (the longest replay) and in between, in an order
that jumps back and forth, with ``REFILL_S`` of refilling between two landings; each landing builds
the snapshot the window would show. Target: at most
0.3 s to land anywhere.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from dataclasses import dataclass

TARGET_S = 0.3
REFILL_S = 1.0  # wall time the idle timer gets between two landings (a class scrubs, looks, scrubs again)
TOGGLES = {  # a live setting each story turns half-way
    "cfs-yield-2007": ("sched.compat_yield", 1),
    "qdisc-fairness-2011": ("qdisc.exit_rule", "quota"),
}


@dataclass
class Recording:
    """What recording the run cost: playing it (rungs parked on the way), then refilling what is missing."""

    play_s: float = 0.0
    refill_s: float = 0.0
    rungs: int = 0
    spacing_ms: float = 0.0
    copies: int = 0
    copy_ms: float = 0.0  # mean wall time of one copy (a parked rung, or a landing's copy of one)
    rungs_mb: float = 0.0  # the rungs' memory, as measured when they were parked
    rss_mb: float = 0.0


def bench(story: str, seconds: float, points: int) -> tuple[list[float], Recording]:
    from gui.memory_bench import rss_mb
    from gui.playback import Playback
    from model.scenario import load_scenario

    rec = Recording()
    pb = Playback(load_scenario(story), use_timer=False)
    end_ns = round(seconds * 1e9)
    toggle = TOGGLES.get(story)
    start = time.perf_counter()
    if toggle is not None:
        pb.advance_to(end_ns // 2)
        pb.apply_live(*toggle)
    pb.advance_to(end_ns)
    rec.play_s = time.perf_counter() - start
    start = time.perf_counter()
    while pb.work(0.05):  # the idle timer's refills, frame after frame
        pass
    rec.refill_s = time.perf_counter() - start
    rw = pb.rewinder
    rec.rungs, rec.spacing_ms, rec.rss_mb = len(rw.rungs), rw.spacing_ns / 1e6, rss_mb()
    rec.rungs_mb = rw.rung_bytes / 1e6
    spacing = rw.spacing_ns
    rng = random.Random(1)
    targets = [max(r - 1_000_000, 0) for r in range(spacing, end_ns, spacing)]  # just before each rung
    targets += [rng.randrange(0, end_ns) for _ in range(max(points - len(targets), 0))]
    rng.shuffle(targets)
    times = []
    for t in targets:
        start = time.perf_counter()
        snap = pb.seek(t)
        times.append(time.perf_counter() - start)
        assert snap is not None and snap.t_ns == t, (t, snap.t_ns if snap else None)
        until = time.perf_counter() + REFILL_S  # between landings the idle timer refills for a while
        while time.perf_counter() < until and pb.work(0.01):
            pass
    pb.stop()
    rec.copies, rec.copy_ms = rw.copies, rw.copy_s / max(rw.copies, 1) * 1e3
    return times, rec


def frame_costs(story: str, speed: str, frames: int) -> tuple[list[float], list[float]]:
    """Wall time of ``frames`` playback frames of 1/30 s at ``speed`` (as the timer gives them, without
    the painting): those that parked a rung, and the others."""
    from gui.playback import SPEED_PRESETS, Playback
    from model.scenario import load_scenario

    pb = Playback(load_scenario(story), use_timer=False)
    pb.set_speed(SPEED_PRESETS[speed])
    pb.play()
    pb.tick(1 / 30)  # the first frame measures the model's speed
    with_copy: list[float] = []
    without: list[float] = []
    for _ in range(frames):
        copies = pb.rewinder.copies
        start = time.perf_counter()
        pb.tick(1 / 30)
        took = time.perf_counter() - start
        (with_copy if pb.rewinder.copies > copies else without).append(took)
    pb.stop()
    return with_copy, without


def _ms(times: list[float]) -> str:
    if not times:
        return f"{'-':>7s} {'-':>7s}"
    times = sorted(times)
    return f"{times[len(times) // 2] * 1e3:7.1f} {times[-1] * 1e3:7.1f}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m gui.scrub_bench", description=__doc__.split("\n")[0])
    p.add_argument("--seconds", type=float, default=10.0, help="simulated seconds recorded")
    p.add_argument("--points", type=int, default=24, help="landings per story")
    p.add_argument("--frames", type=int, default=600, help="playback frames per story and speed (0: none)")
    p.add_argument("stories", nargs="*")
    args = p.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QCoreApplication

    from model.scenario import builtin_names

    app = QCoreApplication.instance() or QCoreApplication(["scrub_bench"])
    print(f"landing anywhere in a {args.seconds:g} s recording, {args.points} landings per story")
    print(
        f"{'story':22s} {'p50 s':>7s} {'p95 s':>7s} {'max s':>7s} {'play s':>7s} {'refill s':>8s} "
        f"{'rungs':>5s} {'every ms':>8s} {'rung MB':>7s} {'copy ms':>7s} {'RSS MB':>7s}"
    )
    worst = 0.0
    for story in args.stories or builtin_names():
        times, rec = bench(story, args.seconds, args.points)
        times.sort()
        p50, p95 = times[len(times) // 2], times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
        worst = max(worst, times[-1])
        print(
            f"{story:22s} {p50:7.3f} {p95:7.3f} {times[-1]:7.3f} {rec.play_s:7.1f} {rec.refill_s:8.2f} "
            f"{rec.rungs:5d} {rec.spacing_ms:8.1f} {rec.rungs_mb:7.1f} {rec.copy_ms:7.1f} {rec.rss_mb:7.0f}",
            flush=True,
        )
    print(f"target: every landing <= {TARGET_S:g} s: {'met' if worst <= TARGET_S else 'MISSED'}")
    if args.frames:
        print(f"\nplayback frames of 1/30 s ({args.frames} per story and speed), wall ms, p50 and max:")
        print(
            f"{'story':22s} {'speed':7s} {'frames':>6s} {'p50':>7s} {'max':>7s} "
            f"{'parked':>6s} {'p50':>7s} {'max':>7s}"
        )
        for story in args.stories or builtin_names():
            for speed in ("Normal", "Fast"):
                with_copy, without = frame_costs(story, speed, args.frames)
                print(
                    f"{story:22s} {speed:7s} {len(without):6d} {_ms(without)} "
                    f"{len(with_copy):6d} {_ms(with_copy)}",
                    flush=True,
                )
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
