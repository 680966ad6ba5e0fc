"""CPU-use benchmark: ``python -m gui.cpu_bench`` prints, per story and speed preset, the share of one
core the window's process uses while it plays (process CPU time over wall time, every thread counted).

The window runs as it does for a class: its own frame timer and event loop, shown on Qt's offscreen
platform (a backing store like a real screen's, no compositor: a real display adds the X server's
or compositor's work, in another process). Each story first plays ``--warm`` wall seconds at the
preset untimed (graphs, lanes and the recording's checkpoints fill), then ``--seconds`` are measured.
``--launch`` also times a fresh process from its start to the window's first painted frame.
Target on a 2-core machine: Normal at most 25 % of one core.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_NORMAL = 25.0  # % of one core
TARGET_FIRST_S = 1.0


def _args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m gui.cpu_bench", description=__doc__.split("\n")[0])
    p.add_argument("--seconds", type=float, default=5.0, help="wall seconds measured per preset")
    p.add_argument("--warm", type=float, default=2.0, help="wall seconds played first, untimed")
    p.add_argument("--size", default="1920x1080")
    p.add_argument("--preset", action="append", help="Slow, Normal, Fast (default: all)")
    p.add_argument("--launch", action="store_true", help="also time launch to the first painted frame")
    p.add_argument("stories", nargs="*", help="built-in names (default: all)")
    return p.parse_args(argv)


def _run_loop(seconds: float) -> None:
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    QTimer.singleShot(round(seconds * 1000), loop.quit)
    loop.exec()


def measure(
    story: str, preset: str, args: argparse.Namespace, settings_dir: str
) -> tuple[float, float, float, float]:
    """(% of one core, simulated seconds per wall second, frames per second, CPU ms per frame) of the
    window playing ``story`` at ``preset``. On a loaded machine the frame rate drops and the share of a
    core with it; the CPU per frame says what a frame costs whatever the load."""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from gui.main_window import MainWindow
    from gui.playback import SPEED_PRESETS
    from model.scenario import load_scenario

    settings = QSettings(str(Path(settings_dir) / f"{story}.ini"), QSettings.Format.IniFormat)
    window = MainWindow(load_scenario(story), settings=settings)
    window.resize(*(int(v) for v in args.size.lower().split("x")))
    window.show()
    pb = window.playback
    pb.set_speed(SPEED_PRESETS[preset])
    pb.play()
    _run_loop(args.warm)
    frames = [0]
    pb.snapshot_ready.connect(lambda _snap: frames.__setitem__(0, frames[0] + 1))
    cpu0, wall0, sim0 = time.process_time(), time.perf_counter(), pb.simulation.now_ns
    _run_loop(args.seconds)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    sim_rate = (pb.simulation.now_ns - sim0) / 1e9 / wall
    pb.stop()
    window.close()
    window.deleteLater()
    QApplication.processEvents()
    return 100.0 * cpu / wall, sim_rate, frames[0] / wall, 1e3 * cpu / max(frames[0], 1)


LAUNCH_CODE = """
import time, sys
t0 = float(sys.argv[1])
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication
app = QApplication(["schedlab"])
from gui.main_window import MainWindow
from model.scenario import load_scenario
settings = QSettings(sys.argv[3], QSettings.Format.IniFormat)
w = MainWindow(load_scenario(sys.argv[2]), settings=settings, defer_graphs=True)  # as gui.app opens it
w.show()
while not w.windowHandle().isExposed():
    app.processEvents()
w.repaint()
first = time.time() - t0
w.finish_startup()  # what the window does just after its first frame: the graphs
w.repaint()
print(first, time.time() - t0)
"""


def launch_s(story: str, settings_dir: str) -> tuple[float, float]:
    """Wall seconds from starting a new Python process to the window's first painted frame, and to the
    frame with everything built (the graphs come just after the first)."""
    env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    ini = str(Path(settings_dir) / "launch.ini")
    t0 = time.time()
    done = subprocess.run(
        [sys.executable, "-c", LAUNCH_CODE, repr(t0), story, ini],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    first, complete = done.stdout.strip().splitlines()[-1].split()
    return float(first), float(complete)


def main(argv: list[str] | None = None) -> int:
    args = _args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from model.scenario import builtin_names

    app = QApplication.instance() or QApplication(["cpu_bench"])
    stories = args.stories or builtin_names()
    presets = args.preset or ["Slow", "Normal", "Fast"]
    print(f"window {args.size} offscreen, {os.cpu_count()} cores; {args.seconds:g} s measured per preset")
    head = " ".join(f"{p + ' %':>9s}" for p in presets)
    print(f"{'story':22s} {head}   (sim s / wall s, frames/s, CPU ms per frame)")
    worst_normal = 0.0
    with tempfile.TemporaryDirectory(prefix="schedlab-cpu-") as tmp:
        for story in stories:
            cells = []
            for preset in presets:
                pct, rate, fps, frame_ms = measure(story, preset, args, tmp)
                if preset == "Normal":
                    worst_normal = max(worst_normal, pct)
                cells.append(f"{pct:7.1f} %  ({rate:.3g}, {fps:.0f}/s, {frame_ms:.1f} ms)")
            print(f"{story:22s} " + "  ".join(cells))
        if "Normal" in presets:
            verdict = "met" if worst_normal <= TARGET_NORMAL else "MISSED"
            print(
                f"target: Normal <= {TARGET_NORMAL:g} % of one core: {verdict} (worst {worst_normal:.1f} %)"
            )
        if args.launch:
            times = [launch_s(story, tmp) for story in stories]
            worst = max(first for first, _complete in times)
            verdict = "met" if worst <= TARGET_FIRST_S else "MISSED"
            print(
                "launch to first painted frame (to the graphs' first frame): "
                + ", ".join(f"{s} {t:.2f} s ({c:.2f} s)" for s, (t, c) in zip(stories, times, strict=True))
                + f"; target <= {TARGET_FIRST_S:g} s: {verdict}"
            )
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
