"""The look (projector mode, zoom) remembered across runs and set through the palette, the settings
groups' own frame, and the CPUs control in the 2011 story."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor, QPalette
from qt_guard import leak_guard, temp_settings  # noqa: F401 - autouse fixtures

from gui.draw import theme
from gui.main_window import MainWindow
from gui.panels.settings_group import FILL_DARKER, RIM_DARKER, SettingsGroup
from model.scenario import load_scenario


@pytest.fixture
def make(qtbot, temp_settings):  # noqa: F811
    def build(name: str = "cfs-yield-2007") -> MainWindow:
        w = MainWindow(load_scenario(name), settings=temp_settings, use_timer=False)
        qtbot.addWidget(w)
        w.show()
        qtbot.waitExposed(w)
        w.activateWindow()
        qtbot.waitActive(w)
        return w

    yield build
    theme.set_theme(theme.make_theme("standard", 1.0))


def test_projector_mode_and_zoom_are_remembered_across_runs(make) -> None:
    first = make()
    first.set_mode("projector")
    first.zoom(1)
    zoom = theme.current().zoom
    assert zoom > 1.0 and theme.current().mode == "projector"
    first.close()
    theme.set_theme(theme.make_theme("standard", 1.0))  # as a new process starts
    again = make()
    assert theme.current().mode == "projector" and theme.current().zoom == zoom
    assert again.mode_actions["projector"].isChecked()
    again.zoom(0)
    assert theme.current().zoom == 1.0


def test_two_cpus_in_the_2011_story_moves_the_nic_interrupts(make) -> None:
    w = make("qdisc-fairness-2011")
    shown: list[str] = []
    w.show_error = lambda title, message: shown.append(message)  # type: ignore[method-assign]
    w.controls.cpus_spin.setValue(2)
    assert not shown, shown
    scenario = w.playback.scenario
    assert scenario.machine.cpus == 2 and set(scenario.net.irq_cpus) <= {0, 1}
    w.playback.play()
    for _ in range(10):
        snap = w.playback.tick(1 / 60)
    assert snap is not None and len(snap.cpus) == 2 and snap.qdisc is not None
    tip = w.controls.cpus_spin.toolTip()  # it says what the control does to this story's machine
    assert "one packet sender per CPU" in tip and "NIC interrupts on CPUs" in tip, tip


def test_a_mode_chosen_as_the_window_first_shows_takes_hold(qtbot, temp_settings) -> None:  # noqa: F811
    """The look goes through the window's palette: a style sheet set on the window between ``show()``
    and its first events crashed Qt's style-sheet style (a segfault at 1920×1080)."""
    w = MainWindow(load_scenario("cfs-yield-2007"), settings=temp_settings, use_timer=False)
    qtbot.addWidget(w)
    try:
        w.resize(1920, 1080)
        w.show()
        w.set_mode("projector")
        qtbot.waitExposed(w)
        assert theme.current().mode == "projector"
        assert w.styleSheet() == ""
        assert w.palette().color(QPalette.ColorRole.Window) == QColor(theme.current().background)
    finally:
        theme.set_theme(theme.make_theme("standard", 1.0))


def test_a_settings_group_draws_its_rim_and_title_in_opaque_colours(qtbot) -> None:
    box = SettingsGroup("CPU scheduler")
    qtbot.addWidget(box)
    box.resize(240, 160)
    image = box.grab().toImage()
    background = box.palette().color(QPalette.ColorRole.Window)
    frame, label = box.frame_and_label()
    mid_y = frame.center().y()
    assert QColor(image.pixel(frame.left(), mid_y)).name() == background.darker(RIM_DARKER).name()
    assert QColor(image.pixel(frame.center().x(), mid_y)).name() == background.darker(FILL_DARKER).name()
    title_ink = [
        QColor(image.pixel(x, y)).lightness()
        for x in range(label.left(), label.right())
        for y in range(label.top(), label.bottom())
    ]
    assert min(title_ink) < 100, "the title is drawn"


def test_an_open_comparison_follows_a_mode_change_in_the_main_window(make) -> None:
    # The compare window, a window of its own, kept the text size it opened with: projector mode chosen
    # afterwards left its numbers, lanes and graph at the standard sizes.
    from gui.compare_dialog import open_compare
    from model.presets import PRESETS

    w = make("qdisc-fairness-2011")
    compare = open_compare(w, PRESETS["time-vs-quota"].sides)
    assert compare is not None
    compare._timer.stop()

    def sizes() -> tuple[float, float, float]:
        tick = compare.graph.plot.getAxis("left").style["tickFont"]
        return compare.numbers.font().pointSizeF(), compare.font().pointSizeF(), tick.pointSizeF()

    before = sizes()
    w.set_mode("large")
    after = sizes()
    factor = theme.current().font_factor
    assert factor > 1.2
    assert all(b * factor == pytest.approx(a, rel=0.02) for b, a in zip(before, after, strict=True)), (
        before,
        after,
    )
    compare.close()
