"""Frame-time benchmark: ``python -m gui.frame_bench`` prints, per built-in story, p50/p95 frame time.

A frame is what the live window does about 30 times a second: ``Playback.tick`` (the model advances by
speed × the frame interval and every panel renders the snapshot), then the repaint of every widget the
frame made dirty (forced at once instead of when the event loop gets to it) into the window's backing
store (the offscreen platform keeps one like a real screen's). The "full" columns repaint every widget of
the window instead (``window.grab()``, controls and explainer included): the worst case, as after a
resize. The window is 1920×1080. Each story first runs to ``--at`` simulated seconds untimed, so graphs
and lanes are full, then ``--frames`` frames are timed. "first frame" is the time from building the window
to its first painted frame; the first story's figure is counted from the launch of this process (its
start time in ``/proc``), so it includes starting Python and importing Qt, pyqtgraph and the panels.
Targets on a 2-core machine: p95 of a full repaint ≤ 16 ms, first painted frame ≤ 1.0 s after launch.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray


def _launched_ago_s() -> float:
    """How long ago this process started (Linux ``/proc``, to a clock tick), or 0 where it cannot tell."""
    try:
        with open("/proc/self/stat") as f:
            start_ticks = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime") as f:
            uptime_s = float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 0.0
    return max(0.0, uptime_s - start_ticks / os.sysconf("SC_CLK_TCK"))


_LAUNCH = time.perf_counter() - _launched_ago_s()

TARGET_P95_MS = 16.0
TARGET_FIRST_S = 1.0


def _args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m gui.frame_bench", description=__doc__.split("\n")[0])
    p.add_argument("--frames", type=int, default=300)
    p.add_argument("--at", type=float, default=2.0, help="simulated seconds run before timing")
    p.add_argument("--speed", default="Normal", help="Slow, Normal, Fast or a factor of real time")
    p.add_argument("--size", default="1920x1080")
    p.add_argument("stories", nargs="*", help="built-in names (default: all)")
    return p.parse_args(argv)


def _frames(pb: Any, n: int, finish: Callable[[], object]) -> NDArray[np.float64]:
    from gui.playback import FRAME_INTERVAL_MS

    frame_s = FRAME_INTERVAL_MS / 1000
    times = np.empty(n)
    for i in range(n):
        start = time.perf_counter()
        pb.tick(frame_s)
        finish()
        times[i] = time.perf_counter() - start
    return times


def bench_story(name: str, args: argparse.Namespace, settings_dir: str, t0: float) -> dict[str, float]:
    from PySide6.QtCore import QEvent, QSettings
    from PySide6.QtWidgets import QApplication

    from gui.main_window import MainWindow
    from gui.playback import SPEED_PRESETS
    from model.scenario import load_scenario

    speed = SPEED_PRESETS.get(args.speed) or float(args.speed)
    width, height = (int(v) for v in args.size.lower().split("x"))
    settings = QSettings(str(Path(settings_dir) / f"{name}.ini"), QSettings.Format.IniFormat)
    window = MainWindow(load_scenario(name), settings=settings, use_timer=False)
    window.resize(width, height)
    window.show()  # offscreen: a backing store like a real screen's, nothing displayed
    while not window.windowHandle().isExposed():  # once, untimed: a hidden window repaints nothing
        QApplication.processEvents()
    window.grab()
    first_s = time.perf_counter() - t0
    pb = window.playback
    pb.advance_to(round(args.at * 1e9))
    pb.set_speed(speed)
    pb.play()
    # Paint what the frame made dirty, now: a synchronous repaint flushes every pending update of the
    # window (the panels' update() calls), as the event loop would; the 1-pixel region adds nothing.
    live = _frames(pb, args.frames, lambda: window.repaint(0, 0, 1, 1))
    # Worst case: every widget of the window repainted, every frame.
    full = _frames(pb, args.frames, window.grab)
    sim_ms = pb.simulation.now_ns / 1e6
    window.close()
    window.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    return {
        "p50_ms": float(np.percentile(live, 50) * 1e3),
        "p95_ms": float(np.percentile(live, 95) * 1e3),
        "full_p50_ms": float(np.percentile(full, 50) * 1e3),
        "full_p95_ms": float(np.percentile(full, 95) * 1e3),
        "first_s": first_s,
        "sim_ms": sim_ms,
    }


def main(argv: list[str] | None = None) -> int:
    args = _args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from model.scenario import builtin_names

    app = QApplication.instance() or QApplication(["frame_bench"])
    stories = args.stories or builtin_names()
    print(f"{args.frames} frames per story at {args.speed} speed, window {args.size}, offscreen")
    print("frame = tick (model + every panel's render) + repaint of what changed; full: + window.grab()")
    print(
        f"{'story':22s} {'p50 ms':>7s} {'p95 ms':>7s} {'full p50':>9s} {'full p95':>9s} "
        f"{'first frame s':>14s} {'sim t':>10s}"
    )
    ok = True
    with tempfile.TemporaryDirectory(prefix="schedlab-bench-") as tmp:
        for i, name in enumerate(stories):
            t0 = _LAUNCH if i == 0 else time.perf_counter()
            r = bench_story(name, args, tmp, t0)
            ok &= r["full_p95_ms"] <= TARGET_P95_MS and r["first_s"] <= TARGET_FIRST_S
            note = " (from launch)" if i == 0 else ""
            print(
                f"{name:22s} {r['p50_ms']:7.2f} {r['p95_ms']:7.2f} {r['full_p50_ms']:9.2f} "
                f"{r['full_p95_ms']:9.2f} {r['first_s']:14.3f} {r['sim_ms']:7.1f} ms{note}"
            )
    verdict = "met" if ok else "MISSED"
    print(f"targets: full p95 <= {TARGET_P95_MS:g} ms, first frame <= {TARGET_FIRST_S:g} s: {verdict}")
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
