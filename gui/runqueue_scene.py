"""The run-queue panel's display list: chips, boxes, lines and texts laid out as each policy keeps its queue.

The family is read from each RunqueueView (groups, key and clock names). O(1): the active and expired
priority arrays, a row per occupied prio. CFS: a timeline of keys around min_vruntime (2.6.24+) or
fair_clock (2.6.23). BFS: the global queue as a list by virtual deadline, cut by the current jiffy.
EEVDF: each request as a bar from vruntime to deadline, in an eligible and an ineligible lane around
avg_vruntime. ``SceneBuilder.build`` is geometry only: the panel paints the Scene and marks the yields.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPen

from gui import palette
from gui.cpu_history import format_duration, nice_step
from model.sched.base import RunqueueEntry, RunqueueView

MIN_SPAN_NS = 1_000_000  # a key axis spans at least 1 ms
PAD, LINE_H, TAG_H, GUTTER_W = 8, 24, 20, 132
CHIP_H = {True: 26, False: 42}  # compact (one line) or with a detail line
HEADLINES = {
    "o1": "O(1): two priority arrays; the lowest prio number runs first",
    "cfs": "CFS: tasks ordered by {key}; the leftmost runs next",
    "bfs": "BFS: one global queue for all CPUs, ordered by virtual deadline",
    "eevdf": "EEVDF: the eligible task with the earliest deadline runs next (bar: vruntime → deadline)",
    "": "run queue",
}
SHORT_HEADLINES = {
    "o1": "O(1): active and expired arrays",
    "cfs": "CFS: by {key}, leftmost first",
    "bfs": "BFS: global queue by deadline",
    "eevdf": "EEVDF: eligible, earliest deadline",
    "": "run queue",
}
NO_TASK = "no runnable task"
PLAIN, BOLD, TITLE = 0, 1, 2
ALIGN_LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
ALIGN_TOP = Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop


# ---- pure helpers ---------------------------------------------------------------------------------


def policy_family(rq: RunqueueView) -> str:
    """ "o1", "cfs", "bfs", "eevdf", or "" when an empty queue does not tell."""
    keys = {e.key_name for e in rq.entries}
    groups = {e.group for e in rq.entries}
    if "prio" in keys or groups & {"active", "expired"}:
        return "o1"
    if keys & {"vruntime", "fair_key"} or rq.clock_name in ("min_vruntime", "fair_clock"):
        return "cfs"
    if groups & {"eligible", "ineligible"} or rq.clock_name == "avg_vruntime":
        return "eevdf"
    return "bfs" if "deadline" in keys else ""


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


def prio_rows(entries: Sequence[RunqueueEntry]) -> list[int]:
    """The occupied O(1) priority levels, best (lowest number) first."""
    return sorted({e.key for e in entries})


def stack_levels(spans: Sequence[tuple[float, float]], gap: float = 6.0) -> list[int]:
    """For spans sorted by start: the lowest level on which each overlaps no earlier span."""
    ends: list[float] = []
    out = []
    for x0, x1 in spans:
        level = next((i for i, e in enumerate(ends) if x0 >= e + gap), len(ends))
        ends.append(x1) if level == len(ends) else ends.__setitem__(level, x1)
        out.append(level)
    return out


def detail_ms(detail: str, name: str) -> float | None:
    """A value in ms named in an entry's detail text ("vruntime 64.914 ms, lag +0.2 ms")."""
    m = re.search(rf"\b{name} ([-+]?[\d.]+) ms", detail)
    return float(m.group(1)) if m else None


def section_grid(n: int, width: float) -> tuple[int, int]:
    """(columns, rows) of the per-CPU sections: stacked up to two, then two side by side if wide enough."""
    cols = 2 if n > 2 and width >= 1000 else 1
    return cols, max(math.ceil(n / cols), 1)


def _o1_array(e: RunqueueEntry) -> str:
    """The O(1) array an entry sits in; the running task's detail says which ("…, in active")."""
    if e.group != "running":
        return e.group
    return "expired" if "in expired" in e.detail else "active"


def ms_label(rel_ns: float) -> str:
    return "0" if rel_ns == 0 else ("+" if rel_ns > 0 else "−") + format_duration(abs(rel_ns))


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

    def tag_rects(self, fm: QFontMetrics) -> list[QRectF]:
        """The tags sit in a row to the right of the chip, vertically centred on it."""
        x = self.rect.right() + 5 if self.tag_x is None else self.tag_x
        out = []
        for tag, _ in self.tags:
            out.append(QRectF(x, self.rect.center().y() - TAG_H / 2, fm.horizontalAdvance(tag) + 10, TAG_H))
            x += out[-1].width() + 4
        return out

    def footprint(self, fm: QFontMetrics) -> QRectF:
        r = QRectF(self.rect)
        for t in self.tag_rects(fm):
            r = r.united(t)
        return r


@dataclass
class Scene:
    """What to paint, in paint order (boxes, lines, texts, chips), and where each chip and section is."""

    boxes: list[tuple[QRectF, QColor]] = field(default_factory=list)
    lines: list[tuple[QPointF, QPointF, QPen]] = field(default_factory=list)
    texts: list[tuple[QRectF, str, int, QColor, Qt.AlignmentFlag, QColor | None]] = field(
        default_factory=list
    )
    chips: list[Chip] = field(default_factory=list)
    rects: dict[tuple[int, int], QRectF] = field(default_factory=dict)  # (section, tid) -> chip
    footers: dict[int, QRectF] = field(default_factory=dict)  # section -> where its last yield is told
    section_rects: dict[int, QRectF] = field(default_factory=dict)

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
        self, a: QPointF, b: QPointF, color: QColor = palette.TEXT, width: float = 1, dash: bool = False
    ) -> None:
        self.lines.append((a, b, QPen(color, width, Qt.PenStyle.DashLine if dash else Qt.PenStyle.SolidLine)))


# ---- the layouts ----------------------------------------------------------------------------------


class SceneBuilder:
    """Lays out one frame's run queues; keeps nothing but the axis ranges and families it is lent."""

    def __init__(
        self,
        fonts: Sequence[QFont],
        names: dict[int, str],
        nice: dict[int, int],
        ranges: dict[int, tuple[float, float]],
        families: dict[int, str],
    ) -> None:
        self._fonts, self._names, self._nice = fonts, names, nice
        self._ranges, self._families = ranges, families
        self.scene = Scene()

    def build(self, sections: Sequence[RunqueueView], size: QSize) -> Scene:
        """Sections on a grid, each with its headline, its queue and a footer line for the last yield."""
        self.scene = Scene()
        cols, rows = section_grid(len(sections), size.width())
        w, h = (size.width() - PAD) / cols, (size.height() - PAD) / rows
        for i, rq in enumerate(sections):
            family = policy_family(rq) or self._families.get(i, "")
            self._families[i] = family
            x, y = PAD + (i % cols) * w, PAD + (i // cols) * h
            self._layout_section(i, rq, family, QRectF(x, y, w - PAD, h - PAD))
        return self.scene

    def _layout_section(self, i: int, rq: RunqueueView, family: str, r: QRectF) -> None:
        sc = self.scene
        sc.boxes.append((r, palette.BACKGROUND))
        narrow = r.width() < 760
        key = rq.entries[0].key_name if rq.entries else "vruntime"
        headline = (SHORT_HEADLINES if narrow else HEADLINES)[family].format(key=key)
        headline = headline if family == "bfs" else f"CPU {rq.cpu} · {headline}"
        sc.text(QRectF(r.left() + 6, r.top() + 2, r.width() - 12, LINE_H), headline, TITLE)
        body = r.adjusted(6, LINE_H + 4, -6, -LINE_H - 2)
        compact = body.height() < 190
        layouts = {
            "o1": self._layout_o1,
            "cfs": self._layout_cfs,
            "bfs": self._layout_bfs,
            "eevdf": self._layout_eevdf,
        }
        if family and rq.entries:
            layouts[family](i, rq, body, compact)
        else:
            sc.text(body, NO_TASK, PLAIN, palette.GREY, Qt.AlignmentFlag.AlignCenter)
        self.scene.footers[i] = QRectF(r.left() + 6, r.bottom() - LINE_H, r.width() - 12, LINE_H)
        self.scene.section_rects[i] = r

    def _chip(
        self,
        i: int,
        e: RunqueueEntry,
        x: float,
        y: float,
        compact: bool,
        detail: str = "",
        tags: Sequence[tuple[str, QColor]] = (),
    ) -> Chip:
        running = e.group == "running"
        title = ("▶ " if running else "") + self._names.get(e.tid, f"task {e.tid}")
        detail = "" if compact else detail
        w = max(
            QFontMetrics(self._fonts[BOLD]).horizontalAdvance(title),
            QFontMetrics(self._fonts[PLAIN]).horizontalAdvance(detail),
        )
        chip = Chip(QRectF(x, y, w + 18, CHIP_H[compact]), e.tid, title, detail, running, list(tags))
        self.scene.chips.append(chip)
        self.scene.rects[(i, e.tid)] = chip.rect
        return chip

    def _layout_o1(self, i: int, rq: RunqueueView, body: QRectF, compact: bool) -> None:
        """O(1): active | expired; a row per occupied prio; chips in FIFO order, the running one first."""
        sc, half = self.scene, (body.width() - 12) / 2
        rows, row_h = prio_rows(rq.entries), CHIP_H[compact] + 8
        queued = [
            e for g in ("active", "expired") for p in rows for e in rq.entries if e.key == p and e.group == g
        ]
        nxt = queued[0].tid if queued else 0
        wide = half > 380
        captions = (
            ("active", "active array: runs first" if wide else "active array"),
            ("expired", "expired array: waits for the swap" if wide else "expired array"),
        )
        for k, (array, caption) in enumerate(captions):
            box = QRectF(body.left() + k * (half + 12), body.top(), half, body.height())
            sc.boxes.append((box, palette.LIGHT_GREY))
            sc.text(QRectF(box.left() + 8, box.top() + 2, box.width() - 12, 22), caption, BOLD)
            y = box.top() + 28
            for prio in rows:
                if y + row_h > box.bottom() - 18:
                    sc.text(QRectF(box.left() + 8, y - 4, box.width(), 20), "… more prio levels", PLAIN)
                    break
                sc.text(QRectF(box.left() + 8, y, 80, CHIP_H[compact]), f"prio {prio}", BOLD)
                members = [e for e in rq.entries if e.key == prio and _o1_array(e) == array]
                members.sort(key=lambda e: e.group != "running")
                self._o1_row(i, members, QRectF(box.left() + 94, y, box.width() - 98, 0), nxt, compact)
                y += row_h
            if array == "expired" and wide:
                sc.text(
                    QRectF(box.left() + 8, box.bottom() - 22, box.width() - 12, 20),
                    "when active is empty, the arrays swap",
                )

    def _o1_row(self, i: int, members: list[RunqueueEntry], r: QRectF, nxt: int, compact: bool) -> None:
        """One prio row of an array, left to right; crowded chips lose their detail, then say "+N more"."""
        fm, x = QFontMetrics(self._fonts[BOLD]), r.left()
        for n, e in enumerate(members):
            tag = "runs next" + (" (after the swap)" if e.group == "expired" else "")
            detail = f"nice {self._nice.get(e.tid, 0)} · " + e.detail.split(",")[0]
            chip = self._chip(
                i, e, x, r.top(), compact, detail, [(tag, palette.BLUE)] if e.tid == nxt else []
            )
            if chip.footprint(fm).right() > r.right():  # crowded: name only, short tag
                chip.detail, chip.tags = "", [("next", palette.BLUE)] if chip.tags else []
                chip.rect.setWidth(fm.horizontalAdvance(chip.title) + 18)
            if chip.footprint(fm).right() > r.right():  # the row's order still says it
                chip.tags = []
            if chip.footprint(fm).right() > r.right() and n:  # no room: say how many wait here
                self.scene.chips.pop()
                self.scene.rects.pop((i, e.tid), None)
                self.scene.text(
                    QRectF(x, r.top(), r.right() - x, CHIP_H[compact]), f"+{len(members) - n} more", BOLD
                )
                return
            x = chip.footprint(fm).right() + 8

    def _axis(
        self, i: int, rq: RunqueueView, rels: list[float], x0: float, w: float, y: float
    ) -> tuple[float, float]:
        """A key axis at height ``y``, the clock (0) named under it; returns the (stable) range."""
        rng = self._ranges[i] = stable_range(min(rels), max(rels), self._ranges.get(i))
        sc, fm = self.scene, QFontMetrics(self._fonts[PLAIN])
        sc.line(QPointF(x0, y), QPointF(x0 + w, y), palette.TEXT, 2)
        step = nice_step(rng[1] - rng[0], max(int(w // 110), 2))
        clock_x = key_to_x(0, rng, x0, w)
        clock_label = f"▲ {rq.clock_name}"
        clock_w = QFontMetrics(self._fonts[BOLD]).horizontalAdvance(clock_label) + 8
        cx = min(max(clock_x, x0 + clock_w / 2), x0 + w - clock_w / 2)
        clock_rect = QRectF(cx - clock_w / 2, y + 4, clock_w, fm.height())
        for k in range(math.ceil(rng[0] / step), math.floor(rng[1] / step) + 1):
            x = key_to_x(k * step, rng, x0, w)
            sc.line(QPointF(x, y), QPointF(x, y + 5))
            label = ms_label(k * step)
            half = fm.horizontalAdvance(label) / 2 + 4
            tx = min(max(x, x0 + half), x0 + w - half)
            if tx + half < clock_rect.left() - 8 or tx - half > clock_rect.right() + 8:
                sc.text(
                    QRectF(tx - half, y + 5, 2 * half, fm.height()), label, PLAIN, palette.TEXT, ALIGN_TOP
                )
        sc.text(clock_rect, clock_label, BOLD, palette.VERMILLION, ALIGN_TOP)
        return rng

    def _timeline(
        self, i: int, items: list[TimelineItem], lane: QRectF, rng: tuple[float, float], x0: float, w: float
    ) -> None:
        """Chips stacked up from the lane's bottom at each item's key, or at the start of its request (drawn
        as a bar to its deadline); a dashed stem joins each chip to its key. Compact chips when crowded."""
        fm, mark = QFontMetrics(self._fonts[BOLD]), len(self.scene.chips)
        for compact in (False, True):
            del self.scene.chips[mark:]
            placed: list[tuple[Chip, float, float]] = []
            for e, start, end, detail, tags in items:
                chip = self._chip(i, e, 0, 0, compact, detail, tags)
                xa, xb = key_to_x(start, rng, x0, w), key_to_x(end, rng, x0, w)
                left = xa - chip.rect.width() / 2 if start == end else xa
                room = chip.footprint(fm).width()
                chip.rect.moveLeft(min(max(left, lane.left()), lane.right() - room))
                placed.append((chip, xa, xb))
            placed.sort(key=lambda p: p[0].rect.left())
            levels = stack_levels([(c.rect.left(), c.footprint(fm).right()) for c, _, _ in placed])
            bars = any(xb > xa for _, xa, xb in placed)  # requests get a bar under their chip
            level_h = CHIP_H[compact] + (11 if bars else 6)
            fits = int((lane.height() - 14 - CHIP_H[compact]) // level_h) + 1
            if max(levels, default=0) < fits or compact:
                break
        for (chip, xa, xb), level in zip(placed, levels, strict=True):
            chip.rect.moveBottom(lane.bottom() - 12 - min(level, max(fits - 1, 0)) * level_h)
            self.scene.rects[(i, chip.tid)] = chip.rect
            if xb > xa:  # a request, from vruntime to deadline, right under its chip
                bar = QRectF(xa, chip.rect.bottom() + 2, max(xb - xa, 2), 7)
                self.scene.boxes.append((bar, palette.task_color(chip.tid)))
            self.scene.line(
                QPointF(xa, chip.rect.bottom()), QPointF(xa, lane.bottom()), palette.TEXT, 1, True
            )

    def _layout_cfs(self, i: int, rq: RunqueueView, body: QRectF, compact: bool) -> None:
        """CFS: keys relative to min_vruntime (2.6.24+) or fair_clock (2.6.23) on one axis."""
        axis_y, x0, w = body.bottom() - 24, body.left() + GUTTER_W, body.width() - GUTTER_W - 4
        rels = {e.tid: float(e.key - rq.clock) for e in rq.entries}
        rng = self._axis(i, rq, list(rels.values()), x0, w, axis_y)
        self._clock_line(rng, x0, w, body.top() + 4, axis_y)
        self.scene.text(
            QRectF(body.left(), body.top(), GUTTER_W - 8, axis_y - body.top()),
            "← less CPU so\nfar: runs sooner\n\nmore CPU so\nfar: waits →",
            PLAIN,
        )
        order = sorted(rq.entries, key=lambda e: rels[e.tid])
        tags: dict[int, list[tuple[str, QColor]]] = {e.tid: [] for e in order}
        tags[order[0].tid].append(
            ("leftmost: picked again" if order[0].group == "running" else "runs next", palette.BLUE)
        )
        if len(order) > 1:
            tags[order[-1].tid].append(("rightmost", palette.VERMILLION))
        items = [(e, rels[e.tid], rels[e.tid], "" if compact else e.detail, tags[e.tid]) for e in rq.entries]
        self._timeline(
            i, items, QRectF(body.left(), body.top(), body.width(), axis_y - body.top()), rng, x0, w
        )

    def _clock_line(self, rng: tuple[float, float], x0: float, w: float, top: float, bottom: float) -> None:
        x = key_to_x(0, rng, x0, w)
        self.scene.line(QPointF(x, top), QPointF(x, bottom), palette.VERMILLION, 2)

    def _layout_eevdf(self, i: int, rq: RunqueueView, body: QRectF, compact: bool) -> None:
        """EEVDF: each request as a bar from vruntime to deadline; eligible above, ineligible below."""
        sc, axis_y = self.scene, body.bottom() - 24
        x0, w = body.left() + GUTTER_W, body.width() - GUTTER_W - 4
        groups: dict[str, list[TimelineItem]] = {"eligible": [], "ineligible": []}
        for e in rq.entries:
            v_ms, lag = detail_ms(e.detail, "vruntime"), detail_ms(e.detail, "lag") or 0.0
            start = float(e.key - rq.clock) if v_ms is None else v_ms * 1e6 - rq.clock
            group = e.group if e.group != "running" else ("eligible" if lag >= 0 else "ineligible")
            groups[group].append(
                (e, start, float(e.key - rq.clock), "" if compact else e.detail.split(", ")[-1], [])
            )
        rng = self._axis(i, rq, [v for g in groups.values() for it in g for v in it[1:3]], x0, w, axis_y)
        if groups["eligible"]:
            best = min(groups["eligible"], key=lambda it: it[2])
            best[4].append(
                (
                    "earliest deadline: picked again" if best[0].group == "running" else "runs next",
                    palette.BLUE,
                )
            )
        lane_h = (axis_y - body.top()) / 2
        words = (
            "eligible:\nvruntime left\nof the line,\nmay run",
            "ineligible:\nvruntime right\nof the line,\nmust wait",
        )
        for k, group in enumerate(("eligible", "ineligible")):
            lane = QRectF(body.left(), body.top() + k * lane_h, body.width(), lane_h - 2)
            sc.boxes.append((lane, palette.LIGHT_GREY if k == 0 else palette.BACKGROUND))
            sc.text(QRectF(lane.left() + 6, lane.top(), GUTTER_W - 10, lane.height()), words[k])
            self._timeline(i, groups[group], lane, rng, x0, w)
        self._clock_line(rng, x0, w, body.top(), axis_y)

    def _layout_bfs(self, i: int, rq: RunqueueView, body: QRectF, compact: bool) -> None:
        """BFS: the running tasks, then the queue by deadline, cut by the current jiffy."""
        sc, fm = self.scene, QFontMetrics(self._fonts[BOLD])
        row_h, y, col_x = CHIP_H[True] + 6, body.top(), body.left()
        queued = [e for e in rq.entries if e.group != "running"]
        cut = next((k for k, e in enumerate(queued) if e.key >= rq.clock), len(queued))
        rows: list[RunqueueEntry | None] = [e for e in rq.entries if e.group == "running"]
        rows += [*queued[:cut], None, *queued[cut:]]
        col_w = body.width() / (2 if len(rows) * row_h > body.height() and body.width() > 800 else 1) - 8
        chip_w = max(fm.horizontalAdvance("▶ " + self._names.get(e.tid, "")) for e in rq.entries) + 18
        for k, e in enumerate(rows):
            if y + row_h > body.bottom():
                if col_x + 2 * col_w > body.right():
                    sc.text(QRectF(col_x, y - 4, col_w, 18), f"… {len(rows) - k} more", PLAIN)
                    break
                col_x, y = col_x + col_w + 16, body.top()
            if e is None:
                sc.line(
                    QPointF(col_x, y + row_h / 2),
                    QPointF(col_x + col_w, y + row_h / 2),
                    palette.VERMILLION,
                    2,
                )
                label = f"now: jiffies {rq.clock}; deadlines above this line have expired"
                rect = QRectF(col_x + 20, y + 3, fm.horizontalAdvance(label) + 16, row_h - 6)
                sc.text(
                    rect, label, BOLD, palette.VERMILLION, Qt.AlignmentFlag.AlignCenter, palette.BACKGROUND
                )
            else:
                self._bfs_row(i, rq, e, queued, QRectF(col_x, y, col_w, CHIP_H[True]), chip_w)
            y += row_h

    def _bfs_row(
        self,
        i: int,
        rq: RunqueueView,
        e: RunqueueEntry,
        queued: list[RunqueueEntry],
        r: QRectF,
        chip_w: float,
    ) -> None:
        tags = [("expired deadline", palette.VERMILLION)] if e.key < rq.clock else []
        tags += [("runs next", palette.BLUE)] if queued and e is queued[0] else []
        chip = self._chip(i, e, r.left(), r.top(), True, "", tags)
        chip.rect.setWidth(chip_w)
        rel = e.key - rq.clock
        words = f"deadline {e.key} (now {'+' if rel >= 0 else '−'}{abs(rel)} jiffies)"
        words += (
            f" · running on {e.detail}"
            if e.group == "running"
            else (f" · {e.detail}" if e.detail and e.detail != "expired" else "")
        )
        fm = QFontMetrics(self._fonts[PLAIN])
        words = fm.elidedText(words, Qt.TextElideMode.ElideRight, int(r.right() - chip.rect.right() - 12))
        self.scene.text(
            QRectF(chip.rect.right() + 10, r.top(), fm.horizontalAdvance(words) + 4, r.height()), words
        )
        chip.tag_x = chip.rect.right() + 20 + fm.horizontalAdvance(words)
