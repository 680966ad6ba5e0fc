"""The keyboard whatever has focus: with the CPUs spin box focused, Space plays or pauses, the speed
keys and PageDown reach the window (the field types none of them), and Escape leaves the field."""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from qt_guard import leak_guard, temp_settings  # noqa: F401 - autouse fixtures

from gui.draw import theme
from gui.main_window import MainWindow
from gui.panels.time_controls import SPEED_KEYS
from gui.playback import SPEED_PRESETS
from model.scenario import load_scenario


def settle(app: QApplication) -> None:
    for _ in range(20):
        app.processEvents()


def test_shortcuts_beat_a_focused_spin_box_and_escape_leaves_it(qtbot, temp_settings: QSettings) -> None:  # noqa: F811
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    w = MainWindow(load_scenario("cfs-yield-2007"), settings=temp_settings, use_timer=False)
    qtbot.addWidget(w)
    w.show()
    w.activateWindow()
    settle(app)
    spin = w.controls.cpus_spin
    for i in range(w.frame.side.count()):  # its Settings tab in front
        if w.frame.side.widget(i).isAncestorOf(spin):
            w.frame.side.setCurrentIndex(i)
    spin.setFocus()
    settle(app)
    assert app.focusWidget() is spin
    cpus = spin.value()
    playing = w.playback.playing
    QTest.keyClick(spin, Qt.Key.Key_Space)
    settle(app)
    assert w.playback.playing != playing
    for name, key in SPEED_KEYS.items():
        QTest.keyClick(spin, key)
        settle(app)
        assert w.playback.speed == SPEED_PRESETS[name], name
    before = w.lesson_driver.index
    QTest.keyClick(spin, Qt.Key.Key_PageDown)
    settle(app)
    assert w.lesson_driver.index == before + 1
    assert spin.value() == cpus  # the field typed none of it
    QTest.keyClick(spin, Qt.Key.Key_Escape)
    settle(app)
    assert app.focusWidget() is not spin
    w.playback.stop()
    theme.set_theme(theme.make_theme("standard", 1.0))
