"""The explainer window: composes the panels around one Playback and wires signals; nothing else.

Data flows down (``Playback.snapshot_ready`` → every panel's ``render``), requests flow up (control
signals → Playback). The window holds no simulation logic and no plotting code. It owns the menus
(open a scenario file, export a screenshot, full screen, the shortcut sheet), a status line with the
key settings, and remembers its size and last story in QSettings. Bad input becomes a dialog; the
run in progress is kept.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol, cast

from PySide6.QtCore import QByteArray, QSettings, Qt
from PySide6.QtGui import QAction, QCloseEvent, QFont, QKeySequence, QShowEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QInputDialog,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from gui import pyside_fix  # noqa: F401 - before any signal is emitted
from gui.draw.help_text import about_html, shortcut_sheet_html
from gui.export import ExportError, export_widget
from gui.panels.controls import ControlsPanel, has_qdisc
from gui.panels.cpu_lanes import CpuLanesPanel
from gui.panels.explainer import ExplainerPanel, something_yields
from gui.panels.graphs import GraphsPanel
from gui.panels.qdisc import QdiscPanel
from gui.panels.runqueue import RunqueuePanel
from gui.panels.status import StatusLine
from gui.panels.time_controls import TimeControls
from gui.playback import Playback
from model.scenario import Scenario, ScenarioError, builtin_names, load_scenario
from model.snapshot import Snapshot

ORGANIZATION = "schedlab"
APPLICATION = "schedlab"
DEFAULT_STORY = "cfs-yield-2007"
DEFAULT_SIZE = (1600, 1000)
EXPLAINER_MIN_WIDTH = 250  # narrower, the quotes become a column of single words (2011 fits 1280 px)
RUNQUEUE_TAB = "Run queues: who runs next"
QDISC_TAB = "Packets: the prio qdisc"
COLUMN_WIDTHS = (320, 920, 360)  # controls, stage, explainer at the default size


class Panel(Protocol):
    """What the window asks of a stage panel (a QWidget): draw a snapshot, forget the past."""

    def render(self, snapshot: Snapshot) -> None: ...
    def reset(self) -> None: ...


def stage_heights(lanes_hint: int, qdisc: bool, total: int = 870, lanes_min: int = 0) -> list[int]:
    """Heights of lanes, run queues (or qdisc) and graphs in a stage ``total`` px high. The lanes get at
    least ``lanes_min`` (every CPU's lane); in a short window the other two share what is left."""
    lanes = max(min(lanes_hint, 220 if qdisc else 280), lanes_min)
    middle = 380 if qdisc else 300
    graphs = max(300, total - lanes - middle)
    if lanes + middle + 200 > total:  # too short for all three at their usual heights
        rest = max(total - lanes, 0)
        middle = rest * middle // (middle + 300)
        graphs = rest - middle
    return [lanes, middle, graphs]


def default_settings() -> QSettings:
    return QSettings(ORGANIZATION, APPLICATION)


class MainWindow(QMainWindow):
    def __init__(
        self,
        scenario: Scenario,
        *,
        seed: int | None = None,
        settings: QSettings | None = None,
        use_timer: bool = True,
        source: str | None = None,
    ) -> None:
        super().__init__()
        self.settings = settings if settings is not None else default_settings()
        self.source = source or scenario.name  # what "last story" remembers: a name or a file path
        self.playback = Playback(scenario, seed, self, use_timer=use_timer)
        self.time_controls = TimeControls()
        self.controls = ControlsPanel()
        self.explainer = ExplainerPanel()
        self.cpu_lanes = CpuLanesPanel()
        self.runqueue = RunqueuePanel()
        self.qdisc = QdiscPanel(self)  # owned by the window while it is out of the tabs
        self.qdisc.hide()
        self.graphs = GraphsPanel()
        self.panels: dict[str, Panel] = {
            "CPU lanes": self.cpu_lanes,
            "Run queue": self.runqueue,
            "Qdisc": self.qdisc,
            "Graphs": self.graphs,
        }
        self.status_label = StatusLine()
        self._last_snapshot: Snapshot | None = None
        self._has_qdisc = False
        self._shape: tuple[int, bool] = (0, False)
        self._shown_once = False
        self._build_layout()
        self._build_menus()
        self._wire()
        self._restore_size()
        self._on_restarted(scenario)
        self.playback.refresh()

    # ---- composition ------------------------------------------------------------------------

    def _build_layout(self) -> None:
        self.setStyleSheet("QMainWindow, QScrollArea, QSplitter { background: white; }")
        scroll = QScrollArea()
        scroll.setWidget(self.controls)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setMinimumWidth(
            self.controls.minimumSizeHint().width() + scroll.verticalScrollBar().sizeHint().width()
        )
        # Run queues, or (in a story that sends packets) the qdisc in front with the run queues a tab away.
        self.middle = QTabWidget()
        self.middle.setDocumentMode(True)
        self.middle.setTabBarAutoHide(True)
        self.middle.addTab(self.runqueue, RUNQUEUE_TAB)
        self.middle.currentChanged.connect(self._render_front_tab)
        tab_font = QFont(self.middle.tabBar().font())
        tab_font.setPointSize(12)
        self.middle.tabBar().setFont(tab_font)
        self.stage = QSplitter(Qt.Orientation.Vertical)
        for w in (self.cpu_lanes, self.middle, self.graphs):
            self.stage.addWidget(w)
        self.stage.setStretchFactor(0, 3)
        self.stage.setStretchFactor(1, 3)
        self.stage.setStretchFactor(2, 4)
        # Three columns for a projector: the controls, the stage, the story told in words.
        self.body = QSplitter(Qt.Orientation.Horizontal)
        self.body.addWidget(scroll)
        self.body.addWidget(self.stage)
        self.body.addWidget(self.explainer)
        self.explainer.setMinimumWidth(EXPLAINER_MIN_WIDTH)
        self.body.setStretchFactor(1, 1)
        self.body.setCollapsible(1, False)
        self.body.setSizes(list(COLUMN_WIDTHS))
        central = QWidget()
        column = QVBoxLayout(central)
        column.setContentsMargins(4, 4, 4, 0)
        column.setSpacing(2)
        column.addWidget(self.time_controls)
        column.addWidget(self.body, 1)
        self.setCentralWidget(central)
        self.statusBar().addWidget(self.status_label, 1)

    def _menu_action(
        self, menu: Any, text: str, key: str | QKeySequence | QKeySequence.StandardKey, slot: Any
    ) -> QAction:
        action = QAction(text, self)
        action.setShortcut(QKeySequence(key))
        action.triggered.connect(slot)
        menu.addAction(action)
        self.addAction(action)  # shortcuts keep working in full screen, with the menu bar hidden
        return action

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        self._menu_action(
            file_menu, "Open scenario…", QKeySequence.StandardKey.Open, self.open_scenario_dialog
        )
        self._menu_action(file_menu, "Export…", "Ctrl+Shift+S", self.export_dialog)
        file_menu.addSeparator()
        self._menu_action(file_menu, "Quit", "Ctrl+Q", self.close)
        play_menu = bar.addMenu("&Playback")
        for action in (
            self.time_controls.play_action,
            self.time_controls.step_action,
            self.time_controls.reset_action,
        ):
            play_menu.addAction(action)
        view_menu = bar.addMenu("&View")
        self.fullscreen_action = self._menu_action(view_menu, "Full screen", "F11", self.toggle_full_screen)
        self.fullscreen_action.setCheckable(True)
        help_menu = bar.addMenu("&Help")
        self._menu_action(help_menu, "Shortcuts", "?", self.show_shortcuts)
        about = QAction("About schedlab", self)
        about.setMenuRole(QAction.MenuRole.AboutRole)
        about.triggered.connect(self.show_about)
        help_menu.addAction(about)

    def _wire(self) -> None:
        pb, tc, ctl = self.playback, self.time_controls, self.controls
        pb.snapshot_ready.connect(self._on_snapshot)
        pb.restarted.connect(self._on_restarted)
        pb.error.connect(self._on_error)
        pb.playing_changed.connect(tc.set_playing)
        pb.speed_changed.connect(tc.set_speed)
        tc.play_toggled.connect(pb.toggle)
        tc.step_requested.connect(pb.step_event)
        tc.reset_requested.connect(pb.reset)
        tc.speed_requested.connect(pb.set_speed)
        ctl.live_setting.connect(pb.apply_live)
        ctl.restart_setting.connect(lambda key, value: pb.restart_with({key: value}))
        ctl.story_chosen.connect(self.choose_story)

    # ---- what the playback reports ------------------------------------------------------------

    def _on_snapshot(self, snap: Snapshot) -> None:
        shape = (len(snap.cpus), snap.qdisc is not None)
        if shape != self._shape:
            self._shape = shape
            self._has_qdisc = shape[1]
            self._show_qdisc_tab(shape[1])
            self._arrange_stage()
        last, self._last_snapshot = self._last_snapshot, snap
        if last is None or snap.settings is not last.settings:  # settings flow down, when they change
            self._show_settings(snap)
        for panel in self.panels.values():
            # A panel behind the other tab waits: it gets the latest snapshot when it comes to the front.
            if cast(QWidget, panel).isVisibleTo(self):
                panel.render(snap)
        self.time_controls.show_time(snap.t_ns, self.playback.limited)

    def _render_front_tab(self, _index: int) -> None:
        front = self.middle.currentWidget()
        for panel in self.panels.values():
            if self._last_snapshot is not None and cast(QWidget, panel) is front:
                panel.render(self._last_snapshot)

    def _arrange_stage(self) -> None:
        total = self.stage.height() if self._shown_once else 870
        lanes = self.cpu_lanes
        heights = stage_heights(lanes.sizeHint().height(), self._has_qdisc, total, lanes.needed_height())
        self.stage.setSizes(heights)

    def showEvent(self, event: QShowEvent) -> None:  # Qt override
        super().showEvent(event)
        if not self._shown_once:  # splitter sizes set before the first layout do not stick
            self._shown_once = True
            self._arrange_stage()

    def _show_qdisc_tab(self, shown: bool) -> None:
        index = self.middle.indexOf(self.qdisc)
        if shown and index < 0:
            self.middle.insertTab(0, self.qdisc, QDISC_TAB)
            self.middle.setCurrentWidget(self.qdisc)
        elif not shown and index >= 0:
            self.middle.removeTab(index)
            self.qdisc.setParent(self)  # keep it owned while out of the tabs
            self.qdisc.hide()

    def _on_restarted(self, scenario: Scenario) -> None:
        for panel in self.panels.values():
            panel.reset()
        self._last_snapshot = None  # the new run's first snapshot brings its settings
        self.controls.set_scenario(scenario)
        self.explainer.set_scenario(scenario)
        title = scenario.title or scenario.name
        self.setWindowTitle(f"schedlab: {title}")

    def _show_settings(self, snap: Snapshot) -> None:
        """The settings of the run now, into the controls, the "Now:" line and the status line."""
        scenario = self.playback.scenario
        self.controls.show_settings(snap.settings)
        self.explainer.show_settings(snap.settings)
        self.status_label.show_settings(
            snap.settings, self.playback.seed, has_qdisc(scenario), something_yields(scenario)
        )

    def _on_error(self, message: str) -> None:
        # The controls may show a choice the model refused: put them back to what runs.
        if self._last_snapshot is not None:
            self.controls.show_settings(self._last_snapshot.settings)
        self.show_error("schedlab could not do that", message)

    def show_error(self, title: str, message: str) -> None:
        QMessageBox.warning(self, title, message)

    # ---- user commands ----------------------------------------------------------------------

    def choose_story(self, name: str) -> bool:
        try:
            scenario = load_scenario(name)
        except ScenarioError as exc:
            self.show_error("Cannot open this story", str(exc))
            return False
        return self._load(scenario, name)

    def open_scenario_file(self, path: str) -> bool:
        """Open a scenario file; a bad one gives a dialog and the current run goes on."""
        try:
            scenario = load_scenario(path)
        except ScenarioError as exc:
            self.show_error("Cannot open this scenario", str(exc))
            return False
        return self._load(scenario, str(Path(path).resolve()))

    def _load(self, scenario: Scenario, source: str) -> bool:
        if not self.playback.load(scenario):
            return False
        self.source = source
        self.settings.setValue("last_story", source)
        return True

    def open_scenario_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open scenario", "", "Scenario files (*.toml)")
        if path:
            self.open_scenario_file(path)

    def export_targets(self) -> dict[str, QWidget]:
        targets: dict[str, QWidget] = {"Whole window": self}
        for name, panel in self.panels.items():
            if panel is not self.qdisc or self._has_qdisc:
                targets[name] = cast(QWidget, panel)
        targets["Explainer"] = self.explainer
        targets["Controls"] = self.controls
        return targets

    def export_to(self, target: str, path: str) -> bool:
        widget = self.export_targets()[target]
        for panel in self.panels.values():
            if self._last_snapshot is not None and cast(QWidget, panel) is widget:
                panel.render(self._last_snapshot)  # a panel behind a tab may be frames behind
        try:
            export_widget(widget, path)
        except ExportError as exc:
            self.show_error("Export failed", str(exc))
            return False
        self.statusBar().showMessage(f"Exported {target.lower()} to {path}", 5000)
        return True

    def export_dialog(self) -> None:
        names = list(self.export_targets())
        target, ok = QInputDialog.getItem(self, "Export", "What to export:", names, 0, False)
        if not ok:
            return
        path, chosen = QFileDialog.getSaveFileName(
            self, "Export to", f"schedlab-{self.playback.scenario.name}.png", "PNG image (*.png);;SVG (*.svg)"
        )
        if path:
            if not Path(path).suffix:
                path += ".svg" if "svg" in chosen.lower() else ".png"
            self.export_to(target, path)

    def toggle_full_screen(self) -> None:
        if self.isFullScreen():
            self.showNormal()
        else:
            self.showFullScreen()
        self.fullscreen_action.setChecked(self.isFullScreen())

    def show_shortcuts(self) -> None:
        box = QMessageBox(QMessageBox.Icon.NoIcon, "Shortcuts", shortcut_sheet_html(), parent=self)
        box.setTextFormat(Qt.TextFormat.RichText)
        f = QFont(box.font())
        f.setPointSize(14)
        box.setFont(f)
        box.exec()

    def show_about(self) -> None:
        QMessageBox.about(self, "About schedlab", about_html())

    # ---- window state -----------------------------------------------------------------------

    def _restore_size(self) -> None:
        geometry = self.settings.value("window/geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        else:
            self.resize(*DEFAULT_SIZE)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.playback.stop()
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("last_story", self.source)
        self.settings.sync()
        super().closeEvent(event)


def last_story(settings: QSettings) -> str:
    """The story to open when none is named: the last one if it still exists, else the 2007 story."""
    value = settings.value("last_story")
    if isinstance(value, str) and (value in builtin_names() or Path(value).is_file()):
        return value
    return DEFAULT_STORY
