"""A bounded, time-ordered log of spans held in one numpy array, for the CPU lanes' densest records (the 2011
NIC's interrupts, the dequeuer's turns: thousands a window, read whole every frame).

Rows are appended and edited at the end, dropped at the front (by count, over ``maxlen``, or by time);
the rows that end after an instant are a binary search away and come as an array view, so a frame
costs no Python loop over them. Iterating or indexing gives a row as a tuple of ints.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np


class SpanLog:
    """Rows of ``width`` ints, oldest first, each ending (column ``end``) no earlier than the one
    before; at most ``maxlen`` of them."""

    def __init__(self, width: int, maxlen: int, end: int = 1) -> None:
        self.maxlen = maxlen
        self._end = end
        self._rows = np.zeros((min(maxlen, 256), width), dtype=np.int64)
        self._lo = 0  # the first row kept
        self._hi = 0  # one past the last

    def __len__(self) -> int:
        return self._hi - self._lo

    def __bool__(self) -> bool:
        return self._hi > self._lo

    def __iter__(self) -> Iterator[tuple[int, ...]]:
        return (tuple(row) for row in self._rows[self._lo : self._hi].tolist())

    def __getitem__(self, i: int) -> tuple[int, ...]:
        n = len(self)
        if not -n <= i < n:
            raise IndexError(i)
        return tuple(self._rows[self._lo + i % n].tolist())

    def append(self, row: tuple[int, ...]) -> None:
        if self._hi == len(self._rows):
            self._make_room()
        self._rows[self._hi] = row
        self._hi += 1
        if len(self) > self.maxlen:
            self._lo += 1

    def set_last(self, row: tuple[int, ...]) -> None:
        self._rows[self._hi - 1] = row

    def drop_ending_before(self, t_ns: int) -> None:
        """Forget the rows that end before ``t_ns``."""
        self._lo += int(np.searchsorted(self._rows[self._lo : self._hi, self._end], t_ns, side="left"))

    def ending_after(self, t_ns: float) -> np.ndarray:
        """The rows that end after ``t_ns``, oldest first (a view: copy it to keep it)."""
        kept = self._rows[self._lo : self._hi]
        return kept[int(np.searchsorted(kept[:, self._end], t_ns, side="right")) :]

    def _make_room(self) -> None:
        """Move the kept rows to the front, or double the array where they fill more than half of it."""
        live = self._rows[self._lo : self._hi]
        if 2 * len(live) > len(self._rows):
            grown = np.zeros((2 * len(self._rows), self._rows.shape[1]), dtype=np.int64)
            grown[: len(live)] = live
            self._rows = grown
        else:
            self._rows[: len(live)] = live.copy()
        self._lo, self._hi = 0, len(live)
