"""The window's menu bar: File, Playback, View, Lesson and Help, every item with its keyboard shortcut,
and what only Help shows (the shortcut sheet, read off the menus themselves, and About). The items call
the window's commands (``gui.main_window.MainWindow``, passed in: this module sits below it) and the
dialogs behind File, which load when first opened.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QSize
from PySide6.QtGui import QAction, QActionGroup, QFont, QKeySequence, QTextDocument
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFrame,
    QMainWindow,
    QMenu,
    QMenuBar,
    QMessageBox,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from gui.draw import theme
from gui.draw.help_text import about_html, shortcut_sheet_html
from gui.window_export import export_dialog
from gui.window_settings import forget_recent, recent_files

SHEET_SCALES = (1.4, 1.25, 1.1, 1.0)  # the sheet's text against the window's: read across a classroom


def build_menus(window: Any) -> tuple[QAction, dict[str, QAction]]:
    """Fill the window's menu bar; the full screen item and the display mode items, to keep checked."""
    bar = window.menuBar()
    _file_menu(window, bar.addMenu("&File"))
    _playback_menu(window, bar.addMenu("&Playback"))
    fullscreen_action, mode_actions = _view_menu(window, bar.addMenu("&View"))
    _lesson_menu(window, bar.addMenu("&Lesson"))
    _help_menu(window, bar.addMenu("&Help"))
    return fullscreen_action, mode_actions


def menu_action(
    window: QMainWindow, menu: Any, text: str, key: str | QKeySequence | QKeySequence.StandardKey, slot: Any
) -> QAction:
    action = QAction(text, window)
    action.setShortcut(QKeySequence(key))
    action.triggered.connect(slot)
    menu.addAction(action)
    window.addAction(action)  # shortcuts keep working in full screen, with the menu bar hidden
    return action


def _file_menu(window: Any, menu: QMenu) -> None:
    menu_action(window, menu, "Open scenario…", QKeySequence.StandardKey.Open, window.open_scenario_dialog)
    recent = menu.addMenu("Open recent")
    recent.aboutToShow.connect(lambda: fill_recent(window, recent))
    menu_action(
        window, menu, "Save scenario as…", QKeySequence.StandardKey.Save, lambda: _open_save_dialog(window)
    )
    menu_action(window, menu, "Export…", "Ctrl+Shift+S", lambda: export_dialog(window))
    menu_action(window, menu, "Export video…", "Ctrl+Shift+V", lambda: _open_video_dialog(window))
    menu_action(window, menu, "Export data (CSV, JSON)…", "Ctrl+Shift+D", lambda: _open_data_dialog(window))
    menu_action(window, menu, "Compare…", "Ctrl+Shift+C", lambda: _open_compare_dialog(window))
    menu.addSeparator()
    menu_action(window, menu, "Quit", "Ctrl+Q", window.close)


def fill_recent(window: Any, menu: QMenu) -> None:
    """File ▸ Open recent, as it is when opened: the files opened or saved lately, each with its folder."""
    menu.clear()
    paths = recent_files(window.settings)
    for path in paths:
        action = menu.addAction(f"{Path(path).name}   ({Path(path).parent})")
        action.triggered.connect(lambda _=False, p=path: window.open_scenario_file(p))
    if not paths:
        menu.addAction("No scenario files yet").setEnabled(False)
        return
    menu.addSeparator()
    menu.addAction("Clear the list").triggered.connect(lambda: forget_recent(window.settings))


def _playback_menu(window: Any, menu: QMenu) -> None:
    tc = window.time_controls
    for action in (tc.play_action, tc.step_action, tc.back_action, tc.back_second_action):
        menu.addAction(action)
    menu.addAction(tc.start_action)
    menu.addAction(tc.end_action)
    menu.addSeparator()
    for action in tc.speed_actions.values():
        menu.addAction(action)
    menu.addSeparator()
    menu.addAction(tc.reset_action)


def _view_menu(window: Any, menu: QMenu) -> tuple[QAction, dict[str, QAction]]:
    fullscreen_action = menu_action(window, menu, "Full screen", "F11", window.toggle_full_screen)
    fullscreen_action.setCheckable(True)
    menu_action(window, menu, "Clear the interval and the task followed", "Escape", window.clear_marks)
    menu.addSeparator()
    mode_actions: dict[str, QAction] = {}
    modes = QActionGroup(window)
    for mode, key in zip(theme.MODES, ("Ctrl+1", "Ctrl+2", "Ctrl+3"), strict=True):
        action = menu_action(
            window, menu, theme.MODE_LABELS[mode], key, lambda _=False, m=mode: window.set_mode(m)
        )
        action.setCheckable(True)
        modes.addAction(action)
        mode_actions[mode] = action
    menu.addSeparator()
    zoom_in = menu_action(window, menu, "Zoom in", "Ctrl+=", lambda: window.zoom(1))
    zoom_in.setShortcuts([QKeySequence("Ctrl+="), QKeySequence("Ctrl++")])  # with or without Shift
    menu_action(window, menu, "Zoom out", "Ctrl+-", lambda: window.zoom(-1))
    menu_action(window, menu, "Actual size", "Ctrl+0", lambda: window.zoom(0))
    return fullscreen_action, mode_actions


def _lesson_menu(window: Any, menu: QMenu) -> None:
    driver = window.lesson_driver
    menu_action(window, menu, "Next step", "PgDown", driver.next)
    menu_action(window, menu, "Previous step", "PgUp", driver.back)
    menu_action(window, menu, "Leave the lesson", "Ctrl+L", driver.leave)
    menu_action(window, menu, "Rejoin the lesson", "Ctrl+J", driver.rejoin)


def _help_menu(window: Any, menu: QMenu) -> None:
    menu_action(window, menu, "Shortcuts", "?", lambda: show_shortcuts(window))
    about = QAction("About schedlab", window)
    about.setMenuRole(QAction.MenuRole.AboutRole)
    about.triggered.connect(lambda: show_about(window))
    menu.addAction(about)


# The dialogs behind File are imported when first opened: the window maps sooner without them.


def _open_video_dialog(window: Any) -> None:
    from gui.video_dialog import video_dialog

    video_dialog(window)


def _open_save_dialog(window: Any) -> None:
    from gui.scenario_save import save_scenario_dialog

    save_scenario_dialog(window)


def _open_data_dialog(window: Any) -> None:
    from gui.data_export import data_dialog

    data_dialog(window)


def _open_compare_dialog(window: Any) -> None:
    from gui.compare_dialog import compare_dialog

    compare_dialog(window)


def shortcut_rows(bar: QMenuBar) -> list[tuple[str, str, str]]:
    """Every menu item with a shortcut: (menu, key, what it does), in menu order."""
    rows = []
    for item in bar.actions():
        menu = item.menu()
        for action in menu.actions() if isinstance(menu, QMenu) else []:
            keys = [s.toString(QKeySequence.SequenceFormat.NativeText) for s in action.shortcuts()]
            if keys:
                rows.append((item.text().replace("&", ""), " or ".join(keys), action.text()))
    return rows


def show_shortcuts(window: QMainWindow) -> None:
    shortcut_sheet(window).exec()


def shortcut_sheet(window: QMainWindow, room: QSize | None = None) -> QDialog:
    """The `?` sheet as a dialog that fits ``room`` (the window's screen, less a margin): the menus in
    as many columns side by side as fit, in the largest text that lets all of it show at once; on a
    screen too small for that, one column that scrolls."""
    if room is None:
        room = window.screen().availableGeometry().size() * 0.9
    dialog = QDialog(window)
    dialog.setWindowTitle("Shortcuts")
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok, dialog)
    buttons.accepted.connect(dialog.accept)
    chrome = QSize(48, buttons.sizeHint().height() + 48)  # margins, the text's frame, the OK row
    html, font, size = _fitted_sheet(shortcut_rows(window.menuBar()), QFont(window.font()), room - chrome)
    text = QTextBrowser(dialog)
    text.setFrameShape(QFrame.Shape.NoFrame)
    text.setFont(font)
    text.document().setDefaultFont(font)
    text.setHtml(html)
    layout = QVBoxLayout(dialog)
    layout.addWidget(text)
    layout.addWidget(buttons)
    dialog.resize((size + chrome).boundedTo(room))
    return dialog


def _fitted_sheet(rows: list[tuple[str, str, str]], base: QFont, room: QSize) -> tuple[str, QFont, QSize]:
    """(html, font, size) of the sheet: the first of the scales and column counts whose text, wrapped
    to ``room``'s width, fits its height; else one column at the window's own size (it scrolls)."""
    doc = QTextDocument()
    for scale in SHEET_SCALES:
        font = QFont(base)
        font.setPointSizeF(max(base.pointSizeF(), 1.0) * scale)
        doc.setDefaultFont(font)
        for columns in (3, 2, 1):
            html = shortcut_sheet_html(rows, columns)
            doc.setHtml(html)
            doc.setTextWidth(-1)
            doc.setTextWidth(min(doc.idealWidth(), room.width()))
            if doc.size().height() <= room.height() and doc.idealWidth() <= room.width():
                return html, font, doc.size().toSize()
    return html, font, QSize(room.width(), room.height())


def show_about(parent: QWidget) -> None:
    QMessageBox.about(parent, "About schedlab", about_html())
