"""The guided lesson: the step's narration, Back and Next, the list of steps, and leave or rejoin.

The panel keeps no lesson state of its own: the driver (``gui.lesson_driver``) says what to show
(``set_lesson``, ``show_step``, ``show_status``, ``set_joined``) and the panel emits what the class
asks for (``go_to``, ``leave_requested``, ``rejoin_requested``). The narration is the step's Markdown.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QResizeEvent, QTextDocument
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from gui.draw.handler_guard import guarded
from gui.lessons import Lesson
from gui.panels.base import rescale_fonts, styled_font

TEXT_PT = 13
NO_LESSON = "This scenario has no guided lesson: its story is on the Story tab."
INTRO = "Press **Next** (or PageDown) to begin. Back and Next step through; pick any step in the list."
# At most this share of the height below the buttons goes to the step list: the narration is what the
# class reads.
STEPS_SHARE = 0.3


class LessonPanel(QWidget):
    go_to = Signal(int)  # a step index
    leave_requested = Signal()
    rejoin_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._lesson: Lesson | None = None
        self._index = -1
        self._joined = False
        self.title = QLabel()
        self.title.setWordWrap(True)
        styled_font(self.title, TEXT_PT + 1, bold=True)
        self.step_label = QLabel()
        self.step_label.setWordWrap(True)
        styled_font(self.step_label, TEXT_PT, bold=True)
        self.back_button = self._button("◂ Back", "The previous step (PageUp)")
        self.next_button = self._button("Next ▸", "The next step (PageDown)")
        self.leave_button = self._button("Leave", "Leave the lesson and play freely; rejoin any time")
        self.back_button.clicked.connect(lambda: self.go_to.emit(self._index - 1))
        self.next_button.clicked.connect(lambda: self.go_to.emit(self._index + 1))
        self.leave_button.clicked.connect(self._on_leave)
        self.status = QLabel()
        self.status.setWordWrap(True)
        styled_font(self.status, TEXT_PT - 1)
        self.narration = QTextBrowser()
        self.narration.setOpenExternalLinks(True)
        styled_font(self.narration, TEXT_PT)
        self.steps = QListWidget()
        styled_font(self.steps, TEXT_PT - 1)
        self.steps.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        # A long step title wraps within the column instead of running off under a sideways scroll bar.
        self.steps.setWordWrap(True)
        self.steps.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.steps.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.steps.itemClicked.connect(lambda item: self.go_to.emit(self.steps.row(item)))
        self._layout()
        self.set_lesson(None)

    def _button(self, text: str, tip: str) -> QPushButton:
        b = QPushButton(text)
        styled_font(b, TEXT_PT - 1, bold=True)
        b.setToolTip(tip)
        b.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        return b

    def _layout(self) -> None:
        column = QVBoxLayout(self)
        column.setContentsMargins(4, 4, 4, 4)
        column.addWidget(self.title)
        buttons = QHBoxLayout()
        for b in (self.back_button, self.next_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        buttons.addWidget(self.leave_button)
        column.addLayout(buttons)
        column.addWidget(self.step_label)
        column.addWidget(self.status)
        self._split = split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.narration)
        split.addWidget(self.steps)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 0)
        split.setChildrenCollapsible(False)
        column.addWidget(split, 1)
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

    # ---- what the driver says ------------------------------------------------------------------

    def set_lesson(self, lesson: Lesson | None) -> None:
        self._lesson, self._index = lesson, -1
        self.steps.clear()
        has = lesson is not None
        for w in (self.back_button, self.next_button, self.leave_button, self.steps, self.step_label):
            w.setVisible(has)
        if lesson is None:
            self.title.setText("No guided lesson")
            self._narrate(NO_LESSON)
            self.status.setText("")
            return
        self.title.setText(lesson.title)
        for i, step in enumerate(lesson.steps, start=1):
            self.steps.addItem(QListWidgetItem(f"{i}. {step.title}"))
        self.step_label.setText(f"{len(lesson.steps)} steps")
        self._narrate(INTRO)
        self.status.setText("")
        self._update_buttons()
        self._fit_steps()

    def show_step(self, index: int) -> None:
        assert self._lesson is not None
        self._index = index
        step = self._lesson.steps[index]
        self.step_label.setText(f"Step {index + 1} of {len(self._lesson.steps)}: {step.title}")
        self._narrate(step.narrate)
        self.steps.setCurrentRow(index)
        self._update_buttons()

    def show_status(self, text: str) -> None:
        self.status.setText(text)

    def set_joined(self, joined: bool) -> None:
        self._joined = joined
        self.leave_button.setText("Leave" if joined else "Rejoin")
        self.leave_button.setToolTip(
            "Leave the lesson and play freely; rejoin any time"
            if joined
            else "Back into the lesson at the step shown"
        )
        self._update_buttons()

    def _on_leave(self) -> None:
        (self.leave_requested if self._joined else self.rejoin_requested).emit()

    def _update_buttons(self) -> None:
        n = len(self._lesson.steps) if self._lesson is not None else 0
        self.back_button.setEnabled(self._index > 0)
        self.next_button.setEnabled(self._index + 1 < n)
        self.leave_button.setEnabled(self._index >= 0)

    def _narrate(self, markdown: str) -> None:
        self.narration.document().setMarkdown(
            markdown.strip(), QTextDocument.MarkdownFeature.MarkdownDialectGitHub
        )

    def apply_theme(self) -> None:
        rescale_fonts(self)
        self._fit_steps()

    @guarded
    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)
        self._fit_steps()

    def _fit_steps(self) -> None:
        """Size the step list to whole rows: every step if they take at most ``STEPS_SHARE`` of the
        height below the buttons, else as many whole rows as fit there (the rest scroll). A row cut in
        half at the bottom reads as a step that is missing its end."""
        total = sum(self._split.sizes())
        if self.steps.isHidden() or self.steps.count() == 0 or total <= 0:
            return
        self.steps.doItemsLayout()  # rows wrap at the list's width: lay them out before measuring
        spacing = 2 * self.steps.spacing()
        height = 2 * self.steps.frameWidth()
        cap = int(total * STEPS_SHARE)
        for row in range(self.steps.count()):
            row_h = self.steps.visualRect(self.steps.model().index(row, 0)).height() + spacing
            if row and height + row_h > cap:
                break
            height += row_h
            if not row:  # below Qt's own minimum for a list (70 px) when one row is all there is room for
                self.steps.setMinimumHeight(height)
        self._split.setSizes([total - height, height])

    @property
    def index(self) -> int:
        return self._index
