"""The chips every run-queue layout makes, and the layouts on a key axis: CFS (keys around fair_clock
in 2.6.23, min_vruntime in 2.6.24) and EEVDF (each request from vruntime to deadline, around
avg_vruntime). A chip sits at its task's key, a dashed stem joining them; where a section has the room,
each task's trail shows where its key (EEVDF: its vruntime) sat over the recent past
(``gui.draw.key_trails``): above the chips in a CFS section, newest at the chips; behind both EEVDF
lanes, newest at the axis, so that a trail crossing V is a task turning eligible or ineligible.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QFont, QFontMetrics

from gui.draw import palette
from gui.draw.formats import finer_step, format_duration, nice_step, signed_duration
from gui.draw.key_trails import KeyTrails, Trail, trail_span_ns
from gui.draw.runqueue_scene import (
    ALIGN_RIGHT,
    ALIGN_TOP,
    BOLD,
    CHIP_H,
    GUTTER_MIN_BODY_W,
    GUTTER_W,
    LINE_H,
    PLAIN,
    Chip,
    Scene,
    TimelineItem,
    TrailLine,
    fit_chip,
    key_to_x,
    next_tag,
    stable_range,
    stack_levels,
)
from gui.draw.static_text import font_metrics
from model.sched.base import calc_delta_fair, nice_to_weight
from model.snapshot import (
    Cfs2623Entry,
    Cfs2623View,
    Cfs2624Entry,
    Cfs2624View,
    EevdfEntry,
    EevdfView,
    RunqueueEntry,
    RunqueueView,
)

# What the left of a CFS axis means, longest first (a short run-queue section, large text: a shorter form).
CFS_GUTTER_WORDS = (
    "← less CPU so\nfar: runs sooner\n\nmore CPU so\nfar: waits →",
    "← less CPU so\nfar: runs sooner\nmore CPU so\nfar: waits →",
    "← less CPU:\nruns sooner\nmore: waits →",
)


# What each EEVDF lane holds, longest first (a short run-queue section, large text: a shorter form).
EEVDF_LANE_WORDS = {
    True: (
        "eligible:\nvruntime left\nof the line,\nmay run",
        "eligible:\nleft of the\nline: may run",
        "eligible",
    ),
    False: (
        "ineligible:\nvruntime right\nof the line,\nmust wait",
        "ineligible:\nright of the\nline: waits",
        "ineligible",
    ),
}
TRAIL_MIN_H = 60  # the least room above the chips worth a trail (px)
EEVDF_TRAIL_LAPS = 10  # an EEVDF trail's span, in widths of the axis (see _layout_eevdf)
EEVDF_TRAIL_MOST_NS = 200_000_000  # and at most this much of the past
OFF_AXIS_REQUESTS = 3  # an EEVDF deadline further past its vruntime than this many requests is off the axis


class KeyAxisLayouts:
    """The key-axis layouts of ``SceneBuilder`` and the chips every layout makes; the builder owns the
    scene, the fonts, the task names and nice values, the lent axis ranges and trails."""

    scene: Scene
    _fonts: Sequence[QFont]
    _names: dict[int, str]
    _nice: dict[int, int]
    _ranges: dict[int, tuple[float, float]]
    _trails: KeyTrails | None
    _now_ns: int

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
        title = ("▶ " if e.running else "") + self._names.get(e.tid, f"task {e.tid}")
        detail = "" if compact else detail
        w = max(
            font_metrics(self._fonts[BOLD]).horizontalAdvance(title),
            font_metrics(self._fonts[PLAIN]).horizontalAdvance(detail),
        )
        chip = Chip(QRectF(x, y, w + 18, CHIP_H[compact]), e.tid, title, detail, e.running, list(tags))
        self.scene.chips.append(chip)
        self.scene.rects[(i, e.tid)] = chip.rect
        return chip

    def _axis(
        self, i: int, clock_names: tuple[str, ...], rels: list[float], x0: float, w: float, y: float
    ) -> tuple[float, float]:
        """A key axis at height ``y``, the clock (0) named under it in the first of ``clock_names`` (long
        to short) that leaves room for two tick labels, else the last; returns the (stable) range."""
        rng = self._ranges[i] = stable_range(min(rels), max(rels), self._ranges.get(i))
        sc, fm = self.scene, font_metrics(self._fonts[PLAIN])
        sc.line(QPointF(x0, y), QPointF(x0 + w, y), palette.TEXT, 2)
        step = nice_step(rng[1] - rng[0], max(int(w // 110), 2))
        # A narrow axis still gets two numbered ticks beside the clock's.
        while math.floor(rng[1] / step) - math.ceil(rng[0] / step) < 2:
            step = finer_step(step)
        clock_x = key_to_x(0, rng, x0, w)
        ticks: list[tuple[float, str, float, float]] = []  # each tick's x, label, label's centre, half width
        for k in range(math.ceil(rng[0] / step), math.floor(rng[1] / step) + 1):
            x = key_to_x(k * step, rng, x0, w)
            label = signed_duration(k * step)
            half = fm.horizontalAdvance(label) / 2 + 4
            ticks.append((x, label, min(max(x, x0 + half), x0 + w - half), half))
        for name in clock_names:  # a narrow axis: "V" leaves the scale its numbers
            clock_label = f"▲ {name}"
            clock_w = font_metrics(self._fonts[BOLD]).horizontalAdvance(clock_label) + 8
            cx = min(max(clock_x, x0 + clock_w / 2), x0 + w - clock_w / 2)
            clock_rect = QRectF(cx - clock_w / 2, y + 4, clock_w, fm.height())
            # Labels clear of the clock's and of each other, the outermost first (a narrow axis keeps
            # its ends' numbers and leaves the ticks between unlabelled).
            taken = [(clock_rect.left() - 8, clock_rect.right() + 8)]
            shown: list[tuple[str, float, float]] = []
            for _x, label, tx, half in sorted(ticks, key=lambda t: -abs(t[0] - clock_x)):
                if all(tx + half < lo or tx - half > hi for lo, hi in taken):
                    taken.append((tx - half - 4, tx + half + 4))
                    shown.append((label, tx, half))
            if len(shown) >= 2:
                break
        for x, *_ in ticks:
            sc.line(QPointF(x, y), QPointF(x, y + 5))
        for label, tx, half in shown:
            sc.text(QRectF(tx - half, y + 5, 2 * half, fm.height()), label, PLAIN, palette.TEXT, ALIGN_TOP)
        sc.text(clock_rect, clock_label, BOLD, palette.VERMILLION, ALIGN_TOP)
        return rng

    def _timeline(
        self, i: int, items: list[TimelineItem], lane: QRectF, rng: tuple[float, float], x0: float, w: float
    ) -> None:
        """Chips stacked up from the lane's bottom at each item's key, or at the start of its request (drawn
        as a bar to its deadline); a dashed stem joins each chip to its key. Compact chips when crowded."""
        fm, mark = font_metrics(self._fonts[BOLD]), len(self.scene.chips)
        # Full chips, then compact ones, then compact ones without their tags (a short lane: a tag beside
        # one chip would cover its neighbour on the same level; the tooltip still names it).
        for compact, tagged in ((False, True), (True, True), (True, False)):
            del self.scene.chips[mark:]
            placed: list[tuple[Chip, float, float]] = []
            # Clear of the gutter's words on the left, inside the lane on the right.
            lo = max(x0 - 6, lane.left())
            for e, start, end, detail, tags in items:
                chip = self._chip(i, e, 0, 0, compact, detail, tags if tagged else ())
                fit_chip(chip, fm, lane.right() - lo)
                xa, xb = key_to_x(start, rng, x0, w), key_to_x(end, rng, x0, w)
                left = xa - chip.rect.width() / 2 if start == end else xa
                room = chip.footprint(fm).width()
                chip.rect.moveLeft(max(min(max(left, lo), lane.right() - room), lo))
                self._tags_left_if_that_keeps_it_over(chip, xa, fm, lo, lane.right())
                placed.append((chip, xa, xb))
            placed.sort(key=lambda p: p[0].rect.left())
            levels = stack_levels([(c.footprint(fm).left(), c.footprint(fm).right()) for c, _, _ in placed])
            bars = any(xb > xa for _, xa, xb in placed)  # requests get a bar under their chip
            level_h = CHIP_H[compact] + (11 if bars else 6)
            fits = int((lane.height() - 14 - CHIP_H[compact]) // level_h) + 1
            if max(levels, default=0) < fits or not tagged:
                break
        if max(levels, default=0) >= fits:
            levels = self._pack(placed, fm, fits, lo, lane.right())
        for (chip, xa, xb), level in zip(placed, levels, strict=True):
            chip.rect.moveBottom(lane.bottom() - 12 - min(level, max(fits - 1, 0)) * level_h)
            self.scene.rects[(i, chip.tid)] = chip.rect
            if xb > xa:  # a request, from vruntime to deadline, right under its chip
                bar = QRectF(xa, chip.rect.bottom() + 2, max(xb - xa, 2), 7)
                self.scene.boxes.append((bar, palette.task_color(chip.tid)))
            self.scene.line(
                QPointF(xa, chip.rect.bottom()), QPointF(xa, lane.bottom()), palette.TEXT, 1, True
            )

    @staticmethod
    def _tags_left_if_that_keeps_it_over(
        chip: Chip, xa: float, fm: QFontMetrics, lo: float, hi: float
    ) -> None:
        """A chip whose tags, at its right, pushed it off its key (a key near the lane's right end: the
        2009 server's "leftmost: picked again" put its chip 15 ms left of min_vruntime) takes its tags at
        its left where that keeps the chip over the key."""
        r = chip.rect
        if not chip.tags or r.left() <= xa <= r.right():
            return
        tags_w = chip.footprint(fm).width() - r.width()
        left = min(max(xa - r.width() / 2, lo + tags_w), hi - r.width())
        if left <= xa <= left + r.width():
            r.moveLeft(left)
            chip.tags_left = True

    @staticmethod
    def _pack(
        placed: list[tuple[Chip, float, float]], fm: QFontMetrics, fits: int, lo: float, hi: float
    ) -> list[int]:
        """A lane too short for the chips' levels: the chips side by side on the levels it has, left to
        right in key order, each moved right of the one before it on its level (its stem still joins it
        to its key), and back left as far as the lane's right end needs. Returns their levels."""
        rows = max(fits, 1)  # a lane shorter than one chip still draws them on one level
        ends = [lo] * rows
        levels = []
        for k, (chip, _xa, _xb) in enumerate(placed):
            level = k % rows
            chip.rect.translate(max(ends[level] - chip.footprint(fm).left(), 0), 0)
            ends[level] = chip.footprint(fm).right() + 6
            levels.append(level)
        for level in range(rows):  # a level that runs past the lane: moved back left, not past ``lo``
            row = [chip for (chip, _a, _b), lv in zip(placed, levels, strict=True) if lv == level]
            if row:
                over = min(row[-1].footprint(fm).right() - hi, row[0].footprint(fm).left() - lo)
                for chip in row if over > 0 else ():
                    chip.rect.translate(-over, 0)
        return levels

    def _clock_line(self, rng: tuple[float, float], x0: float, w: float, top: float, bottom: float) -> None:
        x = key_to_x(0, rng, x0, w)
        a, b = QPointF(x, top), QPointF(x, bottom)
        self.scene.line(a, b, palette.VERMILLION, 2)
        # Dashed over the trails too: a task whose key is the clock (2.6.24's leftmost) draws its trail
        # right on this line, and both stay in sight.
        self.scene.line(a, b, palette.VERMILLION, 2, dash=True, over_trails=True)

    def _layout_cfs(self, i: int, rq: Cfs2623View | Cfs2624View, body: QRectF, compact: bool) -> None:
        """CFS: keys relative to fair_clock (2.6.23) or min_vruntime (2.6.24) on one axis."""
        gutter = GUTTER_W if body.width() >= GUTTER_MIN_BODY_W else 8.0  # narrow: no words at the left
        axis_y, x0, w = body.bottom() - 24, body.left() + gutter, body.width() - gutter - 4
        clock, clock_name = cfs_clock(rq)
        entries: Sequence[Cfs2623Entry | Cfs2624Entry] = rq.entries
        rels = {tid: float(rel) for tid, rel in cfs_keys(rq).items()}
        lane = QRectF(body.left(), body.top(), body.width(), axis_y - body.top())
        span, paths = self._recent_keys(i, list(rels.values()), len(entries), lane)
        rng = self._axis(i, (clock_name,), [*rels.values(), *trail_keys_of(paths)], x0, w, axis_y)
        self._clock_line(rng, x0, w, body.top() + 4, axis_y)
        if gutter == GUTTER_W:
            rect = QRectF(body.left(), body.top(), GUTTER_W - 8, axis_y - body.top())
            words = self._tallest_fitting(CFS_GUTTER_WORDS, rect.height())
            if words:
                self.scene.text(rect, words, PLAIN)
        tags: dict[int, list[tuple[str, QColor]]] = {e.tid: [] for e in entries}
        for e in entries:
            if e.picks_next:
                tags[e.tid].append((next_tag(e, "leftmost: picked again"), palette.NEXT_TAG))
        if len(entries) > 1:
            rightmost = max(entries, key=lambda e: rels[e.tid])
            tags[rightmost.tid].append(("rightmost", palette.VERMILLION))
        items: list[TimelineItem] = [
            (e, rels[e.tid], rels[e.tid], "" if compact else cfs_detail(e, clock), tags[e.tid])
            for e in entries
        ]
        self._timeline(i, items, lane, rng, x0, w)
        self._key_trails(paths, (span, clock_name, "key"), rng, (x0, w), lane)  # its words clear of chips

    def _recent_keys(
        self, i: int, rels: list[float], laps: int, lane: QRectF, most_ns: int | None = None
    ) -> tuple[int, list[Trail]]:
        """(span, trails): how far back section ``i``'s trails reach (``trail_span_ns`` of the axis as
        it was, ``laps`` times its width, at most ``most_ns``) and each task's keys since then; none
        where ``lane`` is too short to draw them."""
        if self._trails is None or lane.height() < TRAIL_MIN_H + LINE_H or not rels:
            return 0, []
        rng = self._ranges.get(i) or stable_range(min(rels), max(rels), None)
        span = trail_span_ns(rng, laps)
        if most_ns is not None:
            span = min(span, most_ns)
        return span, self._trails.paths(i, self._now_ns, span)

    def _key_trails(
        self,
        paths: list[Trail],
        reach: tuple[int, str, str],
        rng: tuple[float, float],
        axis: tuple[float, float],
        lane: QRectF,
    ) -> None:
        """The trails in ``lane``: now at its chips' feet, ``reach`` (span, the clock's name, what the
        key is called) ago at the top, where a line says how far back that is."""
        if not paths:
            return
        (span, clock_name, key), (x0, w), now = reach, axis, self._now_ns
        top, bottom = lane.top() + LINE_H, lane.bottom() - 12
        clip, per_ns = QRectF(x0, top, w, bottom - top), (bottom - top) / span
        for tid, run in paths:
            points = [QPointF(key_to_x(rel, rng, x0, w), bottom - (now - t) * per_ns) for t, rel in run]
            self.scene.trails.append(TrailLine(tid, clip, points, span, run, clock_name, key))
        fm, bold = font_metrics(self._fonts[PLAIN]), font_metrics(self._fonts[BOLD])
        options = (f"↑ each {key} over the last {format_duration(span)}", f"↑ {format_duration(span)} ago")
        # A chip stacked up to the lane's top keeps its place: the line gives way (the trails' tooltip
        # still says how far back they reach).
        chips = [r for c in self.scene.chips for r in (c.rect, *c.tag_rects(bold))]
        for i, words in enumerate(options):
            width = fm.horizontalAdvance(words) + 8
            rect = QRectF(x0 + w - width, lane.top(), width, LINE_H)
            last = i == len(options) - 1
            if (width <= 0.6 * w or last) and not any(rect.intersects(r) for r in chips):
                self.scene.text(rect, words, PLAIN, palette.GREY, ALIGN_RIGHT, palette.BACKGROUND)
                break

    def _tallest_fitting(self, forms: Sequence[str], height: float) -> str:
        """The longest of ``forms`` (longest first) whose lines fit ``height``; "" if none does."""
        line_h = font_metrics(self._fonts[PLAIN]).lineSpacing()
        return next((words for words in forms if line_h * (words.count("\n") + 1) <= height), "")

    def _layout_eevdf(self, i: int, rq: EevdfView, body: QRectF, compact: bool) -> None:
        """EEVDF: each request as a bar from vruntime to deadline; eligible above, ineligible below."""
        sc, axis_y = self.scene, body.bottom() - 24
        x0, w = body.left() + GUTTER_W, body.width() - GUTTER_W - 4
        avg = rq.avg_vruntime_ns
        # The trails run behind both lanes, now at the axis: a task's vruntime crossing V is the task
        # turning ineligible (to the right) or eligible (to the left).
        both = QRectF(body.left(), body.top(), body.width(), axis_y - body.top())
        rels = eevdf_keys(rq)
        # This axis spans about one request (a slice), so trails one width long (CFS's, which cross
        # their axis once) would hold a switch or two: these reach back ten widths, but no further than
        # EEVDF_TRAIL_MOST_NS (a nice 19 task's request is 68 slices long: ten of its widths would reach
        # back seconds).
        laps = max(len(rels), EEVDF_TRAIL_LAPS)
        span, paths = self._recent_keys(i, [float(v) for v in rels.values()], laps, both, EEVDF_TRAIL_MOST_NS)
        # A deadline more than OFF_AXIS_REQUESTS requests past its vruntime (before 6.17 each yield
        # pushes the yielder's a slice on, and it runs seconds ahead) stays off the axis, which would
        # otherwise squeeze every chip onto V: its bar runs to the axis's end, its distance written there.
        far = [e for e in rq.entries if e.deadline_ns - e.vruntime_ns > OFF_AXIS_REQUESTS * self._request(e)]
        far_tids = {e.tid for e in far}
        keys = [float(e.vruntime_ns - avg) for e in rq.entries]
        keys += [float(e.deadline_ns - avg) for e in rq.entries if e.tid not in far_tids]
        rng = self._axis(i, ("avg_vruntime (V)", "V"), [*keys, *trail_keys_of(paths)], x0, w, axis_y)
        lanes: dict[bool, list[TimelineItem]] = {True: [], False: []}
        for e in rq.entries:
            next_words = next_tag(e, "earliest deadline: picked again")
            tags = [(next_words, palette.NEXT_TAG)] if e.picks_next else []
            detail = "" if compact else f"lag {signed_duration(e.lag_ns)}"
            start, end = float(e.vruntime_ns - avg), float(e.deadline_ns - avg)
            lanes[e.eligible].append(
                (e, start, max(rng[1], start) if e.tid in far_tids else end, detail, tags)
            )
        lane_h = (axis_y - body.top()) / 2
        for k, eligible in enumerate((True, False)):
            lane = QRectF(body.left(), body.top() + k * lane_h, body.width(), lane_h - 2)
            sc.boxes.append((lane, palette.LIGHT_GREY if k == 0 else palette.BACKGROUND))
            forms = EEVDF_LANE_WORDS[eligible]
            words = self._tallest_fitting(forms, lane.height()) or forms[-1]
            sc.text(QRectF(lane.left() + 6, lane.top(), GUTTER_W - 12, lane.height()), words)  # to x0 - 6
            self._timeline(i, lanes[eligible], lane, rng, x0, w)
        self._key_trails(paths, (span, "V", "vruntime"), rng, (x0, w), both)
        for e in far:  # after the trails: their line of words is one more thing not to cover
            self._far_deadline(i, e, avg, x0 + w)
        self._clock_line(rng, x0, w, body.top(), axis_y)

    def _request(self, e: EevdfEntry) -> int:
        """The length of ``e``'s request in vruntime: its slice scaled by its weight."""
        return calc_delta_fair(e.slice_ns, nice_to_weight(self._nice.get(e.tid, 0)))

    def _far_deadline(self, i: int, e: EevdfEntry, avg: int, right: float) -> None:
        """An off-axis deadline: a chevron past the end of its bar, and where it is, in words, under the
        bar's end or above its chip, wherever no chip or tag is in the way."""
        chip = self.scene.rects.get((i, e.tid))
        if chip is None:
            return
        bar_top, bar_bottom = chip.bottom() + 2, chip.bottom() + 9  # as _timeline draws it
        mid = (bar_top + bar_bottom) / 2
        for a, b in (
            (QPointF(right + 1, bar_top - 1), QPointF(right + 4, mid)),
            (QPointF(right + 4, mid), QPointF(right + 1, bar_bottom + 1)),
        ):
            self.scene.line(a, b, palette.TEXT, 1.5)
        fm, bold = font_metrics(self._fonts[PLAIN]), font_metrics(self._fonts[BOLD])
        words = f"deadline {signed_duration(e.deadline_ns - avg)}"
        width = fm.horizontalAdvance(words) + 8
        taken = [c.footprint(bold) for c in self.scene.chips] + [t[0] for t in self.scene.texts]
        for top in (bar_bottom + 1, chip.top() - LINE_H):
            rect = QRectF(right - width, top, width, LINE_H)
            if not any(r.intersects(rect) for r in taken):
                self.scene.text(rect, words, PLAIN, palette.TEXT, ALIGN_RIGHT, palette.BACKGROUND)
                return


def cfs_key(e: Cfs2623Entry | Cfs2624Entry) -> int:
    """The key that orders a CFS tree: fair_key in 2.6.23, vruntime in 2.6.24."""
    return e.fair_key_ns if isinstance(e, Cfs2623Entry) else e.vruntime_ns


def cfs_clock(rq: Cfs2623View | Cfs2624View) -> tuple[int, str]:
    """The clock a CFS section's keys are drawn against, and its name: fair_clock in 2.6.23,
    min_vruntime in 2.6.24."""
    if isinstance(rq, Cfs2623View):
        return rq.fair_clock_ns, "fair_clock"
    return rq.min_vruntime_ns, "min_vruntime"


def cfs_keys(rq: Cfs2623View | Cfs2624View) -> dict[int, int]:
    """Each task's key relative to the section's clock (``cfs_clock``), as its chip is placed."""
    clock, _ = cfs_clock(rq)
    return {e.tid: cfs_key(e) - clock for e in rq.entries}


def eevdf_keys(rq: EevdfView) -> dict[int, int]:
    """Each task's vruntime relative to V (avg_vruntime), as its request's bar starts."""
    return {e.tid: e.vruntime_ns - rq.avg_vruntime_ns for e in rq.entries}


def trail_keys(rq: RunqueueView) -> dict[int, int] | None:
    """What a section's trails follow, task by task, relative to its clock: the CFS key, the EEVDF
    vruntime; None for a view without a key axis (O(1)'s arrays, BFS's deadlines in jiffies)."""
    if isinstance(rq, (Cfs2623View, Cfs2624View)):
        return cfs_keys(rq)
    if isinstance(rq, EevdfView):
        return eevdf_keys(rq)
    return None


def trail_keys_of(paths: list[Trail]) -> list[float]:
    """Every key the trails pass through: the axis takes them in too."""
    return [float(rel) for _, run in paths for _, rel in run]


def cfs_detail(e: Cfs2623Entry | Cfs2624Entry, clock_ns: int) -> str:
    """A CFS chip's second line."""
    if isinstance(e, Cfs2623Entry):
        return f"wait_runtime {signed_duration(e.wait_runtime_ns)}"
    if e.running:
        return f"ran {format_duration(e.ran_ns)} of slice {format_duration(e.slice_ns)}"
    return f"vruntime {signed_duration(e.vruntime_ns - clock_ns)} from min"
