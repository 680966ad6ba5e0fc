"""Memory benchmark: ``python -m gui.memory_bench`` plays a story at Fast for ``--minutes`` of simulated
time (30: what a 30-minute lesson at Fast, real time, simulates) through the whole window, and prints
the process's resident memory as it goes.

Compressed: the window gets the frames the timer would give it, but as fast as they run, and each
frame stands for ``--frame-ms`` of wall time (100 ms: the playback's longest frame, so a 30-minute run
is 18 000 frames rather than 108 000 of 1/60 s; every panel renders every frame and the window
repaints what changed, as on screen). Memory is flat when the last readings stay within a few MB of
the reading after the first minutes, once the recording's checkpoints and the graphs' series are full.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path


def rss_mb() -> float:
    """Resident memory of this process, in MB (Linux /proc)."""
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m gui.memory_bench", description=__doc__.split("\n")[0])
    p.add_argument("--minutes", type=float, default=30.0, help="simulated minutes at Fast")
    p.add_argument("--frame-ms", type=float, default=100.0, help="wall time each frame stands for")
    p.add_argument("--every", type=float, default=3.0, help="print a reading every this many minutes")
    p.add_argument("--size", default="1920x1080")
    p.add_argument("stories", nargs="*", default=["cfs-yield-2007"])
    args = p.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from gui.main_window import MainWindow
    from gui.playback import SPEED_PRESETS
    from model.scenario import load_scenario

    app = QApplication.instance() or QApplication(["memory_bench"])
    with tempfile.TemporaryDirectory(prefix="schedlab-mem-") as tmp:
        for story in args.stories:
            settings = QSettings(str(Path(tmp) / f"{story}.ini"), QSettings.Format.IniFormat)
            window = MainWindow(load_scenario(story), settings=settings, use_timer=False)
            window.resize(*(int(v) for v in args.size.lower().split("x")))
            window.show()
            pb = window.playback
            pb.set_speed(SPEED_PRESETS["Fast"])
            pb.play()
            frame_s = args.frame_ms / 1000
            end_ns = round(args.minutes * 60e9)
            next_print = 0.0
            readings: list[tuple[float, float]] = []
            print(f"{story}: {args.minutes:g} simulated minutes at Fast, frames of {args.frame_ms:g} ms")
            while pb.simulation.now_ns < end_ns:
                pb.tick(frame_s)
                pb.work(0.004)  # what the timer grants the recording's checkpoints between frames
                window.repaint(0, 0, 1, 1)  # paints everything the frame made dirty
                QApplication.processEvents()
                minutes = pb.simulation.now_ns / 60e9
                if minutes >= next_print:
                    readings.append((minutes, rss_mb()))
                    print(f"  t = {minutes:5.1f} min  RSS {readings[-1][1]:7.1f} MB", flush=True)
                    next_print += args.every
            readings.append((pb.simulation.now_ns / 60e9, rss_mb()))
            print(f"  t = {readings[-1][0]:5.1f} min  RSS {readings[-1][1]:7.1f} MB")
            later = [mb for t, mb in readings if t >= min(args.every * 2, args.minutes / 2)]
            if later:
                print(f"  growth after the first {args.every * 2:g} min: {max(later) - later[0]:+.1f} MB")
            pb.stop()
            window.close()
            window.deleteLater()
            app.processEvents()
    return 0


if __name__ == "__main__":
    sys.exit(main())
