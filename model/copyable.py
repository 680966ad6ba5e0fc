"""``mypyc_attr``, for the classes a copy of a run (``model.fork``) rebuilds.

Compiled with mypyc, a class is rebuilt without its ``__init__`` (which needs arguments the copy does not
have) only when it says ``serializable=True``: else mypyc's ``__new__`` runs ``__init__``. With
``serializable`` alone, mypyc 2.4 leaves ``__init__`` out of a call from Python code (its ``tp_init``
does nothing, its ``__new__`` no longer calls it); ``allow_interpreted_subclasses=True`` makes
``tp_init`` call it. So each such class says ``@mypyc_attr(serializable=True,
allow_interpreted_subclasses=True)`` itself (a subclass does not inherit the second), and its compiled
base classes allow interpreted subclasses. The pure sources, installed without mypy, get a decorator
that does nothing: only mypyc reads it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

try:
    from mypy_extensions import mypyc_attr
except ImportError:  # pragma: no cover - the pure sources without mypy installed

    def mypyc_attr(*attrs: str, **kwattrs: object) -> Callable[[T], T]:
        return lambda cls: cls


__all__ = ["mypyc_attr"]
