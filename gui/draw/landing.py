"""A yield landing: where the last yield of a run-queue section sent its task (``Landing``, its words),
and where its label and arrow go: free spots beside a ring, curved arrows (no widget)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, QSize

from model.snapshot import YieldOutcome


def plain_words(outcome: YieldOutcome, brief: bool = False) -> str:
    """A landing's words before any policy is known (no run shown yet)."""
    return str(outcome)


def landing_label(ld: Landing) -> str:
    return "yield: picked again at once" if ld.picked_again else "yield sent it here"


@dataclass
class Landing:
    """Where the last yield of a section sent its task: its ring follows small shifts, then goes."""

    tid: int
    name: str
    cpu: int
    outcome: YieldOutcome
    words: str  # the policy's words for the outcome
    brief: str  # the same without the numbers ("in place"), for a narrow footer
    t_ns: int
    wall_s: float
    section: int
    picked_again: bool  # the yielder kept the CPU
    from_rect: QRectF | None
    to_rect: QRectF | None
    label_rect: QRectF | None = None

    @property
    def text(self) -> str:
        return f"sched_yield() by {self.name} → {self.words}"

    @property
    def wordings(self) -> tuple[str, ...]:
        """The footer's words, longest first: a narrow section drops "last", then the numbers (the
        policy's brief words; its chip's ring and leader show where), then the call's full name."""
        return (
            "last " + self.text,
            self.text,
            f"sched_yield() by {self.name} → {self.brief}",
            f"yield by {self.name} → {self.brief}",
        )


def free_spot(ring: QRectF, size: QSize, bounds: QRectF, taken: Sequence[QRectF]) -> QRectF | None:
    """The spot for a label of ``size`` nearest to ``ring`` (beside it on its row first, then on rows
    further up or down) inside ``bounds`` that overlaps nothing ``taken``; None if there is none (the
    ring and the section's footer line say it without the label)."""
    w, h = size.width(), size.height()
    want = (ring.right() + 6, ring.left() - w - 6, ring.center().x() - w / 2)
    boxes = [(t.left(), t.top(), t.right(), t.bottom()) for t in taken]
    others = [t for t in taken if t != ring]
    best: tuple[float, float, float] | None = None  # (cost, x, y)
    for y, penalty in _label_rows(ring, h, bounds):
        if best is not None and penalty >= best[0]:
            break  # rows come nearest first
        blocked = sorted(
            (left - w, right) for left, top, right, bottom in boxes if bottom > y and top < y + h
        )
        for x in _free_xs(bounds.left(), bounds.right() - w, blocked, want):
            cost = penalty + min(abs(x - spot) for spot in want)
            if _leader_crosses(QRectF(x, y, w, h), ring, others):
                cost += CROSSING_COST
            if best is None or cost < best[0]:
                best = (cost, x, y)
    if best is None:
        return None
    return QRectF(best[1], best[2], w, h)


CROSSING_COST = 120.0  # a leader line through a task's box or a text: worse than three rows further


def leader_line(label: QRectF, ring: QRectF) -> tuple[QPointF, QPointF] | None:
    """The line that joins a label above or below its ring to the ring, centre to centre and edge to
    edge; None for a label beside it."""
    if label.bottom() >= ring.top() and label.top() <= ring.bottom():
        return None
    above = label.bottom() < ring.top()
    a = QPointF(label.center().x(), label.bottom() if above else label.top())
    return a, QPointF(ring.center().x(), ring.top() if above else ring.bottom())


def _leader_crosses(label: QRectF, ring: QRectF, taken: Sequence[QRectF]) -> bool:
    """Whether the label's leader line (``leader_line``) runs through one of ``taken``."""
    line = leader_line(label, ring)
    if line is None:
        return False
    a, b = line
    points = [a + (b - a) * (k / 16) for k in range(1, 16)]
    return any(t.contains(pt) for t in taken for pt in points)


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


def arrow_wanted(frm: QRectF, ring: QRectF) -> bool:
    """Whether a yield's move is drawn as an arrow: only where the yielder left the spot it ran in. Where
    the spot and its ring overlap (it landed about where it ran: CFS 2.6.23 requeues in place), an arrow
    from edge to edge would run back across the chip's own words; the ring and its label say enough."""
    both = frm.intersected(ring)
    return both.width() <= OVERLAP_PX or both.height() <= OVERLAP_PX


OVERLAP_PX = 4.0  # chips of neighbouring rows may touch (or share their outline) without overlapping


def arrow_path(frm: QRectF, ring: QRectF) -> tuple[QPointF, QPointF, QPointF]:
    """A yield's arrow as a quadratic curve (start, control, tip): from the edge of the spot it ran in that
    faces the ring to the ring's facing edge, so that its dot sits on an edge, not on the words of the chip
    that now fills that spot. Between rows it runs straight where they leave too little room to bulge
    (it would cut through a chip's words); along a row it bulges over the chips between."""
    if frm.bottom() <= ring.top() or frm.top() >= ring.bottom():  # another row: top and bottom edges
        up = ring.bottom() <= frm.top()
        a = QPointF(frm.center().x(), frm.top() if up else frm.bottom())
        b = QPointF(ring.center().x(), ring.bottom() if up else ring.top())
        if abs(b.y() - a.y()) < FLAT_GAP:
            return a, (a + b) / 2, b
        return a, arrow_control(a, b), b
    right = ring.center().x() >= frm.center().x()
    a = QPointF(frm.right() if right else frm.left(), frm.center().y())
    b = QPointF(ring.left() if right else ring.right(), ring.center().y())
    return a, arrow_control(a, b), b


FLAT_GAP = 24.0  # rows closer than this: a straight arrow between them


def arrow_control(a: QPointF, b: QPointF) -> QPointF:
    """Control point of a curved arrow from a to b: bulging to its left (up for a rightward move)."""
    dx, dy = b.x() - a.x(), b.y() - a.y()
    length = math.hypot(dx, dy) or 1.0
    bulge = min(max(0.3 * length, 20.0), 60.0)
    return QPointF((a.x() + b.x()) / 2 + bulge * dy / length, (a.y() + b.y()) / 2 - bulge * dx / length)
