"""Keyboard shortcuts that work whatever has focus.

A text field takes the keys it can type: a spin box with focus would swallow Space and R (it asks
for them first, Qt's ShortcutOverride) and the arrow keys, so the window's shortcuts would die until
the focus moved. ``ShortcutsFirst`` watches the application's events and, for a text field of its
window, lets every key that is one of the window's shortcuts through to the shortcut instead (after
committing what was typed, as leaving the field would), and makes Escape leave the field. Keys that
are no shortcut (digits, Backspace, Up and Down) stay with the field. It watches only the widget that has
the focus while that is a text field of its window (the application says when the focus moves): a
filter on every event of the application would cost a Python call per event, thousands a second.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QLineEdit, QWidget

from gui.draw.handler_guard import guarded_bool

ESCAPE = 0x01000000  # Qt.Key.Key_Escape


def _field(widget: QWidget | None) -> QWidget | None:
    """The text field ``widget`` belongs to (a spin box's line edit belongs to its spin box)."""
    if widget is None:
        return None
    parent = widget.parentWidget()
    if isinstance(widget, QLineEdit) and isinstance(parent, QAbstractSpinBox):
        return parent
    return widget if isinstance(widget, QAbstractSpinBox | QLineEdit) else None


class ShortcutsFirst(QObject):
    """Installed on the application for one window: its shortcuts beat its text fields."""

    def __init__(self, window: QWidget, rest: QWidget) -> None:
        super().__init__(window)
        self.window = window
        self.rest = rest  # where the focus goes when Escape leaves a field
        self.watched: QWidget | None = None  # the focused text field's widget, while there is one

    def follow_focus(self, _old: QWidget | None, new: QWidget | None) -> None:
        """Watch ``new`` if it is (part of) a text field of the window; stop watching the previous one."""
        if self.watched is not None:
            self.watched.removeEventFilter(self)
            self.watched = None
        field = _field(new)
        if new is not None and field is not None and field.window() is self.window:
            new.installEventFilter(self)
            self.watched = new

    def _shortcuts(self) -> set[QKeySequence]:
        keys: set[QKeySequence] = set()
        for action in self.window.findChildren(QObject):
            shortcuts = getattr(action, "shortcuts", None)
            if callable(shortcuts) and action.metaObject().className() == "QAction":
                keys.update(s for s in shortcuts() if not s.isEmpty())
        return keys

    @guarded_bool
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt override
        kind = event.type()
        if kind not in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress):
            return False
        field = _field(watched if isinstance(watched, QWidget) else None)
        if field is None or field.window() is not self.window or not isinstance(event, QKeyEvent):
            return False
        if kind == QEvent.Type.KeyPress:
            if event.key() == ESCAPE:  # leave the field
                self._commit(field)
                self.rest.setFocus()
                return True
            return False
        if event.key() == ESCAPE:  # to the field as a key press (which leaves it), not to a shortcut
            event.accept()
            return True
        pressed = QKeySequence(event.keyCombination())
        if pressed in self._shortcuts():
            self._commit(field)
            return True  # not accepted by the field: Qt goes on to the shortcut
        return False

    def _commit(self, field: QWidget) -> None:
        if isinstance(field, QAbstractSpinBox):
            field.interpretText()


def install(window: QWidget, rest: QWidget) -> ShortcutsFirst:
    guard = ShortcutsFirst(window, rest)
    app = QApplication.instance()
    if isinstance(app, QApplication):
        app.focusChanged.connect(guard.follow_focus)
        guard.follow_focus(None, app.focusWidget())
    return guard


def uninstall(guard: ShortcutsFirst) -> None:
    app = QApplication.instance()
    if isinstance(app, QApplication):
        app.focusChanged.disconnect(guard.follow_focus)
    guard.follow_focus(None, None)
