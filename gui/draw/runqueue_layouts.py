"""Laying out one frame's run queues: one layout per view kind, into a ``Scene`` (``runqueue_scene``).

Every number drawn is a field of the view (``model.snapshot``); the layouts only place them. The axis
ranges are lent by the panel so that they stay put from frame to frame.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QFont

from gui.draw import palette
from gui.draw.key_axes import KeyAxisLayouts
from gui.draw.key_trails import KeyTrails
from gui.draw.runqueue_scene import (
    ALIGN_LEFT,
    BOLD,
    CHIP_H,
    LINE_H,
    MIN_SECTION_H,
    NO_TASK,
    PAD,
    PLAIN,
    TITLE,
    Scene,
    bfs_wordings,
    fit_chip,
    headline,
    next_tag,
    o1_slice_words,
    prio_rows,
    section_grid,
)
from gui.draw.static_text import font_metrics
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


class SceneBuilder(KeyAxisLayouts):
    """Lays out one frame's run queues; keeps nothing but the axis ranges and trails it is lent."""

    def __init__(
        self,
        fonts: Sequence[QFont],
        names: dict[int, str],
        nice: dict[int, int],
        ranges: dict[int, tuple[float, float]],
        trails: KeyTrails | None = None,
        now_ns: int = 0,
    ) -> None:
        self._fonts, self._names, self._nice, self._ranges = fonts, names, nice, ranges
        self._trails, self._now_ns = trails, now_ns  # the keys' recent past, lent like the ranges
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
        cols, rows = section_grid(len(sections), size.width(), size.height())
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
                tags = [("next", palette.NEXT_TAG)] if e.picks_next else []
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

    # ---- O(1) -----------------------------------------------------------------------------------------

    def _layout_o1(self, i: int, rq: O1View, body: QRectF, compact: bool) -> None:
        """O(1): active | expired; a row per occupied prio; chips in FIFO order, the running one first."""
        sc, half = self.scene, (body.width() - 12) / 2
        rows, row_h = prio_rows(rq.entries), CHIP_H[compact] + 8
        bold = font_metrics(self._fonts[BOLD])
        wide = half > 380
        captions: tuple[tuple[str, str], ...] = (
            ("active", "active array: runs first" if wide else "active array"),
            ("expired", "expired array: waits for the swap" if wide else "expired array"),
        )
        # A row's label says "prio 120", or "120" where only that lets the widest chip show its name
        # whole, under a caption that says "by prio" where that fits (at 1280×720 "prio 120" cut the
        # running chip to "▶ iperf-rep…").
        chip_w = max(bold.horizontalAdvance("▶ " + self._names.get(e.tid, "")) for e in rq.entries) + 18

        def row_room(form: str) -> float:  # a row's width for chips beside the widest label (as below)
            return half - max(bold.horizontalAdvance(form.format(prio)) for prio in rows) - 26

        label = "prio {}"
        if row_room(label) < chip_w <= row_room("{}"):  # short only where the name then shows whole
            label = "{}"
            by_prio = tuple((array, f"{caption}, by prio") for array, caption in captions)
            if all(bold.horizontalAdvance(caption) <= half - 12 for _, caption in by_prio):
                captions = by_prio
        for k, (array, caption) in enumerate(captions):
            box = QRectF(body.left() + k * (half + 12), body.top(), half, body.height())
            sc.boxes.append((box, palette.LIGHT_GREY))
            sc.text(QRectF(box.left() + 8, box.top() + 2, box.width() - 12, 22), caption, BOLD)
            y = box.top() + 28
            label_w = max((bold.horizontalAdvance(label.format(prio)) for prio in rows), default=0)
            for prio in rows:
                if y + row_h > box.bottom() - 18:
                    sc.text(QRectF(box.left() + 8, y - 4, box.width(), 20), "… more prio levels", PLAIN)
                    break
                sc.text(QRectF(box.left() + 8, y, label_w + 4, CHIP_H[compact]), label.format(prio), BOLD)
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
                i, e, x, r.top(), compact, detail, [(tag, palette.NEXT_TAG)] if e.picks_next else []
            )
            if chip.footprint(fm).right() > r.right():  # crowded: name only, short tag
                chip.detail, chip.tags = "", [("next", palette.NEXT_TAG)] if chip.tags else []
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
                self._bfs_now_line(rq.jiffies, QRectF(col_x, y, col_w, row_h), chip_w)
            else:
                self._bfs_row(i, rq, e, QRectF(col_x, y, col_w, CHIP_H[True]), chip_w)
            y += row_h

    def _bfs_now_line(self, jiffies: int, r: QRectF, chip_w: float) -> None:
        """The line between passed and future deadlines across row ``r``, its words right of the chips'
        column where they fit there: a yield's arrow crosses the line in that column."""
        sc, fm = self.scene, font_metrics(self._fonts[BOLD])
        sc.line(QPointF(r.left(), r.center().y()), QPointF(r.right(), r.center().y()), palette.VERMILLION, 2)
        shortest = fm.horizontalAdvance(now_wordings(jiffies)[-1])
        left = chip_w + 16 if shortest + 16 <= r.width() - chip_w - 16 else 20
        label = now_words(jiffies, lambda words: fm.horizontalAdvance(words) + 16 <= r.width() - left)
        rect = QRectF(r.left() + left, r.top() + 3, fm.horizontalAdvance(label) + 16, r.height() - 6)
        sc.text(rect, label, BOLD, palette.VERMILLION, Qt.AlignmentFlag.AlignCenter, palette.BACKGROUND)
        sc.tips.append((r, now_tip(jiffies)))

    def _bfs_row(self, i: int, rq: BfsView, e: BfsEntry, r: QRectF, chip_w: float) -> None:
        tags = [("expired deadline", palette.VERMILLION)] if e.deadline_passed else []
        tags += [(next_tag(e), palette.NEXT_TAG)] if e.picks_next else []
        chip = self._chip(i, e, r.left(), r.top(), True, "", tags)
        chip.rect.setWidth(chip_w)
        fm, bold = font_metrics(self._fonts[PLAIN]), font_metrics(self._fonts[BOLD])
        tags_w = sum(bold.horizontalAdvance(tag) + 14 for tag, _ in tags) + (10 if tags else 0)
        room = int(r.right() - chip.rect.right() - 12 - tags_w)  # the tags keep their place on the row
        wordings = bfs_wordings(e, rq.jiffies)
        fits = [w for w in wordings if fm.horizontalAdvance(w) <= room]
        words = fits[0] if fits else fm.elidedText(wordings[-1], Qt.TextElideMode.ElideRight, room)
        self.scene.text(
            QRectF(chip.rect.right() + 10, r.top(), fm.horizontalAdvance(words) + 4, r.height()), words
        )
        chip.tag_x = chip.rect.right() + 20 + fm.horizontalAdvance(words)


def now_tip(jiffies: int) -> str:
    """What hovering BFS's "now" line says."""
    return (
        f"Now: jiffies {jiffies}. Tasks above the line have deadlines that have passed, and BFS takes "
        "them first come, first served; below it, by the earliest virtual deadline."
    )


def now_wordings(jiffies: int) -> tuple[str, ...]:
    """The words BFS's "now" line may say, longest first."""
    return (
        f"now: jiffies {jiffies}; deadlines above this line have passed",
        f"now: jiffies {jiffies}; deadlines above have passed",
        f"now: jiffies {jiffies}",
    )


def now_words(jiffies: int, fits: Callable[[str], bool]) -> str:
    """The words on BFS's "now" line: the longest of its wordings that ``fits``, else "now"."""
    return next((words for words in now_wordings(jiffies) if fits(words)), "now")


def idle_runs(sections: Sequence[RunqueueView]) -> list[list[int]]:
    """The sections' indexes in rows: each CPU with a task alone, neighbouring CPUs with none together."""
    out: list[list[int]] = []
    for i, rq in enumerate(sections):
        if not rq.entries and out and not sections[out[-1][-1]].entries:
            out[-1].append(i)
        else:
            out.append([i])
    return out


__all__ = ["ALIGN_LEFT", "SceneBuilder"]
