"""A slip in a panel's drawing code is reported, not fatal: raised out of a ``paintEvent`` into Qt, it
ends the process with a segmentation fault and no traceback (PySide6)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from qt_guard import leak_guard  # noqa: F401 - autouse fixture

from gui.draw import paint_guard as pg_guard
from gui.panels import runqueue as rp
from gui.panels.runqueue import RunqueuePanel
from model.scenario import load_scenario
from model.simulation import Simulation

GUI = Path(__file__).resolve().parent.parent / "gui"


def test_every_paint_event_of_the_window_is_guarded() -> None:
    found = []
    for path in sorted(GUI.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name == "paintEvent":
                names = {d.id for d in node.decorator_list if isinstance(d, ast.Name)}
                found.append((path.name, "paint_guard" in names))
    assert len(found) >= 10, found
    assert all(guarded for _name, guarded in found), [name for name, guarded in found if not guarded]


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
    monkeypatch.setattr(pg_guard, "_reported", set())
    for _ in range(3):  # raised into Qt, the first of these ended the process
        assert not panel.grab().isNull()
    err = capsys.readouterr().err
    assert err.count("schedlab: drawing RunqueuePanel failed") == 1
    assert "ZeroDivisionError: a lane of height 0" in err
    monkeypatch.setattr(rp, "paint_trails", lambda *args: None)
    assert not panel.grab().isNull()  # and the next frame paints again
