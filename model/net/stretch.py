"""The state of one stretch of the closed form (``model.net.closedform``): each sender's part, the
locks' holders and ticket queues, the bands' lengths, the dequeuer's next step.

A turn is tried on a copy of this state and kept only if it is plain, so the state is small, flat and
copied in place: plain attributes of native classes, which mypyc keeps unboxed.
"""

from __future__ import annotations

from typing import Final

# A sender's state in a stretch. The ones with an event: P_USER (its packet is built), P_BGRANT (it
# holds busylock and asks for the root lock), P_RGRANT (it holds the root lock), P_ENQ (enqueued).
# Waiting states come first, so that "has an event" is one comparison: state >= P_USER.
P_BWAIT: Final = 0
P_RWAIT: Final = 1
P_USER: Final = 2
P_BGRANT: Final = 3
P_ENQ: Final = 4
P_RGRANT: Final = 5
# The dequeuer: in the driver call until d_at; holding the root lock from d_at (its check); queued.
D_DRV: Final = 1
D_HOLD: Final = 2
D_WAIT: Final = 3
D_DEQ: Final = 4
D_ID: Final = -2  # the dequeuer, as the root lock's holder
FREE: Final = -1
INF: Final = 1 << 60  # past any run (and inside mypyc's unboxed integers)


class StretchSender:
    """One sender's part of a stretch's state (attributes, so that mypyc keeps the numbers unboxed)."""

    __slots__ = ("index", "seq", "st", "t", "ticket", "touched", "wmem")

    def __init__(self, index: int) -> None:
        self.index = index  # the sender (its CPU)
        self.st = -1  # P_* or -1 (not in play)
        self.t = 0  # the instant of its next event (states >= P_USER)
        self.seq = 0  # the order its next event was posted in
        self.touched = False  # its event was posted in the stretch
        self.wmem = 0  # its socket's sk_wmem_alloc
        self.ticket = 0  # in P_BWAIT and P_RWAIT: its place in that lock's queue (lower goes first)


class TurnState:
    """The tentative state of a turn: a copy of the stretch's state, kept only if the turn is plain."""

    __slots__ = ("band_qlen", "bl_holder", "bl_last", "bl_waiting", "d_at", "d_seq", "d_state", "d_ticket",
                 "draw", "enq", "live", "n_enq", "order", "pending", "root_holder", "root_last",
                 "root_waiting", "senders", "tickets")  # fmt: skip

    def __init__(self, n: int) -> None:
        self.senders = [StretchSender(i) for i in range(n)]  # per sender
        self.live: list[StretchSender] = []  # the senders in play, in sender order
        self.pending: list[bool] = []  # per sender: softirqs wait on its CPU for its local_bh_enable()
        self.order = 0  # the next posting order
        # The locks' queues as tickets: a waiter's state says which lock it waits for, its ticket its
        # place (a list popped at its head would be shifted and reallocated at every hand-off).
        self.tickets = 0  # the next ticket
        self.root_holder = D_ID
        self.root_waiting = 0  # senders in P_RWAIT, and the dequeuer in D_WAIT
        self.root_last = 0  # the CPU that last held it
        self.bl_holder = FREE
        self.bl_waiting = 0  # senders in P_BWAIT
        self.bl_last = 0
        self.band_qlen: list[int] = []
        self.draw = 0  # the user-work jitter index
        # 2 * sender + accepted, in enqueue order: the first n_enq (kept, not cleared: no reallocation)
        self.enq: list[int] = []
        self.n_enq = 0
        self.d_state = D_DRV
        self.d_at = 0
        self.d_seq = 0
        self.d_ticket = 0  # the dequeuer's ticket, in D_WAIT

    def copy_into(self, c: TurnState) -> None:
        """Make ``c`` this state (in place: a stretch keeps two states and swaps them turn by turn)."""
        src, dst = self.senders, c.senders
        for k in range(len(src)):  # an index loop: mypyc compiles it to a C loop, zip() it does not
            a = src[k]
            b = dst[k]
            b.st = a.st
            b.t = a.t
            b.seq = a.seq
            b.touched = a.touched
            b.wmem = a.wmem
            b.ticket = a.ticket
        c.pending = self.pending
        c.order = self.order
        c.tickets = self.tickets
        c.root_holder = self.root_holder
        c.root_waiting = self.root_waiting
        c.root_last = self.root_last
        c.bl_holder = self.bl_holder
        c.bl_waiting = self.bl_waiting
        c.bl_last = self.bl_last
        _copy_list(self.band_qlen, c.band_qlen)
        c.draw = self.draw
        c.d_state = self.d_state
        c.d_at = self.d_at
        c.d_seq = self.d_seq
        c.d_ticket = self.d_ticket

    def post(self, one: StretchSender, state: int, t: int) -> None:
        """Sender ``one``'s next event: ``state`` at ``t``, posted now."""
        one.st = state
        one.t = t
        one.seq = self.order
        self.order += 1
        one.touched = True

    def wait(self, one: StretchSender, state: int) -> None:
        """Sender ``one`` takes the next ticket of busylock (``P_BWAIT``) or the root lock (``P_RWAIT``)."""
        one.st = state
        one.ticket = self.tickets
        self.tickets += 1
        if state == P_BWAIT:
            self.bl_waiting += 1
        else:
            self.root_waiting += 1

    def next_waiter(self, state: int) -> StretchSender | None:
        """The sender in ``state`` (P_BWAIT, P_RWAIT) with the lowest ticket, or None."""
        best: StretchSender | None = None
        low = INF
        for one in self.live:
            if one.st == state and one.ticket < low:
                best, low = one, one.ticket
        return best

    def post_d(self, state: int, t: int) -> None:
        self.d_state = state
        self.d_at = t
        self.d_seq = self.order
        self.order += 1


def _copy_list(src: list[int], dst: list[int]) -> None:
    """``dst[:] = src`` without a slice object (mypyc makes a slice assignment a generic set-item)."""
    n = len(src)
    while len(dst) > n:
        dst.pop()
    for k in range(len(dst)):
        dst[k] = src[k]
    for k in range(len(dst), n):
        dst.append(src[k])


def earliest(turn: TurnState) -> StretchSender | None:
    """The sender in play whose event comes first (instant, then posting order), or None."""
    best: StretchSender | None = None
    bt = bq = INF
    for one in turn.live:
        if one.st >= P_USER:
            t = one.t
            if t < bt or (t == bt and one.seq < bq):
                best, bt, bq = one, t, one.seq
    return best
