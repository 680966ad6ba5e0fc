"""Scrub benchmark: ``python -m gui.scrub_bench`` prints, per story, how long landing at an instant of a
recorded run takes (the scrubber, Back one second, Back one event), in wall time.

Each story is played to ``--seconds`` of simulated time (10: a lesson's stretch) as the window does,
with a toggle of its live setting half-way (so that landings replay a recorded setting), and the
recording's checkpoints are refilled as the idle timer would. Then the playback lands at ``--points``
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

TARGET_S = 0.3
REFILL_S = 1.0  # wall time the idle timer gets between two landings (a class scrubs, looks, scrubs again)
TOGGLES = {  # a live setting each story turns half-way
    "cfs-yield-2007": ("sched.compat_yield", 1),
    "qdisc-fairness-2011": ("qdisc.exit_rule", "quota"),
}


def bench(story: str, seconds: float, points: int) -> list[float]:
    from gui.playback import Playback
    from model.scenario import load_scenario

    pb = Playback(load_scenario(story), use_timer=False)
    end_ns = round(seconds * 1e9)
    toggle = TOGGLES.get(story)
    if toggle is not None:
        pb.advance_to(end_ns // 2)
        pb.apply_live(*toggle)
    pb.advance_to(end_ns)
    while pb.work(0.05):  # the idle timer's refills, frame after frame
        pass
    spacing = pb.rewinder.spacing_ns
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
    return times


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m gui.scrub_bench", description=__doc__.split("\n")[0])
    p.add_argument("--seconds", type=float, default=10.0, help="simulated seconds recorded")
    p.add_argument("--points", type=int, default=24, help="landings per story")
    p.add_argument("stories", nargs="*")
    args = p.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QCoreApplication

    from model.scenario import builtin_names

    app = QCoreApplication.instance() or QCoreApplication(["scrub_bench"])
    print(f"landing anywhere in a {args.seconds:g} s recording, {args.points} landings per story")
    print(f"{'story':22s} {'p50 s':>7s} {'p95 s':>7s} {'max s':>7s}")
    worst = 0.0
    for story in args.stories or builtin_names():
        times = sorted(bench(story, args.seconds, args.points))
        p50, p95 = times[len(times) // 2], times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
        worst = max(worst, times[-1])
        print(f"{story:22s} {p50:7.3f} {p95:7.3f} {times[-1]:7.3f}")
    print(f"target: every landing <= {TARGET_S:g} s: {'met' if worst <= TARGET_S else 'MISSED'}")
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
