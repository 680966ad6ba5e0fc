"""Compare: two to four runs of one scenario and seed, differing in chosen settings, on one clock.

The runs are a ``model.compare.Lockstep``: every side advances by the same simulated time, so their
CPU lanes, side by side, show the same instant, and the overlaid graph below (``gui.compare_graph``)
shares one time axis. Sides are told apart by label and line style as well as by colour (A solid, B
dashed, C dotted, D dash-dot). The headline numbers at the top are each side's mean since the start,
with the differences as ``model.compare.differences`` words them for ``schedlab compare`` ("B − A:
+30.8 Mbit/s"; with three or four sides in the tooltip): the same functions, so the window and the
command line agree (a Jain index, which the command line words "Jain 0.58 → 0.96", needs no more than
its values here). A live setting can go to one side or to all. The window opens from File ▸
Compare…, with the classic pairs and three-way comparisons of ``model.presets`` one click each, or
"this run against the same with KEY=VALUE" (and a third and a fourth side). An interval marked
(Shift+drag) or a task followed (a click) on one side's lanes is marked or followed on every side.
Export… writes the window, the graph or a side's lanes as a figure, Copy command the command line of
the same runs (``gui.compare_export``).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QFont, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from gui.compare_export import compare_export_dialog, copy_compare_command
from gui.compare_graph import SIDE_COLOURS, CompareGraph
from gui.draw import palette, theme
from gui.draw.handler_guard import guarded, guarded_bool
from gui.draw.lane_measure import Interval
from gui.draw.series import sample_ns_for, window_ns_for
from gui.panels.base import rescale_fonts, styled_font
from gui.panels.cpu_lanes import CpuLanesPanel
from gui.panels.time_controls import format_sim_time, show_limited
from gui.playback import MAX_FRAME_SIM_NS, SPEED_PRESETS, next_budget_ns
from model.compare import Difference, Lockstep, Side, differences
from model.metrics import DEQUEUE_SHARES
from model.scenario import Scenario, ScenarioError, parse_set_value
from model.simulation import LIVE_KEYS, Simulation, live_allowed, live_command
from model.snapshot import Snapshot

# Okabe–Ito, as the window's palette, and a line style per side so that colour is never the only cue.
STYLE_WORDS = ("solid", "dashed", "dotted", "dash-dot")
FRAME_MS = 33
HEADLINE_EVERY_FRAMES = 10  # the numbers change every third of a second: readable
GRAPH_ROOM = 260  # px: with less, the lanes fold their legends to give the graph more
COMPARE_LANE_H = 46  # a lane in the height the lanes ask for here: two-line heads, and the graph its share


def live_here(sim: Simulation, key: str) -> bool:
    """Whether the live setting ``key`` means something in ``sim``: a tunable of its own policy (another
    policy's would be kept and do nothing), or a qdisc's setting where it has a qdisc."""
    section, _, name = key.partition(".")
    if section == "sched":
        return sim.policy_info.tunable(name) is not None
    return sim.txpath is not None


def live_keys(sims: Sequence[Simulation]) -> list[str]:
    """The live settings that mean something in these runs: the qdisc's first where there is one (its
    story is about them), then the tunables of each side's policy (a policy gets only its own)."""
    keys = [key for key in LIVE_KEYS if any(live_here(sim, key) for sim in sims)]
    return sorted(keys, key=lambda key: not key.startswith("qdisc."))  # stable: each group in its order


class CompareWindow(QMainWindow):
    def __init__(
        self,
        base: Scenario,
        sides: Sequence[Side],
        seed: int | None = None,
        speed: float = SPEED_PRESETS["Normal"],
        parent: QWidget | None = None,
        use_timer: bool = True,
        clock: Callable[[], float] = time.perf_counter,
        loaded: Scenario | None = None,
        source: str = "",
    ) -> None:
        super().__init__(parent)
        self._clock = clock  # wall time, for the frame's work cap (tests pass their own)
        # The scenario as opened in the main window (``base`` is it with the live settings of then):
        # the command line Copy command writes names it and sets what differs.
        self.loaded = loaded if loaded is not None else base
        self.source = source or self.loaded.name  # a built-in's name or the file's path
        self.setWindowTitle(f"schedlab: compare · {base.title or base.name}")
        self.speed = speed
        self.lockstep = Lockstep(base, sides, seed, trace="recent", sample_ns=sample_ns_for(speed))
        self.sides = tuple(sides)
        self.snapshots: tuple[Snapshot, ...] = ()
        self._frames = 0
        # Simulated time one frame may advance, adapted as the main window's playback does: the 2011
        # pair at Fast (real time) took 115 ms a frame, and the window answered clicks that late.
        self._budget_ns = MAX_FRAME_SIM_NS
        self.limited = False  # the last frame was held back by the cap: the clock shows it
        self._build()
        self._timer = QTimer(self)
        self._timer.setInterval(FRAME_MS)
        self._timer.timeout.connect(self._on_frame)
        self.advance(0)
        self._show_value(self.key_box.currentText())
        self.apply_theme()
        if use_timer:
            self._timer.start()

    # ---- composition ------------------------------------------------------------------------

    def _build(self) -> None:
        central = QWidget()
        column = QVBoxLayout(central)
        column.addLayout(self._build_controls())
        self.numbers = QLabel()
        self.numbers.setTextFormat(Qt.TextFormat.PlainText)
        styled_font(self.numbers, 15, bold=True)
        self.numbers.setWordWrap(True)
        column.addWidget(self.numbers)
        row = QHBoxLayout()
        self.lanes: list[CpuLanesPanel] = []
        self.titles: list[QLabel] = []
        for i, side in enumerate(self.sides):
            cell = QVBoxLayout()
            title = QLabel(f"{side.label} ({STYLE_WORDS[i]} line): {side.name}")
            title.setStyleSheet(f"color: {SIDE_COLOURS[i]};")
            styled_font(title, 12, bold=True)  # which side is which, read from the back of a room
            title.setWordWrap(True)  # a long side's settings take a second line, not the screen's width
            self.titles.append(title)
            lanes = CpuLanesPanel()
            if len(self.sides) > 2:  # three or four sides side by side on a 1280-pixel screen
                lanes.allow_narrow()
            # Lanes asking for their roomy 76 px each took the height of a 720-pixel screen from the
            # graph, the comparison itself (180 px, its data 70): asking for less, they share it.
            lanes.roomy_lane_h = COMPARE_LANE_H
            lanes.set_window_ns(window_ns_for(self.speed) // 20)
            # One clock: an interval marked or a task followed on one side is marked or followed on all.
            lanes.interval_marked.connect(self._mark_everywhere)
            lanes.task_clicked.connect(self._follow_everywhere)
            # Never shorter than every lane and the time axis need: the graph below gives way first.
            lanes.needed_height_changed.connect(functools.partial(self._keep_lanes_whole, lanes))
            self.lanes.append(lanes)
            cell.addWidget(title)
            cell.addWidget(lanes, 1)
            row.addLayout(cell, 1)
        column.addLayout(row, 2)
        self.graph = CompareGraph(self.sides)
        self.graph.installEventFilter(self)  # its height changes with everything above it
        self._coloured = False
        column.addWidget(self.graph, 2)
        self.setCentralWidget(central)

    def _build_controls(self) -> QHBoxLayout:
        row = QHBoxLayout()
        self.play_button = QPushButton("Pause")
        self.play_button.clicked.connect(self.toggle)
        row.addWidget(self.play_button)
        self.speed_box = QComboBox()
        for name, speed in SPEED_PRESETS.items():
            self.speed_box.addItem(name, speed)
        self.speed_box.setCurrentIndex(
            list(SPEED_PRESETS.values()).index(self.speed) if self.speed in SPEED_PRESETS.values() else 1
        )
        self.speed_box.currentIndexChanged.connect(
            lambda _i: self.set_speed(float(self.speed_box.currentData()))
        )
        row.addWidget(self.speed_box)
        self.time_label = QLabel()
        row.addWidget(self.time_label)
        export = QPushButton("Export…")
        export.setToolTip("The window, the graph or one side's lanes as PNG, SVG or PDF (Ctrl+Shift+S)")
        export.clicked.connect(lambda: compare_export_dialog(self))
        row.addWidget(export)
        copy = QPushButton("Copy command")
        copy.setToolTip(
            "The schedlab compare line that runs these sides to the time shown: the same numbers "
            "(--json), the same curves as a figure (--out FIG.svg)"
        )
        copy.clicked.connect(lambda: copy_compare_command(self))
        row.addWidget(copy)
        # The main window's keys for the same things: Space plays and pauses (not while the value box
        # has the keyboard: a value may have spaces), Ctrl+Shift+S exports, Ctrl+W closes.
        for keys, slot in (("Space", self.toggle), ("Ctrl+Shift+S", lambda: compare_export_dialog(self))):
            QShortcut(QKeySequence(keys), self, slot)
        QShortcut(QKeySequence(QKeySequence.StandardKey.Close), self, self.close)
        row.addStretch(1)
        row.addWidget(QLabel("Live:"))
        self.key_box = QComboBox()
        self.key_box.addItems(live_keys(self.lockstep.sims))
        self.key_box.setToolTip("A setting that takes effect now, as a sysctl does")
        row.addWidget(self.key_box)
        self.value_edit = QLineEdit()
        self.value_edit.setMaximumWidth(110)
        self.value_edit.returnPressed.connect(self._apply_from_controls)
        row.addWidget(self.value_edit)
        self.key_box.currentTextChanged.connect(self._show_value)
        self.target_box = QComboBox()
        self.target_box.addItem("to all sides", None)
        for i, side in enumerate(self.sides):
            self.target_box.addItem(f"to {side.label} only", i)
        row.addWidget(self.target_box)
        apply = QPushButton("Apply")
        apply.clicked.connect(self._apply_from_controls)
        row.addWidget(apply)
        if not self.key_box.count():  # O(1) on every side of a story without a qdisc: nothing is live
            for widget in (self.key_box, self.value_edit, self.target_box, apply):
                widget.setEnabled(False)
            self.value_edit.setPlaceholderText("none here")
            self.key_box.setToolTip("No setting that takes effect now means something in these runs")
        return row

    # ---- the clock --------------------------------------------------------------------------

    @property
    def playing(self) -> bool:
        return self._timer.isActive()

    def toggle(self) -> None:
        if self.playing:
            self._timer.stop()
        else:
            self._timer.start()
        self.play_button.setText("Pause" if self.playing else "Play")

    def set_speed(self, speed: float) -> None:
        self.speed = speed
        for sim in self.lockstep.sims:
            sim.set_sample_ns(sample_ns_for(speed))
        for lanes in self.lanes:
            lanes.set_window_ns(window_ns_for(speed) // 20)

    def _on_frame(self) -> None:
        if self.lockstep.now_ns >= round(self.lockstep.base.duration_s * 1e9):
            self._timer.stop()
            self.play_button.setText("Play")
            return
        want = round(self.speed * FRAME_MS * 1e6)
        self.limited = want > self._budget_ns
        dt_ns = min(want, self._budget_ns)
        start = self._clock()
        self.advance(dt_ns)
        self._budget_ns = next_budget_ns(self._budget_ns, dt_ns, self._clock() - start)

    def advance(self, dt_ns: int) -> tuple[Snapshot, ...]:
        """Every side ``dt_ns`` further (the timer's step; tests call it directly), then draw."""
        end_ns = round(self.lockstep.base.duration_s * 1e9)
        self.snapshots = self.lockstep.advance(max(0, min(dt_ns, end_ns - self.lockstep.now_ns)))
        if not self._coloured:  # the sides' tasks in the colours the main window gives them
            palette.colour_tasks((t.tid, t.role) for t in self.snapshots[0].tasks)
            self._coloured = True
        for lanes, snap in zip(self.lanes, self.snapshots, strict=True):
            lanes.render(snap)
        self.graph.draw(self.lockstep.base, self.snapshots, self.lockstep.now_ns - window_ns_for(self.speed))
        self._frames += 1
        if dt_ns == 0 or self._frames % HEADLINE_EVERY_FRAMES == 0:
            self.numbers.setText(self.headline_text())
            if len(self.sides) > 2:
                self.numbers.setToolTip(self.headline_text(with_changes=True))
        self.time_label.setText(f"t = {format_sim_time(self.lockstep.now_ns)}")  # as the main window
        show_limited(self.time_label, self.limited)
        return self.snapshots

    def _mark_everywhere(self, interval: object) -> None:
        for lanes in self.lanes:
            lanes.set_measured(interval if isinstance(interval, Interval) else None)

    def _follow_everywhere(self, tid: int) -> None:
        tid = self.lanes[0].follows_after_click(tid)
        for lanes in self.lanes:
            lanes.follow(tid)

    # ---- what is drawn ----------------------------------------------------------------------

    def graph_kind(self) -> str:
        """What the graph shows (``CompareGraph.kind_for``)."""
        return self.graph.kind_for(self.lockstep.base, self.snapshots)

    def _keep_lanes_whole(self, lanes: CpuLanesPanel) -> None:
        lanes.setMinimumHeight(lanes.needed_height())

    def _fit_room(self) -> None:
        """Keep every side's lanes level and leave the graph its share: the titles take the height of
        the tallest (one wraps where another does not), and where the lanes with their legends would
        leave the graph less than GRAPH_ROOM the legends fold on every side (each lane's head still
        names and colours its task; hovering a strip says what it shows), and come back with room."""
        if not self.isVisible():
            return
        title_h = max(t.heightForWidth(t.width()) for t in self.titles)
        for t in self.titles:
            if (t.minimumHeight(), t.maximumHeight()) != (title_h, title_h):
                t.setFixedHeight(title_h)
        room = self.graph.geometry().bottom() - self.lanes[0].geometry().top()
        fold = max(lanes.needed_height(legend=True) for lanes in self.lanes) + GRAPH_ROOM > room
        for lanes in self.lanes:
            if lanes.legend_folded != fold:
                lanes.fold_legend(fold)
                self._keep_lanes_whole(lanes)
            # No taller than leaves the graph its room (a layout short of room gave the lanes all the
            # height they asked for first), never shorter than every lane needs.
            lanes.setMaximumHeight(max(lanes.needed_height(), room - GRAPH_ROOM))

    def apply_theme(self) -> None:
        """Text and graph at the display mode and zoom now (the main window calls this when they change,
        from its View menu): a window of its own does not inherit the main window's font."""
        base = QFont(QApplication.font())
        base.setPointSizeF(base.pointSizeF() * theme.current().font_factor)
        self.setFont(base)
        rescale_fonts(self)
        self.graph.restyle()
        for lanes in self.lanes:
            lanes.apply_theme()
            self._keep_lanes_whole(lanes)
        QTimer.singleShot(0, self, self._fit_room)  # once the new fonts are laid out

    @guarded
    def resizeEvent(self, event: object) -> None:  # Qt override
        super().resizeEvent(event)  # type: ignore[arg-type]
        self._fit_room()

    @guarded
    def showEvent(self, event: object) -> None:  # Qt override
        super().showEvent(event)  # type: ignore[arg-type]
        QTimer.singleShot(0, self, self._fit_room)  # the first layout is done by then

    @guarded_bool
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt override
        if watched is self.graph and event.type() == QEvent.Type.Resize:
            self.graph.fit_legend()  # its width, laid out (not yet so in the window's resize)
            self._fit_room()  # the headline grew a line, a title wrapped, the text size changed
        return False

    def headline_text(self, with_changes: bool | None = None) -> str:
        """Each headline metric per side since the start, and the differences from side A
        (``with_changes``; by default with two sides only)."""
        if with_changes is None:
            with_changes = len(self.sides) == 2
        summaries = self.lockstep.summaries()
        labels = [s.label for s in self.sides]
        lines = []
        diffs = differences(summaries, labels)
        shares = [d for d in diffs if d.metric.path.startswith(DEQUEUE_SHARES)]
        for diff in diffs:
            if diff.metric.path.startswith(DEQUEUE_SHARES):
                if diff is shares[0]:
                    lines.append(dequeue_shares_line(shares, labels))
                continue
            values = "   ".join(
                f"{label} {diff.metric.shown(v)}" for label, v in zip(labels, diff.values, strict=True)
            )
            unit = (
                f" {diff.metric.unit}" if diff.metric.unit and diff.metric.unit != "%" else diff.metric.unit
            )
            # An arrow metric's difference ("Jain 0.58 → 0.96") only restates the values beside it; with
            # three or four sides the differences from A (twice the words: eight lines in large text)
            # go to the tooltip, the values side by side say it.
            change = "" if diff.metric.arrow or not with_changes else f"   ({'; '.join(diff.texts)})"
            lines.append(f"{diff.metric.label}: {values}{unit}{change}")
        return "\n".join(lines[:4]) or "no headline figures yet"

    # ---- live settings ----------------------------------------------------------------------

    def apply(self, key: str, value: object, side: int | None = None) -> bool:
        """A live setting on one side (its index) or on every side where it means something, at the
        same instant; a dialog if refused."""
        try:
            command = live_command(key, value)
            sides = self._sides_for(key, side)
            self.lockstep.apply(command, sides)
        except ScenarioError as exc:
            QMessageBox.warning(self, "schedlab could not do that", str(exc))
            return False
        self.advance(0)
        return True

    def _sides_for(self, key: str, side: int | None) -> list[int]:
        """The sides a live setting goes to: only those where it means something (``live_here``;
        elsewhere it would do nothing, yet that side's graph would mark a change)."""
        sims = self.lockstep.sims
        chosen = range(len(sims)) if side is None else [side]
        out = [i for i in chosen if live_here(sims[i], key)]
        if not out:  # a scheduler's tunable: the sides share one scenario, so all have a qdisc or none
            whose = " and ".join(f"{self.sides[i].label} ({sims[i].policy_info.label})" for i in chosen)
            raise ScenarioError(f"{key} means nothing under the scheduler of {whose}")
        return out

    def _apply_from_controls(self) -> None:
        key = self.key_box.currentText()
        try:
            value = parse_set_value(key, self.value_edit.text().strip(), source="")  # as --set reads it
        except ScenarioError as exc:
            QMessageBox.warning(self, "schedlab could not do that", str(exc))
            return
        self.apply(key, value, self.target_box.currentData())

    def _show_value(self, key: str) -> None:
        """The chosen setting's value on side A, to edit, and what it may be (nothing: none offered)."""
        if not key:
            self.value_edit.clear()
            return
        self.value_edit.setText(str(self.lockstep.sims[0].settings().get(key, "")))
        self.value_edit.setToolTip(f"{key}: {live_allowed(key)}")

    @guarded
    def closeEvent(self, event: object) -> None:  # Qt override
        self._timer.stop()
        super().closeEvent(event)  # type: ignore[arg-type]


def dequeue_shares_line(shares: Sequence[Difference], labels: Sequence[str]) -> str:
    """The CPUs' shares of the dequeues on one line, per side: "dequeues per CPU (cpu0–cpu3): A
    45/5/4/45 %   B 27/23/23/27 %" (the command line gives each CPU a row)."""
    per_side = "   ".join(
        f"{label} " + "/".join(f"{d.values[side]:.0f}" for d in shares) + " %"
        for side, label in enumerate(labels)
    )
    return f"dequeues per CPU (cpu0–cpu{len(shares) - 1}): {per_side}"
