"""Compare-window frame benchmark: ``python -m gui.compare_bench`` prints, per story, the p50/p95 time of
a frame of its classic A/B pair and of the story's three-way comparison: every side advanced by one
frame (1/60 s) at Normal speed, their lanes and the graph redrawn, and the whole window repainted. Read
it against ``python -m gui.frame_bench`` (one run in the main window, same size). The window is
1600×1000; each comparison first runs ``--at`` simulated seconds untimed.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

COMPARISONS = (
    ("cfs-yield-2007", "compat-yield"),
    ("cfs-yield-2007", "yield-remedies"),
    ("bfs-saturated-2009", "o1-vs-cfs"),
    ("qdisc-fairness-2011", "time-vs-quota"),
    ("qdisc-fairness-2011", "exit-rules"),
)
FRAME_S = 1 / 60


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m gui.compare_bench", description=__doc__.split("\n")[0])
    p.add_argument("--frames", type=int, default=200)
    p.add_argument("--at", type=float, default=1.0)
    args = p.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from gui.compare_window import CompareWindow
    from gui.playback import SPEED_NORMAL
    from model.presets import PRESETS
    from model.scenario import load_scenario

    app = QApplication.instance() or QApplication([])
    print(f"{'story':22s} {'preset':16s} {'p50':>6s} {'p95':>6s}  (ms per frame, 1600x1000, Normal speed)")
    for story, preset in COMPARISONS:
        window = CompareWindow(load_scenario(story), PRESETS[preset].sides, use_timer=False)
        window.resize(1600, 1000)
        window.show()
        window.advance(round(args.at * 1e9))
        step = round(SPEED_NORMAL * FRAME_S * 1e9)
        times = np.empty(args.frames)
        for i in range(args.frames):
            start = time.perf_counter()
            window.advance(step)
            window.repaint()
            app.processEvents()
            times[i] = time.perf_counter() - start
        p50, p95 = np.percentile(times * 1e3, [50, 95])
        print(f"{story:22s} {preset:16s} {p50:6.1f} {p95:6.1f}")
        window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
