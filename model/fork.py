"""A run's state, copied: ``fork_state(obj)`` is a deep copy of a model object graph whose future is the
original's, and which shares nothing that either of them changes.

``copy.deepcopy`` is not that copy. It copies a bound method of a compiled class (a builtin method, the
kind the event queue holds as handlers) as an atom, so the twin's events would run the original's
handlers; and it copies a plain function as an atom too, whose closure cells still point at the
original's objects. Here a bound method, compiled or not, is bound again to the copy of its object; a
function that is not a module's own (a lambda, a closure) is refused with ``ForkError``, since nothing
can say what it closes over; a module-level function holds no state of the run and is shared.

Everything else goes through the object's pickling protocol (``__reduce_ex__(4)``; the compiled classes
give their fields through it), as ``copy.deepcopy`` does, with this function for every part. Values that
cannot change are shared rather than copied: numbers, strings, types, enums, and the trace's records
(``SHARED_TYPES``), which make up most of a
long run's state. A class may copy itself (``fork_with(copy)``: the series share the rows sampled so
far). A dict or a list is rebuilt in its own order, so iteration, and with it the run,
follows the original's.

A copy to keep rather than to run (a window's checkpoint) is parked instead: ``park(obj)`` pickles the
state into one compressed blob (``Parked``), a few objects where a copy is hundreds, so that a ladder of
hundreds of checkpoints adds little for the garbage collector to walk; ``unpark`` makes a run of it, as
often as asked. The same values are shared (by reference, outside the blob), and so are long tables of
numbers, read-only arrays (the series' rows) and frozen dataclasses of values (the scenario); classes
with a reduction of their own (``reducers``) say what else a parked state may leave out or share.
"""

from __future__ import annotations

import dataclasses
import enum
import io
import pickle
import types
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from model.snapshot import TRACE_RECORD_TYPES, YieldOutcome

_ATOMIC: frozenset[type] = frozenset(
    {type(None), bool, int, float, complex, str, bytes, range, type, types.ModuleType, type(Ellipsis)}
)
# The trace's records: read-only values of read-only values (a long run keeps thousands), shared.
SHARED_TYPES: frozenset[type] = frozenset({*TRACE_RECORD_TYPES, YieldOutcome})


def _is_frozen_dataclass(cls: type) -> bool:
    params = getattr(cls, "__dataclass_params__", None)
    return params is not None and bool(params.frozen)


class ForkError(Exception):
    """The state holds something that cannot be copied faithfully (a closure, a generator)."""


def fork_state(obj: Any) -> Any:
    """A deep copy of ``obj`` that shares no mutable object with it (see the module docstring)."""
    return _Copier().copy(obj)


class _Copier:
    def __init__(self) -> None:
        self.memo: dict[int, Any] = {}
        self.keep: list[Any] = []  # every original seen, alive until the copy ends: ids stay unique

    def copy(self, x: Any) -> Any:
        cls = type(x)
        if cls in _ATOMIC or cls in SHARED_TYPES:
            return x
        key = id(x)
        y = self.memo.get(key, self)
        if y is not self:
            return y
        self.keep.append(x)
        if cls is list:
            out: list[Any] = []
            self.memo[key] = out
            out.extend([self.copy(v) for v in x])
            return out
        if cls is tuple:
            if _ATOMIC.issuperset(map(type, x)):  # a table of numbers (a run's jitter draws): shared
                return x
            items = tuple([self.copy(v) for v in x])
            y = self.memo.get(key, self)  # a cycle through the tuple made it already
            if y is not self:
                return y
            y = x if all(a is b for a, b in zip(items, x, strict=True)) else items
        elif cls is dict:
            d: dict[Any, Any] = {}
            self.memo[key] = d
            for k, v in x.items():
                d[self.copy(k)] = self.copy(v)
            return d
        elif cls is types.BuiltinMethodType or cls is types.MethodWrapperType:
            y = self._rebind(x)
        elif cls is types.MethodType:
            y = types.MethodType(x.__func__, self.copy(x.__self__))
        elif cls is types.FunctionType:
            y = self._function(x)
        elif cls is np.ndarray:
            if x.dtype.hasobject:
                raise ForkError("a numpy array of Python objects in the state")
            y = x.copy()
            y.flags.writeable = x.flags.writeable
        elif cls is types.MappingProxyType:
            y = types.MappingProxyType(self.copy(dict(x)))
        elif isinstance(x, enum.Enum):
            y = x
        elif _is_frozen_dataclass(cls):
            y = self._frozen(x)
        elif hasattr(cls, "fork_with"):  # a part that knows how to share what nobody changes
            y = x.fork_with(self.copy)
        else:
            return self._reconstruct(x, key)
        self.memo[key] = y
        return y

    def _frozen(self, x: Any) -> Any:
        """A frozen dataclass is rebuilt through its ``__init__`` (it refuses ``__setstate__``), and shared
        when all its fields are (values nobody can change)."""
        values = {f.name: getattr(x, f.name) for f in dataclasses.fields(x) if f.init}
        copied = {name: self.copy(v) for name, v in values.items()}
        if all(copied[name] is v for name, v in values.items()):
            return x
        return dataclasses.replace(x, **copied)

    def _rebind(self, method: Any) -> Any:
        owner = method.__self__
        if owner is None or isinstance(owner, types.ModuleType):
            return method  # a builtin function (len, heapq.heappush): no state
        return getattr(self.copy(owner), method.__name__)

    @staticmethod
    def _function(fn: types.FunctionType) -> types.FunctionType:
        if fn.__closure__ is not None or "<" in fn.__qualname__:
            raise ForkError(
                f"{fn.__module__}.{fn.__qualname__}: a lambda or closure in the state cannot be copied "
                "(it would keep the original's objects); use a bound method of a model object"
            )
        return fn

    def _reconstruct(self, x: Any, key: int) -> Any:
        try:
            reduced = x.__reduce_ex__(4)
        except TypeError as exc:  # a generator, a lock, ...
            raise ForkError(f"{type(x).__qualname__} cannot be copied: {exc}") from None
        if isinstance(reduced, str):
            return x  # a global, named
        func, args, state, items, pairs = (*reduced, None, None, None)[:5]
        y = func(*[self.copy(a) for a in args])
        self.memo[key] = y
        if state is not None:
            state = self.copy(state)
            if hasattr(y, "__setstate__"):
                y.__setstate__(state)
            else:
                slots = None
                if isinstance(state, tuple) and len(state) == 2:
                    state, slots = state
                if state:
                    y.__dict__.update(state)
                for name, value in (slots or {}).items():
                    setattr(y, name, value)
        if items is not None:
            for item in items:
                y.append(self.copy(item))
        if pairs is not None:
            for k, v in pairs:
                y[self.copy(k)] = self.copy(v)
        return y


# ---- parking: a state kept as one blob -----------------------------------------------------------------

SHARED_TUPLE_LEN = 16  # an all-number tuple this long (a run's jitter draws) is a table: shared when parked
Reducer = Callable[[Any], tuple[Any, ...]]


@dataclass(frozen=True, slots=True)
class Parked:
    """A parked state (``park``): the pickled, deflated blob, and the values it refers to by reference."""

    blob: bytes
    shared: tuple[Any, ...]

    @property
    def size(self) -> int:
        """Bytes of its own (what it shares belongs to the run it was parked from, as well)."""
        return len(self.blob)


def _value(x: Any, depth: int = 0) -> bool:
    """Whether nobody can change ``x``: numbers, strings, enums, module functions, and tuples, frozensets
    and frozen dataclasses of those (a scenario, a setting's spec)."""
    cls = type(x)
    if cls in _ATOMIC or cls in SHARED_TYPES or isinstance(x, enum.Enum):
        return True
    if depth > 8:
        return False
    if cls is tuple or cls is frozenset:
        return all(_value(v, depth + 1) for v in x)
    if cls is types.FunctionType:
        return x.__closure__ is None and "<" not in x.__qualname__
    if cls is types.BuiltinFunctionType:
        return isinstance(x.__self__, types.ModuleType | None)
    if _is_frozen_dataclass(cls):
        return all(_value(getattr(x, f.name), depth + 1) for f in dataclasses.fields(x))
    return False


class _Sharing:
    """What a parked state refers to rather than holds: the ``persistent_id`` of its pickler."""

    def __init__(self) -> None:
        self.shared: list[Any] = []
        self._index: dict[int, int] = {}
        self._frozen: dict[type, bool] = {}  # per class: a frozen dataclass?

    def persistent_id(self, x: Any) -> int | None:
        cls = type(x)
        if cls in _ATOMIC:
            return None  # pickled inline: smaller than a reference
        index = self._index.get(id(x))
        if index is not None:
            return index
        if cls in SHARED_TYPES:
            pass
        elif cls is tuple:
            if len(x) < SHARED_TUPLE_LEN or not _ATOMIC.issuperset(map(type, x)):
                return None
        elif cls is np.ndarray:
            if x.flags.writeable:
                return None
        else:
            frozen = self._frozen.get(cls)
            if frozen is None:
                frozen = self._frozen[cls] = _is_frozen_dataclass(cls)
            if not frozen or not _value(x):
                return None
        index = self._index[id(x)] = len(self.shared)
        self.shared.append(x)
        return index


def _reduce_mapping_proxy(proxy: types.MappingProxyType[Any, Any]) -> tuple[Any, ...]:
    return _mapping_proxy, (dict(proxy),)


def _mapping_proxy(d: dict[Any, Any]) -> Mapping[Any, Any]:
    return types.MappingProxyType(d)


def park(obj: Any, reducers: Mapping[type, Reducer] | None = None) -> Parked:
    """``obj``'s state as one blob, to be made a run again by ``unpark``, any number of times (see the
    module docstring). ``reducers`` give a class's ``__reduce__`` for this pickling only."""
    sharing = _Sharing()
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=5)
    pickler.persistent_id = sharing.persistent_id  # type: ignore[method-assign]
    pickler.dispatch_table = {types.MappingProxyType: _reduce_mapping_proxy, **(reducers or {})}
    try:
        pickler.dump(obj)
    except (pickle.PicklingError, TypeError, AttributeError) as exc:
        raise ForkError(f"the state cannot be parked: {exc}") from None
    return Parked(zlib.compress(buffer.getvalue(), 1), tuple(sharing.shared))


def unpark(parked: Parked) -> Any:
    """A new, independent state from ``parked``: what ``park`` was given, as it was."""
    unpickler = pickle.Unpickler(io.BytesIO(zlib.decompress(parked.blob)))
    unpickler.persistent_load = parked.shared.__getitem__  # type: ignore[method-assign]
    return unpickler.load()
