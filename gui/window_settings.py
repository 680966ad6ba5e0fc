"""What the window remembers from one session to the next, in QSettings: its size and place, the last
story (a built-in name or a file path), the scenario files opened or saved lately (File ▸ Open recent),
and the look (display mode and zoom). A saved value that no longer fits (a smaller screen, a deleted
file, a zoom that is not a number) gives way to the default.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QMainWindow

from gui.draw import theme
from model.scenario import builtin_names

ORGANIZATION = "schedlab"
APPLICATION = "schedlab"
DEFAULT_STORY = "cfs-yield-2007"
DEFAULT_SIZE = (1600, 1000)
SCREEN_FILL = 0.94  # of the screen's available area a first window takes


def default_settings() -> QSettings:
    return QSettings(ORGANIZATION, APPLICATION)


def last_story(settings: QSettings) -> str:
    """The story to open when none is named: the last one if it still exists, else the 2007 story."""
    value = settings.value("last_story")
    if isinstance(value, str) and (value in builtin_names() or Path(value).is_file()):
        return value
    return DEFAULT_STORY


def remember_story(settings: QSettings, source: str) -> None:
    settings.setValue("last_story", source)


RECENT_FILES = 8


def recent_files(settings: QSettings) -> list[str]:
    """The scenario files opened or saved lately, the latest first; a file since deleted drops out."""
    value = settings.value("recent/files", [])
    paths = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    return [p for p in paths if isinstance(p, str) and Path(p).is_file()][:RECENT_FILES]


def remember_recent(settings: QSettings, path: str) -> None:
    """``path`` (made absolute) first in the recent files, once."""
    full = str(Path(path).resolve())
    settings.setValue(
        "recent/files", [full, *(p for p in recent_files(settings) if p != full)][:RECENT_FILES]
    )


def forget_recent(settings: QSettings) -> None:
    settings.setValue("recent/files", [])


def saved_look(settings: QSettings) -> theme.Theme:
    mode = settings.value("view/mode", "standard")
    try:
        zoom = float(settings.value("view/zoom", 1.0))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        zoom = 1.0
    return theme.make_theme(str(mode), zoom)


def remember_look(settings: QSettings, look: theme.Theme) -> None:
    settings.setValue("view/mode", look.mode)
    settings.setValue("view/zoom", look.zoom)


def restore_size(window: QMainWindow, settings: QSettings) -> None:
    """The last size if it fits the screen the window opens on, else fitted to that screen."""
    geometry = settings.value("window/geometry")
    screen = window.screen().availableGeometry() if window.screen() is not None else None
    saved = isinstance(geometry, QByteArray) and not geometry.isEmpty()
    restored = saved and window.restoreGeometry(geometry)
    if restored and (screen is None or screen.contains(window.frameGeometry())):
        return
    if screen is None:
        window.resize(*DEFAULT_SIZE)
        return
    # Most of the screen, whatever its size: a classroom reads the window from the back of the room.
    w, h = round(screen.width() * SCREEN_FILL), round(screen.height() * SCREEN_FILL)
    window.resize(min(w, screen.width()), min(h, screen.height()))
    window.move(screen.center() - window.rect().center())


def remember_size(window: QMainWindow, settings: QSettings) -> None:
    settings.setValue("window/geometry", window.saveGeometry())
