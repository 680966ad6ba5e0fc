"""The explainer window: composes the panels around one Playback and wires signals; nothing else.

Data flows down (``Playback.snapshot_ready`` → every panel's ``render``), requests flow up (control
signals → Playback). The window holds no simulation logic and no plotting code. It owns the menus
(open a scenario file, export a screenshot, full screen, the shortcut sheet), a status line with the
key settings, and remembers its size and last story in QSettings. Bad input (a bad file, a bad value,
an export that cannot be written) becomes a plain-text dialog; the run in progress is kept. Its file
dialogs never read the files they list (``gui.file_dialogs``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from PySide6.QtCore import QByteArray, QPoint, QRectF, QSettings, Qt, QTimer
from PySide6.QtGui import (
    QAction,
    QActionGroup,
    QCloseEvent,
    QFont,
    QKeySequence,
    QPaintEvent,
    QResizeEvent,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QMainWindow,
    QMenu,
    QMessageBox,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from gui import keys  # pyside_fix: before any signal is emitted
from gui.draw import theme
from gui.draw.help_text import about_html, shortcut_sheet_html
from gui.draw.layout_plan import Plan, plan_layout
from gui.draw.series import window_ns_for
from gui.file_dialogs import SCENARIO_FILTER, chosen_path, error_box, file_dialog
from gui.lesson_driver import LessonDriver
from gui.panels.base import rescale_fonts
from gui.panels.controls import ControlsPanel, has_qdisc
from gui.panels.cpu_lanes import CpuLanesPanel
from gui.panels.explainer import ExplainerPanel, something_yields
from gui.panels.graphs_placeholder import GraphsPlaceholder
from gui.panels.headline import HeadlinePanel
from gui.panels.highlight import HighlightOverlay
from gui.panels.lesson import LessonPanel
from gui.panels.qdisc import QdiscPanel
from gui.panels.runqueue import RunqueuePanel
from gui.panels.scroll_bars import cache_scroll_bars
from gui.panels.status import StatusLine
from gui.panels.time_controls import TimeControls
from gui.playback import Playback
from model.scenario import Scenario, ScenarioError, builtin_names, load_scenario
from model.snapshot import Snapshot

if TYPE_CHECKING:
    from gui.figures import FigureOptions
    from gui.panels.graphs import GraphsPanel

ORGANIZATION = "schedlab"
APPLICATION = "schedlab"
DEFAULT_STORY = "cfs-yield-2007"
DEFAULT_SIZE = (1600, 1000)
SCREEN_FILL = 0.94  # of the screen's available area a first window takes
RUNQUEUE_TAB = "Run queues: who runs next"
QDISC_TAB = "Packets: the prio qdisc"
LESSON_TAB, STORY_TAB, SETTINGS_TAB = "Lesson", "Story", "Settings"


class Panel(Protocol):
    """What the window asks of a stage panel (a QWidget): draw a snapshot, forget the past."""

    def render(self, snapshot: Snapshot) -> None: ...
    def reset(self) -> None: ...


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
        defer_graphs: bool = False,
    ) -> None:
        """``defer_graphs``: paint the first frame with a placeholder where the graphs go and build them
        just after it (``finish_startup``): the interactive window maps sooner (pyqtgraph loads then)."""
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
        self._graphs: GraphsPanel | None = None
        self._graphs_slot = GraphsPlaceholder(window_ns_for(self.playback.speed))
        self.headline = HeadlinePanel()
        self.panels: dict[str, Panel] = {
            "CPU lanes": self.cpu_lanes,
            "Run queue": self.runqueue,
            "Qdisc": self.qdisc,
            "Headline numbers": self.headline,
            "Graphs": self._graphs_slot,  # the real graphs once built (finish_startup)
        }
        self.lesson_panel = LessonPanel()
        self.lesson_driver = LessonDriver(self.playback, self)
        self.status_label = StatusLine()
        self._last_snapshot: Snapshot | None = None
        self._has_qdisc = False
        self._shape: tuple[int, bool] = (0, False)
        self._shown_once = False
        self._startup_pending = defer_graphs  # the graphs are built after the first painted frame
        self._build_layout()
        for area in (self.settings_scroll, self.explainer.browser, self.lesson_panel.narration):
            cache_scroll_bars(area)  # Fusion takes milliseconds to draw a tall one (gui.panels.scroll_bars)
        cache_scroll_bars(self.lesson_panel.steps)
        self._build_menus()
        self._wire()
        self._restore_size()
        self._restore_theme()
        self.keys = keys.install(self, self.stage)  # shortcuts beat text fields; Escape leaves one
        self.stage.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._on_restarted(scenario)
        self.playback.refresh()
        if not defer_graphs:
            self.finish_startup()

    # ---- composition ------------------------------------------------------------------------

    def _build_layout(self) -> None:
        self.settings_scroll = QScrollArea()
        self.settings_scroll.setWidget(self.controls)
        self.settings_scroll.setWidgetResizable(True)
        self.settings_scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.settings_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # Run queues, or (in a story that sends packets) the qdisc in front with the run queues a tab away.
        self.middle = QTabWidget()
        self.middle.setDocumentMode(True)
        self.middle.setTabBarAutoHide(True)
        self.middle.addTab(self.runqueue, RUNQUEUE_TAB)
        self.middle.currentChanged.connect(self._render_front_tab)
        self.lower_split = QSplitter(Qt.Orientation.Vertical)
        self.lower_split.addWidget(self.middle)
        self.lower_split.addWidget(self._graphs_slot)
        self.lower_split.setChildrenCollapsible(False)
        # The lanes on top, the headline numbers across the stage under them, then the rest.
        self.stage = QSplitter(Qt.Orientation.Vertical)
        self.stage.addWidget(self.cpu_lanes)
        self.stage.addWidget(self.headline)
        self.stage.addWidget(self.lower_split)
        self.stage.setChildrenCollapsible(False)
        # The lesson and the story told in words; on a narrow screen the settings join them as a tab.
        self.side = QTabWidget()
        self.side.setDocumentMode(True)
        self.side.addTab(self.lesson_panel, LESSON_TAB)
        self.side.addTab(self.explainer, STORY_TAB)
        self.body = QSplitter(Qt.Orientation.Horizontal)
        self.body.setChildrenCollapsible(False)
        self._wide: bool | None = None
        self._plan: Plan | None = None
        central = QWidget()
        outer = QVBoxLayout(central)
        outer.setContentsMargins(4, 2, 4, 0)
        outer.setSpacing(2)
        outer.addWidget(self.time_controls)
        outer.addWidget(self.body, 1)
        self.setCentralWidget(central)
        self.highlight = HighlightOverlay(central)
        self.statusBar().addWidget(self.status_label, 1)
        self._arrange_columns(True)

    def _arrange_columns(self, wide: bool) -> None:
        """Three columns (settings | stage | lesson) or two (lesson, story and settings on tabs | stage)."""
        if wide == self._wide:
            return
        self._wide = wide
        index = self.side.indexOf(self.settings_scroll)
        if wide:
            if index >= 0:
                self.side.removeTab(index)
            for i, w in enumerate((self.settings_scroll, self.stage, self.side)):
                self.body.insertWidget(i, w)
            self.settings_scroll.show()  # a page taken off the tabs stays hidden otherwise
        else:
            self.body.insertWidget(0, self.side)
            self.body.insertWidget(1, self.stage)
            self.side.addTab(self.settings_scroll, SETTINGS_TAB)
        self.body.setStretchFactor(self.body.indexOf(self.stage), 1)

    def arrange(self) -> None:
        """Lay the window out for the space it has now (``plan_layout``)."""
        size = self.body.size()
        if size.width() <= 0 or size.height() <= 0:
            return
        lanes = self.cpu_lanes
        headline = self.headline.height()
        bar = self.settings_scroll.verticalScrollBar().sizeHint().width()
        plan = plan_layout(
            size.width(),
            size.height() - headline,
            lanes.needed_height(),
            lanes.sizeHint().height(),
            self._has_qdisc,
            theme.current().font_factor,
            self.controls.minimumSizeHint().width() + bar + 36,  # and the tab frame around it
        )
        if plan == self._plan:
            return
        self._plan = plan
        self.cpu_lanes.setMinimumHeight(lanes.needed_height())  # the splitter never hides a CPU's lane
        self._arrange_columns(plan.wide)
        self.body.setSizes(list(plan.columns))
        self.lower_split.setOrientation(
            Qt.Orientation.Vertical if plan.stacked else Qt.Orientation.Horizontal
        )
        self.stage.setSizes([plan.lanes_h, headline, max(size.height() - plan.lanes_h - headline, 1)])
        self.lower_split.setSizes(list(plan.lower))

    # ---- the graphs, built after the first frame ------------------------------------------------------

    @property
    def graphs(self) -> GraphsPanel:
        """The live graphs (built now if the window has not got to it yet)."""
        self.finish_startup()
        assert self._graphs is not None
        return self._graphs

    def finish_startup(self) -> None:
        """Build what the first frame did without: the graphs (pyqtgraph) take the placeholder's place,
        at its size, and draw the latest snapshot. Nothing to do the second time."""
        self._startup_pending = False
        if self._graphs is not None:
            return
        from gui.panels.graphs import GraphsPanel

        slot = self._graphs_slot
        graphs = GraphsPanel(window_ns=slot.window_ns)
        sizes = self.lower_split.sizes()
        self.lower_split.replaceWidget(self.lower_split.indexOf(slot), graphs)
        self.lower_split.setSizes(sizes)
        slot.deleteLater()
        self._graphs = graphs
        self.panels["Graphs"] = graphs
        if slot.snapshot is not None:
            graphs.render(slot.snapshot)
        self._place_highlight()

    def paintEvent(self, event: QPaintEvent) -> None:  # Qt override
        super().paintEvent(event)
        if self._startup_pending:  # the first frame is being painted: the rest follows it
            self._startup_pending = False
            QTimer.singleShot(0, self, self.finish_startup)

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
        self._menu_action(file_menu, "Export video…", "Ctrl+Shift+V", self.video_dialog)
        self._menu_action(file_menu, "Export data (CSV, JSON)…", "Ctrl+Shift+D", self.data_dialog)
        self._menu_action(file_menu, "Compare…", "Ctrl+Shift+C", self.compare_dialog)
        file_menu.addSeparator()
        self._menu_action(file_menu, "Quit", "Ctrl+Q", self.close)
        play_menu = bar.addMenu("&Playback")
        tc = self.time_controls
        for action in (tc.play_action, tc.step_action, tc.back_action, tc.back_second_action):
            play_menu.addAction(action)
        play_menu.addAction(tc.start_action)
        play_menu.addAction(tc.end_action)
        play_menu.addSeparator()
        for action in tc.speed_actions.values():
            play_menu.addAction(action)
        play_menu.addSeparator()
        play_menu.addAction(tc.reset_action)
        view_menu = bar.addMenu("&View")
        self.fullscreen_action = self._menu_action(view_menu, "Full screen", "F11", self.toggle_full_screen)
        self.fullscreen_action.setCheckable(True)
        view_menu.addSeparator()
        self.mode_actions: dict[str, QAction] = {}
        modes = QActionGroup(self)
        for mode, key in zip(theme.MODES, ("Ctrl+1", "Ctrl+2", "Ctrl+3"), strict=True):
            action = self._menu_action(
                view_menu, theme.MODE_LABELS[mode], key, lambda _=False, m=mode: self.set_mode(m)
            )
            action.setCheckable(True)
            modes.addAction(action)
            self.mode_actions[mode] = action
        view_menu.addSeparator()
        zoom_in = self._menu_action(view_menu, "Zoom in", "Ctrl+=", lambda: self.zoom(1))
        zoom_in.setShortcuts([QKeySequence("Ctrl+="), QKeySequence("Ctrl++")])  # with or without Shift
        self._menu_action(view_menu, "Zoom out", "Ctrl+-", lambda: self.zoom(-1))
        self._menu_action(view_menu, "Actual size", "Ctrl+0", lambda: self.zoom(0))
        lesson_menu = bar.addMenu("&Lesson")
        self._menu_action(lesson_menu, "Next step", "PgDown", self.lesson_driver.next)
        self._menu_action(lesson_menu, "Previous step", "PgUp", self.lesson_driver.back)
        self._menu_action(lesson_menu, "Leave the lesson", "Ctrl+L", self.lesson_driver.leave)
        self._menu_action(lesson_menu, "Rejoin the lesson", "Ctrl+J", self.lesson_driver.rejoin)
        help_menu = bar.addMenu("&Help")
        self._menu_action(help_menu, "Shortcuts", "?", self.show_shortcuts)
        about = QAction("About schedlab", self)
        about.setMenuRole(QAction.MenuRole.AboutRole)
        about.triggered.connect(self.show_about)
        help_menu.addAction(about)

    # The dialogs behind File are imported when first opened: the window maps sooner without them.

    def video_dialog(self) -> None:
        from gui.video_dialog import video_dialog

        video_dialog(self)

    def data_dialog(self) -> None:
        from gui.data_export import data_dialog

        data_dialog(self)

    def compare_dialog(self) -> None:
        from gui.compare_dialog import compare_dialog

        compare_dialog(self)

    def _wire(self) -> None:
        pb, tc, ctl = self.playback, self.time_controls, self.controls
        pb.snapshot_ready.connect(self._on_snapshot)
        pb.restarted.connect(self._on_restarted)
        pb.error.connect(self._on_error)
        pb.landed.connect(self._on_landed)
        self.headline.height_changed.connect(self._arrange_stage)
        pb.playing_changed.connect(tc.set_playing)
        pb.speed_changed.connect(tc.set_speed)
        pb.speed_changed.connect(self._on_speed)
        pb.stepped.connect(tc.show_event)
        tc.play_toggled.connect(pb.toggle)
        tc.step_requested.connect(pb.step_event)
        tc.back_event_requested.connect(pb.back_event)
        tc.back_second_requested.connect(pb.back_seconds)
        tc.seek_requested.connect(pb.seek)
        tc.to_start_requested.connect(lambda: pb.seek(0))
        tc.to_end_requested.connect(lambda: pb.seek(pb.reach_ns))
        tc.reset_requested.connect(pb.reset)
        tc.speed_requested.connect(pb.set_speed)
        ctl.live_setting.connect(pb.apply_live)
        ctl.restart_setting.connect(lambda key, value: pb.restart_with({key: value}))
        ctl.story_chosen.connect(self.choose_story)
        ld, lp = self.lesson_driver, self.lesson_panel
        ld.lesson_changed.connect(lp.set_lesson)
        ld.step_entered.connect(lp.show_step)
        ld.status.connect(lp.show_status)
        ld.joined_changed.connect(lp.set_joined)
        ld.highlight.connect(self.show_highlight)
        ld.error.connect(lambda message: self.show_error("Cannot read this lesson", message))
        lp.go_to.connect(ld.go_to)
        lp.leave_requested.connect(ld.leave)
        lp.rejoin_requested.connect(ld.rejoin)

    # ---- what the playback reports ------------------------------------------------------------

    def _on_snapshot(self, snap: Snapshot) -> None:
        shape = (len(snap.cpus), snap.qdisc is not None)
        if shape != self._shape:
            self._shape = shape
            self._has_qdisc = shape[1]
            self._show_qdisc_tab(shape[1])
            self.cpu_lanes.render(snap)  # its lane count decides the stage's split
            self._arrange_stage()
        last, self._last_snapshot = self._last_snapshot, snap
        if last is None or snap.settings is not last.settings:  # settings flow down, when they change
            self._show_settings(snap)
        for panel in self.panels.values():
            # A panel behind the other tab waits: it gets the latest snapshot when it comes to the front.
            if cast(QWidget, panel).isVisibleTo(self):
                panel.render(snap)
        self.time_controls.show_time(snap.t_ns, self.playback.limited)
        self.time_controls.show_recording(
            snap.t_ns, self.playback.reach_ns, tuple(t for t, _key, _value in snap.toggles)
        )

    def _on_speed(self, speed: float) -> None:
        window_ns = window_ns_for(speed)
        if self._graphs is None:
            self._graphs_slot.set_window_ns(window_ns)
        else:
            self._graphs.set_window_ns(window_ns)

    def _on_landed(self, _t_ns: int) -> None:
        """The run was rebuilt at another instant: panels forget the history they drew."""
        for panel in self.panels.values():
            panel.reset()
        self._last_snapshot = None
        self.time_controls.show_event("")

    # ---- lesson highlights ---------------------------------------------------------------------------

    def show_highlight(self, targets: tuple[str, ...]) -> None:
        """Frame the parts of the window a lesson step points at (a panel, a graph, a setting)."""
        self._highlights = targets
        self._place_highlight()

    def _place_highlight(self) -> None:
        central = self.centralWidget()
        if central is None:
            return
        rects = []
        for target in getattr(self, "_highlights", ()):
            widget, sub = self._highlight_target(target)
            if widget is None or not widget.isVisible():
                continue
            top_left = widget.mapTo(central, QPoint(0, 0))
            rect = QRectF(widget.rect()) if sub is None else sub
            rects.append(rect.translated(top_left.x(), top_left.y()))
        self.highlight.show_rects(rects)

    def _highlight_target(self, target: str) -> tuple[QWidget | None, QRectF | None]:
        kind, _, name = target.partition(":")
        panels: dict[str, QWidget] = {
            "lanes": self.cpu_lanes,
            "runqueue": self.runqueue,
            "qdisc": self.qdisc,
            "graphs": cast(QWidget, self.panels["Graphs"]),
            "headline": self.headline,
        }
        if kind in ("runqueue", "qdisc"):
            self.middle.setCurrentWidget(panels[kind])
        if kind in panels:
            return panels[kind], None
        if kind == "graph" and self._graphs is None:  # framed once the graphs are built
            return None, None
        if kind == "graph":
            self.graphs.bring_forward(name)
            return self.graphs, self.graphs.plot_rect(name)
        if kind == "setting":
            box = self.controls.box_of(name)
            if box is not None and box.isVisible():
                return box, None
            tab = self.side.indexOf(self.settings_scroll)  # on a tab: frame the tab's name
            if tab >= 0:
                bar = self.side.tabBar()
                return bar, QRectF(bar.tabRect(tab))
        return None, None

    def _render_front_tab(self, _index: int) -> None:
        front = self.middle.currentWidget()
        for panel in self.panels.values():
            if self._last_snapshot is not None and cast(QWidget, panel) is front:
                panel.render(self._last_snapshot)

    def _arrange_stage(self) -> None:
        self._plan = None
        self.arrange()

    def showEvent(self, event: QShowEvent) -> None:  # Qt override
        super().showEvent(event)
        if not self._shown_once:  # splitter sizes set before the first layout do not stick
            self._shown_once = True
            self._arrange_stage()

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)
        if self._shown_once:
            central = self.centralWidget()
            layout = central.layout() if central is not None else None
            if layout is not None:
                layout.activate()
            self.arrange()
            self._place_highlight()

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
        self.lesson_driver.on_scenario(scenario)
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
        error_box(self, title, message).exec()

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
        path, _ = chosen_path(file_dialog(self, "Open scenario", SCENARIO_FILTER))
        if path:
            self.open_scenario_file(path)

    def export_targets(self) -> dict[str, QWidget]:
        self.finish_startup()
        targets: dict[str, QWidget] = {"Whole window": self}
        for name, panel in self.panels.items():
            if panel is not self.qdisc or self._has_qdisc:
                targets[name] = cast(QWidget, panel)
        targets["Explainer"] = self.explainer
        targets["Controls"] = self.controls
        return targets

    def figure_caption(self) -> str:
        """What a figure's caption says: the story, its settings and seed (the status line), the time."""
        title = self.playback.scenario.title or self.playback.scenario.name
        t_s = self.playback.simulation.now_ns / 1e9
        settings = " · ".join(part.strip() for part in self.status_label.text().split("·") if part.strip())
        return f"schedlab · {title} · {settings} · t = {t_s:.6f} s"

    def export_to(self, target: str, path: str, options: FigureOptions | None = None) -> bool:
        widget = self.export_targets()[target]
        for panel in self.panels.values():
            if self._last_snapshot is not None and cast(QWidget, panel) is widget:
                panel.render(self._last_snapshot)  # a panel behind a tab may be frames behind
        from gui.export import ExportError, export_widget  # only when exporting: it loads the CLI's writers

        source = Path(self.source)
        try:
            export_widget(widget, path, inputs=[source] if source.is_file() else [], options=options)
        except ExportError as exc:
            self.show_error("Export failed", str(exc))
            return False
        self.statusBar().showMessage(f"Exported {target.lower()} to {path}", 5000)
        return True

    def export_dialog(self) -> None:
        from gui.figure_dialog import FigureDialog

        name = "".join(c if c.isalnum() or c in "-_." else "-" for c in self.playback.scenario.name)
        dialog = FigureDialog(self, list(self.export_targets()), f"schedlab-{name}", self.settings)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            dialog.remember()
            self.export_to(
                dialog.target.currentText(), dialog.path.text(), dialog.options(self.figure_caption())
            )

    def toggle_full_screen(self) -> None:
        if self.isFullScreen():
            self.showNormal()
        else:
            self.showFullScreen()
        self.fullscreen_action.setChecked(self.isFullScreen())

    # ---- the look: display mode and zoom ------------------------------------------------------------

    def _restore_theme(self) -> None:
        mode = self.settings.value("view/mode", "standard")
        try:
            zoom = float(self.settings.value("view/zoom", 1.0))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            zoom = 1.0
        self.apply_look(theme.make_theme(str(mode), zoom))

    def set_mode(self, mode: str) -> None:
        """Standard, projector or large text (remembered)."""
        self.apply_look(theme.make_theme(mode, theme.current().zoom))

    def zoom(self, step: int) -> None:
        """One zoom step in (1) or out (-1), or back to actual size (0) (remembered)."""
        now = theme.current()
        self.apply_look(theme.make_theme(now.mode, theme.next_zoom(now.zoom, step)))

    def apply_look(self, look: theme.Theme) -> None:
        theme.set_theme(look)
        self.settings.setValue("view/mode", look.mode)
        self.settings.setValue("view/zoom", look.zoom)
        if look.mode in self.mode_actions:
            self.mode_actions[look.mode].setChecked(True)
        base = QFont(QApplication.font())
        base.setPointSizeF(base.pointSizeF() * look.font_factor)
        self.setFont(base)
        self.setStyleSheet(f"QMainWindow, QScrollArea, QSplitter {{ background: {look.background}; }}")
        rescale_fonts(self)
        for widget in (*self.panels.values(), self.time_controls, self.explainer, self.controls):
            apply = getattr(widget, "apply_theme", None)
            if apply is not None:
                apply()
        self._plan = None
        if self._shown_once:
            self.arrange()

    def shortcut_rows(self) -> list[tuple[str, str, str]]:
        """Every menu item with a shortcut: (menu, key, what it does), in menu order."""
        rows = []
        for menu_action in self.menuBar().actions():
            menu = menu_action.menu()
            for action in menu.actions() if isinstance(menu, QMenu) else []:
                keys = [s.toString(QKeySequence.SequenceFormat.NativeText) for s in action.shortcuts()]
                if keys:
                    rows.append((menu_action.text().replace("&", ""), " or ".join(keys), action.text()))
        return rows

    def show_shortcuts(self) -> None:
        box = QMessageBox(
            QMessageBox.Icon.NoIcon, "Shortcuts", shortcut_sheet_html(self.shortcut_rows()), parent=self
        )
        box.setTextFormat(Qt.TextFormat.RichText)
        f = QFont(box.font())
        f.setPointSize(14)
        box.setFont(f)
        box.exec()

    def show_about(self) -> None:
        QMessageBox.about(self, "About schedlab", about_html())

    # ---- window state -----------------------------------------------------------------------

    def _restore_size(self) -> None:
        """The last size if it fits the screen the window opens on, else fitted to that screen."""
        geometry = self.settings.value("window/geometry")
        screen = self.screen().availableGeometry() if self.screen() is not None else None
        saved = isinstance(geometry, QByteArray) and not geometry.isEmpty()
        restored = saved and self.restoreGeometry(geometry)
        if restored and (screen is None or screen.contains(self.frameGeometry())):
            return
        if screen is None:
            self.resize(*DEFAULT_SIZE)
            return
        # Most of the screen, whatever its size: a classroom reads the window from the back of the room.
        w, h = round(screen.width() * SCREEN_FILL), round(screen.height() * SCREEN_FILL)
        self.resize(min(w, screen.width()), min(h, screen.height()))
        self.move(screen.center() - self.rect().center())

    def closeEvent(self, event: QCloseEvent) -> None:
        keys.uninstall(self.keys)
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
