"""Screenshot export: PNG and SVG files of a widget or the window, headless ``schedlab export``, errors."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QLabel
from qt_guard import leak_guard, temp_settings  # noqa: F401 - autouse fixtures

from gui.export import ExportError, export_widget
from gui.window_export import export_targets, export_to
from model import cli

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _label(qtbot) -> QLabel:
    w = QLabel("schedlab export test")
    w.setStyleSheet("QLabel { background: white; color: black; font-size: 24pt; }")
    w.resize(320, 120)
    qtbot.addWidget(w)
    return w


def assert_png(path: Path, width: int, height: int) -> None:
    assert path.read_bytes()[:8] == PNG_MAGIC
    image = QImage(str(path))
    assert (image.width(), image.height()) == (width, height)
    colors = {QColor(image.pixel(x, y)).name() for x in range(0, width, 7) for y in range(0, height, 7)}
    assert len(colors) > 1, "the picture is blank"


def assert_svg(path: Path) -> ET.Element:
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg")
    assert len(list(root.iter())) > 3, "the drawing is empty"
    return root


def test_png_of_a_widget(qtbot, tmp_path: Path) -> None:
    out = export_widget(_label(qtbot), tmp_path / "label.png")
    assert_png(out, 320, 120)


def test_svg_of_a_widget(qtbot, tmp_path: Path) -> None:
    root = assert_svg(export_widget(_label(qtbot), tmp_path / "label.svg"))
    assert root.get("width", "").startswith("11") or root.get("viewBox") == "0 0 320 120"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("picture.jpg", "unknown extension '.jpg'; allowed: .png, .svg"),
        ("no-such-folder/picture.png", "does not exist"),
    ],
)
def test_bad_paths_say_what_is_wrong(qtbot, tmp_path: Path, name: str, message: str) -> None:
    with pytest.raises(ExportError, match=message.replace(".", r"\.").replace("(", r"\(")):
        export_widget(_label(qtbot), tmp_path / name)


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_unwritable_folder(qtbot, tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    with pytest.raises(ExportError, match="permission denied"):
        export_widget(_label(qtbot), locked / "x.png")


def test_unwritable_target_is_refused(qtbot, tmp_path: Path) -> None:
    # A folder where the file should be: no OS lets a PNG be written over a directory.
    (tmp_path / "taken.png").mkdir()
    with pytest.raises(ExportError, match=r"taken\.png"):
        export_widget(_label(qtbot), tmp_path / "taken.png")


def test_window_export_both_formats(window, tmp_path: Path) -> None:
    size = window.size()
    for target in export_targets(window):
        assert export_to(window, target, str(tmp_path / f"{target}.png")), target
    assert_png(tmp_path / "Whole window.png", size.width(), size.height())
    assert export_to(window, "Whole window", str(tmp_path / "window.svg"))
    assert_svg(tmp_path / "window.svg")


def test_window_export_error_is_a_dialog(window, tmp_path: Path, monkeypatch) -> None:
    shown: list[str] = []
    monkeypatch.setattr(window, "show_error", lambda title, message: shown.append(message))
    t_before = window.playback.simulation.now_ns
    assert not export_to(window, "Whole window", str(tmp_path / "nowhere" / "x.png"))
    assert shown and "does not exist" in shown[0]
    assert window.playback.simulation.now_ns == t_before


def test_cli_export_png_and_svg(tmp_path: Path, capsys) -> None:
    png, svg = tmp_path / "a.png", tmp_path / "a.svg"
    base = ["export", "cfs-yield-2007", "--at", "0.05", "--size", "1200x800", "--seed", "3"]
    assert cli.main([*base, "--out", str(png), "--set", "sched.policy=o1"]) == 0
    assert_png(png, 1200, 800)
    assert cli.main([*base, "--out", str(svg)]) == 0
    assert_svg(svg)
    assert not list((tmp_path / "settings").iterdir())  # an export leaves the user's settings alone


@pytest.mark.parametrize(
    ("story", "panel"), [("qdisc-fairness-2011", "run-queue"), ("cfs-yield-2007", "graphs")]
)
def test_cli_export_draws_a_panel_behind_a_tab_too(tmp_path: Path, story: str, panel: str) -> None:
    # The 2011 run queues, behind the qdisc's tab, came out as a blank white picture: a hidden panel is
    # not drawn frame by frame, and the command line did not draw the run in it before the figure.
    out = tmp_path / "p.png"
    assert cli.main(["export", story, "--panel", panel, "--at", "0.2", "--out", str(out)]) == 0
    image = QImage(str(out))
    white = QColor("white").rgb()
    inked = sum(
        image.pixel(x, y) != white for x in range(0, image.width(), 4) for y in range(0, image.height(), 4)
    )
    assert inked > 0.01 * (image.width() // 4) * (image.height() // 4), inked


def test_cli_export_of_a_panel_at_a_size_is_that_panel_laid_out_at_it(tmp_path: Path, capsys) -> None:
    # --size was the window's only: "--panel graphs --size 1200x400" gave a 300-pixel picture of one
    # graph (the panel as large as it was in a 1200x400 window). With --panel it is the panel's size.
    out = tmp_path / "g.png"
    base = ["export", "qdisc-fairness-2011", "--panel", "graphs", "--at", "0.1"]
    assert cli.main([*base, "--size", "1200x400", "--out", str(out)]) == 0
    assert_png(out, 1200, 400)
    narrow = ["export", "qdisc-fairness-2011", "--panel", "run-queue", "--size", "320x240"]
    assert cli.main([*narrow, "--out", str(tmp_path / "small.png")]) == 2  # the run queues need 480 px
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "this panel needs at least" in err
    assert not (tmp_path / "small.png").exists()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--out", "x.gif"], "allowed: .png, .svg"),
        (["--out", "x.png", "--size", "big"], "expected WxH"),
        (["--out", "x.png", "--set", "sched.policy=nope"], "sched.policy"),
        (["--out", "x.png", "--at", "-1"], "--at"),
        (["--out", "x.png", "--size", "400x300"], "the window needs at least"),
    ],
)
def test_cli_export_errors_are_one_line(
    tmp_path: Path, capsys, monkeypatch, extra: list[str], message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    assert cli.main(["export", "cfs-yield-2007", *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("schedlab: error:") and message in err
    assert not list(tmp_path.glob("x.*"))


@pytest.fixture
def window(qtbot, temp_settings):  # noqa: F811 - the fixture above
    from gui.main_window import MainWindow
    from model.scenario import load_scenario

    w = MainWindow(load_scenario("cfs-yield-2007"), settings=temp_settings, use_timer=False)
    qtbot.addWidget(w)
    w.resize(1000, 700)
    w.show()
    w.playback.play()
    for _ in range(10):
        w.playback.tick(1 / 60)
    return w


def test_an_export_plays_enough_frames_for_the_run_queues_trails(qtbot, temp_settings) -> None:  # noqa: F811
    # With 20 ms played frame by frame, a figure's 50 ms trails stopped two fifths of the way up.
    from gui.app import play_to
    from gui.main_window import MainWindow
    from model.scenario import load_scenario

    w = MainWindow(load_scenario("cfs-yield-2007"), settings=temp_settings, use_timer=False)
    qtbot.addWidget(w)
    w.resize(1600, 1000)
    w.show()
    play_to(w, 1_000_000_000)
    trails = w.runqueue.scene.trails
    assert trails, "the run queue draws trails"
    highest = min(pt.y() for tr in trails for pt in tr.points)
    clip = trails[0].clip
    assert highest < clip.top() + 0.1 * clip.height(), "they reach the top: the whole span was played"
