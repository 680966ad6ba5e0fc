"""Where each task's key sat on a CFS axis over the recent past, relative to the section's clock, so the
run-queue panel can fill the room above its chips with a trail per task: the newest sample at the chips,
older ones higher up. Plain numbers (no Qt): every sample is a view's own fields at one frame shown."""

from __future__ import annotations

from collections import deque

from gui.draw.formats import nice_step

GAP_PARTS = 30  # samples further apart than a trail's span / GAP_PARTS are not joined
TRAIL_SAMPLES = 2048  # per section: past a trail's height in pixel rows (samples are a row apart)

# A trail: the task, then (instant, key relative to the clock) oldest first.
Trail = tuple[int, list[tuple[int, int]]]


def trail_span_ns(rng: tuple[float, float], tasks: int) -> int:
    """How much of the past a section's trails cover: a waiting task's key falls behind the clock at
    about 1/``tasks`` of the rate time passes (the clock advances by each ns run over the queue's
    load), so this long takes it across the axis once; rounded up to a 1-2-5 step, which stays put
    while the axis does."""
    return int(nice_step((rng[1] - rng[0]) * max(tasks, 1), 1))


class KeyTrails:
    """The recent keys of each section's tasks, one sample per frame shown; time going back (a rewind,
    a step back) starts the past anew."""

    def __init__(self) -> None:
        self._samples: dict[int, deque[tuple[int, dict[int, int]]]] = {}

    def clear(self) -> None:
        self._samples.clear()

    def add(self, section: int, t_ns: int, keys: dict[int, int], gap_ns: float = 0) -> None:
        """The keys (tid -> key relative to the clock) of ``section``'s tasks at ``t_ns``. Samples are
        kept ``gap_ns`` apart (a pixel row of the trails, at Slow speed many frames): a newer one within
        the gap replaces the newest, unless a task came or went."""
        samples = self._samples.setdefault(section, deque(maxlen=TRAIL_SAMPLES))
        if samples and t_ns < samples[-1][0]:
            samples.clear()
        if samples and (
            t_ns == samples[-1][0]  # the same instant shown again (a paused relayout)
            or (
                len(samples) > 1
                and t_ns - samples[-2][0] < gap_ns
                and keys.keys() == samples[-1][1].keys() == samples[-2][1].keys()
            )
        ):
            samples[-1] = (t_ns, keys)
        else:
            samples.append((t_ns, keys))

    def paths(self, section: int, now_ns: int, span_ns: int) -> list[Trail]:
        """Each task's runs of consecutive samples from ``span_ns`` before ``now_ns`` (and the sample
        just before, so that a trail reaches the top), oldest first; a sample without the task (it
        slept, or left the CPU) ends a run, and so does a gap of more than ``span_ns / GAP_PARTS``
        between two samples (a jump, or frames too far apart at high speed: a straight line over it
        would draw motion nobody saw). Runs of one sample are left out: they draw nothing."""
        samples = self._samples.get(section)
        if not samples:
            return []
        recent: list[tuple[int, dict[int, int]]] = []
        for sample in reversed(samples):
            recent.append(sample)
            if sample[0] < now_ns - span_ns:
                break
        out: list[Trail] = []
        open_runs: dict[int, list[tuple[int, int]]] = {}
        gap, last = span_ns / GAP_PARTS, None
        for t, keys in reversed(recent):
            if last is not None and t - last > gap:
                out.extend(open_runs.items())
                open_runs = {}
            last = t
            for tid in [tid for tid in open_runs if tid not in keys]:
                out.append((tid, open_runs.pop(tid)))
            for tid, rel in keys.items():
                open_runs.setdefault(tid, []).append((t, rel))
        out.extend(open_runs.items())
        return [(tid, run) for tid, run in out if len(run) > 1]
