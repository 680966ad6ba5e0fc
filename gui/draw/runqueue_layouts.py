"""Laying out one frame's run queues: one layout per view kind, into a ``Scene`` (``runqueue_scene``).

Every number drawn is a field of the view (``model.snapshot``); the layouts only place them. The axis
ranges are lent by the panel so that they stay put from frame to frame.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics

from gui.draw import palette
from gui.draw.formats import format_duration, nice_step, signed_duration
from gui.draw.runqueue_scene import (
    ALIGN_LEFT,
    ALIGN_TOP,
    BOLD,
    CHIP_H,
    GUTTER_MIN_BODY_W,
    GUTTER_W,
    LINE_H,
    MIN_SECTION_H,
    NO_TASK,
    PAD,
    PLAIN,
    TITLE,
    Chip,
    Scene,
    TimelineItem,
    bfs_words,
    headline,
    key_to_x,
    next_tag,
    o1_slice_words,
    prio_rows,
    section_grid,
    stable_range,
    stack_levels,
)
from gui.draw.static_text import font_metrics
from model.snapshot import (
    BfsEntry,
    BfsView,
    Cfs2623Entry,
    Cfs2623View,
    Cfs2624Entry,
    Cfs2624View,
    EevdfView,
    O1Entry,
    O1View,
    RunqueueEntry,
    RunqueueView,
)

# What the left of a CFS axis means, longest first (a short run-queue section, large text: a shorter form).
CFS_GUTTER_WORDS = (
    "← less CPU so\nfar: runs sooner\n\nmore CPU so\nfar: waits →",
    "← less CPU so\nfar: runs sooner\nmore CPU so\nfar: waits →",
    "← less CPU:\nruns sooner\nmore: waits →",
)


class SceneBuilder:
    """Lays out one frame's run queues; keeps nothing but the axis ranges it is lent."""

    def __init__(
        self,
        fonts: Sequence[QFont],
        names: dict[int, str],
        nice: dict[int, int],
        ranges: dict[int, tuple[float, float]],
    ) -> None:
        self._fonts, self._names, self._nice, self._ranges = fonts, names, nice, ranges
        self.scene = Scene()
        self._alone = False  # one section only: its headline may leave "CPU n" out
        self._layouts: dict[type, Callable[[int, Any, QRectF, bool], None]] = {
            O1View: self._layout_o1,
            Cfs2623View: self._layout_cfs,
            Cfs2624View: self._layout_cfs,
            BfsView: self._layout_bfs,
            EevdfView: self._layout_eevdf,
        }

    def build(self, sections: Sequence[RunqueueView], size: QSize) -> Scene:
        """Sections on a grid, each with its headline, its queue and a footer line for the last yield;
        where that leaves a section too little room, one row per CPU with its queue in pick order."""
        self.scene = Scene()
        self._alone = len(sections) == 1
        cols, rows = section_grid(len(sections), size.width())
        w, h = (size.width() - PAD) / cols, (size.height() - PAD) / rows
        if h < MIN_SECTION_H and len(sections) > 1:
            self._layout_rows(sections, size)
            return self.scene
        for i, rq in enumerate(sections):
            x, y = PAD + (i % cols) * w, PAD + (i // cols) * h
            self._layout_section(i, rq, QRectF(x, y, w - PAD, h - PAD))
        return self.scene

    def _layout_rows(self, sections: Sequence[RunqueueView], size: QSize) -> None:
        """Many CPUs in a short panel: a row per CPU, "CPU n" then its tasks as the policy would pick
        them (the view lists them in that order), the next one tagged; the panel's tooltip has the rest.
        Rows that do not fit one above the other go into columns; where even that leaves rows below the
        panel, neighbouring CPUs with nothing to run share one row ("CPU 2–7: no runnable task")."""
        sc, fm = self.scene, font_metrics(self._fonts[BOLD])
        title = font_metrics(self._fonts[TITLE])
        label_w = title.horizontalAdvance("CPU 00") + 12
        groups = [[i] for i in range(len(sections))]
        cols, row_h, fits = self._row_grid(sections, groups, size, label_w)
        if not fits:
            groups = idle_runs(sections)
            cols, row_h, _ = self._row_grid(sections, groups, size, label_w)
        per_col = math.ceil(len(groups) / cols)
        col_w = (size.width() - PAD) / cols
        for n_group, group in enumerate(groups):
            col, n_row = divmod(n_group, per_col)
            y = PAD + n_row * row_h
            row = QRectF(PAD + col * col_w, y, col_w - PAD, row_h - 2)
            first, last = sections[group[0]], sections[group[-1]]
            name = f"CPU {first.cpu}" if len(group) == 1 else f"CPU {first.cpu}–{last.cpu}"
            name_w = max(label_w, title.horizontalAdvance(name) + 12)
            sc.text(QRectF(row.left(), y, name_w, row_h - 2), name, TITLE)
            for i in group:
                sc.section_rects[i] = row
            x = row.left() + name_w
            rq, i = first, group[0]
            if not rq.entries:
                room = QRectF(x, y, row.right() - x, row_h - 2)
                fits_words = font_metrics(self._fonts[PLAIN]).horizontalAdvance(NO_TASK) <= room.width()
                sc.text(room, NO_TASK if fits_words else "empty", PLAIN, palette.GREY)  # narrow: one word
                continue
            entries: Sequence[RunqueueEntry] = rq.entries
            for n, e in enumerate(entries):
                tags = [("next", palette.BLUE)] if e.picks_next else []
                chip = self._chip(i, e, x, y + (row_h - 2 - CHIP_H[True]) / 2, True, "", tags)
                if chip.footprint(fm).right() > row.right():
                    self.scene.chips.pop()
                    self.scene.rects.pop((i, e.tid), None)
                    sc.text(QRectF(x, y, row.right() - x, row_h - 2), f"+{len(entries) - n} more", BOLD)
                    break
                x = chip.footprint(fm).right() + 6

    def _row_grid(
        self, sections: Sequence[RunqueueView], groups: Sequence[Sequence[int]], size: QSize, label_w: float
    ) -> tuple[int, float, bool]:
        """(columns, row height, whether every row fits) for ``groups`` of CPUs a row each: rows that do
        not fit one above the other go into columns, the first rows down the first, where each CPU's
        first task still fits beside its name. Where it would not (long task names, large text), one
        column, and the last rows fall below the panel unless there are fewer of them."""
        min_row_h, avail_h = CHIP_H[True] + 2, max(size.height() - PAD, 1)
        n = len(groups)
        cols = min(max(math.ceil(n * min_row_h / avail_h), 1), n)
        if cols > 1:
            bold = font_metrics(self._fonts[BOLD])
            room = (size.width() - PAD) / cols - PAD - label_w
            first = [e for rq in sections for e in rq.entries[:1]]
            tag_w = bold.horizontalAdvance("next") + 16
            names = (("▶ " if e.running else "") + self._names.get(e.tid, f"task {e.tid}") for e in first)
            if any(bold.horizontalAdvance(name) + 18 + tag_w > room for name in names):
                cols = 1
        per_col = math.ceil(n / cols)
        return cols, max(avail_h / per_col, min_row_h), per_col * min_row_h <= avail_h

    def _layout_section(self, i: int, rq: RunqueueView, r: QRectF) -> None:
        sc = self.scene
        sc.boxes.append((r, palette.BACKGROUND))
        fm = font_metrics(self._fonts[TITLE])
        room = r.width() - 12
        words = headline(rq, r.width(), self._alone, lambda text: fm.horizontalAdvance(text) <= room)
        words = fm.elidedText(words, Qt.TextElideMode.ElideRight, int(room))
        sc.text(QRectF(r.left() + 6, r.top() + 2, room, LINE_H), words, TITLE)
        body = r.adjusted(6, LINE_H + 4, -6, -LINE_H - 2)
        if rq.entries:
            self._layouts[type(rq)](i, rq, body, body.height() < 190)
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

    # ---- O(1) -----------------------------------------------------------------------------------------

    def _layout_o1(self, i: int, rq: O1View, body: QRectF, compact: bool) -> None:
        """O(1): active | expired; a row per occupied prio; chips in FIFO order, the running one first."""
        sc, half = self.scene, (body.width() - 12) / 2
        rows, row_h = prio_rows(rq.entries), CHIP_H[compact] + 8
        bold = font_metrics(self._fonts[BOLD])
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
            label_w = max((bold.horizontalAdvance(f"prio {prio}") for prio in rows), default=0)
            for prio in rows:
                if y + row_h > box.bottom() - 18:
                    sc.text(QRectF(box.left() + 8, y - 4, box.width(), 20), "… more prio levels", PLAIN)
                    break
                sc.text(QRectF(box.left() + 8, y, label_w + 4, CHIP_H[compact]), f"prio {prio}", BOLD)
                members = [e for e in rq.entries if e.prio == prio and e.array == array]
                members.sort(key=lambda e: not e.running)
                row = QRectF(box.left() + label_w + 20, y, box.width() - label_w - 26, 0)
                self._o1_row(i, members, row, rq.tick_ns, compact)
                y += row_h
            if array == "expired" and wide:
                sc.text(
                    QRectF(box.left() + 8, box.bottom() - 22, box.width() - 12, 20),
                    "when active is empty, the arrays swap",
                )

    def _o1_row(self, i: int, members: list[O1Entry], r: QRectF, tick_ns: int, compact: bool) -> None:
        """One prio row of an array, left to right; crowded chips lose their detail, then say "+N more"."""
        fm, x = font_metrics(self._fonts[BOLD]), r.left()
        for n, e in enumerate(members):
            tag = next_tag(e) + (" (after the swap)" if e.array == "expired" and not e.running else "")
            detail = f"nice {self._nice.get(e.tid, 0)} · {o1_slice_words(e, tick_ns)}"
            chip = self._chip(
                i, e, x, r.top(), compact, detail, [(tag, palette.BLUE)] if e.picks_next else []
            )
            if chip.footprint(fm).right() > r.right():  # crowded: name only, short tag
                chip.detail, chip.tags = "", [("next", palette.BLUE)] if chip.tags else []
                chip.rect.setWidth(fm.horizontalAdvance(chip.title) + 18)
            if chip.footprint(fm).right() > r.right():  # the row's order still says it
                chip.tags = []
            if not n:  # the first chip alone may be too wide for its row: its name is cut
                fit_chip(chip, fm, r.width())
            if chip.footprint(fm).right() > r.right() and n:  # no room: say how many wait here
                self.scene.chips.pop()
                self.scene.rects.pop((i, e.tid), None)
                self.scene.text(
                    QRectF(x, r.top(), r.right() - x, CHIP_H[compact]), f"+{len(members) - n} more", BOLD
                )
                return
            x = chip.footprint(fm).right() + 8

    # ---- key axes (CFS, EEVDF) ------------------------------------------------------------------------

    def _axis(
        self, i: int, clock_name: str, rels: list[float], x0: float, w: float, y: float
    ) -> tuple[float, float]:
        """A key axis at height ``y``, the clock (0) named under it; returns the (stable) range."""
        rng = self._ranges[i] = stable_range(min(rels), max(rels), self._ranges.get(i))
        sc, fm = self.scene, font_metrics(self._fonts[PLAIN])
        sc.line(QPointF(x0, y), QPointF(x0 + w, y), palette.TEXT, 2)
        step = nice_step(rng[1] - rng[0], max(int(w // 110), 2))
        clock_x = key_to_x(0, rng, x0, w)
        clock_label = f"▲ {clock_name}"
        clock_w = font_metrics(self._fonts[BOLD]).horizontalAdvance(clock_label) + 8
        cx = min(max(clock_x, x0 + clock_w / 2), x0 + w - clock_w / 2)
        clock_rect = QRectF(cx - clock_w / 2, y + 4, clock_w, fm.height())
        for k in range(math.ceil(rng[0] / step), math.floor(rng[1] / step) + 1):
            x = key_to_x(k * step, rng, x0, w)
            sc.line(QPointF(x, y), QPointF(x, y + 5))
            label = signed_duration(k * step)
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
        fm, mark = font_metrics(self._fonts[BOLD]), len(self.scene.chips)
        for compact in (False, True):
            del self.scene.chips[mark:]
            placed: list[tuple[Chip, float, float]] = []
            # Clear of the gutter's words on the left, inside the lane on the right.
            lo = max(x0 - 6, lane.left())
            for e, start, end, detail, tags in items:
                chip = self._chip(i, e, 0, 0, compact, detail, tags)
                fit_chip(chip, fm, lane.right() - lo)
                xa, xb = key_to_x(start, rng, x0, w), key_to_x(end, rng, x0, w)
                left = xa - chip.rect.width() / 2 if start == end else xa
                room = chip.footprint(fm).width()
                chip.rect.moveLeft(max(min(max(left, lo), lane.right() - room), lo))
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

    def _clock_line(self, rng: tuple[float, float], x0: float, w: float, top: float, bottom: float) -> None:
        x = key_to_x(0, rng, x0, w)
        self.scene.line(QPointF(x, top), QPointF(x, bottom), palette.VERMILLION, 2)

    def _layout_cfs(self, i: int, rq: Cfs2623View | Cfs2624View, body: QRectF, compact: bool) -> None:
        """CFS: keys relative to fair_clock (2.6.23) or min_vruntime (2.6.24) on one axis."""
        gutter = GUTTER_W if body.width() >= GUTTER_MIN_BODY_W else 8.0  # narrow: no words at the left
        axis_y, x0, w = body.bottom() - 24, body.left() + gutter, body.width() - gutter - 4
        if isinstance(rq, Cfs2623View):
            clock, clock_name = rq.fair_clock_ns, "fair_clock"
        else:
            clock, clock_name = rq.min_vruntime_ns, "min_vruntime"
        entries: Sequence[Cfs2623Entry | Cfs2624Entry] = rq.entries
        rels = {e.tid: float(cfs_key(e) - clock) for e in entries}
        rng = self._axis(i, clock_name, list(rels.values()), x0, w, axis_y)
        self._clock_line(rng, x0, w, body.top() + 4, axis_y)
        if gutter == GUTTER_W:
            rect = QRectF(body.left(), body.top(), GUTTER_W - 8, axis_y - body.top())
            line_h = font_metrics(self._fonts[PLAIN]).lineSpacing()
            for words in CFS_GUTTER_WORDS:  # the longest form whose lines fit the gutter's height
                if line_h * (words.count("\n") + 1) <= rect.height():
                    self.scene.text(rect, words, PLAIN)
                    break
        tags: dict[int, list[tuple[str, QColor]]] = {e.tid: [] for e in entries}
        for e in entries:
            if e.picks_next:
                tags[e.tid].append((next_tag(e, "leftmost: picked again"), palette.BLUE))
        if len(entries) > 1:
            rightmost = max(entries, key=lambda e: rels[e.tid])
            tags[rightmost.tid].append(("rightmost", palette.VERMILLION))
        items: list[TimelineItem] = [
            (e, rels[e.tid], rels[e.tid], "" if compact else cfs_detail(e, clock), tags[e.tid])
            for e in entries
        ]
        self._timeline(
            i, items, QRectF(body.left(), body.top(), body.width(), axis_y - body.top()), rng, x0, w
        )

    def _layout_eevdf(self, i: int, rq: EevdfView, body: QRectF, compact: bool) -> None:
        """EEVDF: each request as a bar from vruntime to deadline; eligible above, ineligible below."""
        sc, axis_y = self.scene, body.bottom() - 24
        x0, w = body.left() + GUTTER_W, body.width() - GUTTER_W - 4
        avg = rq.avg_vruntime_ns
        lanes: dict[bool, list[TimelineItem]] = {True: [], False: []}
        for e in rq.entries:
            tags = [(next_tag(e, "earliest deadline: picked again"), palette.BLUE)] if e.picks_next else []
            detail = "" if compact else f"lag {signed_duration(e.lag_ns)}"
            lanes[e.eligible].append(
                (e, float(e.vruntime_ns - avg), float(e.deadline_ns - avg), detail, tags)
            )
        keys = [v for lane in lanes.values() for item in lane for v in item[1:3]]
        rng = self._axis(i, "avg_vruntime (V)", keys, x0, w, axis_y)
        lane_h = (axis_y - body.top()) / 2
        words = (
            "eligible:\nvruntime left\nof the line,\nmay run",
            "ineligible:\nvruntime right\nof the line,\nmust wait",
        )
        for k, eligible in enumerate((True, False)):
            lane = QRectF(body.left(), body.top() + k * lane_h, body.width(), lane_h - 2)
            sc.boxes.append((lane, palette.LIGHT_GREY if k == 0 else palette.BACKGROUND))
            sc.text(QRectF(lane.left() + 6, lane.top(), GUTTER_W - 12, lane.height()), words[k])  # to x0 - 6
            self._timeline(i, lanes[eligible], lane, rng, x0, w)
        self._clock_line(rng, x0, w, body.top(), axis_y)

    # ---- BFS ------------------------------------------------------------------------------------------

    def _layout_bfs(self, i: int, rq: BfsView, body: QRectF, compact: bool) -> None:
        """BFS: the running tasks, then the queue by deadline, cut by the current jiffy."""
        sc, fm = self.scene, font_metrics(self._fonts[BOLD])
        # The first row a ring's width below the headline: a yield's dashed ring goes 5 px round its chip.
        row_h, y, col_x = CHIP_H[True] + 6, body.top() + 6, body.left()
        queued = [e for e in rq.entries if not e.running]
        cut = next((k for k, e in enumerate(queued) if not e.deadline_passed), len(queued))
        rows: list[BfsEntry | None] = [e for e in rq.entries if e.running]
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
                label = now_words(rq.jiffies, lambda words: fm.horizontalAdvance(words) + 16 <= col_w - 20)
                rect = QRectF(col_x + 20, y + 3, fm.horizontalAdvance(label) + 16, row_h - 6)
                sc.text(
                    rect, label, BOLD, palette.VERMILLION, Qt.AlignmentFlag.AlignCenter, palette.BACKGROUND
                )
            else:
                self._bfs_row(i, rq, e, QRectF(col_x, y, col_w, CHIP_H[True]), chip_w)
            y += row_h

    def _bfs_row(self, i: int, rq: BfsView, e: BfsEntry, r: QRectF, chip_w: float) -> None:
        tags = [("expired deadline", palette.VERMILLION)] if e.deadline_passed else []
        tags += [(next_tag(e), palette.BLUE)] if e.picks_next else []
        chip = self._chip(i, e, r.left(), r.top(), True, "", tags)
        chip.rect.setWidth(chip_w)
        fm, bold = font_metrics(self._fonts[PLAIN]), font_metrics(self._fonts[BOLD])
        tags_w = sum(bold.horizontalAdvance(tag) + 14 for tag, _ in tags) + (10 if tags else 0)
        room = int(r.right() - chip.rect.right() - 12 - tags_w)  # the tags keep their place on the row
        words = fm.elidedText(bfs_words(e, rq.jiffies), Qt.TextElideMode.ElideRight, room)
        self.scene.text(
            QRectF(chip.rect.right() + 10, r.top(), fm.horizontalAdvance(words) + 4, r.height()), words
        )
        chip.tag_x = chip.rect.right() + 20 + fm.horizontalAdvance(words)


def now_words(jiffies: int, fits: Callable[[str], bool]) -> str:
    """The words on BFS's "now" line: the longest of its wordings that ``fits``."""
    wordings = (
        f"now: jiffies {jiffies}; deadlines above this line have passed",
        f"now: jiffies {jiffies}; deadlines above have passed",
        f"now: jiffies {jiffies}",
    )
    return next((words for words in wordings if fits(words)), "now")


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


def idle_runs(sections: Sequence[RunqueueView]) -> list[list[int]]:
    """The sections' indexes in rows: each CPU with a task alone, neighbouring CPUs with none together."""
    out: list[list[int]] = []
    for i, rq in enumerate(sections):
        if not rq.entries and out and not sections[out[-1][-1]].entries:
            out[-1].append(i)
        else:
            out.append([i])
    return out


def cfs_key(e: Cfs2623Entry | Cfs2624Entry) -> int:
    """The key that orders a CFS tree: fair_key in 2.6.23, vruntime in 2.6.24."""
    return e.fair_key_ns if isinstance(e, Cfs2623Entry) else e.vruntime_ns


def cfs_detail(e: Cfs2623Entry | Cfs2624Entry, clock_ns: int) -> str:
    """A CFS chip's second line."""
    if isinstance(e, Cfs2623Entry):
        return f"wait_runtime {signed_duration(e.wait_runtime_ns)}"
    if e.running:
        return f"ran {format_duration(e.ran_ns)} of slice {format_duration(e.slice_ns)}"
    return f"vruntime {signed_duration(e.vruntime_ns - clock_ns)} from min"


__all__ = ["ALIGN_LEFT", "SceneBuilder", "cfs_detail", "cfs_key"]
