"""The CPU lanes' window of simulated time, as pure arithmetic (no Qt): how wide it is when chosen from
the density of trace records (a sticky pick on a 1-2-5 ladder), how the wheel zooms it about an instant,
and which round instants its axis ticks sit at."""

from __future__ import annotations

import math
from typing import NamedTuple

from gui.draw.formats import nice_step

# Window widths offered by the automatic choice (a 1-2-5 ladder, 100 µs .. 10 s).
WINDOW_LADDER_NS: tuple[int, ...] = (*(m * 10**e for e in range(5, 10) for m in (1, 2, 5)), 10**10)
DEFAULT_WINDOW_NS = 50_000_000
ZOOM_BOUNDS_NS = (10_000, 10_000_000_000)
TARGET_RECORDS_IN_WINDOW = 60  # switches + interrupts a lane should show, for the automatic width


class ShownWindow(NamedTuple):
    """What the strips show: ``width_ns`` of simulated time ending at ``end_ns``, ``offset_ns`` before
    ``now_ns`` (0 when live)."""

    width_ns: int
    end_ns: int
    now_ns: int
    offset_ns: int


def axis_ticks(window_ns: int, max_ticks: int) -> list[int]:
    """Tick offsets from now (0, -step, -2·step, …) that fit in the window."""
    step = int(nice_step(window_ns, max_ticks))
    return [-k * step for k in range(window_ns // step + 1)]


def tick_instants(end_ns: int, window_ns: int, max_ticks: int) -> tuple[int, list[int]]:
    """(step, ticks): the round instants (multiples of a 1-2-5 step) in the window ending at ``end_ns``,
    latest first; none before t = 0 (early in a run the window reaches back past the start, where the
    strips stay blank: the axis says "0 ms", not "−20 ms")."""
    step = int(nice_step(window_ns, max_ticks))
    first = end_ns - end_ns % step
    return step, list(range(first, max(end_ns - window_ns, 0) - 1, -step))


def choose_window_ns(rate_per_ns: float, current_ns: int) -> int:
    """A ladder width showing about TARGET_RECORDS_IN_WINDOW records; sticky within a factor 2.5."""
    if rate_per_ns <= 0:
        return current_ns
    ideal = TARGET_RECORDS_IN_WINDOW / rate_per_ns
    if 0.4 < ideal / current_ns < 2.5:
        return current_ns
    return min(WINDOW_LADDER_NS, key=lambda w: abs(math.log(w / ideal)))


def decay_density(
    density: tuple[float, float], records: int, dt_ns: int, window_ns: int
) -> tuple[float, float]:
    """(records, ns) seen, after ``records`` more in ``dt_ns``: the older ones fade over about one window."""
    keep = math.exp(-dt_ns / window_ns)
    return density[0] * keep + records, density[1] * keep + dt_ns


def zoom_window(window_ns: int, end_ns: int, frac: float, factor: float) -> tuple[int, float]:
    """(width, end) of the window ``factor`` times as wide (within ZOOM_BOUNDS_NS) that keeps the instant
    at fraction ``frac`` of the strip (0: its left edge, 1: its end) where it is on screen."""
    anchor_t = end_ns - (1.0 - frac) * window_ns
    new_win = int(min(max(window_ns * factor, ZOOM_BOUNDS_NS[0]), ZOOM_BOUNDS_NS[1]))
    return new_win, anchor_t + (1.0 - frac) * new_win
