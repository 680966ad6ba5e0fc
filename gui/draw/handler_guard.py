"""Qt event handlers that cannot take the window down.

PySide6 ends the whole process (a segmentation fault, with no traceback) when a Python override of a Qt
virtual (``paintEvent``, ``resizeEvent``, a mouse event, ``event``, ``eventFilter``) raises. A slip in a
panel's code (a division by a lane height that came out zero) then closes a class's window mid-lesson,
its run with it. ``guarded`` and ``guarded_bool`` catch the error instead: the traceback goes to stderr
once per place in the code, a frame stays as far as it was painted (the painter the event opened is
released with the error's frame, which ends it), and the next event tries again. Slots connected to
signals need none of this: PySide6 prints their errors and goes on.
"""

from __future__ import annotations

import functools
import sys
import traceback
from collections.abc import Callable
from typing import Any, TypeVar, cast

H = TypeVar("H", bound=Callable[..., Any])  # a handler: a method of a QObject
_reported: set[tuple[str, str, int]] = set()  # (class, file, line) already on stderr
failures: list[str] = []  # every failure, "Class.handler: error" (the tests fail on any they did not expect)

# The handlers every override of which must be guarded (tests/test_gui_handler_guard.py checks).
HANDLERS = frozenset(
    {
        "paintEvent",
        "resizeEvent",
        "mousePressEvent",
        "mouseReleaseEvent",
        "mouseMoveEvent",
        "mouseDoubleClickEvent",
        "wheelEvent",
        "keyPressEvent",
        "closeEvent",
        "showEvent",
        "hideEvent",
        "event",
        "eventFilter",
    }
)


def guarded(handler: H) -> H:
    """Wrap a handler that returns nothing: an exception in it is reported, not raised into Qt."""

    @functools.wraps(handler)
    def guard(self: object, *args: object, **kwargs: object) -> None:
        try:
            handler(self, *args, **kwargs)
        except Exception as exc:  # any error: raised into Qt, it ends the process
            report(type(self).__name__, handler.__name__, exc)

    return cast(H, guard)


def guarded_bool(handler: H) -> H:
    """Wrap ``event`` or ``eventFilter``: an exception is reported and the event left unhandled."""

    @functools.wraps(handler)
    def guard(self: object, *args: object, **kwargs: object) -> bool:
        try:
            return bool(handler(self, *args, **kwargs))
        except Exception as exc:  # any error: raised into Qt, it ends the process
            report(type(self).__name__, handler.__name__, exc)
            return False

    return cast(H, guard)


def report(where: str, handler: str, exc: BaseException) -> None:
    """The traceback of ``exc`` on stderr, once for each place it was raised from."""
    failures.append(f"{where}.{handler}: {exc!r}")
    last = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    key = (where, last.filename if last else "", (last.lineno or 0) if last else 0)
    if key in _reported:
        return
    _reported.add(key)
    print(f"schedlab: {where}.{handler} failed; the window goes on without it:", file=sys.stderr)
    traceback.print_exception(exc, file=sys.stderr)
