"""A guard against a PySide6 6.12.0 reference-count bug that aborts GUI sessions on CPython 3.11.

PySide6 6.12.0 returns ``None`` from void methods (``QWidget.update()``, ``QPainter.drawRect()``, ...)
and ``True`` from ``SignalInstance.emit()`` without taking a reference. CPython 3.12+ does not mind:
there ``None``, ``True`` and ``False`` are immortal (PEP 683). On 3.11 every such call drops a
reference, and after a few thousand calls (a second of animation) the interpreter aborts with
"none_dealloc: deallocating None". PySide6 6.11 is not affected.

``install()`` probes for the bug once and, only if it is present on a CPython whose singletons are
mortal, does what CPython 3.12 does: it gives ``None``, ``True`` and ``False`` so many references
(2**48) that no session can use them up. On a fixed PySide6, or on CPython 3.12+, it changes nothing.
The real cure is a PySide6 without the bug (``PySide6-Essentials<6.12`` on Python 3.11).
"""

from __future__ import annotations

import ctypes
import sys

from PySide6.QtCore import QObject, Signal

IMMORTAL_REFS = 1 << 48
_state: dict[str, bool] = {}


class _Probe(QObject):
    fired = Signal()


def _drops(obj: object, call: object) -> bool:
    before = sys.getrefcount(obj)
    for _ in range(8):
        call()  # type: ignore[operator]
    return sys.getrefcount(obj) < before


def bug_present() -> bool:
    """Whether this PySide6 drops references to None (void methods) or True (``emit``)."""
    probe = _Probe()
    try:
        return _drops(None, lambda: probe.setObjectName("probe")) or _drops(True, probe.fired.emit)
    finally:
        probe.deleteLater()


def _add_refs(obj: object, n: int) -> bool:
    # CPython (release build): ob_refcnt is the first field of every object, at id(obj).
    before = sys.getrefcount(obj)
    ctypes.c_ssize_t.from_address(id(obj)).value += n
    if sys.getrefcount(obj) - before == n:
        return True
    ctypes.c_ssize_t.from_address(id(obj)).value -= n  # not the layout we expected: undo
    return False


def install() -> bool:
    """Make None/True/False immortal if this PySide6 needs it; return whether it did. Idempotent."""
    if "installed" in _state:
        return _state["installed"]
    mortal = sys.implementation.name == "cpython" and sys.version_info < (3, 12)
    done = mortal and bug_present() and all(_add_refs(o, IMMORTAL_REFS) for o in (None, True, False))
    _state["installed"] = done
    return done


install()
