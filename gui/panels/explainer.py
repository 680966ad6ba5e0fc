"""The story told in words: what to watch for and why, with the key quotes from the original mails.

Each built-in story has a lesson in ``resources/lessons/<scenario-name>.md`` (or ``.html``), found by
the built-in's name (``Scenario.builtin``); a scenario without one (any user's file, whatever its
``name``) gets its title and ``description``. Above the lesson, the "Now:" line says
what ``sched_yield()`` does under the scheduler and tunables now chosen, in the policy's own words (its
registry entry's ``describe_yield``): the heart of the 2007 story, and it changes with the controls.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from html import escape
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSize
from PySide6.QtGui import QFont, QTextCursor, QTextDocument
from PySide6.QtWidgets import QLabel, QTextBrowser, QVBoxLayout, QWidget

from model import resource_root
from model.scenario import Scenario
from model.sched import POLICIES

LESSON_DIR = resource_root() / "lessons"
TEXT_PT = 13


def lesson_path(name: str) -> Path | None:
    """The lesson of the built-in scenario ``name``: a file of ``resources/lessons/`` by exact name."""
    for suffix in (".md", ".html"):
        path = LESSON_DIR / f"{name}{suffix}"
        if name and path in LESSON_DIR.iterdir():  # so no name ("../x") reaches outside the folder
            return path
    return None


def yield_meaning(settings: Mapping[str, Any]) -> str:
    """What sched_yield() does under these settings: the chosen policy's words, given its own tunables."""
    info = POLICIES.get(str(settings.get("sched.policy", "")))
    if info is None:
        return ""
    own = {t.key: int(settings.get(f"sched.{t.key}", t.default)) for t in info.tunables}
    return info.describe_yield(own)


class ExplainerPanel(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.now_label = QLabel()
        self.now_label.setWordWrap(True)
        self.now_label.setStyleSheet(
            "QLabel { background: #FFF6D5; border: 1px solid #E69F00; padding: 6px; color: #222222; }"
        )
        self.browser = QTextBrowser()
        self.browser.setOpenExternalLinks(True)
        self.browser.setStyleSheet("QTextBrowser { background: white; color: #222222; }")
        for w in (self.now_label, self.browser):
            f = QFont(w.font())
            f.setPointSize(TEXT_PT)
            w.setFont(f)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.now_label)
        layout.addWidget(self.browser, 1)
        self.lesson_name = ""
        self._lesson_of = ""  # the built-in whose lesson is shown ("" for a description)
        self._yields = False

    def set_scenario(self, scenario: Scenario) -> None:
        """Show the lesson of ``scenario`` (or its description) and what a yield means in it."""
        shown = (self.lesson_name, self._lesson_of)
        if (scenario.name, scenario.builtin) != shown or not self.browser.toPlainText():
            self._load_lesson(scenario)
        self._yields = scenario.may_yield  # the "Now:" line is about that
        self.show_settings(scenario.settings())

    def show_settings(self, settings: Mapping[str, Any]) -> None:
        """The "Now:" line for these effective settings (shown only where something yields)."""
        text = yield_meaning(settings) if self._yields else ""
        self.now_label.setText(f"<b>Now:</b> {escape(text)}" if text else "")
        self.now_label.setVisible(bool(text))

    def _load_lesson(self, scenario: Scenario) -> None:
        self.lesson_name, self._lesson_of = scenario.name, scenario.builtin
        path = lesson_path(scenario.builtin)  # only a built-in scenario has a lesson, a user's file none
        text = path.read_text(encoding="utf-8", errors="replace") if path is not None else ""
        if path is not None and path.suffix == ".md":
            self.browser.document().setMarkdown(text, QTextDocument.MarkdownFeature.MarkdownDialectGitHub)
        elif path is not None:
            self.browser.setHtml(text)
        else:
            title = escape(scenario.title or scenario.name)
            body = escape(scenario.description.strip() or "This scenario has no description.")
            self.browser.setHtml(f"<h2>{title}</h2><p>{body.replace(chr(10) * 2, '</p><p>')}</p>")
        self.browser.moveCursor(QTextCursor.MoveOperation.Start)
        self.browser.verticalScrollBar().setValue(0)

    def figure_size(self) -> QSize:
        """Its figure's size (``gui.figures``): as wide as it is, tall enough for the whole text."""
        document = self.browser.document().clone()
        document.setTextWidth(self.browser.viewport().width())
        chrome = self.height() - self.browser.viewport().height()  # the "Now:" line, frames and margins
        return QSize(self.width(), chrome + math.ceil(document.size().height()) + 2)

    def lesson_text(self) -> str:
        return self.browser.toPlainText()
