"""Counters and the series derived from them, each defined once: the CLI, the CSV and the window use these.

``Series`` samples the machine's cumulative counters at a simulated interval (the caller may retune it
mid-run). Each probe is a named function returning a cumulative integer counter (bytes acknowledged, a
CPU's hardirq ns, a task's yields, ...). Rows are appended into a growing int64 array; readers get
read-only views of the rows written so far, which later appends never change. With ``keep_rows`` only
the newest rows are kept (a window's bounded memory over a long run). ``mark`` samples a row and keeps
it as the anchor of "since the last change". The derived series (bandwidth, shares of an interval,
rates, Jain's index) take plain numbers or numpy arrays alike, with the same arithmetic, and
``interval_figures`` composes them into the headline figures of any interval between two rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from model.copyable import mypyc_attr
from model.snapshot import SeriesLayout

NSEC_PER_SEC = 1_000_000_000
Num = Any  # a number or a numpy array of them: the same arithmetic serves both


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class Series:
    def __init__(
        self, probes: dict[str, Callable[[], int]], capacity: int = 256, keep_rows: int | None = None
    ) -> None:
        self.columns = ["t_ns", *probes]
        self._probes = list(probes.values())
        self._data: NDArray[np.int64] = np.zeros((capacity, len(self.columns)), dtype=np.int64)
        self.rows = 0
        self.keep_rows = keep_rows
        self.dropped = 0  # rows let go to keep only ``keep_rows``
        self.anchor: NDArray[np.int64] = np.zeros(len(self.columns), dtype=np.int64)  # at the last mark
        self.anchor.flags.writeable = False

    def sample(self, t_ns: int) -> None:
        if self.rows == len(self._data):
            self._make_room()
        row = self._data[self.rows]
        row[0] = t_ns
        for i, probe in enumerate(self._probes, start=1):
            row[i] = probe()
        self.rows += 1

    def _make_room(self) -> None:
        keep = self.keep_rows
        if keep is None or self.rows < 2 * keep:
            self._data = np.concatenate([self._data, np.zeros_like(self._data)])
            return
        # A fresh array with the newest ``keep`` rows: views handed out earlier keep their own data.
        fresh = np.zeros((2 * keep, len(self.columns)), dtype=np.int64)
        fresh[:keep] = self._data[self.rows - keep : self.rows]
        self.dropped += self.rows - keep
        self._data, self.rows = fresh, keep

    def fork_with(self, copy: Callable[[Any], Any]) -> Series:
        """This series' twin in a copy of the run (``model.fork``): what ``parked`` keeps, with ``copy``'s
        probes."""
        _, (probes, rows, keep_rows, dropped, anchor) = self.parked()
        return resume_series(copy(probes), rows, keep_rows, dropped, anchor)

    def parked(self, keep_rows: int | None = None) -> tuple[Any, ...]:
        """How a copy or a parked checkpoint of the run keeps this series (``model.fork``): its probes,
        and its rows as a read-only view of the very rows sampled so far, shared, since nobody changes
        them (a sample writes the row past them, and a full array is replaced, never changed; the park
        shares read-only arrays by reference), and the anchor likewise (read-only, replaced at every
        mark). With ``keep_rows``, only the newest that many rows, copied into the parked state as their
        differences (small numbers, which compress well): a checkpoint kept for long then pins none of
        the arrays the live series has since let go."""
        probes = dict(zip(self.columns[1:], self._probes, strict=True))
        if keep_rows is not None:
            kept = min(self.rows, keep_rows)
            tail = self._data[self.rows - kept : self.rows]
            steps = np.diff(tail, axis=0, prepend=0)  # the first row counts from zero
            dropped = self.dropped + self.rows - kept
            return resume_series_steps, (probes, steps, self.keep_rows, dropped, self.anchor)
        rows = self._data[: self.rows]
        rows.flags.writeable = False
        return resume_series, (probes, rows, self.keep_rows, self.dropped, self.anchor)

    def mark(self, t_ns: int) -> None:
        """Sample a row now and keep it as the anchor: the counters when a setting last changed."""
        self.sample(t_ns)
        self.anchor = self._data[self.rows - 1].copy()
        self.anchor.flags.writeable = False

    def view(self) -> NDArray[np.int64]:
        """The rows sampled so far (read-only)."""
        out = self._data[: self.rows]
        out.flags.writeable = False
        return out


def resume_series(
    probes: dict[str, Callable[[], int]],
    rows: NDArray[np.int64],
    keep_rows: int | None,
    dropped: int,
    anchor: NDArray[np.int64],
) -> Series:
    """A parked series (``Series.parked``) made a run's again: the rows shared, read-only, until its first
    sample moves it to an array of its own."""
    series = Series(probes, 1, keep_rows)
    if len(rows):
        series._data = rows
    series.rows, series.dropped, series.anchor = len(rows), dropped, anchor
    return series


def resume_series_steps(
    probes: dict[str, Callable[[], int]],
    steps: NDArray[np.int64],
    keep_rows: int | None,
    dropped: int,
    anchor: NDArray[np.int64],
) -> Series:
    """A series parked with only its newest rows (``Series.parked(keep_rows)``), their differences summed
    back into rows of its own."""
    return resume_series(probes, np.cumsum(steps, axis=0), keep_rows, dropped, anchor)


def per_interval(cumulative: NDArray[np.int64]) -> NDArray[np.int64]:
    """Differences between consecutive samples (the first sample counts from zero)."""
    return np.diff(cumulative, prepend=0)


def seconds(ns: Num) -> Num:
    return ns / NSEC_PER_SEC


def bandwidth_mbps(acked_bytes: Num, interval_ns: Num) -> Num:
    """Goodput in Mbit/s: bytes delivered over an interval of ``interval_ns``."""
    return acked_bytes * 8 / seconds(interval_ns) / 1e6


def share(part_ns: Num, interval_ns: Num) -> Num:
    """The fraction of an interval that a thread ran, or a CPU spent in some state (0..1 per CPU)."""
    return part_ns / interval_ns


# Hard and soft interrupts together, as a share of one CPU, from which a headline shows them.
INTERRUPTS_NOTABLE = 0.10


def interrupt_shares(hardirq: Sequence[float], softirq: Sequence[float]) -> tuple[float, float] | None:
    """Every CPU's hard and soft interrupt shares (0..1 per CPU) added up: a share of one CPU, the
    unit of a thread's share (top's Irix mode); None where together they stay under
    ``INTERRUPTS_NOTABLE`` (a story in which interrupts take next to nothing)."""
    hard, soft = float(sum(hardirq)), float(sum(softirq))
    return (hard, soft) if hard + soft >= INTERRUPTS_NOTABLE else None


def rate_per_s(count: Num, interval_ns: Num) -> Num:
    """Events per second over an interval (yields, context switches)."""
    return count / seconds(interval_ns)


def jain_rows(x: NDArray[Any]) -> NDArray[np.float64]:
    """Jain's fairness index (Σx)² / (n·Σx²) of each row: 1 when all are equal, 1/n when one takes
    everything, and 1 for a row of zeros (nobody was treated unfairly)."""
    xf = np.atleast_2d(np.asarray(x, dtype=np.float64))
    out = np.ones(len(xf))
    if xf.shape[1] == 0:
        return out
    squares = (xf * xf).sum(axis=1)
    nz = squares > 0
    out[nz] = xf[nz].sum(axis=1) ** 2 / (xf.shape[1] * squares[nz])
    return out


def jain_index(values: NDArray[np.int64] | Sequence[int]) -> float:
    """Jain's index of one set of values (``jain_rows`` of a single row)."""
    return float(jain_rows(np.asarray(values, dtype=np.float64))[0])


def interval_table(columns: Sequence[str], rows: NDArray[np.int64]) -> list[tuple[str, NDArray[np.float64]]]:
    """The sampled series per interval, as the CSV has them: ``t_s``, ``bandwidth_mbps``, a
    ``*_share`` per ns counter and a ``*_per_s`` per yield counter, each a column of values; with a
    qdisc, then each CPU's dequeues per second (``cpuN_dequeues_per_s``) and Jain's index of them
    (``fairness_jain``, 1 for an interval without dequeues)."""
    t = rows[:, 0]
    dt = per_interval(t).astype(np.float64)
    dt[dt == 0] = 1
    out: list[tuple[str, NDArray[np.float64]]] = [
        ("t_s", seconds(t.astype(np.float64))),
        ("bandwidth_mbps", bandwidth_mbps(per_interval(rows[:, list(columns).index("acked_bytes")]), dt)),
    ]
    for i, name in enumerate(columns):
        if name.endswith("_ns") and name != "t_ns":
            out.append((name[:-3] + "_share", share(per_interval(rows[:, i]), dt)))
        elif name.endswith("_yields"):
            out.append((name + "_per_s", rate_per_s(per_interval(rows[:, i]), dt)))
    dequeued = [i for i, name in enumerate(columns) if name.startswith("cpu") and name.endswith("_dequeued")]
    if dequeued:
        counts = np.column_stack([per_interval(rows[:, i]) for i in dequeued])
        for k, i in enumerate(dequeued):
            name = columns[i].removesuffix("_dequeued") + "_dequeues_per_s"
            out.append((name, rate_per_s(counts[:, k], dt)))
        out.append(("fairness_jain", jain_rows(counts)))
    return out


@dataclass(frozen=True, slots=True)
class IntervalFigures:
    """The headline figures of one interval between two sampled rows, each from the functions above."""

    t0_ns: int
    t1_ns: int
    bandwidth_mbps: float
    task_share: tuple[float, ...]  # fraction of one CPU, per task in the order of ``Snapshot.tasks``
    cpu_busy: tuple[float, ...]  # user + hardirq + softirq, per CPU
    cpu_hardirq: tuple[float, ...]  # hardirq, per CPU
    cpu_softirq: tuple[float, ...]  # softirq, per CPU
    dequeued: tuple[int, ...]  # per CPU, packets (empty without a transmit path)
    fairness_jain: float | None  # Jain's index of ``dequeued`` (None without a transmit path)
    switches_per_s: float

    @property
    def duration_ns(self) -> int:
        return self.t1_ns - self.t0_ns


def interval_figures(
    layout: SeriesLayout, a: NDArray[np.int64], b: NDArray[np.int64]
) -> IntervalFigures | None:
    """The figures of the interval from row ``a`` to row ``b`` (counter rows of ``Series``, column 0 the
    time); None when it is empty. Over a whole run (``a`` all zeros, ``b`` at its end) these are the
    figures ``schedlab run --json`` reports."""
    dt = int(b[0]) - int(a[0])
    if dt <= 0:
        return None
    d = b.astype(np.int64) - a.astype(np.int64)
    busy = [
        share(int(d[u]) + int(d[h]) + int(d[s]), dt)
        for u, h, s in zip(layout.cpu_task_ns, layout.cpu_hardirq_ns, layout.cpu_softirq_ns, strict=True)
    ]
    dequeued = tuple(int(d[c]) for c in layout.cpu_dequeued)
    return IntervalFigures(
        t0_ns=int(a[0]),
        t1_ns=int(b[0]),
        bandwidth_mbps=float(bandwidth_mbps(int(d[layout.acked_bytes]), dt)),
        task_share=tuple(float(share(int(d[c]), dt)) for c in layout.task_exec_ns),
        cpu_busy=tuple(float(x) for x in busy),
        cpu_hardirq=tuple(float(share(int(d[h]), dt)) for h in layout.cpu_hardirq_ns),
        cpu_softirq=tuple(float(share(int(d[s]), dt)) for s in layout.cpu_softirq_ns),
        dequeued=dequeued,
        fairness_jain=jain_index(dequeued) if dequeued else None,
        switches_per_s=float(rate_per_s(int(d[layout.switches]), dt)),
    )


# ---- whole-run metrics by name: dotted paths into ``schedlab run --json`` ----------------------------
# ``fairness_jain``, ``bandwidth_mbps``, ``threads.iperf-reporter.share``, ``cpus.0.busy``,
# ``qdisc.per_cpu_dequeued.3``: what ``sweep --metric`` names and ``compare`` prints. A task name may
# hold a dot (``hog.1``), so each step takes the longest key that exists. ``*`` in place of an index
# adds up every entry: ``cpus.*.hardirq`` is the hard-interrupt time of all CPUs, a share of one CPU.


def metric_at(summary: Mapping[str, Any], path: str) -> float | None:
    """The number at ``path`` in a run's summary, or None if there is none (or it is not a number)."""
    return _number_at(summary, path.split("."))


def _number_at(node: Any, parts: list[str]) -> float | None:
    i = 0
    while i < len(parts):
        if isinstance(node, Mapping):
            for j in range(len(parts), i, -1):
                key = ".".join(parts[i:j])
                if key in node:
                    node, i = node[key], j
                    break
            else:
                return None
        elif isinstance(node, list | tuple) and parts[i] == "*":
            each = [_number_at(item, parts[i + 1 :]) for item in node]
            return None if not each or None in each else float(sum(v for v in each if v is not None))
        elif isinstance(node, list | tuple) and parts[i].isdigit() and int(parts[i]) < len(node):
            node, i = node[int(parts[i])], i + 1
        else:
            return None
    if isinstance(node, bool) or not isinstance(node, int | float):
        return None
    return float(node)


def metric_paths(summary: Mapping[str, Any], prefix: str = "") -> list[str]:
    """Every dotted path to a number in a run's summary (the names ``metric_at`` accepts)."""
    out: list[str] = []
    items: list[tuple[str, Any]] = (
        [(str(k), v) for k, v in summary.items()] if isinstance(summary, Mapping) else []
    )
    for key, value in items:
        path = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out += metric_paths(value, path + ".")
        elif isinstance(value, list | tuple):
            for i, item in enumerate(value):
                if isinstance(item, Mapping):
                    out += metric_paths(item, f"{path}.{i}.")
                elif isinstance(item, int | float) and not isinstance(item, bool):
                    out.append(f"{path}.{i}")
        elif isinstance(value, int | float) and not isinstance(value, bool):
            out.append(path)
    return out


@dataclass(frozen=True)
class Headline:
    """A whole-run metric worth a line when two runs are compared, and how its difference reads."""

    path: str  # dotted path into run --json (``metric_at``)
    label: str
    unit: str  # shown after the value ("Mbit/s", "%", "/s"); empty for an index
    scale: float = 1.0  # shown value = value * scale (a share as a percentage)
    digits: int = 1
    arrow: bool = False  # an index: "Jain 0.58 → 0.96"; otherwise "B − A: +30.8 Mbit/s"

    def value(self, summary: Mapping[str, Any]) -> float | None:
        v = metric_at(summary, self.path)
        return None if v is None else v * self.scale

    def shown(self, value: float) -> str:
        return f"{value:.{self.digits}f}"

    def difference(self, a: float, b: float, a_label: str = "A", b_label: str = "B") -> str:
        if self.arrow:
            return f"{self.label} {self.shown(a)} → {self.shown(b)}"
        delta = b - a
        shown = f"{abs(delta):.{self.digits}f}"
        sign = "" if float(shown) == 0 else "+" if delta > 0 else "−"
        unit = {"": "", "%": " points"}.get(
            self.unit, self.unit if self.unit.startswith("/") else f" {self.unit}"
        )
        return f"{b_label} − {a_label}: {sign}{shown}{unit}"


RUN_HEADLINES: tuple[Headline, ...] = (
    Headline("bandwidth_mbps", "bandwidth", "Mbit/s"),
    Headline("fairness_jain", "Jain", "", digits=2, arrow=True),
    Headline("system_context_switches_per_s", "context switches (system)", "/s", digits=0),
)
# Every CPU's interrupt time together, a share of one CPU as the window's headline tiles show it
# (``interrupt_shares``): the 2009 story's answer to where the CPU went.
INTERRUPT_HEADLINES: tuple[Headline, ...] = (
    Headline("cpus.*.hardirq", "hardirq, all CPUs", "%", scale=100.0),
    Headline("cpus.*.softirq", "softirq, all CPUs", "%", scale=100.0),
)
# The kernel's own threads, by role; each is named ROLE/CPU (model.simulation spawns them).
KERNEL_ROLES = frozenset({"ksoftirqd"})


def story_threads_first(names: Iterable[str]) -> list[str]:
    """Thread names in the order a reader wants them: the scenario's own threads, then the kernel's
    (ksoftirqd/N: made first, so first in tid order, yet rarely the story)."""
    return sorted(names, key=lambda name: name.partition("/")[0] in KERNEL_ROLES)


DEQUEUE_SHARES = "qdisc.per_cpu_dequeue_shares."  # and the CPU: each CPU's share of the dequeues


def dequeue_share_headlines(summary: Mapping[str, Any]) -> list[Headline]:
    """Each CPU's share of a qdisc's dequeues (the 2011 story's table), if the run has a qdisc."""
    shares = summary.get("qdisc", {}).get("per_cpu_dequeue_shares", [])
    return [
        Headline(f"{DEQUEUE_SHARES}{cpu}", f"cpu{cpu} dequeues", "%", scale=100.0)
        for cpu in range(len(shares))
    ]


def headlines(summary: Mapping[str, Any], *others: Mapping[str, Any]) -> list[Headline]:
    """The headline metrics a run has: bandwidth (where it moves bytes: an iperf or a qdisc's senders)
    and Jain's index, each CPU's share of the dequeues (with a qdisc), the context switches, the
    interrupts (where they take ``INTERRUPTS_NOTABLE`` of a CPU in this run or in any of ``others``,
    the runs it is compared with), then each thread's CPU share."""
    moves_bytes = bool(summary.get("settings", {}).get("iperf.enabled")) or "qdisc" in summary
    out = [
        h
        for h in RUN_HEADLINES
        if h.value(summary) is not None and (moves_bytes or h.path != "bandwidth_mbps")
    ]
    jain = next((i + 1 for i, h in enumerate(out) if h.path == "fairness_jain"), len(out))
    out[jain:jain] = dequeue_share_headlines(summary)
    hard, soft = INTERRUPT_HEADLINES
    if any(
        interrupt_shares([metric_at(s, hard.path) or 0.0], [metric_at(s, soft.path) or 0.0]) is not None
        for s in (summary, *others)
    ):
        out += INTERRUPT_HEADLINES
    for name in story_threads_first(summary.get("threads", {})):
        out.append(Headline(f"threads.{name}.share", f"{name} CPU", "%", scale=100.0))
    return out
