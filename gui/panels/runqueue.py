"""Run-queue internals that change with the policy, and where a task that calls sched_yield() lands.

``render`` lays the run queues out once per frame (``gui.draw.runqueue_layouts``: O(1) arrays, the CFS
timeline, BFS's deadline list, EEVDF's eligible and ineligible requests, one layout per view kind) and
``paintEvent`` only draws the result (``gui.draw.runqueue_painting``). Under CFS and EEVDF the panel
keeps each task's recent keys (``gui.draw.key_trails``), drawn as a trail on the section's key axis.
When a yield record arrives, the panel rings the yielder where it landed, draws an arrow from where it
ran, and says in plain words what happened ("yield sent it here", "picked again at once") with the
policy's own words for the landing underneath (its registry entry's ``describe_landing``), for
``LANDING_S`` seconds of wall time: the window's playback drives the frames, the panel has no timer.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Callable, Sequence

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QFont,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
)
from PySide6.QtWidgets import QWidget

from gui import pyside_fix  # noqa: F401 - before any paint or emit
from gui.draw import palette
from gui.draw.formats import exact_duration, exact_time, format_duration
from gui.draw.handler_guard import guarded
from gui.draw.key_axes import trail_keys
from gui.draw.key_trails import KeyTrails
from gui.draw.landing import Landing, free_spot, landing_label, plain_words
from gui.draw.lane_painting import FADED
from gui.draw.layer_cache import LayerCache
from gui.draw.runqueue_layouts import SceneBuilder
from gui.draw.runqueue_painting import paint_chip_body, paint_label, paint_landing, paint_leader, paint_trails
from gui.draw.runqueue_scene import ALIGN_LEFT, BOLD, NO_TASK, PLAIN, TITLE, Chip, Scene, SceneText, TrailLine
from gui.draw.static_text import font_metrics
from gui.panels.base import HoverTipsPanel
from model.sched import POLICIES
from model.sched.registry import LandingWords
from model.snapshot import (
    RunqueueView,
    Snapshot,
    TraceRecord,
    YieldRecord,
)

LANDING_S = 4.0  # wall seconds a yield landing stays drawn
HOLD_S = 1.5  # a no-op yield does not replace a younger landing that moved its task
TRAIL_HIT_PX = 6  # hovering this near a trail's point names that sample
MOVED_PX = 30  # a landing mark stays while its task drifts less than this from where it landed


# ---- the panel ------------------------------------------------------------------------------------


class RunqueuePanel(HoverTipsPanel):
    """The run queues of the current snapshot, drawn the way the policy keeps them."""

    task_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(parent)
        self.setMinimumSize(480, 160)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)  # paints all of itself
        self._clock = clock
        family = self.font().family()
        self._fonts = [QFont(family, 11), QFont(family, 11), QFont(family, 13)]
        self._fonts[BOLD].setBold(True)
        self._fonts[TITLE].setBold(True)
        self._parts = LayerCache()  # the texts of several lines (``paintEvent``)
        self.reset()

    def reset(self) -> None:
        """Forget the picture, the axis ranges and the yield landings (after a restart)."""
        self._snapshot: Snapshot | None = None
        self._layout_size = QSize()
        self._global_queue = False
        self._describe: LandingWords = plain_words
        self._ranges: dict[int, tuple[float, float]] = {}
        self._trails = KeyTrails()  # the CFS keys' and EEVDF vruntimes' recent past
        self._trail_gap_ns = 0.0
        self._running: set[int] = set()
        self._names: dict[int, str] = {}
        self._nice: dict[int, int] = {}
        self.landings: dict[int, Landing] = {}
        self.scene = Scene()
        self.followed = 0  # the task followed (a click on it, in any panel), 0 for none
        self.update()

    @property
    def last_landing(self) -> Landing | None:
        return max(self.landings.values(), key=lambda ld: (ld.wall_s, ld.t_ns), default=None)

    @property
    def section_kinds(self) -> list[str]:
        """The view kind drawn in each section (one per CPU; one for a global queue such as BFS's)."""
        return [type(rq).__name__ for rq in self._sections()]

    def show_snapshot(self, snapshot: Snapshot) -> None:
        """Draw the run queues of ``snapshot`` and mark where its yields landed."""
        self._snapshot = snapshot
        info = POLICIES[str(snapshot.settings["sched.policy"])]
        self._global_queue, self._describe = info.global_queue, info.describe_landing
        self._names = {t.tid: t.name for t in snapshot.tasks}
        self._nice = {t.tid: t.nice for t in snapshot.tasks}
        prev_rects, prev_running = self.scene.rects, self._running
        self._running = {e.tid for rq in snapshot.runqueues for e in rq.entries if e.running}
        for i, rq in enumerate(self._sections()):
            keys = trail_keys(rq)
            if keys is not None:
                self._trails.add(i, snapshot.t_ns, keys, self._trail_gap_ns)
        self._relayout()
        landed = self._land_yields(
            snapshot.events, {k: r for k, r in prev_rects.items() if k[1] in prev_running}
        )
        self._place_labels(landed)
        self.update()

    def sizeHint(self) -> QSize:
        return QSize(1000, 60 + 240 * max(len(self._sections()), 1))

    def apply_theme(self) -> None:
        self._parts.clear()
        for ld in self.landings.values():  # laid out anew: keep the words, drop the marks
            ld.from_rect = ld.to_rect = None
        self._relayout()

    def minimumSizeHint(self) -> QSize:
        return QSize(480, 160)

    # ---- yields -------------------------------------------------------------------------------------

    def _land_yields(
        self, events: Sequence[TraceRecord], was_running: dict[tuple[int, int], QRectF]
    ) -> list[Landing]:
        """Per CPU, the frame's last yield that did something (else its last yield) becomes the landing;
        a no-op does not replace a landing that moved its task less than HOLD_S ago. Returns the new ones."""
        chosen: dict[int, YieldRecord] = {}
        for r in events:
            if isinstance(r, YieldRecord) and (
                r.cpu not in chosen or not r.outcome.noop or chosen[r.cpu].outcome.noop
            ):
                chosen[r.cpu] = r
        now, landed = self._clock(), []
        for cpu, r in chosen.items():
            section = self._section_of(cpu)
            old = self.landings.get(section)
            if old and r.outcome.noop and not old.outcome.noop and now - old.wall_s < HOLD_S:
                continue
            key = (section, r.tid)
            kept = r.tid in self._running and not r.switched
            name = self._names.get(r.tid, f"task {r.tid}")
            ld = Landing(
                r.tid,
                name,
                cpu,
                r.outcome,
                self._describe(r.outcome),
                self._describe(r.outcome, brief=True),
                r.t_ns,
                now,
                section,
                kept,
                was_running.get(key),
                self.scene.rects.get(key),
            )
            self.landings[section] = ld
            landed.append(ld)
        return landed

    def landing_alpha(self, landing: Landing) -> float:
        """1 while fresh, fading to 0 at LANDING_S wall seconds."""
        return max(0.0, min(1.0, (LANDING_S - (self._clock() - landing.wall_s)) / 1.5))

    # ---- layout -------------------------------------------------------------------------------------

    def _sections(self) -> list[RunqueueView]:
        """One section per CPU; BFS's global queue (the same for every CPU) once."""
        rqs = list(self._snapshot.runqueues) if self._snapshot else []
        return rqs[:1] if self._global_queue else rqs

    def _section_of(self, cpu: int) -> int:
        return 0 if len(self._sections()) == 1 else cpu

    def _relayout(self) -> None:
        self._layout_size = self.size()
        t_ns = self._snapshot.t_ns if self._snapshot else 0
        builder = SceneBuilder(self._fonts, self._names, self._nice, self._ranges, self._trails, t_ns)
        self.scene = builder.build(self._sections(), self.logical_size())
        # A trail keeps a sample a pixel row apart: finer samples would draw nothing more.
        self._trail_gap_ns = min((tr.span_ns / tr.clip.height() for tr in self.scene.trails), default=0.0)
        for ld in self.landings.values():  # the mark follows small shifts and goes once the task moves on
            now = self.scene.rects.get((ld.section, ld.tid))
            moved = (
                now is None
                or ld.to_rect is None
                or (now.center() - ld.to_rect.center()).manhattanLength() > MOVED_PX
            )
            if not moved and ld.label_rect is not None and ld.to_rect is not None and now is not None:
                ld.label_rect.translate(now.topLeft() - ld.to_rect.topLeft())  # keeps its place by the ring
                bounds = self.scene.section_rects.get(ld.section)
                if bounds is not None and not bounds.contains(ld.label_rect):  # pushed out of its section
                    ld.label_rect = None  # the ring says it; a new landing places a label again
            ld.to_rect = None if moved else now
        # A label that followed its ring onto another chip (the chips restacked) looks for a free spot.
        labelled = [
            (ld, ld.label_rect)
            for ld in self.landings.values()
            if ld.label_rect is not None and ld.to_rect is not None
        ]
        if labelled:  # most frames have none: nothing to gather
            taken = self._taken()
            self._place_labels(
                [ld for ld, rect in labelled if any(rect.intersects(t) for t in taken if t != ld.to_rect)]
            )

    @guarded
    def resizeEvent(self, event: object) -> None:
        if self.size() == self._layout_size:  # a pending resize delivered late: the layout is current
            return
        for ld in self.landings.values():  # frozen at the old size: keep the text, drop the marks
            ld.from_rect = ld.to_rect = None
        self._relayout()

    # ---- painting -----------------------------------------------------------------------------------

    @guarded
    def paintEvent(self, event: QPaintEvent) -> None:
        p = self.begin_painting()
        p.fillRect(self.logical_rect(), palette.BACKGROUND)
        for rect, color in self.scene.boxes:
            outlined = color in (palette.BACKGROUND, palette.LIGHT_GREY)
            p.setPen(QPen(palette.GREY, 1) if outlined else Qt.PenStyle.NoPen)
            p.setBrush(
                Qt.BrushStyle.NoBrush if color == palette.BACKGROUND else color
            )  # white on white: skip
            p.drawRect(rect)
        for a, b, pen in self.scene.lines:
            p.setPen(pen)
            p.drawLine(a, b)
        # Over the clock's line: a task whose key is the clock (2.6.24's leftmost) still shows, and the
        # clock's line, dashed over it, too.
        paint_trails(p, self.scene.trails, self.followed)
        for a, b, pen in self.scene.over_trails:
            p.setPen(pen)
            p.drawLine(a, b)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)  # chips, tags and arrows are round
        for text in self.scene.texts:
            if "\n" in text[1]:  # laid out anew by every drawText: copied while it reads the same
                rect, s, style, color, align, bg = text
                key = (rect.getRect(), s, style, color.rgba(), int(align), bg.rgba() if bg else None)
                self._parts.draw(
                    p, ("text", rect.getRect()), key, rect, functools.partial(self._paint_text, text=text)
                )
            else:
                self._paint_text(p, text)
        for ld in self.landings.values():  # under the chips: a leader that must pass a box goes behind it
            paint_leader(p, ld, self.landing_alpha(ld))
        for chip in self.scene.chips:
            self._paint_chip(p, chip)
        fm = font_metrics(self._fonts[BOLD])
        for chip in self.scene.chips:  # tags last: a crowded stack never hides them
            for (tag, color), r in zip(chip.tags, chip.tag_rects(fm), strict=True):
                paint_label(p, r, tag, palette.BACKGROUND, color, self._fonts[BOLD])
        for ld in self.landings.values():
            paint_landing(p, ld, self.landing_alpha(ld), self._fonts[BOLD])
        for i, rect in self.scene.footers.items():  # the last yield of each section, in words
            last = self.landings.get(i)
            fresh = last is not None and self.landing_alpha(last) > 0
            p.setFont(self._fonts[BOLD if last else PLAIN])
            p.setPen(palette.TEXT if fresh else palette.GREY)
            options = last.wordings if last else ("no sched_yield() seen yet",)
            fm = font_metrics(p.font())
            fits = [w for w in options if fm.horizontalAdvance(w) <= rect.width()]
            words = (
                fits[0]
                if fits
                else fm.elidedText(options[-1], Qt.TextElideMode.ElideRight, int(rect.width()))
            )
            p.drawText(rect, ALIGN_LEFT, words)
        self._parts.end_frame()
        p.end()

    def _paint_text(self, p: QPainter, text: SceneText) -> None:
        rect, s, style, color, align, bg = text
        if bg is not None:
            p.fillRect(rect, bg)
        p.setFont(self._fonts[style])
        p.setPen(color)
        p.drawText(rect, align, s)

    def follow(self, tid: int) -> None:
        """Ring task ``tid``'s chip and fade the others (0: none)."""
        self.followed = tid
        self.update()

    def _paint_chip(self, p: QPainter, chip: Chip) -> None:
        if self.followed:
            p.setOpacity(1.0 if chip.tid == self.followed else FADED)
            if chip.tid == self.followed:
                p.setPen(QPen(palette.TEXT, 3))
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.drawRoundedRect(chip.rect.adjusted(-3, -3, 3, 3), 7, 7)
        paint_chip_body(p, chip, self._fonts)
        p.setOpacity(1.0)

    def _taken(self) -> list[QRectF]:
        """What a landing's label must not hide: every chip and its tags, the texts, the footers."""
        fm = font_metrics(self._fonts[BOLD])
        taken = [t for c in self.scene.chips for t in [c.rect, *c.tag_rects(fm)]]
        return taken + [t[0] for t in self.scene.texts if t[1] != NO_TASK] + list(self.scene.footers.values())

    def _place_labels(self, landings: list[Landing]) -> None:
        """Put each new landing's label beside its ring, on the nearest spot that hides no chip or text."""
        fm = font_metrics(self._fonts[BOLD])
        taken = self._taken()
        for ld in landings:
            if ld.to_rect is None or ld.section not in self.scene.section_rects:
                continue
            ring = ld.to_rect.adjusted(-5, -5, 5, 5)
            size = QSize(fm.horizontalAdvance(landing_label(ld)) + 12, fm.height() + 4)
            bounds = self.scene.section_rects[ld.section]
            if bounds.height() < 3 * size.height():  # a CPU's one-row queue: the ring says it, no label
                ld.label_rect = None
                continue
            ld.label_rect = free_spot(ring, size, bounds, [ring, *(t for t in taken if t != ld.to_rect)])
            if ld.label_rect is not None:
                taken.append(ld.label_rect)

    # ---- input --------------------------------------------------------------------------------------

    @guarded
    def mousePressEvent(self, event: QMouseEvent) -> None:
        tid = self.tid_at(self.to_logical(event.position()))
        if tid > 0:
            self.task_clicked.emit(tid)

    def describe_at(self, pos: QPointF) -> str:
        """A task's run-queue entry at ``pos`` (logical pixels), every field with its exact value."""
        for chip in reversed(self.scene.chips):
            if not chip.rect.contains(pos):
                continue
            for i, section in self.scene.section_rects.items():
                if not section.contains(chip.rect.center()) or i >= len(self._sections()):
                    continue
                rq = self._sections()[i]
                entry = next((e for e in rq.entries if e.tid == chip.tid), None)
                if entry is not None:
                    name = self._names.get(chip.tid, f"task {chip.tid}")
                    return f"{name} (tid {chip.tid}) on CPU {rq.cpu}\n" + entry_words(entry)
        tip = next((words for rect, words in self.scene.tips if rect.contains(pos)), "")
        if tip:
            return tip
        trail = next((tr for tr in self.scene.trails if tr.clip.contains(pos)), None)
        if trail is not None:
            near = self._trail_sample_at(pos)
            span = format_duration(trail.span_ns)
            if trail.key == "vruntime":  # EEVDF: behind both lanes, against V
                return near + (
                    f"Trails: where each task's vruntime sat over the last {span}, on the same axis; "
                    "the newest at the axis, older higher up. Left of V the task is eligible. A move to "
                    "the right is CPU time charged to the task (it ran, or a yield forfeited its "
                    "request); a drift to the left is V advancing while it waits. V is the queue's "
                    "weighted mean vruntime: it also jumps when a task joins or leaves."
                )
            return near + (
                f"Trails: where each task's key sat over the last {span}, "
                "on the same axis; the newest at its chip, older higher up. A move to the right is CPU "
                "time charged to the task (it ran, or a yield put it further back); a drift to the left "
                "is the clock advancing while it waits."
            )
        return ""

    def _trail_sample_at(self, pos: QPointF) -> str:
        """The trail sample drawn nearest ``pos`` (within TRAIL_HIT_PX), in words, then a blank line;
        "" if none is that near."""
        best: tuple[float, TrailLine, int] | None = None
        for tr in self.scene.trails:
            if not tr.clip.contains(pos):
                continue
            for k, pt in enumerate(tr.points):
                d = (pt - pos).manhattanLength()
                if d <= TRAIL_HIT_PX and (best is None or d < best[0]):
                    best = (d, tr, k)
        if best is None or self._snapshot is None:
            return ""
        _, tr, k = best
        t_ns, rel_ns = tr.samples[k]
        name = self._names.get(tr.tid, f"task {tr.tid}")
        ago = format_duration(self._snapshot.t_ns - t_ns)
        key = f"{exact_duration(abs(rel_ns))} {'past' if rel_ns >= 0 else 'before'} {tr.clock}"
        return f"{name} at t = {exact_time(t_ns)} ({ago} ago): its {tr.key} {key}\n\n"

    def tid_at(self, pos: QPointF) -> int:
        """The task whose chip is at ``pos`` (the topmost), 0 if none."""
        return next((c.tid for c in reversed(self.scene.chips) if c.rect.contains(pos)), 0)


def entry_words(entry: object) -> str:
    """Every field of a run-queue entry, one a line, durations in their unit."""
    lines = []
    for f in dataclasses.fields(entry):  # type: ignore[arg-type]
        if f.name == "tid":
            continue
        value = getattr(entry, f.name)
        if f.name.endswith("_ns"):
            shown = exact_duration(value)
        elif isinstance(value, bool):
            shown = "yes" if value else "no"
        else:
            shown = str(value)
        lines.append(f"{f.name}: {shown}")
    return "\n".join(lines)
