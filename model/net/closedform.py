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

Steps due at one instant run in the order they were posted, as in the event engine (each step carries
the order it was posted in). Whatever breaks a condition is left to the event engine, so the result is
the event engine's own, to the nanosecond (tests/test_txpath.py compares the two).
"""

from __future__ import annotations

import numpy as np

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


class ClosedForm(StretchBridge):
    def __init__(self, machine: Machine, qdisc: Qdisc, cfg: TxConfig, rng: np.random.Generator) -> None:
        super().__init__(machine, qdisc, cfg, rng)
        self.closed_turns = 0  # turns computed in closed form (statistics)
        self._enabled = not cfg.per_packet and cfg.spinlock == TICKET and self._bq is not None
        self._d_cpu = 0
        # What a plain turn took (_turn's results; fields, not a tuple: no allocation per turn).
        self._t_owner = 0  # the packet's sender
        self._t_band = 0  # its band
        self._t_post = 0  # when the dequeuer asked for the root lock back
        self._drv_ns = cfg.costs.drv_ns if self.nic is not None else cfg.costs.dummy_ns

    def _q_restart(self, ctx: Ctx) -> None:
        if self._enabled and self.in_burst and self._stretch(ctx):
            return
        super()._q_restart(ctx)

    # ---- the stretch ------------------------------------------------------------------------------

    def _stretch(self, d: Ctx) -> bool:
        """Compute turns from now while they are plain; True if at least one was taken."""
        q = self._bq
        assert q is not None
        if self.root.holder is not d or q.requeued is not None or q.qlen == 0:
            return False
        t = self.m.q.now_ns
        # Two cheap refusals before the senders' state is gathered (most stretches that take no turn end
        # here): a turn lasts at least dequeue_skb() plus the driver call, and its packet must go out
        # plainly (the same test every turn makes, here on the state as it is).
        outside = self._bound_outside(d)
        if outside <= t + self.costs.deq_ns + self._drv_ns:
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
        turn = TurnState(len(self.sender_ctx))  # the turn tried; ``state`` stays as it was if it is not plain
        turn.live = [turn.senders[i] for i in members]
        while True:
            if not self._turn(d, members, state, turn, t, bound):
                break
            self._commit(d, turn, self._t_owner, self._t_band, self._t_post)
            state, turn = turn, state
            t = state.d_at
            done += 1
        if not done:
            return False
        self._write_back(d, members, state)
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

    def _cost(self, last: int, cpu: int) -> int:
        return 0 if last == cpu else self.costs.lock_ns

    def _turn(
        self, d: Ctx, members: list[int], base: TurnState, turn: TurnState, t0: int, bound: int
    ) -> bool:
        """The turn from ``t0`` (the dequeuer holds the root lock) into ``turn``; False if it is not plain.
        A plain turn leaves the owner and band of its packet, and when the dequeuer asked for the root
        lock back, in ``_t_owner``, ``_t_band`` and ``_t_post``."""
        base.copy_into(turn)
        turn.n_enq = 0
        band = 0
        for qlen in turn.band_qlen:
            if qlen:
                break
            band += 1
        if band == len(turn.band_qlen):
            return False
        q = self._bq
        assert q is not None
        owner = q.head_flow(band)
        turn.band_qlen[band] = turn.band_qlen[band] - 1  # not -=: mypyc makes it a generic number op
        if not self._xmit_plain(owner, turn.senders[owner].wmem):
            return False
        if self._orphan_at_xmit:
            turn.senders[owner].wmem -= self.sockets[owner].truesize
        drv = self._drv_ns
        turn.post_d(D_DEQ, t0 + self.costs.deq_ns)  # dequeue_skb() under the root lock
        t_post = -1
        while True:
            first = earliest(turn)
            if first is None or turn.d_at < first.t or (turn.d_at == first.t and turn.d_seq < first.seq):
                t_d = turn.d_at
                if t_d >= bound:
                    return False
                state = turn.d_state
                if state == D_HOLD:
                    break
                if state == D_DEQ:  # _q_xmit(): spin_unlock(root), the driver call
                    self._release_root(turn, t_d)
                    turn.post_d(D_DRV, t_d + drv)
                elif turn.root_holder == FREE and not turn.root_waiting:  # _q_posted(): spin_lock(root)
                    t_post = t_d
                    turn.root_holder = D_ID
                    turn.post_d(D_HOLD, t_d + self._cost(turn.root_last, d.cpu))
                    turn.root_last = d.cpu
                else:
                    t_post = t_d
                    turn.d_ticket = turn.tickets
                    turn.tickets += 1
                    turn.root_waiting += 1
                    turn.d_state, turn.d_at, turn.d_seq = D_WAIT, INF, INF
                continue
            t_min = first.t
            if t_min >= bound or not self._step(turn, first, t_min):
                return False
        # __qdisc_run()'s checks after the packet: any exit is the event engine's.
        left = 0
        for qlen in turn.band_qlen:  # a loop, not sum(): mypyc calls builtins through Python
            left += qlen
        if left == 0 or self._would_exit(d, turn.d_at):
            return False
        self._t_owner = owner
        self._t_band = band
        self._t_post = t_post
        return True

    def _would_exit(self, d: Ctx, t: int) -> bool:
        rule = self.exit_rule
        if rule == "quota" and d.quota - 1 <= 0:
            return True
        if rule == "quota+jiffy" and d.pkts + 1 >= self.weight_p:
            return True
        if self.m.cpus[d.cpu].need_resched:
            return True
        return rule != "quota" and t // self.tick_ns != d.start_jiffy

    def _step(self, turn: TurnState, one: StretchSender, t: int) -> bool:
        """Sender ``one``'s event at ``t`` (False: something the stretch does not model)."""
        st = one.st
        i = one.index
        cpu = self.sender_cpu[i]
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
            turn.post(one, P_ENQ, t + self.costs.enq_ns)
            return True
        # P_ENQ: enqueue, qdisc_run_begin() fails, unlock root, unlock busylock, back to user space.
        if turn.pending[i]:
            return False  # its local_bh_enable() runs the softirqs waiting on its CPU
        band = self.sender_band[i]
        q = self._bq
        assert q is not None
        accepted = q.accepts(band, turn.band_qlen)
        sock = self.sockets[i]
        if accepted:
            turn.band_qlen[band] = turn.band_qlen[band] + 1
        else:
            one.wmem -= sock.truesize  # tail drop: kfree_skb() -> sock_wfree()
        code = 2 * i + (1 if accepted else 0)
        n = turn.n_enq
        if n < len(turn.enq):
            turn.enq[n] = code
        else:
            turn.enq.append(code)
        turn.n_enq = n + 1
        self._release_root(turn, t)
        turn.bl_holder = FREE
        if turn.bl_waiting:
            nxt = turn.next_waiter(P_BWAIT)
            assert nxt is not None
            turn.bl_waiting -= 1
            ncpu = self.sender_cpu[nxt.index]
            turn.bl_holder = nxt.index
            turn.post(nxt, P_BGRANT, t + self._cost(turn.bl_last, ncpu))
            turn.bl_last = ncpu
        if one.wmem >= sock.sndbuf:
            return False  # sock_alloc_send_skb() would sleep
        one.wmem += sock.truesize
        turn.post(one, P_USER, t + self._user_draw(turn))
        return True

    def _user_draw(self, turn: TurnState) -> int:
        i = turn.draw + 1
        if i == len(self.user_table):
            i = 0
        turn.draw = i
        return self.user_table[i]

    def _release_root(self, turn: TurnState, t: int) -> None:
        """spin_unlock(root) at ``t``: the next ticket holds it one cache-line move later."""
        turn.root_holder = FREE
        if not turn.root_waiting:
            return
        turn.root_waiting -= 1
        nxt = turn.next_waiter(P_RWAIT)
        if turn.d_state == D_WAIT and (nxt is None or turn.d_ticket < nxt.ticket):
            cpu = self._d_cpu
            turn.root_holder = D_ID
            turn.post_d(D_HOLD, t + self._cost(turn.root_last, cpu))
        else:
            assert nxt is not None
            cpu = self.sender_cpu[nxt.index]
            turn.root_holder = nxt.index
            turn.post(nxt, P_RGRANT, t + self._cost(turn.root_last, cpu))
        turn.root_last = cpu
