"""The state of one stretch of the closed form (``model.net.closedform``): each sender's part, the
locks' holders and ticket queues, the bands' lengths, the dequeuer's next step.

A turn works on this state in place (what would make it not plain is found before it changes
anything), so the state is small and flat: plain attributes of native classes, which mypyc keeps
unboxed.
"""

from __future__ import annotations

from typing import Final

from mypy_extensions import i64

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

    __slots__ = ("band", "cpu", "drops", "index", "pending", "seq", "sndbuf", "st", "t", "ticket", "touched",
                 "truesize", "wmem")  # fmt: skip

    def __init__(self, index: int) -> None:
        self.index: i64 = index  # the sender (its CPU)
        self.st: i64 = -1  # P_* or -1 (not in play)
        self.t: i64 = 0  # the instant of its next event (states >= P_USER)
        self.seq: i64 = 0  # the order its next event was posted in
        self.touched = False  # its event was posted in the stretch
        self.wmem: i64 = 0  # its socket's sk_wmem_alloc
        self.drops: i64 = 0  # its packets the qdisc tail-dropped in the stretch (applied at its end)
        # Fixed for the stretch: its CPU, its band, its socket's sk_sndbuf and skb truesize, and whether
        # softirqs wait on its CPU for its local_bh_enable().
        self.cpu: i64 = 0
        self.band: i64 = 0
        self.sndbuf: i64 = 0
        self.truesize: i64 = 0
        self.pending = False
        self.ticket: i64 = 0  # in P_BWAIT and P_RWAIT: its place in that lock's queue (lower goes first)


class TurnState:
    """The stretch's state, turn after turn."""

    __slots__ = ("band_qlen", "bl_holder", "bl_last", "bl_waiting", "d_at", "d_seq", "d_state", "d_ticket",
                 "draw", "enq", "live", "moves", "n_enq", "order", "root_holder", "root_last", "root_waiting",
                 "second_t", "senders", "tickets")  # fmt: skip

    def __init__(self, n: int) -> None:
        self.senders = [StretchSender(i) for i in range(n)]  # per sender
        self.live: list[StretchSender] = []  # the senders in play, in sender order
        self.order: i64 = 0  # the next posting order
        self.moves: i64 = 0  # senders' events posted or taken away (post(), wait()): a change counter
        self.second_t: i64 = INF  # earliest(): the instant of the next sender's event after the first's
        # The locks' queues as tickets: a waiter's state says which lock it waits for, its ticket its
        # place (a list popped at its head would be shifted and reallocated at every hand-off).
        self.tickets: i64 = 0  # the next ticket
        self.root_holder: i64 = D_ID
        self.root_waiting: i64 = 0  # senders in P_RWAIT, and the dequeuer in D_WAIT
        self.root_last: i64 = 0  # the CPU that last held it
        self.bl_holder: i64 = FREE
        self.bl_waiting: i64 = 0  # senders in P_BWAIT
        self.bl_last: i64 = 0
        self.band_qlen: list[int] = []
        self.draw: i64 = 0  # the user-work jitter index
        # The senders of the packets the qdisc took, in enqueue order: the first n_enq (kept, not
        # cleared: no reallocation). A tail drop changes nothing but counters: see StretchSender.drops.
        self.enq: list[int] = []
        self.n_enq: i64 = 0
        self.d_state: i64 = D_DRV
        self.d_at: i64 = 0
        self.d_seq: i64 = 0
        self.d_ticket: i64 = 0  # the dequeuer's ticket, in D_WAIT

    def post(self, one: StretchSender, state: i64, t: i64) -> None:
        """Sender ``one``'s next event: ``state`` at ``t``, posted now."""
        one.st = state
        one.t = t
        one.seq = self.order
        self.order += 1
        one.touched = True
        self.moves += 1

    def wait(self, one: StretchSender, state: i64) -> None:
        """Sender ``one`` takes the next ticket of busylock (``P_BWAIT``) or the root lock (``P_RWAIT``)."""
        one.st = state
        one.ticket = self.tickets
        self.tickets += 1
        self.moves += 1
        if state == P_BWAIT:
            self.bl_waiting += 1
        else:
            self.root_waiting += 1

    def next_waiter(self, state: i64) -> StretchSender | None:
        """The sender in ``state`` (P_BWAIT, P_RWAIT) with the lowest ticket, or None."""
        best: StretchSender | None = None
        low: i64 = INF
        for one in self.live:
            if one.st == state and one.ticket < low:
                best, low = one, one.ticket
        return best

    def post_d(self, state: i64, t: i64) -> None:
        self.d_state = state
        self.d_at = t
        self.d_seq = self.order
        self.order += 1


def earliest(turn: TurnState) -> StretchSender | None:
    """The sender in play whose event comes first (instant, then posting order), or None; the instant
    of the next one after it in ``turn.second_t``."""
    best: StretchSender | None = None
    bt: i64 = INF
    bq: i64 = INF
    second: i64 = INF
    for one in turn.live:
        if one.st >= P_USER:
            t = one.t
            if t < bt or (t == bt and one.seq < bq):
                if bt < second:
                    second = bt
                best, bt, bq = one, t, one.seq
            elif t < second:
                second = t
    turn.second_t = second
    return best
