"""Colours and patterns: the Okabe–Ito colour-blind-safe palette, always backed by a pattern and a label.

Tasks are coloured in the order of their tids, the run's own tasks before the kernel's threads (stable
across frames and runs), CPU states and prio bands by name.
Projector-friendly: a white background and dark text, as PhET advises ("black is not a projected colour").
The neutral colours (``BACKGROUND``, ``TEXT``, ``GREY``, ``LIGHT_GREY``) are shared objects that
``gui.draw.theme`` retints in place for the display mode; the Okabe–Ito colours never change.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from model.metrics import KERNEL_ROLES

# Okabe & Ito (2008), "Color Universal Design".
ORANGE = QColor("#E69F00")
SKY_BLUE = QColor("#56B4E9")
BLUISH_GREEN = QColor("#009E73")
YELLOW = QColor("#F0E442")
BLUE = QColor("#0072B2")
VERMILLION = QColor("#D55E00")
REDDISH_PURPLE = QColor("#CC79A7")
BLACK = QColor("#000000")
GREY = QColor("#BBBBBB")
LIGHT_GREY = QColor("#EEEEEE")
BACKGROUND = QColor("#FFFFFF")
TEXT = QColor("#222222")

TASK_COLORS = (BLUE, ORANGE, BLUISH_GREEN, REDDISH_PURPLE, SKY_BLUE, VERMILLION, YELLOW)
# The run-queue views' "runs next" tag: a neutral, since each Okabe–Ito colour names a task (a blue tag
# beside the second task's chip read as the first task's, which is blue in every story).
NEXT_TAG = TEXT
TASK_PATTERNS = (
    Qt.BrushStyle.SolidPattern,
    Qt.BrushStyle.BDiagPattern,
    Qt.BrushStyle.Dense4Pattern,
    Qt.BrushStyle.FDiagPattern,
    Qt.BrushStyle.CrossPattern,
    Qt.BrushStyle.HorPattern,
    Qt.BrushStyle.VerPattern,
)

# CPU states: idle is blank, interrupts are dark and hatched so they never read as a task.
STATE_COLORS = {"idle": LIGHT_GREY, "hardirq": BLACK, "softirq": QColor("#666666")}
STATE_PATTERNS = {
    "idle": Qt.BrushStyle.NoBrush,
    "hardirq": Qt.BrushStyle.SolidPattern,
    "softirq": Qt.BrushStyle.DiagCrossPattern,
}

# prio qdisc bands: band 0 (highest priority) is the warmest.
BAND_COLORS = (VERMILLION, BLUE, BLUISH_GREEN, REDDISH_PURPLE, ORANGE, SKY_BLUE, YELLOW)

# Per-CPU series (dequeue counts, CPU shares): one colour per CPU.
CPU_COLORS = (BLUE, ORANGE, BLUISH_GREEN, REDDISH_PURPLE, SKY_BLUE, VERMILLION, YELLOW, GREY)


def text_on(color: QColor) -> QColor:
    """Dark or white text, whichever reads on ``color`` (its luma, ITU-R BT.601 weights)."""
    lum = 0.299 * color.red() + 0.587 * color.green() + 0.114 * color.blue()
    return TEXT if lum > 140 else BACKGROUND


_slots: dict[int, int] = {}  # tid -> the task's place in the colour sequence, for the run on show


def colour_tasks(tasks: Iterable[tuple[int, str]]) -> None:
    """Number the run's tasks, given as (tid, role), for their colours: the run's own tasks first in tid
    order, then the kernel's threads. The model gives ksoftirqd/N the first tids (Linux made them at
    boot, before any sender), but in the 2011 story sender.N runs alone on CPU N and must wear CPU N's
    colour, the colour of its packets in the qdisc and of its tile (``TASK_COLORS`` and ``CPU_COLORS``
    start alike). A tid the numbering has not seen (a task forked later) keeps its own place, tid - 1,
    which no numbered task takes: tids are 1, 2, 3 … in the order tasks are made."""
    ordered = sorted(tasks, key=lambda task: (task[1] in KERNEL_ROLES, task[0]))
    _slots.clear()
    _slots.update({tid: slot for slot, (tid, _role) in enumerate(ordered)})


def mixed(color: QColor, share: float) -> QColor:
    """``share`` of ``color`` over the background, opaque: it reads as a translucent pen would over
    the background and draws as fast as a solid one."""
    bg = BACKGROUND
    return QColor.fromRgbF(
        share * color.redF() + (1 - share) * bg.redF(),
        share * color.greenF() + (1 - share) * bg.greenF(),
        share * color.blueF() + (1 - share) * bg.blueF(),
    )


def task_slot(tid: int) -> int:
    return _slots.get(tid, tid - 1)


def task_color(tid: int) -> QColor:
    return TASK_COLORS[task_slot(tid) % len(TASK_COLORS)]


def task_pattern(tid: int) -> Qt.BrushStyle:
    return TASK_PATTERNS[(task_slot(tid) // len(TASK_COLORS)) % len(TASK_PATTERNS)]


def cpu_color(cpu: int) -> QColor:
    return CPU_COLORS[cpu % len(CPU_COLORS)]


# A pattern per CPU as well, for bars that stand side by side (the CPU is also written under each bar).
CPU_PATTERNS = (
    Qt.BrushStyle.SolidPattern,
    Qt.BrushStyle.BDiagPattern,
    Qt.BrushStyle.Dense3Pattern,
    Qt.BrushStyle.FDiagPattern,
    Qt.BrushStyle.CrossPattern,
    Qt.BrushStyle.HorPattern,
    Qt.BrushStyle.VerPattern,
    Qt.BrushStyle.DiagCrossPattern,
)


def cpu_pattern(cpu: int) -> Qt.BrushStyle:
    return CPU_PATTERNS[cpu % len(CPU_PATTERNS)]


def band_color(band: int) -> QColor:
    return BAND_COLORS[band % len(BAND_COLORS)]
