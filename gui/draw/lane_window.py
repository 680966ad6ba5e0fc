"""The CPU lanes' window of simulated time, as pure arithmetic (no Qt): how wide it is when chosen from
the density of trace records (a sticky pick on a 1-2-5 ladder), how the wheel zooms it about an instant,
which round instants its axis ticks sit at, and ``StripClock``, the window as the user moves it."""

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


class StripClock:
    """The strips' window of simulated time as the user moves it: chosen from the density of records
    unless fixed (``fix``, the wheel), panned up to ``pan_windows`` windows into the past, back to now
    and the automatic width (``live``). Plain numbers: the panel turns pixels into fractions."""

    def __init__(self, pan_windows: int) -> None:
        self.pan_windows = pan_windows
        self.fixed_ns: int | None = None
        self.restart()

    def restart(self) -> None:
        """Forget the run (a new one begins); a width the user fixed stays."""
        self.auto_ns = DEFAULT_WINDOW_NS
        self.offset_ns = 0  # panned into the past: the strip ends this long before now
        self.now_ns = 0
        self.last_ns: int | None = None  # the instant of the previous observation
        self._density = (0.0, 0.0)  # (records, ns), decayed over about one window of simulated time

    @property
    def window_ns(self) -> int:
        return self.fixed_ns or self.auto_ns

    @property
    def end_ns(self) -> int:
        """Where the strip ends: now, or earlier when panned into the past."""
        return max(self.now_ns - self.offset_ns, 0)

    @property
    def shown(self) -> ShownWindow:
        return ShownWindow(self.window_ns, self.end_ns, self.now_ns, self.offset_ns)

    @property
    def kept_ns(self) -> int:
        """How much of the past to keep: enough to pan back ``pan_windows`` windows (and two spare)."""
        return (self.pan_windows + 2) * self.window_ns

    def observe(self, now_ns: int, records: int) -> None:
        """``records`` more switches and interrupts came by ``now_ns``: the automatic width follows."""
        if self.last_ns is not None and now_ns > self.last_ns:
            self._density = decay_density(self._density, records, now_ns - self.last_ns, self.auto_ns)
            seen, span = self._density
            self.auto_ns = choose_window_ns(seen / span, self.auto_ns)
        self.now_ns = self.last_ns = now_ns

    def fix(self, window_ns: int | None) -> None:
        """Show ``window_ns`` (None or 0: the automatic width)."""
        self.fixed_ns = int(window_ns) if window_ns else None

    def pan(self, offset_ns: int) -> None:
        """End the strip ``offset_ns`` before now (0: live), within the history kept."""
        self.offset_ns = max(0, min(offset_ns, self.pan_windows * self.window_ns, self.now_ns))

    def zoom(self, frac: float, factor: float) -> None:
        """``factor`` times the width, keeping the instant at fraction ``frac`` of the strip in place."""
        self.fixed_ns, end = zoom_window(self.window_ns, self.end_ns, frac, factor)
        self.pan(int(self.now_ns - end))

    def live(self) -> None:
        """Back to now and the automatic width."""
        self.offset_ns, self.fixed_ns = 0, None

    def time_at(self, frac: float) -> float:
        """The instant at fraction ``frac`` of the strip (0: its left edge, 1: its end)."""
        return self.end_ns - (1.0 - frac) * self.window_ns
