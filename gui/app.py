"""The GUI's entry points behind ``schedlab`` / ``schedlab gui [SCENARIO]``, ``schedlab export`` and
``schedlab-gui``.

``gui`` opens the window on the named scenario (or the last story, else the 2007 one) and starts
playing. ``export`` is headless: it builds the scenario like ``schedlab run``, runs the model to
``--at`` seconds (the last stretch frame by frame at Normal speed, so the lanes have their recent
past), lays the window out at ``--size`` offscreen and writes PNG or SVG. Errors are ``ScenarioError``
with a one-line message; the CLI prints it and exits 2. ``model.cli`` parses the command line and
hands these commands here; ``schedlab-gui`` (the desktop entry's program) is ``schedlab gui``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from model import resource_root
from model.cli import build_scenario
from model.cli import main as cli_main
from model.scenario import Scenario, ScenarioError

ICON_FILES = ("schedlab.svg", "schedlab-256.png")  # in resources/icons/; the PNG where SVG cannot load
EXPORT_LEAD_NS = 20_000_000  # the last 20 ms before --at are played frame by frame: 2 s at Normal
EXPORT_FRAMES = 120


def _ensure_platform(headless: bool) -> None:
    """Without a display, Qt must run offscreen (it would abort otherwise)."""
    no_display = not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    if (headless or no_display) and sys.platform.startswith("linux"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def _quiet_offscreen_warning() -> Any:
    """The offscreen platform warns that it "does not support propagateSizeHints()": noise for a CLI.
    Returns the previous message handler, to put back."""
    from PySide6.QtCore import QMessageLogContext, QtMsgType, qInstallMessageHandler

    def handler(kind: QtMsgType, context: QMessageLogContext, message: str) -> None:
        if "propagateSizeHints" in message:
            return
        if previous is not None:
            previous(kind, context, message)
        else:
            print(message, file=sys.stderr)

    previous = qInstallMessageHandler(handler)
    return previous


def _application() -> Any:
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        app = QApplication([sys.argv[0] if sys.argv else "schedlab"])
        app.setOrganizationName("schedlab")
        app.setApplicationName("schedlab")
        app.setDesktopFileName("schedlab")  # resources/schedlab.desktop: how a desktop matches the window
        app.setWindowIcon(app_icon())
    return app


def app_icon() -> Any:
    """schedlab's icon (three CPU lanes of task slices), from the package data."""
    from PySide6.QtGui import QIcon

    icon = QIcon()
    for name in ICON_FILES:
        icon.addFile(str(resource_root() / "icons" / name))
    return icon


def parse_size(text: str) -> tuple[int, int]:
    w, x, h = text.lower().partition("x")
    if not x or not w.isdigit() or not h.isdigit():
        raise ScenarioError(f"--size {text!r}: expected WxH in pixels, e.g. --size 1600x1000")
    width, height = int(w), int(h)
    if not (320 <= width <= 8192 and 240 <= height <= 8192):
        raise ScenarioError(f"--size {text!r}: allowed 320x240 .. 8192x8192")
    return width, height


def run_gui(args: argparse.Namespace) -> int:
    _ensure_platform(headless=False)
    app = _application()
    from gui.main_window import MainWindow, default_settings, last_story
    from model.scenario import load_scenario

    settings = default_settings()
    source = getattr(args, "scenario", None) or last_story(settings)
    try:
        scenario = load_scenario(source)
    except ScenarioError:
        if getattr(args, "scenario", None):
            raise  # the user named it: a one-line error, exit 2
        source, scenario = "cfs-yield-2007", load_scenario("cfs-yield-2007")
    window = MainWindow(scenario, settings=settings, source=source)
    window.show()
    window.playback.play()
    return int(app.exec())


def run_export(args: argparse.Namespace) -> int:
    scenario = build_scenario(args.scenario, args.set)
    if args.at < 0:
        raise ScenarioError(f"--at {args.at}: must be >= 0 seconds")
    width, height = parse_size(args.size)
    _ensure_platform(headless=True)
    from gui.export import check_path

    out = args.out
    check_path(Path(out))  # fail before the run, not after it
    previous_handler = _quiet_offscreen_warning()
    try:
        return _export(args, scenario, (width, height), out)
    finally:
        from PySide6.QtCore import qInstallMessageHandler

        qInstallMessageHandler(previous_handler)


def _export(args: argparse.Namespace, scenario: Scenario, size: tuple[int, int], out: str) -> int:
    width, height = size
    app = _application()
    from PySide6.QtCore import QEvent, QSettings, Qt

    from gui.export import export_widget
    from gui.main_window import MainWindow

    with tempfile.TemporaryDirectory(prefix="schedlab-export-") as tmp:
        # A throwaway settings file: an export neither reads nor changes the user's window state.
        settings = QSettings(str(Path(tmp) / "export.ini"), QSettings.Format.IniFormat)
        window = MainWindow(scenario, seed=args.seed, settings=settings, use_timer=False)
        try:
            least = window.minimumSizeHint()
            if width < least.width() or height < least.height():
                raise ScenarioError(
                    f"--size {args.size}: the window needs at least {least.width()}x{least.height()}"
                )
            window.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
            window.resize(width, height)
            window.show()
            play_to(window, round(args.at * 1e9))
            export_widget(window, out)
        finally:
            window.playback.stop()
            window.hide()
            window.deleteLater()
            app.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    return 0


def play_to(window: Any, at_ns: int) -> None:
    """Run the model to ``at_ns``: fast up to the last stretch, then frame by frame so panels animate."""
    playback = window.playback
    sim = playback.simulation
    lead_start = max(0, at_ns - EXPORT_LEAD_NS)
    if lead_start > sim.now_ns and playback.advance_to(lead_start) is None:
        raise ScenarioError(f"the simulation stopped before t = {lead_start / 1e9:.6f} s")
    step = max(1, (at_ns - sim.now_ns) // EXPORT_FRAMES)
    while sim.now_ns < at_ns:
        if playback.advance_to(min(at_ns, sim.now_ns + step)) is None:
            raise ScenarioError(f"the simulation stopped at t = {sim.now_ns / 1e9:.6f} s")


def main(args: argparse.Namespace) -> int:
    """The window's commands, as ``model.cli`` parsed them: ``export``, else ``gui``."""
    if args.command == "export":
        return run_export(args)
    return run_gui(args)


def gui_script() -> int:
    """``schedlab-gui [SCENARIO]`` ([project.gui-scripts]): the window, as ``schedlab gui`` opens it."""
    return cli_main(["gui", *sys.argv[1:]])
