"""The explainer window: composes the panels around one Playback and wires signals; nothing else.

Data flows down (``Playback.snapshot_ready`` → every panel's ``render``), requests flow up (control
signals → Playback). The window holds no simulation logic and no plotting code. It carries out the
commands of its menus (``gui.window_menus``: open a scenario, full screen, display mode and zoom;
export is ``gui.window_export``), frames what a lesson step points at, and keeps a status line with
the key settings; where the panels sit is ``gui.window_frame``, what it remembers between sessions
``gui.window_settings``. Bad input (a bad file, a bad value, an export that cannot be written) becomes
a plain-text dialog; the run in progress is kept. Its file dialogs never read the files they list
(``gui.file_dialogs``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol, cast

from PySide6.QtCore import QPoint, QRectF, QSettings, Qt, QTimer
from PySide6.QtGui import (
    QCloseEvent,
    QColor,
    QDragEnterEvent,
    QDropEvent,
    QFont,
    QPaintEvent,
    QPalette,
    QResizeEvent,
    QShowEvent,
)
from PySide6.QtWidgets import QApplication, QMainWindow, QWidget

from gui import keys  # pyside_fix: before any signal is emitted
from gui.draw import palette, theme
from gui.draw.handler_guard import guarded
from gui.draw.series import window_ns_for
from gui.file_dialogs import SCENARIO_FILTER, chosen_path, dropped_scenario, error_box, file_dialog
from gui.lesson_driver import LessonDriver
from gui.panels.base import rescale_fonts
from gui.panels.controls import ControlsPanel
from gui.panels.cpu_lanes import CpuLanesPanel
from gui.panels.explainer import ExplainerPanel
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
from gui.window_frame import WindowFrame
from gui.window_menus import build_menus
from gui.window_settings import (
    default_settings,
    remember_look,
    remember_recent,
    remember_size,
    remember_story,
    restore_size,
    saved_look,
)
from model.rtapp import load_any
from model.scenario import Scenario, ScenarioError, load_scenario
from model.snapshot import Snapshot

if TYPE_CHECKING:
    from gui.panels.graphs import GraphsPanel

UNPARKABLE = "Going back replays this run from its start: its state cannot be saved ({why})"
FOLLOW_MESSAGE_MS = 4_000  # how long the status line names the task followed
UNPARKABLE_MS = 10_000  # how long the status line says so after a landing


class Panel(Protocol):
    """What the window asks of a stage panel (a QWidget): draw a snapshot, forget the past."""

    def render(self, snapshot: Snapshot) -> None: ...
    def reset(self) -> None: ...


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
        self._shape: tuple[int, bool] = (0, False)
        self._shown_once = False
        self._startup_pending = defer_graphs  # the graphs are built after the first painted frame
        self.frame = WindowFrame(self, self._graphs_slot)
        self.highlight = HighlightOverlay(self.frame.central)
        self.statusBar().addWidget(self.status_label, 1)
        for area in (self.frame.settings_scroll, self.explainer.browser, self.lesson_panel.narration):
            cache_scroll_bars(area)  # Fusion takes milliseconds to draw a tall one (gui.panels.scroll_bars)
        cache_scroll_bars(self.lesson_panel.steps)
        self.fullscreen_action, self.mode_actions = build_menus(self)
        self.setAcceptDrops(True)  # a scenario file dropped on the window opens
        self._wire()
        restore_size(self, self.settings)
        self.apply_look(saved_look(self.settings))
        self.keys = keys.install(self, self.frame.stage)  # shortcuts beat text fields; Escape leaves one
        self.frame.stage.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._on_restarted(scenario)
        self.playback.refresh()
        if not defer_graphs:
            self.finish_startup()

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
        self.frame.put_graphs(slot, graphs)
        slot.deleteLater()
        self._graphs = graphs
        self.panels["Graphs"] = graphs
        if slot.snapshot is not None:
            graphs.render(slot.snapshot)
        self.place_highlight()

    @guarded
    def paintEvent(self, event: QPaintEvent) -> None:  # Qt override
        super().paintEvent(event)
        if self._startup_pending:  # the first frame is being painted: the rest follows it
            self._startup_pending = False
            QTimer.singleShot(0, self, self.finish_startup)

    def _wire(self) -> None:
        pb, tc, ctl = self.playback, self.time_controls, self.controls
        pb.snapshot_ready.connect(self._on_snapshot)
        pb.restarted.connect(self._on_restarted)
        pb.error.connect(self._on_error)
        pb.landed.connect(self._on_landed)
        self.frame.middle.currentChanged.connect(self._render_front_tab)
        self.headline.height_changed.connect(self.frame.rearrange)
        self.cpu_lanes.needed_height_changed.connect(self.frame.rearrange)
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
        self.cpu_lanes.task_clicked.connect(self.follow_task)
        self.runqueue.task_clicked.connect(self.follow_task)
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
            self.frame.show_qdisc_tab(shape[1])
            self.cpu_lanes.render(snap)  # its lane count decides the stage's split
            self.frame.rearrange()
        last, self._last_snapshot = self._last_snapshot, snap
        if last is None or len(last.tasks) != len(snap.tasks):  # a new run, or a task forked
            palette.colour_tasks((t.tid, t.role) for t in snap.tasks)
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
        why = self.playback.rewinder.unparkable
        if why is not None:  # every landing replays from t = 0: slower, so say why
            self.statusBar().showMessage(UNPARKABLE.format(why=why), UNPARKABLE_MS)

    # ---- lesson highlights ---------------------------------------------------------------------------

    def show_highlight(self, targets: tuple[str, ...]) -> None:
        """Frame the parts of the window a lesson step points at (a panel, a graph, a setting)."""
        self._highlights = targets
        self.place_highlight()

    def place_highlight(self, bring_forward: bool = True) -> None:
        """Frame the lesson's targets where they are now (after a resize, a change of columns, or a
        framed part that moved); ``bring_forward`` first puts a framed panel's tab or graph in front
        (not when the frames only follow: the class may have chosen another tab since)."""
        central = self.centralWidget()
        if central is None:
            return
        rects = []
        framed: list[QWidget] = []
        for target in getattr(self, "_highlights", ()):
            widget, sub = self._highlight_target(target, bring_forward)
            if widget is None:
                continue
            framed.append(widget)  # watched while hidden too: it may come back on its tab
            if not widget.isVisible():
                continue
            top_left = widget.mapTo(central, QPoint(0, 0))
            rect = QRectF(widget.rect()) if sub is None else sub
            rects.append(rect.translated(top_left.x(), top_left.y()))
        self.highlight.show_rects(rects)
        self.highlight.follow(framed, lambda: self.place_highlight(bring_forward=False))

    def _highlight_target(self, target: str, bring_forward: bool) -> tuple[QWidget | None, QRectF | None]:
        kind, _, name = target.partition(":")
        panels: dict[str, QWidget] = {
            "lanes": self.cpu_lanes,
            "runqueue": self.runqueue,
            "qdisc": self.qdisc,
            "graphs": cast(QWidget, self.panels["Graphs"]),
            "headline": self.headline,
        }
        if kind in ("runqueue", "qdisc") and bring_forward:
            self.frame.middle.setCurrentWidget(panels[kind])
        if kind in panels:
            return panels[kind], None
        if kind == "graph" and self._graphs is None:  # framed once the graphs are built
            return None, None
        if kind == "graph":
            if bring_forward:
                self.graphs.bring_forward(name)
            return self.graphs, self.graphs.plot_rect(name)
        if kind == "setting":
            box = self.controls.box_of(name)
            if box is not None and box.isVisible():
                return box, None
            tab = self.frame.side.indexOf(self.frame.settings_scroll)  # on a tab: frame the tab's name
            if tab >= 0:
                bar = self.frame.side.tabBar()
                return bar, QRectF(bar.tabRect(tab))
        return None, None

    def _render_front_tab(self, _index: int) -> None:
        self.render_latest(self.frame.middle.currentWidget())

    def render_latest(self, widget: QWidget | None) -> None:
        """Draw the latest snapshot in ``widget`` if it is a panel: one behind a tab may be frames behind."""
        for panel in self.panels.values():
            if self._last_snapshot is not None and cast(QWidget, panel) is widget:
                panel.render(self._last_snapshot)

    @guarded
    def showEvent(self, event: QShowEvent) -> None:  # Qt override
        super().showEvent(event)
        if not self._shown_once:  # splitter sizes set before the first layout do not stick
            self._shown_once = True
            self.frame.rearrange(columns_now=True)  # the first frame in the right columns

    @guarded
    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)
        if self._shown_once:
            central = self.centralWidget()
            layout = central.layout() if central is not None else None
            if layout is not None:
                layout.activate()
            self.frame.arrange()
            self.place_highlight()

    def follow_task(self, tid: int) -> None:
        """A click on a task: follow it in the CPU lanes and the run queue (the others fade); a click on
        the task followed stops."""
        tid = self.cpu_lanes.follows_after_click(tid)
        self.cpu_lanes.follow(tid)
        self.runqueue.follow(tid)
        names = {t.tid: t.name for t in self._last_snapshot.tasks} if self._last_snapshot else {}
        words = (
            f"Following {names.get(tid, f'task {tid}')}: click it again to stop"
            if tid
            else "Following no task"
        )
        self.statusBar().showMessage(words, FOLLOW_MESSAGE_MS)

    def clear_marks(self) -> None:
        """Escape: no interval measured on the lanes, no task followed."""
        self.cpu_lanes.set_measured(None)
        self.cpu_lanes.follow(0)
        self.runqueue.follow(0)

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
            snap.settings, self.playback.seed, scenario.has_qdisc, scenario.may_yield
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
            scenario = load_any(path)  # a scenario file, or an rt-app workload as the command line reads one
        except ScenarioError as exc:
            self.show_error("Cannot open this scenario", str(exc))
            return False
        if not self._load(scenario, str(Path(path).resolve())):
            return False
        remember_recent(self.settings, path)
        return True

    def _load(self, scenario: Scenario, source: str) -> bool:
        if not self.playback.load(scenario):
            return False
        self.source = source
        remember_story(self.settings, source)
        return True

    def open_scenario_dialog(self) -> None:
        path, _ = chosen_path(file_dialog(self, "Open scenario", SCENARIO_FILTER))
        if path:
            self.open_scenario_file(path)

    @guarded
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if dropped_scenario(event.mimeData()) is not None:
            event.acceptProposedAction()

    @guarded
    def dropEvent(self, event: QDropEvent) -> None:
        """A scenario file dropped on the window opens, as File ▸ Open scenario… would open it."""
        path = dropped_scenario(event.mimeData())
        if path is not None:
            event.acceptProposedAction()
            # After the drop has ended: a bad file's dialog must not block the drag's source.
            QTimer.singleShot(0, lambda: self.open_scenario_file(path))

    def toggle_full_screen(self) -> None:
        if self.isFullScreen():
            self.showNormal()
        else:
            self.showFullScreen()
        self.fullscreen_action.setChecked(self.isFullScreen())

    # ---- the look: display mode and zoom ------------------------------------------------------------

    def set_mode(self, mode: str) -> None:
        """Standard, projector or large text (remembered)."""
        self.apply_look(theme.make_theme(mode, theme.current().zoom))

    def zoom(self, step: int) -> None:
        """One zoom step in (1) or out (-1), or back to actual size (0) (remembered)."""
        now = theme.current()
        self.apply_look(theme.make_theme(now.mode, theme.next_zoom(now.zoom, step)))

    def apply_look(self, look: theme.Theme) -> None:
        theme.set_theme(look)
        remember_look(self.settings, look)
        if look.mode in self.mode_actions:
            self.mode_actions[look.mode].setChecked(True)
        base = QFont(QApplication.font())
        base.setPointSizeF(base.pointSizeF() * look.font_factor)
        self.setFont(base)
        colours = self.palette()
        colours.setColor(QPalette.ColorRole.Window, QColor(look.background))
        self.setPalette(colours)
        rescale_fonts(self)
        # The panels, and the windows it opened (a comparison): they do not inherit its font.
        windows = self.findChildren(QMainWindow)
        for widget in (*self.panels.values(), self.time_controls, self.explainer, self.controls, *windows):
            apply = getattr(widget, "apply_theme", None)
            if apply is not None:
                apply()
        self.frame.plan = None
        if self._shown_once:
            self.frame.arrange()

    # ---- window state -----------------------------------------------------------------------

    @guarded
    def closeEvent(self, event: QCloseEvent) -> None:
        keys.uninstall(self.keys)
        self.playback.stop()
        remember_size(self, self.settings)
        remember_story(self.settings, self.source)
        self.settings.sync()
        super().closeEvent(event)
