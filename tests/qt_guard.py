"""Fixtures shared by the GUI tests: a throwaway QSettings location and a leak guard.

Import both names into a test module (``from qt_guard import leak_guard, temp_settings``) and they
apply to every test in it. The leak guard closes whatever a test left open, flushes deferred deletes,
and then fails the test on top-level widgets that survived or QTimers still running (it stops the
timers; it leaves the widgets alone, as deleting objects PySide may still own can crash). It also
starts each test with tasks coloured by tid alone, whatever run the last test's window numbered.

One kind of leftover is not counted: pyqtgraph's context menus. A plot item creates
parentless QMenus (and plain QWidget panes inside QWidgetActions) that Qt does not delete with the
window, and PySide does not always delete them when the plot item's wrapper dies. They are plain
``QMenu``/``QWidget`` trees, never one of schedlab's classes, which the guard still catches.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest
import shiboken6
from PySide6.QtCore import QEvent, QSettings, QTimer
from PySide6.QtWidgets import QApplication, QMenu, QWidget

from gui.draw import handler_guard, palette


def _running_timers() -> list[QTimer]:
    return [
        obj
        for obj in gc.get_objects()
        if isinstance(obj, QTimer) and shiboken6.isValid(obj) and obj.isActive()
    ]


def _address(obj: object) -> int:
    return int(shiboken6.getCppPointer(obj)[0])


def _root(w: QWidget) -> QWidget:
    while w.parentWidget() is not None:
        w = w.parentWidget()
    return w


def _is_plot_menu(w: QWidget) -> bool:
    root = _root(w)
    return isinstance(root, QMenu) or type(root) is QWidget


def _describe(w: QWidget) -> str:
    return f"{type(w).__name__}({w.objectName()!r}, {w.windowTitle()!r})"


def _flush() -> None:
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


@pytest.fixture(autouse=True)
def temp_settings(tmp_path: Path) -> Iterator[QSettings]:
    """Every QSettings of the test, default or named, lives under ``tmp_path``."""
    folder = tmp_path / "settings"
    folder.mkdir()
    for scope in (QSettings.Scope.UserScope, QSettings.Scope.SystemScope):
        QSettings.setPath(QSettings.Format.NativeFormat, scope, str(folder))
        QSettings.setPath(QSettings.Format.IniFormat, scope, str(folder))
    yield QSettings(str(folder / "schedlab.ini"), QSettings.Format.IniFormat)


@pytest.fixture(autouse=True)
def leak_guard(qapp: QApplication, request: pytest.FixtureRequest) -> Iterator[None]:
    _flush()
    palette.colour_tasks(())
    before = set(map(_address, QApplication.topLevelWidgets()))
    failed_before = len(handler_guard.failures)
    yield
    # A guarded Qt handler that failed only prints (gui.draw.handler_guard): here it fails the test,
    # unless the test says it expects that.
    failed = handler_guard.failures[failed_before:]
    if request.node.get_closest_marker("handler_errors") is None:
        assert not failed, f"Qt event handlers failed: {failed}"
    # The test's fixture values (a window, say) are torn down by now, but pytest still holds them:
    # let them go, so that objects they own die with them.
    funcargs = request.node.funcargs
    for name in funcargs:
        funcargs[name] = None
    for w in QApplication.topLevelWidgets():
        if _address(w) not in before and w.isVisible():
            w.close()
    _flush()
    new = [w for w in QApplication.topLevelWidgets() if _address(w) not in before]
    leftovers = [_describe(w) for w in new if not _is_plot_menu(w)]
    timers = _running_timers()
    for t in timers:
        t.stop()
    assert not leftovers, f"top-level widgets left behind: {leftovers}"
    assert not timers, f"QTimers still running: {len(timers)}"
