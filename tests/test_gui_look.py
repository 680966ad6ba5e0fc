"""The look (projector mode, zoom) remembered across runs, and the CPUs control in the 2011 story."""

from __future__ import annotations

import pytest
from qt_guard import leak_guard, temp_settings  # noqa: F401 - autouse fixtures

from gui.draw import theme
from gui.main_window import MainWindow
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
    assert "CPU" in w.controls.cpus_spin.toolTip() or w.controls.cpus_spin.toolTip()
