"""Spinlocks as the 3.0 transmit path takes them: the qdisc root lock and ``busylock``.

x86 has had ticket spinlocks since 2.6.25 (arch/x86/include/asm/spinlock.h): ``spin_lock`` takes the
next ticket and spins until ``head`` reaches it, so waiters are served in arrival order, and
``__ticket_spin_trylock`` succeeds only when ``head == tail``: nobody holds the lock *and* nobody
waits. ``kind = "tas"`` is the what-if of an unfair test-and-set lock: any waiter may win a release
(a seeded draw here) and a trylock succeeds whenever the lock is free.

Time: a lock's cache line lives on the CPU that last held it. Taking it elsewhere costs ``move_ns``
(the line crossing between cores); a release hands it to the next waiter ``move_ns`` later.
Owners are opaque objects (the transmit path's execution contexts) with a ``cpu`` attribute.
"""

from __future__ import annotations

from collections import deque
from typing import Protocol

import numpy as np

from model.copyable import mypyc_attr

TICKET, TAS = "ticket", "tas"


class Owner(Protocol):
    @property
    def cpu(self) -> int: ...


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class SpinLock:
    __slots__ = ("fair", "holder", "last_cpu", "move_ns", "name", "rng", "waiters")

    def __init__(self, name: str, move_ns: int, kind: str, rng: np.random.Generator) -> None:
        if kind not in (TICKET, TAS):
            raise ValueError(f"spinlock kind must be {TICKET} or {TAS}, got {kind!r}")
        self.name = name
        self.move_ns = move_ns
        self.fair = kind == TICKET
        self.rng = rng
        self.holder: object | None = None
        self.last_cpu = -1
        self.waiters: deque[object] = deque()

    def _cost(self, cpu: int) -> int:
        return 0 if self.last_cpu == cpu else self.move_ns

    def acquire(self, owner: Owner, now: int) -> int:
        """``spin_lock``: the instant ``owner`` holds the lock, or -1 if it must wait (it is queued)."""
        if self.holder is None and not (self.fair and self.waiters):
            self.holder = owner
            cost = self._cost(owner.cpu)
            self.last_cpu = owner.cpu
            return now + cost
        self.waiters.append(owner)
        return -1

    def trylock(self, owner: Owner, now: int) -> int:
        """``spin_trylock``: the instant ``owner`` holds the lock, or -1 if the try failed (not queued)."""
        if self.holder is not None or (self.fair and self.waiters):
            return -1
        return self.acquire(owner, now)

    def release(self, now: int) -> tuple[object | None, int]:
        """``spin_unlock``: the next holder and the instant it has the lock, or ``(None, 0)``."""
        self.holder = None
        waiters = self.waiters
        if not waiters:
            return None, 0
        if self.fair or len(waiters) == 1:
            nxt = waiters.popleft()
        else:  # test-and-set: whoever's cmpxchg lands first
            i = int(self.rng.integers(len(waiters)))
            nxt = waiters[i]
            del waiters[i]
        self.holder = nxt
        owner: Owner = nxt  # type: ignore[assignment]
        cost = self._cost(owner.cpu)
        self.last_cpu = owner.cpu
        return nxt, now + cost

    def withdraw(self, owner: object) -> None:
        """A queued waiter gives up (never happens in the kernel paths modelled; kept for safety)."""
        if owner in self.waiters:
            self.waiters.remove(owner)

    def busy(self) -> bool:
        """Held, or (ticket) someone holds a ticket: what a trylock would see as failure."""
        return self.holder is not None or (self.fair and bool(self.waiters))
