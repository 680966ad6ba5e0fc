"""File ▸ Compare…: pick a classic pair or three-way comparison (one click each) or "this run against
the same with …" (B, and a third and fourth side, C and D, where their boxes are filled in).

Side A is this run's scenario with its live settings as they are now; a preset's sides change what
the preset names on top of it (``model.presets``, the same pairs as ``schedlab compare --preset``).
Presets that cannot mean anything here (an exit rule without a qdisc) are not offered.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from gui.compare_window import CompareWindow
from gui.video_dialog import scenario_now
from model.compare import Side, parse_side
from model.presets import PRESETS, check_applies
from model.scenario import Scenario, ScenarioError


def applicable_presets(scenario: Scenario) -> list[str]:
    names = []
    for name, p in PRESETS.items():
        try:
            check_applies(p, scenario, scenario.name)
        except ScenarioError:
            continue
        names.append(name)
    return names


def custom_examples(scenario: Scenario) -> tuple[str, str]:
    """Settings worth comparing in this scenario, side B's and a third side's: with a qdisc the 3.1
    quota and jamal's quota with the jiffy; where a task yields the yield sysctl and the fixed iperf
    build (or O(1) without iperf); else two other schedulers."""
    if scenario.has_qdisc:
        return "qdisc.exit_rule=quota", "qdisc.exit_rule=quota+jiffy"
    if scenario.may_yield:
        client = scenario.iperf.enabled and scenario.iperf.mode == "client"
        return "sched.compat_yield=1", "iperf.thread_rest=fixed" if client else "sched.policy=o1"
    return "sched.policy=eevdf", "sched.policy=bfs"


class CompareDialog(QDialog):
    def __init__(self, parent: QWidget, scenario: Scenario) -> None:
        super().__init__(parent)
        self.setWindowTitle("Compare")
        self.choice: tuple[Side, ...] | None = None
        column = QVBoxLayout(self)
        column.addWidget(QLabel("A classic comparison, on this story with its settings as they are now:"))
        for name in applicable_presets(scenario):
            button = QPushButton(PRESETS[name].title)
            button.clicked.connect(lambda _=False, n=name: self._pick(PRESETS[n].sides))
            column.addWidget(button)
        example, third = custom_examples(scenario)
        column.addWidget(QLabel(f"Or this run (A) against the same with (B), e.g. {example}:"))
        self.custom = QLineEdit(example)
        column.addWidget(self.custom)
        column.addWidget(QLabel("And a third side (C) and a fourth (D), if you like (empty: none):"))
        row = QHBoxLayout()
        self.custom_c = QLineEdit()
        self.custom_c.setPlaceholderText(f"C, e.g. {third}")
        row.addWidget(self.custom_c, 1)
        self.custom_d = QLineEdit()
        self.custom_d.setPlaceholderText("D")
        row.addWidget(self.custom_d, 1)
        go = QPushButton("Compare")
        go.clicked.connect(self._custom)
        go.setDefault(True)  # Enter in either box compares what they say (not the first classic one)
        row.addWidget(go)
        column.addLayout(row)
        self.error = QLabel()
        self.error.setStyleSheet("color: #b00020;")
        column.addWidget(self.error)

    def _pick(self, sides: tuple[Side, ...]) -> None:
        self.choice = sides
        self.accept()

    def _custom(self) -> None:
        try:
            sides = [Side("A", (), "this run"), parse_side("B", self.custom.text().split(), "")]
            for box in (self.custom_c, self.custom_d):  # the next label for each one filled in
                if box.text().strip():
                    sides.append(parse_side("ABCD"[len(sides)], box.text().split(), ""))
        except ScenarioError as exc:
            self.error.setText(str(exc))
            return
        self._pick(tuple(sides))


def open_compare(window: Any, sides: tuple[Side, ...]) -> CompareWindow | None:
    """A compare window of ``sides`` on the window's run (its scenario, seed, speed); a dialog if refused."""
    try:
        compare = CompareWindow(
            scenario_now(window),
            sides,
            window.playback.seed,
            window.playback.speed,
            window,
            loaded=window.playback.loaded,
            source=window.source,
        )
    except ScenarioError as exc:
        window.show_error("Cannot compare these runs", str(exc))
        return None
    compare.resize(window.size())
    compare.show()
    return compare


def compare_dialog(window: Any) -> None:
    dialog = CompareDialog(window, scenario_now(window))
    if dialog.exec() == QDialog.DialogCode.Accepted and dialog.choice is not None:
        window.compare_window = open_compare(window, dialog.choice)
