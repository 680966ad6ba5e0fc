"""The dequeue loop in closed form: whole turns of ``__qdisc_run`` computed without events.

A turn is one packet of the loop: ``dequeue_skb`` under the root lock, the root lock released for the
driver call, the contending senders served meanwhile in ticket order (busylock, then the root lock,
their enqueue, back to user space and their next packet), the root lock taken back. The event engine
(``qdisc.per_packet = true``) runs each of those steps as an event; here, from the top of the loop,
the same steps are computed arithmetically, turn after turn, while:

* the dequeuer and every sender it meets are in one of the states of ``model.net.stretch`` (building
  its next packet, waiting for or holding busylock, waiting for or holding the root lock, enqueuing),
  each on a CPU with no interrupt context over it, and the spinlocks are ticket locks;
* nothing from outside the transmit path happens first: the next event of the machine's queue, the
  next step of any other context, the end of the ``advance()`` in progress bound the stretch;
* the turn ends in an ordinary loop continue: no exit rule, empty queue, ring stop, requeue, vector
  interrupt to arm, sender to wake or to put to sleep, and no ``need_resched``.

A stretch does not throw away the turn in which it meets its end. Where the next step lies past the
bound (most often a NIC interrupt due while the dequeuer is in the driver call) or is one the stretch
does not model (a sender whose bottom halves must run softirqs, or that would sleep; a loop that
exits), the turn is kept up to that step: its dequeue, its driver call, its packet on the ring, as far
as they went, and the dequeuer is left with the next of its steps pending (``_q_xmit``, ``_q_posted``,
``_q_check``) or queued for the root lock, for the event engine to go on from.

Steps due at one instant run in the order they were posted, as in the event engine (each step carries
the order it was posted in). Whatever breaks a condition is left to the event engine, so the result is
the event engine's own, to the nanosecond (tests/test_txpath.py compares the two).
"""

from __future__ import annotations

from typing import Final

import numpy as np
from mypy_extensions import i64

from model.machine import Machine
from model.net.cpuctx import Ctx
from model.net.locks import TICKET
from model.net.qdisc import Qdisc
from model.net.stretch import (
    D_DEQ,
    D_DRV,
    D_HOLD,
    D_ID,
    D_WAIT,
    FREE,
    INF,
    P_BGRANT,
    P_BWAIT,
    P_ENQ,
    P_RGRANT,
    P_RWAIT,
    P_USER,
    StretchSender,
    TurnState,
    earliest,
)
from model.net.stretch_bridge import StretchBridge
from model.net.txconfig import TxConfig

# What a turn tried in closed form came to (ClosedForm._turn).
TURN_NONE: Final = 0  # not even its dequeue is plain: the event engine takes the turn
TURN_CUT: Final = 1  # plain up to a step the stretch must leave to the event engine: the stretch ends there
TURN_WHOLE: Final = 2  # plain to its end: the next turn follows


class ClosedForm(StretchBridge):
    def __init__(self, machine: Machine, qdisc: Qdisc, cfg: TxConfig, rng: np.random.Generator) -> None:
        super().__init__(machine, qdisc, cfg, rng)
        self.closed_turns = 0  # whole turns computed in closed form (statistics)
        self.cut_turns = 0  # stretches that ended inside a turn, the rest of it left to the event engine
        self._enabled = not cfg.per_packet and cfg.spinlock == TICKET and self._bq is not None
        self._d_cpu: i64 = 0
        # The costs a turn reads, as unboxed fields of its own.
        self._drv_ns: i64 = cfg.costs.drv_ns if self.nic is not None else cfg.costs.dummy_ns
        self._deq_ns: i64 = cfg.costs.deq_ns
        self._enq_ns: i64 = cfg.costs.enq_ns
        self._lock_ns: i64 = cfg.costs.lock_ns

    def _q_restart(self, ctx: Ctx) -> None:
        if self._enabled and self.in_burst and self._stretch(ctx):
            return
        super()._q_restart(ctx)

    # ---- the stretch ------------------------------------------------------------------------------

    def _stretch(self, d: Ctx) -> bool:
        """Compute turns from now while they are plain, and the last one as far as it is; True if the
        dequeuer moved (at least the dequeue of a turn was taken)."""
        q = self._bq
        assert q is not None
        if self.root.holder is not d or q.requeued is not None or q.qlen == 0:
            return False
        t = self.m.q.now_ns
        # Two cheap refusals before the senders' state is gathered: something outside comes before the
        # dequeue is done (the event engine takes that one step as cheaply), and the head packet must
        # go out plainly (the same test every turn makes, here on the state as it is).
        outside = self._bound_outside(d)
        if outside <= t + self._deq_ns:
            return False
        band = q.peek_band()  # a band: the requeue slot is empty and the qdisc is not
        assert band is not None
        owner = q.head_flow(band)
        if not self._xmit_plain(owner, self.sockets[owner].wmem_alloc):
            return False
        got = self._members(d)
        if got is None:
            return False
        members, state = got
        state.live = [state.senders[i] for i in members]
        bound = self._bound(d, members, outside)
        self._d_cpu = d.cpu
        done = 0
        whole = True  # the stretch ends at the top of the loop, after whole turns
        while True:
            # In place: a turn that is not plain is found so before it changes the state.
            taken = self._turn(d, state, t, bound)
            if taken == TURN_NONE:
                break
            self._commit(d, state, taken == TURN_WHOLE)
            if taken == TURN_CUT:
                self.cut_turns += 1
                whole = False
                break
            t = state.d_at
            done += 1
        if whole and not done:
            return False
        self._drops(members, state)
        self._write_back(d, members, state, whole)
        self.closed_turns += done
        return True

    # ---- one turn ---------------------------------------------------------------------------------

    def _xmit_plain(self, owner: int, wmem: int) -> bool:
        """sch_direct_xmit() of ``owner``'s packet (its socket holding ``wmem`` before the orphan) is
        plain: skb_orphan_try() must wake nobody, the driver must neither stop the ring nor arm its
        vector (the dummy device just frees the skb)."""
        nic = self.nic
        sock = self.sockets[owner]
        if self._orphan_at_xmit and sock.sleeping and 2 * (wmem - sock.truesize) <= sock.sndbuf:
            return False
        if nic is not None:
            ring = nic.ring_of(owner)
            if ring.stopped or ring.unused() - 2 < nic.stop_free:
                return False
            if self.vec_enabled[ring.index] and not self.vec_armed[ring.index]:
                return False
        return True

    def _cost(self, last: i64, cpu: i64) -> i64:
        # Two returns, not ``0 if … else self._lock_ns``: mypyc types that expression as a boxed int.
        if last == cpu:
            return 0
        return self._lock_ns

    def _turn(self, d: Ctx, turn: TurnState, t0: i64, bound: i64) -> int:
        """The turn from ``t0`` (the dequeuer holds the root lock), on ``turn`` in place: TURN_WHOLE if it
        is plain to its end, TURN_CUT if it is plain up to some step (the bound, or a step the stretch
        does not model: ``turn`` is then the state just before it, every step before it taken),
        TURN_NONE if not even its dequeue is (``turn`` unchanged). Its packet's owner and band, and when
        the dequeuer asked for the root lock back, are left in ``_t_owner``, ``_t_band`` and
        ``_t_post``."""
        turn.n_enq = 0
        band: i64 = 0
        for qlen in turn.band_qlen:
            if qlen:
                break
            band += 1
        if band == len(turn.band_qlen):
            return TURN_NONE
        q = self._bq
        assert q is not None
        owner = q.head_flow(band)
        if not self._xmit_plain(owner, turn.senders[owner].wmem):
            return TURN_NONE
        turn.band_qlen[band] = turn.band_qlen[band] - 1  # not -=: mypyc makes it a generic number op
        self._t_owner = owner
        self._t_band = band
        self._t_post = -1
        drv: i64 = self._drv_ns
        d_cpu: i64 = self._d_cpu
        turn.post_d(D_DEQ, t0 + self._deq_ns)  # dequeue_skb() under the root lock
        first: StretchSender | None = None
        known = False  # ``first`` is still the sender whose event comes first: no need to look again
        while True:
            if not known:
                first = earliest(turn)
            moves = turn.moves
            if first is None or turn.d_at < first.t or (turn.d_at == first.t and turn.d_seq < first.seq):
                t_d: i64 = turn.d_at
                if t_d >= bound:
                    return TURN_CUT
                state = turn.d_state
                if state == D_HOLD:
                    break
                if state == D_DEQ:  # _q_xmit(): spin_unlock(root), skb_orphan_try(), the driver call
                    if self._orphan_at_xmit:
                        sock_of = turn.senders[owner]  # the packet's sender: its socket lets go of the skb
                        sock_of.wmem -= sock_of.truesize
                    self._release_root(turn, t_d)
                    turn.post_d(D_DRV, t_d + drv)
                elif turn.root_holder == FREE and not turn.root_waiting:  # _q_posted(): spin_lock(root)
                    self._t_post = t_d
                    turn.root_holder = D_ID
                    turn.post_d(D_HOLD, t_d + self._cost(turn.root_last, d_cpu))
                    turn.root_last = d_cpu
                else:
                    self._t_post = t_d
                    turn.d_ticket = turn.tickets
                    turn.tickets += 1
                    turn.root_waiting += 1
                    turn.d_state, turn.d_at, turn.d_seq = D_WAIT, INF, INF
                known = turn.moves == moves  # the dequeuer's step moved no sender
                continue
            t_min: i64 = first.t
            if t_min >= bound or not self._step(turn, first, t_min):
                return TURN_CUT
            # Only its own next event was posted (its step posts or queues it, each one move): it stays
            # first if that comes before every other sender's (on a tie, the other was posted earlier).
            known = turn.moves == moves + 1 and first.st >= P_USER and first.t < turn.second_t
        # __qdisc_run()'s checks after the packet: any exit is the event engine's (_q_check, at d_at).
        left: i64 = 0
        for qlen in turn.band_qlen:  # a loop, not sum(): mypyc calls builtins through Python
            left += qlen
        if left == 0 or self._would_exit(d, turn.d_at):
            return TURN_CUT
        return TURN_WHOLE

    def _would_exit(self, d: Ctx, t: int) -> bool:
        rule = self.exit_rule
        if rule == "quota" and d.quota - 1 <= 0:
            return True
        if rule == "quota+jiffy" and d.pkts + 1 >= self.weight_p:
            return True
        if self.m.cpus[d.cpu].need_resched:
            return True
        return rule != "quota" and t // self.tick_ns != d.start_jiffy

    def _step(self, turn: TurnState, one: StretchSender, t: i64) -> bool:
        """Sender ``one``'s event at ``t`` (False: something the stretch does not model)."""
        st: i64 = one.st
        i: i64 = one.index
        cpu: i64 = one.cpu
        if st == P_USER:  # dev_queue_xmit(), contended: spin_lock(busylock)
            if turn.bl_holder == FREE and not turn.bl_waiting:
                turn.bl_holder = i
                turn.post(one, P_BGRANT, t + self._cost(turn.bl_last, cpu))
                turn.bl_last = cpu
            else:
                turn.wait(one, P_BWAIT)
            return True
        if st == P_BGRANT:  # spin_lock(root)
            if turn.root_holder == FREE and not turn.root_waiting:
                turn.root_holder = i
                turn.post(one, P_RGRANT, t + self._cost(turn.root_last, cpu))
                turn.root_last = cpu
            else:
                turn.wait(one, P_RWAIT)
            return True
        if st == P_RGRANT:  # holding the root lock: the enqueue
            turn.post(one, P_ENQ, t + self._enq_ns)
            return True
        # P_ENQ: enqueue, qdisc_run_begin() fails, unlock root, unlock busylock, back to user space,
        # sock_alloc_send_skb() for the next packet. Anything the stretch does not model is found before
        # the state changes: the step is then left to the event engine.
        if one.pending:
            return False  # its local_bh_enable() runs the softirqs waiting on its CPU
        band: i64 = one.band
        q = self._bq
        assert q is not None
        accepted = q.accepts(band, turn.band_qlen)
        # A tail drop frees the skb at once: kfree_skb() -> sock_wfree().
        wmem: i64 = one.wmem if accepted else one.wmem - one.truesize
        if wmem >= one.sndbuf:
            return False  # sock_alloc_send_skb() would sleep
        if accepted:
            turn.band_qlen[band] = turn.band_qlen[band] + 1
            n = turn.n_enq
            if n < len(turn.enq):
                turn.enq[n] = i
            else:
                turn.enq.append(i)
            turn.n_enq = n + 1
        else:
            one.drops += 1
        self._release_root(turn, t)
        turn.bl_holder = FREE
        if turn.bl_waiting:
            nxt = turn.next_waiter(P_BWAIT)
            assert nxt is not None
            turn.bl_waiting -= 1
            ncpu: i64 = nxt.cpu
            turn.bl_holder = nxt.index
            turn.post(nxt, P_BGRANT, t + self._cost(turn.bl_last, ncpu))
            turn.bl_last = ncpu
        one.wmem = wmem + one.truesize
        turn.post(one, P_USER, t + self._user_draw(turn))
        return True

    def _user_draw(self, turn: TurnState) -> i64:
        i: i64 = turn.draw + 1
        if i == len(self.user_table):
            i = 0
        turn.draw = i
        return self.user_table[i]

    def _release_root(self, turn: TurnState, t: i64) -> None:
        """spin_unlock(root) at ``t``: the next ticket holds it one cache-line move later."""
        turn.root_holder = FREE
        if not turn.root_waiting:
            return
        turn.root_waiting -= 1
        nxt = turn.next_waiter(P_RWAIT)
        if turn.d_state == D_WAIT and (nxt is None or turn.d_ticket < nxt.ticket):
            cpu: i64 = self._d_cpu
            turn.root_holder = D_ID
            turn.post_d(D_HOLD, t + self._cost(turn.root_last, cpu))
        else:
            assert nxt is not None
            cpu = nxt.cpu
            turn.root_holder = nxt.index
            turn.post(nxt, P_RGRANT, t + self._cost(turn.root_last, cpu))
        turn.root_last = cpu
