"""Run-queue internals that change with the policy, and where a task that calls sched_yield() lands.

``render`` lays the run queues out once per frame (``gui.runqueue_scene``: O(1) arrays, the CFS
timeline, BFS's deadline list, EEVDF's eligible and ineligible requests) and ``paintEvent`` only draws
the result. When a "yield" record arrives, the panel rings the yielder where it landed, draws an arrow
from where it ran, and says in plain words what happened ("yield sent it here", "picked again at
once") with the record's own text underneath, for ``LANDING_S`` seconds of wall time: the window's
playback drives the frames, the panel has no timer.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QMouseEvent, QPainter, QPainterPath, QPaintEvent, QPen
from PySide6.QtWidgets import QWidget

from gui import palette, pyside_fix  # noqa: F401 - pyside_fix: before any paint or emit
from gui.cpu_history import yield_switched
from gui.cpu_lanes import code_brush, text_on
from gui.runqueue_scene import (
    ALIGN_LEFT,
    BOLD,
    NO_TASK,
    PLAIN,
    TITLE,
    Chip,
    Scene,
    SceneBuilder,
    policy_family,
)
from gui.snapshot_panel import SnapshotPanel
from model.machine import TraceRecord
from model.sched.base import RunqueueView
from model.simulation import Snapshot

LANDING_S = 4.0  # wall seconds a yield landing stays drawn
HOLD_S = 1.5  # a no-op yield does not replace a younger landing that moved its task
MOVED_PX = 30  # a landing mark stays while its task drifts less than this from where it landed


# ---- pure helpers ---------------------------------------------------------------------------------


def is_noop(info: str) -> bool:
    return "no-op" in info


def free_spot(ring: QRectF, size: QSize, bounds: QRectF, taken: Sequence[QRectF]) -> QRectF:
    """The spot for a label of ``size`` nearest to ``ring`` (beside it on its row first, then on rows
    further up or down) inside ``bounds`` that overlaps nothing ``taken``; beside the ring if none is."""
    w, h = size.width(), size.height()
    want = (ring.right() + 6, ring.left() - w - 6)
    boxes = [(t.left(), t.top(), t.right(), t.bottom()) for t in taken]
    best: tuple[float, float, float] | None = None  # (cost, x, y)
    for y, penalty in _label_rows(ring, h, bounds):
        if best is not None and penalty >= best[0]:
            break  # rows come nearest first
        blocked = sorted(
            (left - w, right) for left, top, right, bottom in boxes if bottom > y and top < y + h
        )
        for x in _free_xs(bounds.left(), bounds.right() - w, blocked, want):
            cost = penalty + min(abs(x - want[0]), abs(x - want[1]))
            if best is None or cost < best[0]:
                best = (cost, x, y)
    if best is None:
        x = min(max(want[0], bounds.left()), bounds.right() - w)
        return QRectF(x, ring.center().y() - h / 2, w, h)
    return QRectF(best[1], best[2], w, h)


def _label_rows(ring: QRectF, h: float, bounds: QRectF) -> list[tuple[float, float]]:
    """Label rows (top y, penalty), nearest first: the ring's own, then one row up and down, and so on."""
    rows = [(ring.center().y() - h / 2, 0.0)]
    for k in range(int(bounds.height() // (h + 4)) + 1):
        rows += [
            (ring.top() - (h + 4) * (k + 1) + 2, 40.0 * (k + 1)),
            (ring.bottom() + 2 + (h + 4) * k, 40.0 * (k + 1)),
        ]
    return [(y, pen) for y, pen in rows if bounds.top() <= y and y + h <= bounds.bottom()]


def _free_xs(
    lo: float, hi: float, blocked: list[tuple[float, float]], want: tuple[float, ...]
) -> list[float]:
    """For each gap of [lo, hi] outside the sorted open intervals ``blocked``, its points nearest ``want``."""
    gaps, start = [], lo
    for b0, b1 in blocked:
        if b0 >= start:
            gaps.append((start, min(b0, hi)))
        start = max(start, b1)
    gaps.append((start, hi))
    return [min(max(x, g0), g1) for g0, g1 in gaps if g0 <= g1 for x in want]


def arrow_control(a: QPointF, b: QPointF) -> QPointF:
    """Control point of a curved arrow from a to b: bulging to its left (up for a rightward move)."""
    dx, dy = b.x() - a.x(), b.y() - a.y()
    length = math.hypot(dx, dy) or 1.0
    bulge = min(max(0.3 * length, 20.0), 60.0)
    return QPointF((a.x() + b.x()) / 2 + bulge * dy / length, (a.y() + b.y()) / 2 - bulge * dx / length)


def landing_label(ld: Landing) -> str:
    return "yield: picked again at once" if ld.picked_again else "yield sent it here"


@dataclass
class Landing:
    """Where the last yield of a section sent its task: its ring follows small shifts, then goes."""

    tid: int
    name: str
    cpu: int
    info: str
    t_ns: int
    wall_s: float
    section: int
    picked_again: bool  # the yielder kept the CPU
    from_rect: QRectF | None
    to_rect: QRectF | None
    label_rect: QRectF | None = None

    @property
    def text(self) -> str:
        return f"sched_yield() by {self.name} → {self.info}"


# ---- the panel ------------------------------------------------------------------------------------


class RunqueuePanel(SnapshotPanel):
    """The run queues of the current snapshot, drawn the way the policy keeps them."""

    task_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(parent)
        self.setMinimumSize(480, 160)
        self._clock = clock
        family = self.font().family()
        self._fonts = [QFont(family, 11), QFont(family, 11), QFont(family, 13)]
        self._fonts[BOLD].setBold(True)
        self._fonts[TITLE].setBold(True)
        self.reset()

    def reset(self) -> None:
        """Forget the picture, the axis ranges and the yield landings (after a restart)."""
        self._snapshot: Snapshot | None = None
        self._layout_size = QSize()
        self._families: dict[int, str] = {}
        self._ranges: dict[int, tuple[float, float]] = {}
        self._running: set[int] = set()
        self._names: dict[int, str] = {}
        self._nice: dict[int, int] = {}
        self.landings: dict[int, Landing] = {}
        self.scene = Scene()
        self.update()

    @property
    def last_landing(self) -> Landing | None:
        return max(self.landings.values(), key=lambda ld: (ld.wall_s, ld.t_ns), default=None)

    @property
    def families(self) -> list[str]:
        """The family drawn in each section (one per CPU; one for BFS's global queue)."""
        return [self._families.get(i, "") for i in range(len(self._sections()))]

    def show_snapshot(self, snapshot: Snapshot) -> None:
        """Draw the run queues of ``snapshot`` and mark where its yields landed."""
        self._snapshot = snapshot
        self._names = {t.tid: t.name for t in snapshot.tasks}
        self._nice = {t.tid: t.nice for t in snapshot.tasks}
        prev_rects, prev_running = self.scene.rects, self._running
        self._running = {e.tid for rq in snapshot.runqueues for e in rq.entries if e.group == "running"}
        self._relayout()
        landed = self._land_yields(
            snapshot.events, {k: r for k, r in prev_rects.items() if k[1] in prev_running}
        )
        self._place_labels(landed)
        self.update()

    def sizeHint(self) -> QSize:
        return QSize(1000, 60 + 240 * max(len(self._sections()), 1))

    def minimumSizeHint(self) -> QSize:
        return QSize(480, 160)

    # ---- yields -------------------------------------------------------------------------------------

    def _land_yields(
        self, events: Sequence[TraceRecord], was_running: dict[tuple[int, int], QRectF]
    ) -> list[Landing]:
        """Per CPU, the frame's last yield that did something (else its last yield) becomes the landing;
        a no-op does not replace a landing that moved its task less than HOLD_S ago. Returns the new ones."""
        chosen: dict[int, int] = {}
        for k, r in enumerate(events):
            if r.kind == "yield" and (
                r.cpu not in chosen or not is_noop(r.info) or is_noop(events[chosen[r.cpu]].info)
            ):
                chosen[r.cpu] = k
        now, landed = self._clock(), []
        for cpu, k in chosen.items():
            r, section = events[k], self._section_of(cpu)
            old = self.landings.get(section)
            if old and is_noop(r.info) and not is_noop(old.info) and now - old.wall_s < HOLD_S:
                continue
            key = (section, r.tid)
            kept = r.tid in self._running and not yield_switched(events, k)
            name = self._names.get(r.tid, f"task {r.tid}")
            ld = Landing(
                r.tid,
                name,
                cpu,
                r.info,
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
        fams = {policy_family(rq) for rq in rqs} - {""}
        return rqs[:1] if fams == {"bfs"} or (not fams and self._families.get(0) == "bfs") else rqs

    def _section_of(self, cpu: int) -> int:
        return 0 if len(self._sections()) == 1 else cpu

    def _relayout(self) -> None:
        self._layout_size = self.size()
        builder = SceneBuilder(self._fonts, self._names, self._nice, self._ranges, self._families)
        self.scene = builder.build(self._sections(), self.size())
        for ld in self.landings.values():  # the mark follows small shifts and goes once the task moves on
            now = self.scene.rects.get((ld.section, ld.tid))
            moved = (
                now is None
                or ld.to_rect is None
                or (now.center() - ld.to_rect.center()).manhattanLength() > MOVED_PX
            )
            if not moved and ld.label_rect is not None and ld.to_rect is not None and now is not None:
                ld.label_rect.translate(now.topLeft() - ld.to_rect.topLeft())  # keeps its place by the ring
            ld.to_rect = None if moved else now

    def resizeEvent(self, event: object) -> None:
        if self.size() == self._layout_size:  # a pending resize delivered late: the layout is current
            return
        for ld in self.landings.values():  # frozen at the old size: keep the text, drop the marks
            ld.from_rect = ld.to_rect = None
        self._relayout()

    # ---- painting -----------------------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.fillRect(self.rect(), palette.BACKGROUND)
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
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)  # chips, tags and arrows are round
        for rect, s, style, color, align, bg in self.scene.texts:
            if bg is not None:
                p.fillRect(rect, bg)
            p.setFont(self._fonts[style])
            p.setPen(color)
            p.drawText(rect, align, s)
        for chip in self.scene.chips:
            self._paint_chip(p, chip)
        fm = QFontMetrics(self._fonts[BOLD])
        for chip in self.scene.chips:  # tags last: a crowded stack never hides them
            for (tag, color), r in zip(chip.tags, chip.tag_rects(fm), strict=True):
                _label(p, r, tag, palette.BACKGROUND, color, self._fonts[BOLD])
        for ld in self.landings.values():
            self._paint_landing(p, ld)
        for i, rect in self.scene.footers.items():  # the last yield of each section, in words
            last = self.landings.get(i)
            fresh = last is not None and self.landing_alpha(last) > 0
            p.setFont(self._fonts[BOLD if last else PLAIN])
            p.setPen(palette.TEXT if fresh else palette.GREY)
            words = "last " + last.text if last else "no sched_yield() seen yet"
            elided = QFontMetrics(p.font()).elidedText(words, Qt.TextElideMode.ElideRight, int(rect.width()))
            p.drawText(rect, ALIGN_LEFT, elided)
        p.end()

    def _paint_chip(self, p: QPainter, chip: Chip) -> None:
        pen = QPen(palette.TEXT, 3 if chip.running else 1)
        brush = code_brush(chip.tid)
        solid = brush.style() == Qt.BrushStyle.SolidPattern
        if not solid:  # a pattern reads over white, and so does dark text on it
            p.setPen(pen)
            p.setBrush(palette.BACKGROUND)
            p.drawRoundedRect(chip.rect, 5, 5)
        p.setPen(pen)
        p.setBrush(brush)
        p.drawRoundedRect(chip.rect, 5, 5)
        p.setPen(text_on(palette.task_color(chip.tid)) if solid else palette.TEXT)
        p.setFont(self._fonts[BOLD])
        title = chip.rect.adjusted(9, 1, -4, -chip.rect.height() / 2 + 1 if chip.detail else 0)
        p.drawText(title, ALIGN_LEFT, chip.title)
        if chip.detail:
            p.setFont(self._fonts[PLAIN])
            p.drawText(chip.rect.adjusted(9, chip.rect.height() / 2 - 3, -4, -2), ALIGN_LEFT, chip.detail)

    def _paint_landing(self, p: QPainter, ld: Landing) -> None:
        """A dashed ring where the yielder is now, an arrow from where it ran, and a plain-words label."""
        alpha = self.landing_alpha(ld)
        if alpha <= 0 or ld.to_rect is None:
            return
        ink, fill = QColor(palette.TEXT), QColor(palette.YELLOW)
        ink.setAlphaF(alpha)
        fill.setAlphaF(alpha)
        to = ld.to_rect.adjusted(-5, -5, 5, 5)
        p.setPen(QPen(ink, 3, Qt.PenStyle.DashLine))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRoundedRect(to, 8, 8)
        fr = ld.from_rect
        if not ld.picked_again and fr is not None and (fr.center() - to.center()).manhattanLength() > 8:
            a = fr.center()
            b = QPointF(to.center().x(), to.top() if a.y() < to.top() else to.bottom())
            ctrl = arrow_control(a, b)
            path = QPainterPath(a)
            path.quadTo(ctrl, b)
            p.setPen(QPen(ink, 3))
            p.drawPath(path)
            p.setBrush(ink)
            p.drawEllipse(a, 4, 4)
            _arrow_head(p, ctrl, b, ink)
        lab = ld.label_rect
        if lab is not None:
            if lab.bottom() < to.top() or lab.top() > to.bottom():  # not beside the ring: a leader line
                above = lab.bottom() < to.top()
                p.setPen(QPen(ink, 1))
                p.drawLine(
                    QPointF(lab.center().x(), lab.bottom() if above else lab.top()),
                    QPointF(to.center().x(), to.top() if above else to.bottom()),
                )
            _label(p, lab, landing_label(ld), ink, fill, self._fonts[BOLD], QPen(ink, 1))

    def _place_labels(self, landings: list[Landing]) -> None:
        """Put each new landing's label beside its ring, on the nearest spot that hides no chip or text."""
        fm = QFontMetrics(self._fonts[BOLD])
        taken = [t for c in self.scene.chips for t in [c.rect, *c.tag_rects(fm)]]
        taken += [t[0] for t in self.scene.texts if t[1] != NO_TASK] + list(self.scene.footers.values())
        for ld in landings:
            if ld.to_rect is None or ld.section not in self.scene.section_rects:
                continue
            ring = ld.to_rect.adjusted(-5, -5, 5, 5)
            size = QSize(fm.horizontalAdvance(landing_label(ld)) + 12, fm.height() + 4)
            bounds = self.scene.section_rects[ld.section]
            ld.label_rect = free_spot(ring, size, bounds, [ring, *(t for t in taken if t != ld.to_rect)])
            taken.append(ld.label_rect)

    # ---- input --------------------------------------------------------------------------------------

    def mousePressEvent(self, event: QMouseEvent) -> None:
        tid = self.tid_at(event.position())
        if tid > 0:
            self.task_clicked.emit(tid)

    def tid_at(self, pos: QPointF) -> int:
        """The task whose chip is at ``pos`` (the topmost), 0 if none."""
        return next((c.tid for c in reversed(self.scene.chips) if c.rect.contains(pos)), 0)


def _label(
    p: QPainter, r: QRectF, text: str, ink: QColor, fill: QColor, font: QFont, pen: QPen | None = None
) -> None:
    p.setPen(pen or Qt.PenStyle.NoPen)
    p.setBrush(fill)
    p.drawRoundedRect(r, 4, 4)
    p.setPen(ink)
    p.setFont(font)
    p.drawText(r, Qt.AlignmentFlag.AlignCenter, text)


def _arrow_head(p: QPainter, frm: QPointF, tip: QPointF, color: QColor) -> None:
    angle = math.atan2(tip.y() - frm.y(), tip.x() - frm.x())
    pts = [tip] + [
        QPointF(tip.x() - 14 * math.cos(angle + s), tip.y() - 14 * math.sin(angle + s)) for s in (0.4, -0.4)
    ]
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(color)
    p.drawPolygon(pts)
