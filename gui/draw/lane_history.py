"""What each CPU lane remembers: merged task segments, interrupts and yields, and their pixel runs.

Pure Python, no Qt: ``ingest`` feeds each CPU's ``LaneHistory`` the switch, interrupt and yield trace
records of a snapshot (``LaneHistory.catch_up`` then takes what is still open from the CPU's view),
and ``pixel_runs`` turns a window of it into at most one run per pixel column.
Segments shorter than a merge quantum (a fraction of a pixel) are merged as they arrive, so that a
fast-forward frame of thousands of records costs little; the history is bounded in count and pruned
by time.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import deque
from collections.abc import Iterable, Sequence
from itertools import islice
from operator import itemgetter
from typing import Any, NamedTuple

import numpy as np

from gui.draw.span_log import SpanLog
from model.net.txconfig import EXIT_REASONS
from model.snapshot import CpuView, IrqRecord, QdiscView, SwitchRecord, TenureRecord, TraceRecord, YieldRecord

HISTORY_MAX = 4096  # segments kept per CPU
# Interrupts kept per CPU: the 2011 NIC's interrupt CPUs have about 15 a millisecond, so that the lanes'
# ten windows of 100 ms keep theirs.
IRQS_MAX = 16384
YIELDS_MAX = 2048
HARDIRQ, SOFTIRQ, IDLE = -1, -2, 0  # segment codes; a positive code is a tid
TENURE = -3  # the qdisc's dequeuer role, drawn in the band above a strip


def time_to_x(t_ns: float, now_ns: int, window_ns: int, x0: float, width: float) -> float:
    """x of instant ``t_ns`` on a strip whose right edge is ``now_ns`` and which spans ``window_ns``."""
    return x0 + width * (1.0 - (now_ns - t_ns) / window_ns)


def pixel_runs(
    segments: Iterable[tuple[int, int, int]], now_ns: int, window_ns: int, x0: float, width: float
) -> list[tuple[int, int, int]]:
    """Clip time-ordered ``(start, end, code)`` segments to the window and turn them into integer pixel
    runs ``(xa, xb, code)``: at least one pixel each, each pixel column owned once, equal neighbours
    merged. Many sub-pixel segments thus cost one run per column at most."""
    lo = now_ns - window_ns
    out: list[tuple[int, int, int]] = []
    last = -(10**9)  # first free pixel column
    last_code = None  # the code of out[-1]
    # time_to_x inlined, term for term (the same floats): this runs for every segment of every lane,
    # every frame
    for start, end, code in segments:
        if end <= lo or start >= now_ns:
            continue
        xa = round(x0 + width * (1.0 - (now_ns - (start if start > lo else lo)) / window_ns))
        xb = round(x0 + width * (1.0 - (now_ns - (end if end < now_ns else now_ns)) / window_ns))
        if xb <= xa:
            xb = xa + 1
        if xa < last:
            xa = last
        if xb <= xa:
            continue  # its column is already drawn
        if code == last_code and out[-1][1] == xa:
            out[-1] = (out[-1][0], xb, code)
        else:
            out.append((xa, xb, code))
            last_code = code
        last = xb
    return out


def bar_runs(
    spans: np.ndarray | Sequence[tuple[int, ...]],
    now_ns: int,
    window_ns: int,
    x0: float,
    width: float,
    code: int = TENURE,
) -> list[tuple[int, int, int]]:
    """``pixel_runs`` of spans (rows ``(start, end, …)``) that all have ``code``, on whole arrays: a
    lane's dequeuer turns are hundreds a window, and a frame redraws them all."""
    if not len(spans):
        return []
    a = np.asarray(spans, dtype=np.float64).reshape(len(spans), -1)
    lo = now_ns - window_ns
    a = a[(a[:, 1] > lo) & (a[:, 0] < now_ns)]
    xa = np.rint(x0 + width * (1.0 - (now_ns - np.maximum(a[:, 0], lo)) / window_ns))
    xb = np.rint(x0 + width * (1.0 - (now_ns - np.minimum(a[:, 1], now_ns)) / window_ns))
    xb = np.maximum(xb, xa + 1)  # a pixel at least
    xa = np.maximum(xa, np.maximum.accumulate(np.concatenate(([-np.inf], xb[:-1]))))  # each column once
    kept = xb > xa
    xa, xb = xa[kept], xb[kept]
    if not xa.size:
        return []
    firsts = np.flatnonzero(np.concatenate(([True], xa[1:] != xb[:-1])))  # touching bars are one run
    lasts = np.concatenate((firsts[1:], [xa.size])) - 1
    return [(int(p), int(q), code) for p, q in zip(xa[firsts].tolist(), xb[lasts].tolist(), strict=True)]


SHADES = 4  # a crowded interrupt column is drawn at 1/4, 2/4, 3/4 or full strength
CROWD_PX = 4  # interrupts closer than this many pixels apart on average are crowded


def irq_runs(
    entries: np.ndarray | Sequence[tuple[int, int, int]], now_ns: int, window_ns: int, x0: float, width: float
) -> list[tuple[int, int, int, float]]:
    """Interrupts (``(start, hardirq end, end)`` entries, oldest first, none overlapping) as pixel runs
    ``(xa, xb, code, strength)``. Sparse ones (at most one for every ``CROWD_PX`` pixels) are
    ``pixel_runs``, at full strength: each interrupt at least a pixel, its hardirq a black tick. Crowded
    ones (the 2011 NIC's interrupts, about one for every 100 µs, a microsecond or two each) would paint a
    solid band at one pixel each: there each column takes the kind (hardirq or softirq) with more of its
    time and a strength from the share of the column they fill together, rounded up to a quarter."""
    lo = now_ns - window_ns
    rows = np.asarray(entries, dtype=np.int64).reshape(len(entries), 3)
    rows = rows[rows[:, 2] > lo]
    if len(rows) * CROWD_PX <= width:
        segments = _split(rows.tolist())
        return [(xa, xb, code, 1.0) for xa, xb, code in pixel_runs(segments, now_ns, window_ns, x0, width)]
    cols = int(width)
    edges = lo + np.arange(cols + 1) * (window_ns / width)  # the columns' boundaries, in ns
    spans = rows.astype(np.float64)
    hard = np.diff(_time_in(spans[:, 0], spans[:, 1], edges))
    soft = np.diff(_time_in(spans[:, 1], spans[:, 2], edges))
    total = hard + soft
    busy = np.flatnonzero(total > 0)
    if not busy.size:
        return []
    codes = np.where(hard[busy] >= soft[busy], HARDIRQ, SOFTIRQ)
    levels = np.clip(np.ceil(total[busy] * SHADES / (window_ns / width) - 1e-9), 1, SHADES)
    # A run ends where the next busy column is not its neighbour or differs in kind or strength.
    key = codes * (SHADES + 1) + levels
    breaks = np.flatnonzero((np.diff(busy) != 1) | (np.diff(key) != 0)) + 1
    firsts = np.concatenate(([0], breaks))
    lasts = np.concatenate((breaks, [busy.size])) - 1
    left = round(x0)
    return [
        (left + a, left + b + 1, code, level / SHADES)
        for a, b, code, level in zip(
            busy[firsts].tolist(),
            busy[lasts].tolist(),
            codes[firsts].tolist(),
            levels[firsts].tolist(),
            strict=True,
        )
    ]


def _time_in(starts: np.ndarray, ends: np.ndarray, at: np.ndarray) -> np.ndarray:
    """For each instant of ``at``: the time inside the intervals [starts, ends) before it (the
    intervals sorted and apart, as one CPU's interrupts are)."""
    lengths = ends - starts
    before = np.concatenate(([0.0], np.cumsum(lengths)))  # the time in the intervals before each
    k = np.searchsorted(starts, at, side="right") - 1  # the last interval that starts by each instant
    inside = np.clip(at - starts[np.maximum(k, 0)], 0.0, lengths[np.maximum(k, 0)])
    return np.where(k >= 0, before[np.maximum(k, 0)] + inside, 0.0)


def _split(entries: Iterable[Sequence[int]]) -> list[tuple[int, int, int]]:
    """Interrupt entries as hardirq and softirq segments (a softirq alone has no hard part)."""
    out: list[tuple[int, int, int]] = []
    for start, hard_end, end in entries:
        if hard_end > start:
            out.append((start, hard_end, HARDIRQ))
        if end > hard_end:
            out.append((hard_end, end, SOFTIRQ))
    return out


def yield_columns(
    yields: Iterable[tuple[int, bool]], now_ns: int, window_ns: int, x0: float, width: float, spacing: int = 1
) -> list[tuple[int, bool]]:
    """One mark per column of ``spacing`` pixels that saw a yield; a column is "switched" if any of its
    yields switched. Marks closer than their own width ran together into a solid bar that read as a
    hard interrupt (a yielder that yields every few microseconds): spaced, they read as a comb."""
    cols: dict[int, bool] = {}
    lo = now_ns - window_ns
    for t, switched in yields:
        if lo <= t <= now_ns:
            x = round(x0 + round((time_to_x(t, now_ns, window_ns, x0, width) - x0) / spacing) * spacing)
            cols[x] = cols.get(x, False) or switched
    return sorted(cols.items())


def quiet_rows(quiet: Sequence[bool]) -> list[tuple[int, int]]:
    """The lanes' rows as (first CPU, last CPU): neighbouring quiet CPUs (``quiet[i]``: nothing but
    idle to show) share one row, two or more of them; every other CPU has a row of its own."""
    rows: list[tuple[int, int]] = []
    for i, q in enumerate(quiet):
        first, last = rows[-1] if rows else (-1, -1)
        if q and rows and last == i - 1 and quiet[first]:
            rows[-1] = (first, i)
        else:
            rows.append((i, i))
    return rows


def _newest(items: deque[Any], after_ns: int, end: int) -> list[Any]:
    """The items of a time-ordered deque whose field ``end`` is after ``after_ns``, oldest first: found
    by a binary search and copied in C (a busy 2011 lane keeps thousands, and a frame reads them all)."""
    first = bisect_right(items, after_ns, key=itemgetter(end))
    return list(islice(items, first, None))


class LaneHistory:
    """The recent past of one CPU: task segments, interrupts and yields, bounded in count.

    Segments shorter than the merge quantum accumulate in a bucket that is emitted, once it spans a
    quantum, as one segment of the code that had most of its time.
    """

    def __init__(self, maxlen: int = HISTORY_MAX) -> None:
        self.segments: deque[tuple[int, int, int]] = deque(maxlen=maxlen)
        self.irqs = SpanLog(3, max(maxlen, IRQS_MAX), end=2)  # (start, hardirq end, end)
        self.yields: deque[tuple[int, bool]] = deque(maxlen=YIELDS_MAX)
        # The qdisc's dequeuer role on this CPU: (start, end, packets, why it stopped: its index in
        # EXIT_REASONS), and since when the tenure in progress runs (None: the CPU does not dequeue now).
        self.tenures = SpanLog(4, maxlen, end=1)
        self.open_tenure: int | None = None
        self.open_code: int | None = None  # what runs since open_start (None: not known yet)
        self.open_start = 0
        self.open_irq: tuple[int, int] | None = None  # (since, HARDIRQ or SOFTIRQ): an open context's stretch
        self._bucket: dict[int, int] = {}
        self._bucket_span = (0, 0)

    def catch_up(
        self, cpu: CpuView, qdisc: QdiscView | None, now_ns: int, since_ns: int, quantum_ns: int
    ) -> None:
        """Bring what is open to the snapshot's ``cpu``: the task running now (since ``since_ns``, the
        previous frame, when nothing has switched yet), the dequeuer tenure and the interrupt context
        in progress."""
        if self.open_code is None:  # nothing switched yet: it has run since the previous frame
            self.open_code, self.open_start = cpu.curr_tid, since_ns
        elif self.open_code != cpu.curr_tid:  # records lost to the machine's trace limit
            self.switch(now_ns, cpu.curr_tid, self.open_code, quantum_ns)
        dequeuing = qdisc is not None and qdisc.dequeuer_cpu == cpu.index and qdisc.dequeuer_since_ns >= 0
        self.open_tenure = qdisc.dequeuer_since_ns if qdisc is not None and dequeuing else None
        since = cpu.open_irq_since_ns
        self.open_irq = None if since < 0 else (since, HARDIRQ if cpu.state == "hardirq" else SOFTIRQ)

    def switch(self, t_ns: int, tid: int, prev_tid: int, quantum_ns: int) -> None:
        if self.open_code is None:
            self.open_code, self.open_start = prev_tid, t_ns
        self.add(self.open_start, t_ns, self.open_code, quantum_ns)
        self.open_code, self.open_start = tid, t_ns

    def add(self, start: int, end: int, code: int, quantum_ns: int) -> None:
        if end <= start:
            return
        b0, b1 = self._bucket_span
        if self._bucket and (start - b1 > quantum_ns or end - start >= quantum_ns):
            self._flush()
        if end - start >= quantum_ns:
            self._append(start, end, code)
            return
        if not self._bucket:
            b0 = start
        self._bucket[code] = self._bucket.get(code, 0) + end - start
        self._bucket_span = (b0, end)
        if end - b0 >= quantum_ns:
            self._flush()

    def _flush(self) -> None:
        code = max(self._bucket, key=self._bucket.__getitem__)
        self._bucket = {}
        self._append(*self._bucket_span, code)

    def _append(self, start: int, end: int, code: int) -> None:
        segs = self.segments
        if segs and segs[-1][2] == code and start - segs[-1][1] <= 0:
            segs[-1] = (segs[-1][0], end, code)
        else:
            segs.append((start, end, code))

    def quiet(self) -> bool:
        """Nothing but idle in what the lane keeps: no task, no interrupt, no yield."""
        if self.irqs or self.yields or self._bucket or self.open_code not in (None, IDLE):
            return False
        return all(code == IDLE for _, _, code in self.segments)

    def irq(self, start: int, hard_ns: int, soft_ns: int) -> None:
        """An interrupt: ``hard_ns`` of hardirq from ``start``, then ``soft_ns`` of softirq. One that
        begins where the last ended continues it where nothing is lost by that (a softirq after it, a
        hardirq after a hardirq), so an open context's stretches cost one entry, not one each."""
        irqs = self.irqs
        if irqs:
            first, hard_end, end = irqs[-1]
            if end == start and hard_ns == 0:
                irqs.set_last((first, hard_end, end + soft_ns))
                return
            if end == start and hard_end == end:
                irqs.set_last((first, end + hard_ns, end + hard_ns + soft_ns))
                return
        irqs.append((start, start + hard_ns, start + hard_ns + soft_ns))

    def prune(self, before_ns: int) -> None:
        while self.segments and self.segments[0][1] < before_ns:
            self.segments.popleft()
        self.irqs.drop_ending_before(before_ns)
        while self.yields and self.yields[0][0] < before_ns:
            self.yields.popleft()
        self.tenures.drop_ending_before(before_ns)

    def task_segments(self, now_ns: int, after_ns: int | None = None) -> list[tuple[int, int, int]]:
        """Closed segments plus the open one, up to ``now_ns``; with ``after_ns``, only those that end
        after it (read from the newest back, so a frame costs what it shows, not what is kept)."""
        out = list(self.segments) if after_ns is None else _newest(self.segments, after_ns, 1)
        if self.open_code is not None and now_ns > self.open_start:
            out.append((self.open_start, now_ns, self.open_code))
        return out

    def complete_from(self) -> int:
        """From when on the lane still knows every interrupt: the oldest it keeps once it has had to let
        older ones go, else 0."""
        irqs = self.irqs
        return irqs[0][0] if len(irqs) == irqs.maxlen else 0

    def irq_entries(self, after_ns: int | None = None, now_ns: int | None = None) -> np.ndarray:
        """Interrupts as rows ``(start, hardirq end, end)``, oldest first (those that end after
        ``after_ns``); with ``now_ns``, the open context's stretch in progress up to it too (the trace
        records a stretch when it ends)."""
        rows = self.irqs.ending_after(-1 if after_ns is None else after_ns)
        if now_ns is not None and self.open_irq is not None and now_ns > self.open_irq[0]:
            since, code = self.open_irq
            last = (since, now_ns, now_ns) if code == HARDIRQ else (since, since, now_ns)
            rows = np.vstack((rows, np.array([last], dtype=np.int64)))
        return rows

    def irq_segments(
        self, after_ns: int | None = None, now_ns: int | None = None
    ) -> list[tuple[int, int, int]]:
        """``irq_entries`` as hardirq and softirq segments."""
        return _split(self.irq_entries(after_ns, now_ns).tolist())

    def tenure_spans(self, after_ns: int, now_ns: int) -> np.ndarray:
        """The dequeuer tenures that end after ``after_ns``, the one in progress up to ``now_ns`` too, as
        rows ``(start, end, …)`` for ``bar_runs``."""
        rows = self.tenures.ending_after(after_ns)
        if self.open_tenure is not None and now_ns > self.open_tenure:
            rows = np.vstack((rows, np.array([(self.open_tenure, now_ns, 0, -1)], dtype=np.int64)))
        return rows


class Ingested(NamedTuple):
    """What ``ingest`` saw: the records that pick the automatic window, and whether any yield or
    dequeuer tenure was among them."""

    counted: int
    yields: bool
    tenures: bool


def ingest(
    lanes: Sequence[LaneHistory], events: Sequence[TraceRecord], cutoff_ns: int, quantum_ns: int
) -> Ingested:
    """Feed a snapshot's records to the lanes, one per CPU; records before ``cutoff_ns`` only update what
    runs."""
    counted, yields, tenures = 0, False, False
    for r in events:
        if r.cpu >= len(lanes):
            continue
        lane = lanes[r.cpu]
        if isinstance(r, SwitchRecord):
            counted += 1
            if r.t_ns < cutoff_ns:
                lane.open_code, lane.open_start = r.tid, r.t_ns
            else:
                lane.switch(r.t_ns, r.tid, r.prev_tid, quantum_ns)
        elif isinstance(r, IrqRecord):
            # The transmit path's contexts come and go with every packet: counted, they would narrow
            # the automatic window to a millisecond. Interrupts raised whole are counted.
            counted += 0 if r.open_context else 1
            if r.t_ns + r.dur_ns >= cutoff_ns:
                lane.irq(r.t_ns, r.hardirq_ns, r.softirq_ns)
        elif isinstance(r, YieldRecord) and r.t_ns >= cutoff_ns:
            lane.yields.append((r.t_ns, r.switched))
            yields = True
        elif isinstance(r, TenureRecord) and r.t_ns + r.dur_ns >= cutoff_ns:
            lane.tenures.append((r.t_ns, r.t_ns + r.dur_ns, r.packets, EXIT_REASONS.index(r.exit_reason)))
            tenures = True
    return Ingested(counted, yields, tenures)
