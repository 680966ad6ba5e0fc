"""Random use of the window: a few hundred seeded actions raise nothing and fail no event handler.

What a class does to the window in an hour, in seconds: menu commands, buttons, combo boxes, spin
boxes and sliders set to their ends or anywhere between, tabs, text typed into boxes (numbers, words,
nothing), keys, clicks, double clicks and wheel turns anywhere, resizes down to 640×480, frames played,
and the dialogs these open (their fields poked too; the compare dialog sometimes accepted, which opens
a compare window that gets the same treatment; half way, one is opened if none was used yet). A slot
that raises fails the test (pytest-qt), and so does a guarded event handler (``qt_guard``). The compare
window's value box once turned "0.5" into a float that the model's live command refused with a
TypeError; this is the test that found it, and a format chosen in the export dialog with its file box
emptied another.

Deterministic: a dialog's ``exec`` returns at once (the dialog shown, poked, then rejected), message
boxes answer at once, an open popup is closed after each step, a tool button with a menu (whose click
would run the menu's own event loop) is left alone, and a compare window's frames are played by the
test (its timer stopped). A dialog's OK is left alone (an accepted video export would render for many
seconds), except the compare dialog's pairs. Files go to a temporary home.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import shiboken6
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QLineEdit,
    QMenu,
    QMessageBox,
    QPushButton,
    QSlider,
    QSpinBox,
    QTabBar,
    QToolButton,
    QWidget,
)
from qt_guard import leak_guard, temp_settings  # noqa: F401 - autouse fixtures

from gui.compare_dialog import CompareDialog, open_compare
from gui.compare_window import CompareWindow
from gui.main_window import MainWindow
from model.compare import Side, parse_side
from model.scenario import load_scenario

STEPS = 500
SIZES = [(640, 480), (800, 600), (1024, 700), (1280, 720), (1366, 768), (1920, 1080)]
TEXTS = ["", "abc", "-1", "0", "0.5", "2", "1e9", "nan", "99999999999", "quota", "<b>x</b>"]
KEYS = [
    Qt.Key.Key_Space,
    Qt.Key.Key_Left,
    Qt.Key.Key_Right,
    Qt.Key.Key_PageDown,
    Qt.Key.Key_PageUp,
    Qt.Key.Key_Home,
    Qt.Key.Key_End,
    Qt.Key.Key_Plus,
    Qt.Key.Key_Minus,
    Qt.Key.Key_Period,
    Qt.Key.Key_Comma,
]
LEAVE_ALONE = ("quit", "exit", "close")  # the commands that end the window under test


def _live(root: QWidget, kind: type) -> list:
    return [w for w in root.findChildren(kind) if w.isVisible() and w.isEnabled()]


def _harmless(text: str) -> bool:
    return not any(word in text.lower() for word in LEAVE_ALONE)


class Monkey:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.done: list[str] = []  # what was done, for the failure message
        self.accept_compare = False  # the next compare dialog picks a pair, whatever the dice say

    def poke(self, root: QWidget, *, answers: bool = True) -> None:
        """One action on one of ``root``'s controls (its dialog buttons too, unless not ``answers``)."""
        rng = self.rng
        kind = rng.choice(["button", "combo", "spin", "slider", "tab", "text"])
        if kind == "button":
            buttons = [
                b
                for b in _live(root, QAbstractButton)
                if _harmless(b.text())
                and not (isinstance(b, QToolButton) and b.menu() is not None)
                and (answers or not isinstance(b.parent(), QDialogButtonBox))
            ]
            if buttons:
                b = rng.choice(buttons)
                self.done.append(f"click {b.text()!r}")
                b.click()
        elif kind in ("combo", "tab"):  # a combo box's item or a tab bar's tab
            boxes = [c for c in _live(root, QComboBox if kind == "combo" else QTabBar) if c.count()]
            if boxes:
                c = rng.choice(boxes)
                i = rng.randrange(c.count())
                text = c.itemText(i) if isinstance(c, QComboBox) else c.tabText(i)
                self.done.append(f"{'choose' if kind == 'combo' else 'tab'} {text!r}")
                c.setCurrentIndex(i)
        elif kind == "spin":
            boxes = [s for s in _live(root, QAbstractSpinBox) if isinstance(s, QSpinBox | QDoubleSpinBox)]
            if boxes:
                s = rng.choice(boxes)
                lo, hi = s.minimum(), s.maximum()
                value = rng.choice([lo, hi, lo + (hi - lo) * rng.random()])
                value = int(value) if isinstance(s, QSpinBox) else value
                self.done.append(f"spin {s.toolTip()[:40]!r} to {value}")
                s.setValue(value)
                s.editingFinished.emit()
        elif kind == "slider":
            sliders = _live(root, QSlider)
            if sliders:
                s = rng.choice(sliders)
                value = rng.randint(s.minimum(), s.maximum())
                self.done.append(f"slide to {value}")
                s.setValue(value)
                s.sliderReleased.emit()
        else:
            edits = [e for e in _live(root, QLineEdit) if not e.isReadOnly()]
            if edits:
                e = rng.choice(edits)
                text = rng.choice(TEXTS)
                self.done.append(f"type {text!r}")
                e.setText(text)
                e.editingFinished.emit()
                e.returnPressed.emit()

    def act(self, window: MainWindow) -> None:
        rng = self.rng
        r = rng.random()
        if r < 0.15:
            actions = [
                a
                for menu in window.menuBar().findChildren(QMenu)
                for a in menu.actions()
                if a.isEnabled() and not a.isSeparator() and a.menu() is None and _harmless(a.text())
            ]
            a = rng.choice(actions)
            self.done.append(f"menu {a.text()!r}")
            a.trigger()
        elif r < 0.55:
            self.poke(window)
        elif r < 0.62:
            size = rng.choice(SIZES)
            self.done.append(f"resize {size}")
            window.resize(*size)
        elif r < 0.72:
            key = rng.choice(KEYS)
            self.done.append(f"key {key.name}")
            QTest.keyClick(window, key)
        elif r < 0.85:
            self.mouse(window)
        else:
            n = rng.randint(1, 10)
            self.done.append(f"{n} frames")
            for _ in range(n):
                window.playback.tick(1 / 30)

    def mouse(self, root: QWidget) -> None:
        rng = self.rng
        targets = [
            w
            for w in root.findChildren(QWidget)
            if w.isVisible()
            and w.width() > 20
            and w.height() > 20
            and not (isinstance(w, QToolButton) and w.menu() is not None)
        ]
        w = rng.choice(targets)
        at = QPoint(rng.randrange(w.width()), rng.randrange(w.height()))
        how = rng.choice(["click", "double click", "move", "wheel"])
        self.done.append(f"{how} on {type(w).__name__} at {at.x()},{at.y()}")
        if how == "click":
            QTest.mouseClick(w, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at)
        elif how == "double click":
            QTest.mouseDClick(w, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at)
        elif how == "move":
            QTest.mouseMove(w, at)
        else:
            modifier = rng.choice([Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.ControlModifier])
            wheel = QWheelEvent(
                QPointF(at),
                QPointF(w.mapToGlobal(at)),
                QPoint(0, 0),
                QPoint(0, rng.choice([-240, -120, 120, 240])),
                Qt.MouseButton.NoButton,
                modifier,
                Qt.ScrollPhase.NoScrollPhase,
                False,
            )
            QApplication.sendEvent(w, wheel)


def half_way_compare(window: MainWindow, monkey: Monkey) -> None:
    """Half way and no compare window used yet (a new menu item shifts every later die): one opened
    through the menu (the dialog told to pick a pair) or, if that one was refused or closed at once,
    directly, and poked, so that each seed tries a compare window whatever the menus hold."""
    monkey.accept_compare = True
    monkey.done.append("menu 'Compare…'")
    next(
        a for m in window.menuBar().findChildren(QMenu) for a in m.actions() if a.text() == "Compare…"
    ).trigger()
    monkey.accept_compare = False
    opened = [
        w
        for w in QApplication.topLevelWidgets()
        if isinstance(w, CompareWindow) and shiboken6.isValid(w) and w.isVisible()
    ]
    if not opened:
        sides = (Side("A", (), "this run"), parse_side("B", ["sched.policy=o1"]))
        opened = [w for w in [open_compare(window, sides)] if w is not None]
    for other in opened:
        other._timer.stop()
        for _ in range(3):
            monkey.done.append("in CompareWindow, half way")
            monkey.poke(other)
            other._on_frame()


@pytest.fixture
def monkey_dialogs(monkeypatch, tmp_path: Path):
    """Every dialog returns at once (see the module's doc); the monkey of the running test pokes them."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    current: list[Monkey] = []
    seen: list[str] = []

    def exec_(dialog: QDialog) -> int:
        seen.append(type(dialog).__name__)
        dialog.show()
        QApplication.processEvents()
        if not isinstance(dialog, QFileDialog):  # its own message boxes would run their own loops
            for _ in range(3):  # its OK left alone: an accepted export would render for many seconds
                current[0].poke(dialog, answers=False)
        monkey = current[0]
        if (
            isinstance(dialog, CompareDialog)
            and dialog.result() == 0
            and (monkey.accept_compare or monkey.rng.random() < 0.5)
        ):
            monkey.accept_compare = False
            pairs = dialog.findChildren(QPushButton)  # the presets, and Compare (the example setting)
            monkey.rng.choice(pairs).click()  # picks the pair and accepts: a compare window opens
        if dialog.isVisible():
            dialog.reject()
        return int(dialog.result())

    def answer(*_args: object, **_kwargs: object) -> QMessageBox.StandardButton:
        seen.append("message")
        return QMessageBox.StandardButton.Ok

    monkeypatch.setattr(QDialog, "exec", exec_)
    monkeypatch.setattr(QMessageBox, "exec", lambda box: answer())
    for name in ("warning", "question", "information", "critical", "about"):
        monkeypatch.setattr(QMessageBox, name, staticmethod(answer))
    monkeypatch.setattr(QMenu, "exec", lambda *_args, **_kwargs: None)
    return current, seen


@pytest.mark.parametrize(
    ("seed", "story"),
    [(1, "qdisc-fairness-2011"), (2, "yield-playground"), (3, "cfs-yield-2007"), (4, "bfs-saturated-2009")],
)
def test_random_use_raises_nothing(qtbot, temp_settings, monkey_dialogs, seed: int, story: str) -> None:  # noqa: F811
    current, seen = monkey_dialogs
    monkey = Monkey(seed)
    current.append(monkey)
    window = MainWindow(load_scenario(story), settings=temp_settings, use_timer=False)
    qtbot.addWidget(window)
    window.resize(1280, 720)
    window.show()
    for step in range(STEPS):
        if step == STEPS // 2 and not any(what.startswith("in CompareWindow") for what in monkey.done):
            half_way_compare(window, monkey)
        monkey.act(window)
        for other in QApplication.topLevelWidgets():  # a compare window the dialog opened
            if isinstance(other, CompareWindow) and shiboken6.isValid(other) and other.isVisible():
                other._timer.stop()  # its frames come from here instead, a few at a time
                if monkey.rng.random() < 0.3:
                    monkey.done.append("in CompareWindow")
                    monkey.poke(other)
                    other._on_frame()
        QApplication.processEvents()
        popup = QApplication.activePopupWidget()
        if popup is not None:
            popup.close()
        if step % 25 == 0:
            window.grab()  # every panel painted at the size it has now
        assert window.isVisible(), f"the window closed after {monkey.done[-5:]}"
    kinds = {what.split()[0] for what in monkey.done}
    assert {"menu", "click", "choose", "spin", "slide", "tab", "type", "resize", "key", "wheel"} <= kinds
    assert "CompareDialog" in seen and "message" in seen  # dialogs opened, and refusals said
    assert any(what.startswith("in CompareWindow") for what in monkey.done)
