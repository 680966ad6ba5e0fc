"""The event queue: a heap of ``(t_ns, prio, seq, handler, arg)`` with integer-nanosecond time.

``prio`` orders events at the same instant by kind, ``seq`` by insertion, so the order is total and
a run is deterministic. Cancellation is lazy: handlers carry a generation number and ignore stale
events. The queue is the only owner of the clock: it moves ``now_ns`` when it dispatches, at the end of
``run_until``, and in ``jump_to`` (a closed-form shortcut over an instant where nothing is due). Time
never goes backwards: every push and every jump is checked.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from typing import Any, Final

# Same-instant order: interrupts first (they preempt), then ticks, timers, task segment ends, sampling.
PRIO_IRQ: Final = 0
PRIO_TICK: Final = 1
PRIO_TIMER: Final = 2
PRIO_TASK: Final = 3
PRIO_SAMPLE: Final = 4

Handler = Callable[[Any], None]

# Final: the compiled model holds them in C statics instead of looking a name up at every event.
_heappush: Final = heapq.heappush
_heappop: Final = heapq.heappop


class EventQueue:
    __slots__ = ("_budget", "_heap", "_seq", "dispatched", "horizon_ns", "now_ns")

    def __init__(self) -> None:
        self._heap: list[tuple[int, int, int, Handler, Any]] = []
        self._seq = 0
        self.now_ns = 0
        self.dispatched = 0
        self.horizon_ns = 0  # the end of the run in progress: nothing may move the clock past it
        self._budget = -1  # events the run in progress may still dispatch; below 0: no limit

    def push(self, t_ns: int, prio: int, handler: Handler, arg: Any = None) -> None:
        if t_ns < self.now_ns:
            raise AssertionError(f"event at {t_ns} ns is in the past (now {self.now_ns} ns)")
        seq = self._seq + 1
        self._seq = seq
        _heappush(self._heap, (t_ns, prio, seq, handler, arg))

    def next_time(self) -> int | None:
        return self._heap[0][0] if self._heap else None

    def run_until(self, t_end_ns: int, max_events: int | None = None) -> bool:
        """Dispatch every event with ``t <= t_end_ns``; then set the clock to ``t_end_ns``.

        Returns False if ``max_events`` stopped it early (the clock then stays at the last event).
        """
        if t_end_ns < self.now_ns:
            raise AssertionError(f"run until {t_end_ns} ns is in the past (now {self.now_ns} ns)")
        heap = self._heap
        pop = _heappop
        self.horizon_ns = t_end_ns
        self._budget = -1 if max_events is None else max_events  # -1 counts down forever: no budget
        while heap and heap[0][0] <= t_end_ns:
            if self._budget == 0:
                return False
            self._budget -= 1
            t, _prio, _seq, handler, arg = pop(heap)
            self.now_ns = t
            self.dispatched += 1
            handler(arg)
        self._budget = -1
        self.now_ns = t_end_ns
        return True

    def dispatch_inline(self, t_ns: int) -> bool:
        """For a handler that would push an event at ``t_ns`` and return: if that event would be the
        next one dispatched anyway (nothing pending at or before ``t_ns``, within the run in progress
        and its event budget), move the clock there and count it dispatched, and the handler carries
        on itself (True); else nothing changes (False) and it pushes the event. Every event keeps its
        place in the order; only the heap's work is saved (the transmit path's step bursts)."""
        if t_ns < self.now_ns:
            raise AssertionError(f"event at {t_ns} ns is in the past (now {self.now_ns} ns)")
        heap = self._heap
        if t_ns > self.horizon_ns or self._budget == 0 or (heap and heap[0][0] <= t_ns):
            return False
        self._budget -= 1
        self.now_ns = t_ns
        self.dispatched += 1
        return True

    def jump_to(self, t_ns: int) -> None:
        """Move the clock to ``t_ns`` without dispatching: for a caller that has worked out, in closed
        form, that nothing happens before then (the machine's inline spin yields). Checked: never
        backwards, never past the end of the run in progress, never over a pending event."""
        if t_ns < self.now_ns:
            raise AssertionError(f"jump to {t_ns} ns is in the past (now {self.now_ns} ns)")
        if t_ns > self.horizon_ns:
            raise AssertionError(f"jump to {t_ns} ns passes the end of the run ({self.horizon_ns} ns)")
        heap = self._heap
        if heap and heap[0][0] < t_ns:
            raise AssertionError(f"jump to {t_ns} ns skips the event due at {heap[0][0]} ns")
        self.now_ns = t_ns
