"""A widget's ``paintEvent`` that cannot take the window down.

PySide6 ends the whole process (a segmentation fault, with no traceback) when a Python ``paintEvent``
raises. A slip in a panel's drawing code (a division by a lane height that came out zero) then closes a
class's window mid-lesson, its run with it. ``paint_guard`` catches the error instead: the frame stays
as far as it was painted, the traceback goes to stderr once per place in the code, and the next frame
tries again. The painter the event opened is released with the error (its frame), which ends it.
"""

from __future__ import annotations

import functools
import sys
import traceback
from collections.abc import Callable
from typing import TypeVar

from PySide6.QtGui import QPaintEvent
from PySide6.QtWidgets import QWidget

W = TypeVar("W", bound=QWidget)
_reported: set[tuple[str, str, int]] = set()  # (widget class, file, line) already on stderr


def paint_guard(paint: Callable[[W, QPaintEvent], None]) -> Callable[[W, QPaintEvent], None]:
    """Wrap a ``paintEvent``: an exception in it is reported, not raised into Qt."""

    @functools.wraps(paint)
    def guarded(self: W, event: QPaintEvent) -> None:
        try:
            paint(self, event)
        except Exception as exc:
            report(type(self).__name__, exc)

    return guarded


def report(where: str, exc: BaseException) -> None:
    """The traceback of ``exc`` on stderr, once for each place it was raised from."""
    last = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    key = (where, last.filename if last else "", last.lineno or 0 if last else 0)
    if key in _reported:
        return
    _reported.add(key)
    print(
        f"schedlab: drawing {where} failed; the window goes on without that part of the frame:",
        file=sys.stderr,
    )
    traceback.print_exception(exc, file=sys.stderr)
