"""Video benchmark: ``python -m gui.video_bench`` renders a video as ``schedlab video`` does and prints
where a frame's time goes.

Per frame, on the painting thread, as CPU time and wall time: the model's advance to the frame with
every panel's render of it; the repaint of what the frame changed (with ``--whole``: a whole-window
``grab()`` instead, as every frame was drawn before); the copy of the window's pixels into a frame
for the encoder (its wall time includes waiting for a free frame when the encoder is behind). The
encoder's thread and x264's (libswscale's conversion to yuv420p, the encoding, the muxer) are the
process's CPU time less the painting thread's. With ``--check``, a second window plays the same run
in lockstep, grabbed whole every frame, and the frames are compared pixel for pixel (that window's
CPU is left out, not its wall time). Totals cover the frames only (not Qt's start-up or the lead
before the first frame). The defaults are the 30 s, 1080p, 30 fps video of the 2007 story (900
frames); the target is under 60 s of wall time on 2 cores.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Iterator
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


def main(argv: list[str] | None = None) -> int:
    args = _args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from gui.main_window import MainWindow
    from gui.video import VideoSpec, advance_to_frame, check_spec, offscreen_window, prepare
    from gui.video_encode import FrameEncoder
    from model.scenario import load_scenario

    app = QApplication.instance() or QApplication(["video_bench"])
    width, height = (int(v) for v in args.size.lower().split("x"))
    spec = VideoSpec(args.t_from, args.t_to, args.speed, args.fps, (width, height))
    scenario = load_scenario(args.story)
    check_spec(spec, scenario.duration_s)
    stages: dict[str, list[tuple[float, float]]] = {"advance": [], "paint": [], "copy": []}
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
        wall0, cpu0 = time.perf_counter(), time.process_time()
        checking = 0.0
        with out.open("wb") as fh, FrameEncoder(fh, ".mp4", spec.size, spec.fps) as encoder:
            for i in range(spec.frames):
                with _timed(stages["advance"]):
                    advance_to_frame(window, spec, i)
                with _timed(stages["paint"]):
                    image = pixels.image()
                if args.check:
                    c0 = time.thread_time()
                    advance_to_frame(reference, spec, i)
                    differ += _rgb(image) != _rgb(whole.image())
                    checking += time.thread_time() - c0
                with _timed(stages["copy"]):
                    encoder.put(image)
        wall = time.perf_counter() - wall0
        cpu = time.process_time() - cpu0 - checking
        size_mb = out.stat().st_size / 1e6
    n = spec.frames
    span = f"from {args.t_from:g} s to {args.t_to:g} s"
    print(f"{args.story}: {n} frames at {width}x{height}, {args.fps} fps, {span}")
    print("  per frame on the painting thread:         CPU mean   wall p50   wall p95")
    names = {
        "advance": "advance (model + every panel's render)",
        "paint": "whole-window grab" if args.whole else "repaint of what changed",
        "copy": "copy into a frame (+ wait for one)",
    }
    for key, label in names.items():
        cpu_s, wall_s = np.asarray(stages[key]).T * 1e3
        p50, p95 = np.percentile(wall_s, [50, 95])
        print(f"  {label:40s} {cpu_s.mean():6.1f} ms  {p50:6.1f} ms  {p95:6.1f} ms")
    if args.check:
        print(f"  frames that differ from a whole-window grab: {differ} of {n}")
    paint_cpu = sum(c for stage in stages.values() for c, _ in stage)
    enc = cpu - paint_cpu
    print(
        f"  encoder thread and x264's (yuv420p conversion, encoding, mux): {enc / n * 1e3:.1f} ms CPU a frame"
    )
    verdict = "met" if wall < TARGET_WALL_S else "MISSED"
    print(f"  total: {wall:.1f} s wall, {cpu:.1f} s CPU, {size_mb:.1f} MB")
    print(f"  target: under {TARGET_WALL_S:g} s of wall time: {verdict}")
    print(f"  load average: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    del app
    return 0


@contextlib.contextmanager
def _timed(into: list[tuple[float, float]]) -> Iterator[None]:
    """Appends (thread CPU, wall) seconds of the block."""
    cpu, wall = time.thread_time(), time.perf_counter()
    yield
    into.append((time.thread_time() - cpu, time.perf_counter() - wall))


def _rgb(image: Any) -> Any:
    from PySide6.QtGui import QImage

    return image.convertToFormat(QImage.Format.Format_RGB32)


if __name__ == "__main__":
    sys.exit(main())
