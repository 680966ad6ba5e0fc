"""Video benchmark: ``python -m gui.video_bench`` renders a video as ``schedlab video`` does and prints
where a frame's time goes.

Per frame, on the painting thread: the model's advance to the frame with every panel's render of it
(``advance``), then the repaint of what the frame changed and the copy of the window's pixels
(``paint``); with ``--whole``, a whole-window ``grab()`` instead (what every frame cost before). With
``--check``, a second window plays the same run in lockstep, grabbed whole every frame, and the
frames are compared pixel for pixel (that window's CPU is left out of the figures, not its wall
time). The encoder's thread (libswscale's conversion to yuv420p, x264 and its threads, the muxer) is
counted as the process's CPU time less the painting thread's. Wall and CPU totals cover the frames
only (not Qt's start-up or the lead before the first frame). The defaults are the 30 s, 1080p, 30 fps video of
the 2007 story (900 frames); the target is under 60 s of wall time on 2 cores.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

TARGET_WALL_S = 60.0


def _args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m gui.video_bench", description=__doc__.split("\n")[0])
    p.add_argument("story", nargs="?", default="cfs-yield-2007")
    p.add_argument("--from", dest="t_from", type=float, default=1.0, help="start (simulated s)")
    p.add_argument("--to", dest="t_to", type=float, default=1.3, help="end (simulated s)")
    p.add_argument("--speed", type=float, default=0.01)
    p.add_argument("--fps", type=int, default=30)
    p.add_argument("--size", default="1920x1080")
    p.add_argument("--whole", action="store_true", help="grab every frame whole (as before)")
    p.add_argument("--check", action="store_true", help="compare every frame with a whole grab")
    return p.parse_args(argv)


def _ms(values: list[float]) -> str:
    a = np.asarray(values) * 1e3
    return f"mean {a.mean():6.1f}  p50 {np.percentile(a, 50):6.1f}  p95 {np.percentile(a, 95):6.1f} ms"


def main(argv: list[str] | None = None) -> int:
    args = _args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from gui.main_window import MainWindow
    from gui.video import FrameEncoder, VideoSpec, advance_to_frame, check_spec, offscreen_window, prepare
    from model.scenario import load_scenario

    app = QApplication.instance() or QApplication(["video_bench"])
    width, height = (int(v) for v in args.size.lower().split("x"))
    spec = VideoSpec(args.t_from, args.t_to, args.speed, args.fps, (width, height))
    scenario = load_scenario(args.story)
    check_spec(spec, scenario.duration_s)
    advance: list[float] = []
    paint: list[float] = []
    differ = 0
    with (
        tempfile.TemporaryDirectory(prefix="schedlab-video-bench-") as tmp,
        offscreen_window(MainWindow, scenario, None, spec.size) as window,
        contextlib.ExitStack() as stack,
    ):
        pixels = prepare(window, spec, whole=args.whole)
        if args.check:
            reference = stack.enter_context(offscreen_window(MainWindow, scenario, None, spec.size))
            whole = prepare(reference, spec, whole=True)
        out = Path(tmp) / "bench.mp4"
        wall0, cpu0, paint_cpu0 = time.perf_counter(), time.process_time(), time.thread_time()
        checking = 0.0
        with out.open("wb") as fh, FrameEncoder(fh, ".mp4", spec) as encoder:
            for i in range(spec.frames):
                t0 = time.perf_counter()
                advance_to_frame(window, spec, i)
                t1 = time.perf_counter()
                frame = pixels.frame()
                advance.append(t1 - t0)
                paint.append(time.perf_counter() - t1)
                if args.check:
                    c0 = time.thread_time()
                    advance_to_frame(reference, spec, i)
                    same = np.array_equal(_rgb(frame), _rgb(whole.frame()))
                    differ += not same
                    checking += time.thread_time() - c0
                encoder.put(frame)
        wall = time.perf_counter() - wall0
        cpu = time.process_time() - cpu0
        paint_cpu = time.thread_time() - paint_cpu0 - checking
        cpu -= checking
        size_mb = out.stat().st_size / 1e6
    n = spec.frames
    span = f"from {args.t_from:g} s to {args.t_to:g} s"
    print(f"{args.story}: {n} frames at {width}x{height}, {args.fps} fps, {span}")
    print(f"  advance (model + panels' render)   {_ms(advance)}")
    what = "whole-window grab + copy      " if args.whole else "paint (what changed) + copy   "
    print(f"  {what}     {_ms(paint)}")
    if args.check:
        print(f"  frames that differ from a whole-window grab: {differ} of {n}")
    print(f"  painting thread CPU {paint_cpu:6.1f} s ({paint_cpu / n * 1e3:.1f} ms a frame)")
    enc = cpu - paint_cpu
    print(
        f"  encoder threads CPU {enc:6.1f} s ({enc / n * 1e3:.1f} ms a frame: yuv420p conversion, x264, mux)"
    )
    verdict = "met" if wall < TARGET_WALL_S else "MISSED"
    print(f"  total: {wall:.1f} s wall, {cpu:.1f} s CPU, {size_mb:.1f} MB")
    print(f"  target: under {TARGET_WALL_S:g} s of wall time: {verdict}")
    print(f"  load average: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    del app
    return 0


def _rgb(frame: Any) -> np.ndarray:
    return np.asarray(frame.to_ndarray(format="rgb24"))


if __name__ == "__main__":
    sys.exit(main())
