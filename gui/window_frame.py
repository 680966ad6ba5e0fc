"""Where the window's panels sit and how much room each gets. Three columns on a wide window (settings |
stage | lesson and story), two on a narrow one (the settings join the lesson and story as a tab | stage);
the stage holds the CPU lanes, the headline numbers across it, then the run queues (or, in a story that
sends packets, the qdisc in front with the run queues a tab away) beside or under the graphs.
``plan_layout`` works the sizes out for the space there is; this module builds the containers once and
applies a plan when it changes.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QScrollArea, QSplitter, QTabWidget, QVBoxLayout, QWidget

from gui.draw import theme
from gui.draw.layout_plan import Plan, plan_layout

RUNQUEUE_TAB = "Run queues: who runs next"
QDISC_TAB = "Packets: the prio qdisc"
LESSON_TAB, STORY_TAB, SETTINGS_TAB = "Lesson", "Story", "Settings"
STAGE_SCROLL = "stage_scroll"  # the scroll area around the stage


class WindowFrame:
    """The splitters, tabs and scroll area around a window's panels (``gui.main_window.MainWindow``,
    passed in: this module sits below it), laid into its central widget."""

    def __init__(self, window: Any, graphs: QWidget) -> None:
        self.window = window
        self.qdisc_shown = False
        self.settings_scroll = QScrollArea()
        self.settings_scroll.setWidget(window.controls)
        self.settings_scroll.setWidgetResizable(True)
        self.settings_scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.settings_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # Run queues, or (in a story that sends packets) the qdisc in front with the run queues a tab away.
        self.middle = QTabWidget()
        self.middle.setDocumentMode(True)
        self.middle.setTabBarAutoHide(True)
        self.middle.addTab(window.runqueue, RUNQUEUE_TAB)
        self.lower_split = QSplitter(Qt.Orientation.Vertical)
        self.lower_split.addWidget(self.middle)
        self.lower_split.addWidget(graphs)
        self.lower_split.setChildrenCollapsible(False)
        # The lanes on top, the headline numbers across the stage under them, then the rest.
        self.stage = QSplitter(Qt.Orientation.Vertical)
        self.stage.addWidget(window.cpu_lanes)
        self.stage.addWidget(window.headline)
        self.stage.addWidget(self.lower_split)
        self.stage.setChildrenCollapsible(False)
        # A window too short for the stage's least height (large text, many CPUs, a small screen)
        # scrolls the stage rather than growing past the screen.
        self.stage_scroll = QScrollArea()
        self.stage_scroll.setObjectName(STAGE_SCROLL)
        self.stage_scroll.setWidget(self.stage)
        self.stage_scroll.setWidgetResizable(True)
        self.stage_scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.stage_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.stage_scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the keys stay the window's
        # The lesson and the story told in words; on a narrow screen the settings join them as a tab.
        self.side = QTabWidget()
        self.side.setDocumentMode(True)
        self.side.addTab(window.lesson_panel, LESSON_TAB)
        self.side.addTab(window.explainer, STORY_TAB)
        self.body = QSplitter(Qt.Orientation.Horizontal)
        self.body.setChildrenCollapsible(False)
        self._wide: bool | None = None
        self._switch_pending = False  # a change of columns waits for the event loop (``arrange``)
        self.plan: Plan | None = None  # the one applied last; None lays out again whatever the next is
        self.central = central = QWidget()
        self._outer = outer = QVBoxLayout(central)
        outer.setContentsMargins(4, 2, 4, 0)
        outer.setSpacing(2)
        outer.addWidget(window.time_controls)
        outer.addWidget(self.body, 1)
        window.setCentralWidget(central)
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
            for i, w in enumerate((self.settings_scroll, self.stage_scroll, self.side)):
                self.body.insertWidget(i, w)
            self.settings_scroll.show()  # a page taken off the tabs stays hidden otherwise
        else:
            self.body.insertWidget(0, self.side)
            self.body.insertWidget(1, self.stage_scroll)
            self.side.addTab(self.settings_scroll, SETTINGS_TAB)
        self.body.setStretchFactor(self.body.indexOf(self.stage_scroll), 1)

    def arrange(self, columns_now: bool = False) -> None:
        """Lay the window out for the space it has now (``plan_layout``). A change between three
        columns and two waits for the event loop unless ``columns_now`` (the window's first show): it
        moves the settings between the body and the side tabs, and moved while Qt was laying a shown
        window out (a resize, or a panel asking for more height during one) they left the body's
        splitter a null child, and the next layout crashed."""
        size = self.body.size()
        if size.width() <= 0 or size.height() <= 0:
            return
        lanes = self.window.cpu_lanes
        # What each part needs before the folds (the plan chooses them): the same figures whichever
        # folds are in force now, so that a plan does not undo itself on the next layout.
        headline = self.window.headline.full_height(compact=False)
        bar = self.settings_scroll.verticalScrollBar().sizeHint().width()
        plan = plan_layout(
            size.width(),
            size.height() - headline,
            lanes.needed_height(legend=True, merged=False, compact=False),
            lanes.size_hint_height(legend=True, merged=False),
            self.qdisc_shown,
            theme.current().font_factor,
            self.window.controls.minimumSizeHint().width() + bar + 36,  # and the tab frame around it
            lanes.legend_height(),
            (
                lanes.needed_height(legend=False, merged=True, compact=False),
                lanes.size_hint_height(legend=False, merged=True),
            ),
            self.window.headline.caption_under_height(),
            self.window.headline.compact_saving(),
            lanes.needed_height(legend=False, merged=True, compact=True),
        )
        if plan == self.plan:
            return
        if plan.wide != self._wide and not columns_now:
            if not self._switch_pending:  # once, and never after the window is gone
                self._switch_pending = True
                QTimer.singleShot(0, self.body, self._switch_columns)
            return
        self.plan = plan
        lanes.fold_legend(not plan.lanes_legend)
        lanes.merge_quiet(plan.lanes_merged)
        self.window.headline.fold_caption(not plan.caption)
        self.window.headline.compact_tiles(plan.compact)
        lanes.compact_lanes(plan.compact)
        headline = self.window.headline.height()
        lanes.setMinimumHeight(lanes.needed_height())  # the splitter never hides a CPU's lane
        self._arrange_columns(plan.wide)
        self.body.setSizes(list(plan.columns))
        self.lower_split.setOrientation(
            Qt.Orientation.Vertical if plan.stacked else Qt.Orientation.Horizontal
        )
        self.stage.setSizes([plan.lanes_h, headline, max(size.height() - plan.lanes_h - headline, 1)])
        self.lower_split.setSizes(list(plan.lower))

    def _switch_columns(self) -> None:
        self._switch_pending = False
        self.rearrange(columns_now=True)
        self._outer.activate()  # the panels' new places now, for the lesson's highlights
        self.window.place_highlight()

    def rearrange(self, columns_now: bool = False) -> None:
        """Lay the window out again even if the space is the same: what the panels need has changed."""
        self.plan = None
        self.arrange(columns_now)

    def show_qdisc_tab(self, shown: bool) -> None:
        self.qdisc_shown = shown
        qdisc = self.window.qdisc
        index = self.middle.indexOf(qdisc)
        if shown and index < 0:
            self.middle.insertTab(0, qdisc, QDISC_TAB)
            self.middle.setCurrentWidget(qdisc)
        elif not shown and index >= 0:
            self.middle.removeTab(index)
            qdisc.setParent(self.window)  # keep it owned while out of the tabs
            qdisc.hide()

    def put_graphs(self, placeholder: QWidget, graphs: QWidget) -> None:
        """The graphs take the placeholder's place, at its size."""
        sizes = self.lower_split.sizes()
        self.lower_split.replaceWidget(self.lower_split.indexOf(placeholder), graphs)
        self.lower_split.setSizes(sizes)
