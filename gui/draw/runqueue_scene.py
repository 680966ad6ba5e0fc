"""The run-queue panel's display list: chips, boxes, lines and texts laid out as each policy keeps its queue.

One layout per run-queue view kind (``model.snapshot``), picked by the view's type. O(1): the active and
expired priority arrays, a row per occupied prio. CFS: a timeline of keys around fair_clock (2.6.23) or
min_vruntime (2.6.24). BFS: the global queue as a list by virtual deadline, cut by the current jiffy.
EEVDF: each request as a bar from vruntime to deadline, in an eligible and an ineligible lane around
avg_vruntime. Who runs next, eligibility and arrays are the view's own fields: nothing is re-derived
here. ``SceneBuilder.build`` is geometry only: the panel paints the Scene and marks the yields.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPen

from gui.draw import palette
from gui.draw.formats import format_duration, nice_step
from model.snapshot import (
    BfsEntry,
    BfsView,
    Cfs2623View,
    Cfs2624View,
    EevdfView,
    O1Entry,
    O1View,
    RunqueueEntry,
    RunqueueView,
)

MIN_SPAN_NS = 1_000_000  # a key axis spans at least 1 ms
PAD, LINE_H, TAG_H, GUTTER_W = 8, 24, 20, 132
MIN_SECTION_H = 150  # a CPU's section needs this much height; less, and each CPU gets a row
MIN_SECTION_W = 500  # two sections side by side need twice this much width
GUTTER_MIN_BODY_W = 620  # a narrower key axis leaves the words at its left out (the axis says it)
CHIP_H = {True: 26, False: 42}  # compact (one line) or with a detail line
HEADLINES: dict[type, tuple[str, str]] = {  # (wide, narrow)
    O1View: (
        "O(1): two priority arrays; the lowest prio number runs first",
        "O(1): active and expired arrays",
    ),
    Cfs2623View: (
        "CFS: tasks ordered by fair_key; the leftmost runs next",
        "CFS: by fair_key, leftmost first",
    ),
    Cfs2624View: (
        "CFS: tasks ordered by vruntime; the leftmost runs next",
        "CFS: by vruntime, leftmost first",
    ),
    BfsView: (
        "BFS: one global queue for all CPUs, ordered by virtual deadline",
        "BFS: global queue by deadline",
    ),
    EevdfView: (
        "EEVDF: the eligible task with the earliest deadline runs next (bar: vruntime → deadline)",
        "EEVDF: eligible, earliest deadline",
    ),
}
NO_TASK = "no runnable task"
WIDE_HEADLINE_PX = 760  # a narrower section takes the policy's narrow headline
PLAIN, BOLD, TITLE = 0, 1, 2
ALIGN_LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
ALIGN_TOP = Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop
ALIGN_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


# ---- pure helpers ---------------------------------------------------------------------------------


def headline(rq: RunqueueView, width: float, alone: bool, fits: Callable[[str], bool]) -> str:
    """A section's headline: the policy's wide or narrow words after "CPU n ·" (BFS has one queue for
    every CPU), the narrow words alone where the section is the only one, the first of those that
    ``fits``; else the last, to be shortened with "…"."""
    wide, narrow = HEADLINES[type(rq)]
    words = [narrow] if width < WIDE_HEADLINE_PX else [wide, narrow]
    options = words if isinstance(rq, BfsView) else [f"CPU {rq.cpu} · {w}" for w in words]
    if alone and options[-1] != narrow:
        options.append(narrow)
    return next((o for o in options if fits(o)), options[-1])


def key_to_x(rel_ns: float, rng: tuple[float, float], x0: float, width: float) -> float:
    """x of a key given relative to the clock, on an axis spanning ``rng`` (relative ns)."""
    return x0 + width * (rel_ns - rng[0]) / (rng[1] - rng[0])


def stable_range(lo: float, hi: float, prev: tuple[float, float] | None) -> tuple[float, float]:
    """An axis range around [lo, hi] and the clock (0) that stays put while the keys fill it well, so the
    picture does not jitter from frame to frame; otherwise a new one rounded out to a 1-2-5 step."""
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    if prev is not None and prev[0] <= lo and hi <= prev[1] and hi - lo >= 0.3 * (prev[1] - prev[0]):
        return prev
    span = max(hi - lo, MIN_SPAN_NS)
    step = nice_step(span * 1.3, 6)
    return math.floor((lo - 0.15 * span) / step) * step, math.ceil((hi + 0.15 * span) / step) * step


def prio_rows(entries: Sequence[O1Entry]) -> list[int]:
    """The occupied O(1) priority levels, best (lowest number) first."""
    return sorted({e.prio for e in entries})


def stack_levels(spans: Sequence[tuple[float, float]], gap: float = 6.0) -> list[int]:
    """For spans sorted by start: the lowest level on which each overlaps no earlier span."""
    ends: list[float] = []
    out = []
    for x0, x1 in spans:
        level = next((i for i, e in enumerate(ends) if x0 >= e + gap), len(ends))
        ends.append(x1) if level == len(ends) else ends.__setitem__(level, x1)
        out.append(level)
    return out


def section_grid(n: int, width: float, height: float) -> tuple[int, int]:
    """(columns, rows) of the per-CPU sections: two side by side where the panel is wide enough for
    two (``MIN_SECTION_W`` each) and there are more than two CPUs, or two that stacked would each be
    shorter than ``MIN_SECTION_H``; otherwise stacked."""
    side_by_side = n > 2 or (n == 2 and (height - PAD) / 2 < MIN_SECTION_H)
    cols = 2 if side_by_side and width >= 2 * MIN_SECTION_W else 1
    return cols, max(math.ceil(n / cols), 1)


def o1_slice_words(e: O1Entry, tick_ns: int) -> str:
    """ "slice 99/100 jiffies": O(1) counts its time slices in ticks."""
    return f"slice {e.time_slice_ns // tick_ns}/{e.full_slice_ns // tick_ns} jiffies"


def next_tag(e: RunqueueEntry, again: str = "picked again") -> str:
    """The tag of the entry the policy picks next: itself again if it is the running one."""
    return again if e.running else "runs next"


def bfs_wordings(e: BfsEntry, jiffies: int) -> list[str]:
    """What a BFS row may say beside its chip, longest first: whole clauses left out from the end, the
    deadline last (a row short of room drops "running on cpu 0" before it cuts "(now +37 jiffies)")."""
    rel = e.deadline_jiffies - jiffies
    deadline = f"deadline {e.deadline_jiffies} (now {'+' if rel >= 0 else '−'}{abs(rel)} jiffies)"
    slice_left = f"slice {format_duration(e.time_slice_ns)} left"
    pinned = [f"cpu {e.pinned_cpu} only"] if e.pinned_cpu >= 0 else []
    running = [f"running on cpu {e.on_cpu}, {slice_left}"] if e.running else []
    out = [" · ".join([deadline, *running, *pinned])]
    if e.running:
        out += [" · ".join([deadline, slice_left, *pinned]), f"{deadline} · {slice_left}"]
    out += [deadline, f"deadline {e.deadline_jiffies}"]
    return list(dict.fromkeys(out))


def fit_chip(chip: Chip, fm: QFontMetrics, width: float) -> None:
    """A chip and its tags in ``width``: shorter tags (``shorten_tags``), then none, then no detail
    line, then the name cut with "…" (the tooltip still says it all)."""
    shorten_tags(chip, fm, width)
    if chip.footprint(fm).width() > width:
        chip.tags = []
    if chip.rect.width() > width and chip.detail:
        chip.detail = ""
        chip.rect.setWidth(fm.horizontalAdvance(chip.title) + 18)
    if chip.rect.width() > width:
        chip.title = fm.elidedText(chip.title, Qt.TextElideMode.ElideRight, max(int(width) - 18, 0))
        chip.rect.setWidth(width)


def shorten_tags(chip: Chip, fm: QFontMetrics, width: float) -> None:
    """A chip whose tags would run past ``width``: the words after a tag's colon ("leftmost: picked
    again" -> "picked again"), then just "next"."""
    for shorter in (lambda tag: tag.split(": ")[-1], lambda tag: "next"):
        if chip.footprint(fm).width() <= width:
            return
        chip.tags = [(shorter(tag), color) for tag, color in chip.tags]


# ---- the display list -----------------------------------------------------------------------------

# A task on a key axis: (entry, start, end, detail, tags); start == end for a point key.
TimelineItem = tuple[RunqueueEntry, float, float, str, list[tuple[str, QColor]]]


@dataclass
class Chip:
    rect: QRectF
    tid: int
    title: str
    detail: str = ""
    running: bool = False
    tags: list[tuple[str, QColor]] = field(default_factory=list)
    tag_x: float | None = None  # where the tags start (None: right after the chip)
    tags_left: bool = False  # the tags end just left of the chip (a chip kept over its key at the right)

    def tag_rects(self, fm: QFontMetrics) -> list[QRectF]:
        """The tags sit in a row to the right of the chip (or its left), vertically centred on it."""
        widths = [fm.horizontalAdvance(tag) + 10 for tag, _ in self.tags]
        x = self.rect.right() + 5 if self.tag_x is None else self.tag_x
        if self.tags_left:
            x = self.rect.left() - 5 - (sum(widths) + 4 * (len(widths) - 1))
        out = []
        for w in widths:
            out.append(QRectF(x, self.rect.center().y() - TAG_H / 2, w, TAG_H))
            x += w + 4
        return out

    def footprint(self, fm: QFontMetrics) -> QRectF:
        r = QRectF(self.rect)
        for t in self.tag_rects(fm):
            r = r.united(t)
        return r


@dataclass
class TrailLine:
    """A task's recent keys on a key axis (CFS, EEVDF): ``clip`` is the trails' room, now at its bottom
    and ``span_ns`` ago at its top; ``points`` go oldest first, each drawn from the sample (instant, key
    relative to ``clock``) at the same place in ``samples``; ``key`` is what the key is called."""

    tid: int
    clip: QRectF
    points: list[QPointF]
    span_ns: int
    samples: list[tuple[int, int]] = field(default_factory=list)
    clock: str = ""
    key: str = "key"


# A text of the scene: its rectangle, words, style (PLAIN, BOLD, TITLE), ink, alignment and background.
SceneText = tuple[QRectF, str, int, QColor, Qt.AlignmentFlag, QColor | None]


@dataclass
class Scene:
    """What to paint, in paint order (boxes, lines, trails, lines over the trails, texts, chips), and
    where each chip and section is."""

    boxes: list[tuple[QRectF, QColor]] = field(default_factory=list)
    trails: list[TrailLine] = field(default_factory=list)
    lines: list[tuple[QPointF, QPointF, QPen]] = field(default_factory=list)
    over_trails: list[tuple[QPointF, QPointF, QPen]] = field(default_factory=list)
    texts: list[SceneText] = field(default_factory=list)
    chips: list[Chip] = field(default_factory=list)
    rects: dict[tuple[int, int], QRectF] = field(default_factory=dict)  # (section, tid) -> chip
    footers: dict[int, QRectF] = field(default_factory=dict)  # section -> where its last yield is told
    section_rects: dict[int, QRectF] = field(default_factory=dict)
    tips: list[tuple[QRectF, str]] = field(default_factory=list)  # what hovering a drawn line says

    def text(
        self,
        rect: QRectF,
        s: str,
        style: int = PLAIN,
        color: QColor = palette.TEXT,
        align: Qt.AlignmentFlag = ALIGN_LEFT,
        bg: QColor | None = None,
    ) -> None:
        self.texts.append((rect, s, style, color, align, bg))

    def line(
        self,
        a: QPointF,
        b: QPointF,
        color: QColor = palette.TEXT,
        width: float = 1,
        dash: bool = False,
        over_trails: bool = False,
    ) -> None:
        pen = QPen(color, width, Qt.PenStyle.DashLine if dash else Qt.PenStyle.SolidLine)
        (self.over_trails if over_trails else self.lines).append((a, b, pen))


# ---- the layouts ----------------------------------------------------------------------------------
