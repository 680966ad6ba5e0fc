"""The GUI's entry points behind ``schedlab`` / ``schedlab gui [SCENARIO]``, ``schedlab export`` and
``schedlab-gui``.

``gui`` opens the window on the named scenario (or the last story, else the 2007 one) and starts
playing. ``export`` is headless: it builds the scenario like ``schedlab run``, runs the model to
``--at`` seconds (the last stretch frame by frame at Normal speed, so the lanes have their recent
past), lays the window out at ``--size`` offscreen and writes PNG or SVG. Every option and the output
path are checked before the run (``--at`` within ``scenario.duration_s``'s range); errors are
``ScenarioError`` with a one-line message; the CLI prints it and exits 2. ``model.cli`` parses the
command line and hands these commands here; ``schedlab-gui`` (the desktop entry's program) is
``schedlab gui``. Ctrl-C in the terminal closes the window as its Quit does and exits with 130.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import socket
import sys
import tempfile
from pathlib import Path
from typing import Any

from model import resource_root
from model.cli import EXIT_INTERRUPTED
from model.cli import main as cli_main
from model.cli.outputs import option_what
from model.cli.runs import build_scenario, checked_seed, input_files
from model.keyspec import shown
from model.scenario import Scenario, ScenarioError, option_value

ICON_FILES = ("schedlab.svg", "schedlab-256.png")  # in resources/icons/; the PNG where SVG cannot load
WINDOW_SIZE = (1600, 1000)  # export's window, where --size does not give it
EXPORT_PROGRESS_STEPS = 20  # the run up to --at in slices, so a long one shows progress
# --panel: the slugs of window_export.export_targets (a test keeps the two the same), checked before the run
EXPORT_PANELS = (
    "window",
    "cpu-lanes",
    "run-queue",
    "qdisc",
    "headline-numbers",
    "graphs",
    "explainer",
    "controls",
)


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
    m = re.fullmatch(r"([0-9]{1,6})[xX]([0-9]{1,6})", text)
    if m is None:
        raise ScenarioError(f"--size {shown(text)}: expected WxH in pixels, e.g. --size 1600x1000")
    width, height = int(m[1]), int(m[2])
    if not (320 <= width <= 8192 and 240 <= height <= 8192):
        raise ScenarioError(f"--size {shown(text)}: allowed 320x240 .. 8192x8192")
    return width, height


def run_gui(args: argparse.Namespace) -> int:
    _ensure_platform(headless=False)
    app = _application()
    from gui.main_window import MainWindow
    from gui.window_settings import default_settings, last_story
    from model.rtapp import load_any
    from model.scenario import load_scenario

    settings = default_settings()
    source = getattr(args, "scenario", None) or last_story(settings)
    try:
        scenario = load_any(source)  # a built-in, a scenario file or an rt-app workload
    except ScenarioError:
        if getattr(args, "scenario", None):
            raise  # the user named it: a one-line error, exit 2
        source, scenario = "cfs-yield-2007", load_scenario("cfs-yield-2007")
    window = MainWindow(scenario, settings=settings, source=source, defer_graphs=True)
    window.show()
    window.playback.play()
    _close_on_ctrl_c(app)
    return int(app.exec())


def _close_on_ctrl_c(app: Any) -> None:
    """Ctrl-C closes every window (so that each saves its state, as Quit does) and exits with 130.

    Qt's event loop holds the interpreter while it waits; the signal's wake-up byte on a socket that
    Qt watches brings it back into Python, where the handler runs."""
    from PySide6.QtCore import QSocketNotifier

    reader, writer = socket.socketpair()
    reader.setblocking(False)
    writer.setblocking(False)
    signal.set_wakeup_fd(writer.fileno())
    notifier = QSocketNotifier(reader.fileno(), QSocketNotifier.Type.Read, app)
    notifier.activated.connect(lambda *_: reader.recv(64))

    def on_ctrl_c(_signum: int, _frame: object) -> None:
        for widget in app.topLevelWidgets():
            widget.close()
        app.exit(EXIT_INTERRUPTED)

    signal.signal(signal.SIGINT, on_ctrl_c)
    app._ctrl_c = (reader, writer, notifier)  # kept alive with the application


def run_export(args: argparse.Namespace) -> int:
    seed = checked_seed(args.seed)
    at_s = float(option_value("--at", args.at, "scenario.duration_s", lo=0.0))
    scenario = build_scenario(args.scenario, args.set)
    size = parse_size(args.size) if args.size is not None else None
    panel_size = size if args.panel != "window" else None  # --size is the panel's, the window as usual
    width, height = size if size is not None and panel_size is None else WINDOW_SIZE
    _ensure_platform(headless=True)
    from gui.export import check_path

    what = option_what("--out", args.out)
    out = check_path(args.out, what=what, inputs=input_files(args.scenario))  # before the run
    if args.panel not in EXPORT_PANELS:
        raise ScenarioError(f"--panel {args.panel!r}: allowed: {', '.join(EXPORT_PANELS)}")
    figure_scale(args)
    previous_handler = _quiet_offscreen_warning()
    try:
        return _export(args, scenario, seed, at_s, (width, height), panel_size, out, what)
    finally:
        from PySide6.QtCore import qInstallMessageHandler

        qInstallMessageHandler(previous_handler)


def _export(
    args: argparse.Namespace,
    scenario: Scenario,
    seed: int | None,
    at_s: float,
    size: tuple[int, int],
    panel_size: tuple[int, int] | None,
    out: Path,
    what: str,
) -> int:
    width, height = size
    app = _application()
    from PySide6.QtCore import QEvent, QSettings, Qt

    from gui.export import export_widget
    from gui.figures import FigureOptions
    from gui.main_window import MainWindow
    from gui.window_export import figure_caption

    with tempfile.TemporaryDirectory(prefix="schedlab-export-") as tmp:
        # A throwaway settings file: an export neither reads nor changes the user's window state.
        settings = QSettings(str(Path(tmp) / "export.ini"), QSettings.Format.IniFormat)
        window = MainWindow(scenario, seed=seed, settings=settings, use_timer=False)
        alone: Any = None
        try:
            least = window.minimumSizeHint()
            if width < least.width() or height < least.height():
                raise ScenarioError(
                    f"--size {args.size}: the window needs at least {least.width()}x{least.height()}"
                )
            window.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
            window.resize(width, height)
            window.show()
            play_to(window, round(at_s * 1e9))
            widget = export_target(window, args.panel)
            if panel_size is not None:
                alone = widget = on_its_own(window, widget, panel_size, args.size)
            caption = figure_caption(window) if args.caption else ""
            export_widget(widget, out, what=what, options=FigureOptions(figure_scale(args), caption))
        finally:
            window.playback.stop()
            window.hide()
            window.deleteLater()
            if alone is not None:  # no longer the window's child: deleted on its own
                alone.hide()
                alone.deleteLater()
            app.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    return 0


def slug(name: str) -> str:
    return name.lower().replace(" ", "-")


def export_target(window: Any, panel: str) -> Any:
    """The widget ``--panel`` names (the slug of a File > Export target); a one-line error otherwise."""
    from gui.window_export import export_targets

    targets = {"window": window} | {
        slug(k): w for k, w in export_targets(window).items() if k != "Whole window"
    }
    if panel not in targets:
        raise ScenarioError(f"--panel {panel!r}: allowed here: {', '.join(targets)}")
    widget = targets[panel]
    if widget is not window and not widget.isVisible():  # a panel in a hidden tab: lay it out
        widget.resize(widget.size().expandedTo(widget.sizeHint()))
    window.render_latest(widget)  # and draw the run in it: a hidden panel is not drawn frame by frame
    return widget


def on_its_own(window: Any, widget: Any, size: tuple[int, int], words: str) -> Any:
    """``widget`` taken out of the window and laid out at ``size`` (``--panel`` with ``--size``), the
    run drawn in it: a panel draws the snapshot it is given at whatever size it has."""
    from PySide6.QtCore import Qt

    least = widget.minimumSizeHint()
    if size[0] < least.width() or size[1] < least.height():
        raise ScenarioError(f"--size {words}: this panel needs at least {least.width()}x{least.height()}")
    widget.setParent(None)
    widget.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
    widget.resize(*size)
    widget.show()
    window.render_latest(widget)
    return widget


def figure_scale(args: argparse.Namespace) -> float:
    from gui.figures import SCALE_RANGE, SCREEN_DPI

    if args.scale is not None and args.dpi is not None:
        raise ScenarioError("--scale and --dpi: give one of them (--dpi N is --scale N/96)")
    scale = args.scale if args.scale is not None else 1.0 if args.dpi is None else args.dpi / SCREEN_DPI
    if not (SCALE_RANGE[0] <= scale <= SCALE_RANGE[1]):  # NaN fails too
        lo, hi = SCALE_RANGE
        raise ScenarioError(
            f"--scale {scale:g} / --dpi {scale * SCREEN_DPI:g}: allowed --scale {lo:g}..{hi:g} "
            f"(--dpi {lo * SCREEN_DPI:g}..{hi * SCREEN_DPI:g})"
        )
    return scale


def play_to(window: Any, at_ns: int) -> None:
    """Run the model to ``at_ns``: fast up to the last stretch (with a progress bar on a terminal), then
    frame by frame so panels animate."""
    from gui.playback import LEAD_FRAMES, LEAD_NS
    from model.cli.progress import Progress

    playback = window.playback
    sim = playback.simulation
    lead_start = max(0, at_ns - LEAD_NS)
    with Progress("running to --at", lead_start / 1e9, " s") as bar:
        for i in range(1, EXPORT_PROGRESS_STEPS + 1):
            target = lead_start * i // EXPORT_PROGRESS_STEPS
            if target > sim.now_ns and playback.advance_to(target) is None:
                raise ScenarioError(f"the simulation stopped before t = {target / 1e9:.6f} s")
            bar.update(sim.now_ns / 1e9)
    step = max(1, (at_ns - sim.now_ns) // LEAD_FRAMES)
    while sim.now_ns < at_ns:
        if playback.advance_to(min(at_ns, sim.now_ns + step)) is None:
            raise ScenarioError(f"the simulation stopped at t = {sim.now_ns / 1e9:.6f} s")


def _video(args: argparse.Namespace) -> int:
    scenario = build_scenario(args.scenario, args.set)
    size = parse_size(args.size)
    _ensure_platform(headless=True)
    previous_handler = _quiet_offscreen_warning()
    try:
        _application()
        from gui.main_window import MainWindow
        from gui.video import run_video

        return run_video(args, scenario, size, MainWindow)
    finally:
        from PySide6.QtCore import qInstallMessageHandler

        qInstallMessageHandler(previous_handler)


def main(args: argparse.Namespace) -> int:
    """The window's commands, as ``model.cli`` parsed them: ``export``, else ``gui``."""
    if args.command == "export":
        return run_export(args)
    if args.command == "video":
        return _video(args)
    return run_gui(args)


def gui_script() -> int:
    """``schedlab-gui [SCENARIO]`` ([project.gui-scripts]): the window, as ``schedlab gui`` opens it."""
    return cli_main(["gui", *sys.argv[1:]])
