"""A slip in a panel's code is reported, not fatal: raised out of a Qt event handler (``paintEvent``,
``resizeEvent``, a mouse event, ``event``) into Qt, it ends the process with a segmentation fault and
no traceback (PySide6)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from qt_guard import leak_guard  # noqa: F401 - autouse fixture

from gui.draw import handler_guard as hg
from gui.panels import runqueue as rp
from gui.panels.runqueue import RunqueuePanel
from model.scenario import load_scenario
from model.simulation import Simulation

GUI = Path(__file__).resolve().parent.parent / "gui"


def test_every_event_handler_of_the_window_is_guarded() -> None:
    found = []
    for path in sorted(GUI.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name in hg.HANDLERS and node.args.args[:1]:
                names = {d.id for d in node.decorator_list if isinstance(d, ast.Name)}
                want = "guarded_bool" if node.name in ("event", "eventFilter") else "guarded"
                found.append((f"{path.name}:{node.name}", want in names))
    assert len(found) >= 30, found
    assert all(ok for _name, ok in found), [name for name, ok in found if not ok]


@pytest.mark.handler_errors
def test_a_panel_whose_drawing_fails_keeps_the_window_and_says_where_once(
    qtbot, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    panel = RunqueuePanel()
    qtbot.addWidget(panel)
    panel.resize(600, 400)
    sim = Simulation(load_scenario("cfs-yield-2007"))
    panel.render(sim.advance(50_000_000))

    def broken(*args: object) -> None:
        raise ZeroDivisionError("a lane of height 0")

    monkeypatch.setattr(rp, "paint_trails", broken)
    monkeypatch.setattr(hg, "_reported", set())
    for _ in range(3):  # raised into Qt, the first of these ended the process
        assert not panel.grab().isNull()
    err = capsys.readouterr().err
    assert err.count("schedlab: RunqueuePanel.paintEvent failed") == 1
    assert "ZeroDivisionError: a lane of height 0" in err
    monkeypatch.setattr(rp, "paint_trails", lambda *args: None)
    assert not panel.grab().isNull()  # and the next frame paints again


@pytest.mark.handler_errors
def test_a_failing_resize_or_mouse_handler_is_reported_too(qtbot, capsys: pytest.CaptureFixture[str]) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QWidget

    class Slip(QWidget):
        @hg.guarded
        def resizeEvent(self, event: object) -> None:
            raise ValueError("resize")

        @hg.guarded
        def mousePressEvent(self, event: object) -> None:
            raise ValueError("press")

        @hg.guarded_bool
        def eventFilter(self, watched: object, event: object) -> bool:
            raise ValueError("filter")

    start = len(hg.failures)
    w = Slip()
    qtbot.addWidget(w)
    w.show()
    w.installEventFilter(w)
    w.resize(123, 45)
    qtbot.mouseClick(w, Qt.MouseButton.LeftButton)  # raised into Qt, each of these ended the process
    qtbot.wait(10)
    err = capsys.readouterr().err
    assert all(f"ValueError: {what}" in err for what in ("resize", "press", "filter")), err
    failed = {f.split(":")[0] for f in hg.failures[start:]}
    assert failed == {"Slip.resizeEvent", "Slip.mousePressEvent", "Slip.eventFilter"}
