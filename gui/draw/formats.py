"""Numbers as a class reads them: durations in the best unit, 1-2-5 axis steps, short counts."""

from __future__ import annotations

import math


def _num(v: float) -> str:
    if abs(v) >= 100 or v == int(v):
        return f"{v:.0f}"
    return f"{v:.1f}".rstrip("0").rstrip(".") if abs(v) >= 10 else f"{v:.2f}".rstrip("0").rstrip(".")


def tick_label(t_ns: int, step_ns: int) -> str:
    """An axis tick at instant ``t_ns`` on ticks ``step_ns`` apart, in the step's unit with as many
    decimals as the step needs: ticks 5 ms apart at 2.345 s read "2345 ms", not "2.35 s" twice."""
    for unit, name in ((1_000_000_000, "s"), (1_000_000, "ms"), (1_000, "µs"), (1, "ns")):
        if step_ns >= unit or unit == 1:
            decimals = 0
            while decimals < 3 and round(step_ns / unit, decimals) != step_ns / unit:
                decimals += 1
            return f"{t_ns / unit:.{decimals}f} {name}"
    raise AssertionError("unreachable")


def format_duration(ns: float) -> str:
    """A duration in the unit a class reads best: "500 µs", "2.5 ms", "1.2 s"."""
    a = abs(ns)
    if a == 0:
        return "0"
    if a < 1_000:
        return f"{_num(ns)} ns"
    if a < 999_500:
        return f"{_num(ns / 1e3)} µs"
    if a < 999_500_000:
        return f"{_num(ns / 1e6)} ms"
    return f"{_num(ns / 1e9)} s"


def signed_duration(rel_ns: float) -> str:
    """A signed offset from a clock: "−2 ms", "0", "+500 µs"."""
    return "0" if rel_ns == 0 else ("+" if rel_ns > 0 else "−") + format_duration(abs(rel_ns))


def nice_step(span: float, max_ticks: int) -> float:
    """The smallest 1-2-5 × 10^k step that cuts ``span`` into at most ``max_ticks`` intervals."""
    raw = max(span, 1e-12) / max(max_ticks, 1)
    base = float(10.0 ** math.floor(math.log10(raw)))
    for m in (1, 2, 5, 10):
        if m * base >= raw * (1 - 1e-9):
            return m * base
    return 10 * base  # pragma: no cover


def finer_step(step: float) -> float:
    """The next smaller 1-2-5 × 10^k step: 5 → 2, 2 → 1, 1 → 0.5."""
    base = float(10.0 ** math.floor(math.log10(step) + 1e-9))
    mantissa = round(step / base)
    return base * (0.5 if mantissa <= 1 else 1.0 if mantissa <= 2 else 2.0)


def short_count(n: int) -> str:
    """A count in at most four characters or so, for narrow bars: 918_600 → "919k"."""
    if abs(n) >= 1_000_000:
        return f"{n / 1e6:.1f}M"
    return f"{n / 1e3:.0f}k" if abs(n) >= 1000 else str(n)


def exact_time(ns: int) -> str:
    """An instant to the nanosecond, in seconds with digits grouped by three: "1.234 567 891 s"."""
    sign = "−" if ns < 0 else ""
    whole, frac = divmod(abs(int(ns)), 1_000_000_000)
    digits = f"{frac:09d}"
    return f"{sign}{whole}.{digits[:3]} {digits[3:6]} {digits[6:]} s"


def exact_duration(ns: int) -> str:
    """A duration to the nanosecond and in its readable unit: "513 000 ns (513 µs)"."""
    grouped = f"{abs(int(ns)):,}".replace(",", " ")
    sign = "−" if ns < 0 else ""
    return f"{sign}{grouped} ns ({sign}{format_duration(abs(ns))})"
