"""The dequeue loop in closed form: whole turns of ``__qdisc_run`` computed without events.

A turn is one packet of the loop: ``dequeue_skb`` under the root lock, the root lock released for the
driver call, the contending senders served meanwhile in ticket order (busylock, then the root lock,
their enqueue, back to user space and their next packet), the root lock taken back. The event engine
(``qdisc.per_packet = true``) runs each of those steps as an event; here, from the top of the loop,
the same steps are computed arithmetically, turn after turn, while:

* the dequeuer and every sender it meets are in one of the states modelled below (building its next
  packet, waiting for or holding busylock, waiting for or holding the root lock, enqueuing), each on a
  CPU with no interrupt context over it, and the spinlocks are ticket locks;
* nothing from outside the transmit path happens first: the next event of the machine's queue, the
  next step of any other context, the end of the ``advance()`` in progress bound the stretch;
* the turn ends in an ordinary loop continue: no exit rule, empty queue, ring stop, requeue, vector
  interrupt to arm, sender to wake or to put to sleep, and no ``need_resched``.

Steps due at one instant run in the order they were posted, as in the event engine (each step carries
the order it was posted in). Whatever breaks a condition is left to the event engine, so the result is
the event engine's own, to the nanosecond (tests/test_txpath.py compares the two).
"""

from __future__ import annotations

from typing import Final

import numpy as np

from model.machine import Machine
from model.net.bands import BandedQdisc
from model.net.cpuctx import ST_WAIT, ST_WORK, Ctx
from model.net.locks import TICKET
from model.net.qdisc import Qdisc
from model.net.senders import SenderEngine
from model.net.txconfig import TxConfig

# A sender's state in a stretch. The ones with an event: P_USER (its packet is built), P_BGRANT (it
# holds busylock and asks for the root lock), P_RGRANT (it holds the root lock), P_ENQ (enqueued).
# Waiting states come first, so that "has an event" is one comparison: state >= P_USER.
P_BWAIT: Final = 0
P_RWAIT: Final = 1
P_USER: Final = 2
P_BGRANT: Final = 3
P_ENQ: Final = 4
P_RGRANT: Final = 5
D_ID: Final = -2  # the dequeuer, in a lock's queue
FREE: Final = -1
INF: Final = 1 << 60  # past any run (and inside mypyc's unboxed integers)


class _Sender:
    """One sender's part of a stretch's state (attributes, so that mypyc keeps the numbers unboxed)."""

    __slots__ = ("index", "seq", "st", "t", "touched", "wmem")

    def __init__(self, index: int) -> None:
        self.index = index  # the sender (its CPU)
        self.st = -1  # P_* or -1 (not in play)
        self.t = 0  # the instant of its next event (states >= P_USER)
        self.seq = 0  # the order its next event was posted in
        self.touched = False  # its event was posted in the stretch
        self.wmem = 0  # its socket's sk_wmem_alloc


class _Turn:
    """The tentative state of a turn: a copy of the stretch's state, kept only if the turn is plain."""

    __slots__ = ("band_qlen", "bl_holder", "bl_last", "bl_q", "d_at", "d_seq", "d_state", "draw", "enq",
                 "live", "order", "pending", "root_holder", "root_last", "root_q", "senders")  # fmt: skip

    def __init__(self, n: int) -> None:
        self.senders = [_Sender(i) for i in range(n)]  # per sender
        self.live: list[_Sender] = []  # the senders in play, in sender order
        self.pending: list[bool] = []  # per sender: softirqs wait on its CPU for its local_bh_enable()
        self.order = 0  # the next posting order
        self.root_holder = D_ID
        self.root_q: list[int] = []  # ticket order
        self.root_last = 0  # the CPU that last held it
        self.bl_holder = FREE
        self.bl_q: list[int] = []
        self.bl_last = 0
        self.band_qlen: list[int] = []
        self.draw = 0  # the user-work jitter index
        self.enq: list[int] = []  # 2 * sender + accepted, in enqueue order (small ints: no allocation)
        self.d_state = D_DRV
        self.d_at = 0
        self.d_seq = 0

    def copy_into(self, c: _Turn) -> None:
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
        c.pending = self.pending
        c.order = self.order
        c.root_holder = self.root_holder
        c.root_q[:] = self.root_q
        c.root_last = self.root_last
        c.bl_holder = self.bl_holder
        c.bl_q[:] = self.bl_q
        c.bl_last = self.bl_last
        c.band_qlen[:] = self.band_qlen
        c.draw = self.draw
        c.d_state = self.d_state
        c.d_at = self.d_at
        c.d_seq = self.d_seq

    def post(self, i: int, state: int, t: int) -> None:
        """Sender ``i``'s next event: ``state`` at ``t``, posted now."""
        one = self.senders[i]
        one.st = state
        one.t = t
        one.seq = self.order
        self.order += 1
        one.touched = True

    def post_d(self, state: int, t: int) -> None:
        self.d_state = state
        self.d_at = t
        self.d_seq = self.order
        self.order += 1


# The dequeuer: in the driver call until d_at; holding the root lock from d_at (its check); queued.
D_DRV: Final = 1
D_HOLD: Final = 2
D_WAIT: Final = 3
D_DEQ: Final = 4


class ClosedForm(SenderEngine):
    def __init__(self, machine: Machine, qdisc: Qdisc, cfg: TxConfig, rng: np.random.Generator) -> None:
        super().__init__(machine, qdisc, cfg, rng)
        self.closed_turns = 0  # turns computed in closed form (statistics)
        # The qdiscs schedlab ships share BandedQdisc, whose methods mypyc calls natively; through the
        # Qdisc protocol each call is a Python method lookup (about 1.5 k instructions, measured with
        # callgrind: a fifth of a turn). Any other qdisc runs on the event engine, which takes the same
        # turns step by step.
        self._bq: BandedQdisc | None = qdisc if isinstance(qdisc, BandedQdisc) else None
        self._enabled = not cfg.per_packet and cfg.spinlock == TICKET and self._bq is not None
        self._d_cpu = 0
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
        owner = self.owners[band].first()
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
        turn = _Turn(len(self.sender_ctx))  # the turn tried; ``state`` stays as it was if it is not plain
        turn.live = [turn.senders[i] for i in members]
        while True:
            nxt = self._turn(d, members, state, turn, t, bound)
            if nxt is None:
                break
            owner, band, t_post = nxt
            self._commit(d, turn, owner, band, t_post)
            state, turn = turn, state
            t = state.d_at
            done += 1
        if not done:
            return False
        self._write_back(d, members, state)
        self.closed_turns += done
        return True

    def _bound_outside(self, d: Ctx) -> int:
        """The first instant at which something other than the senders' own steps may happen: the
        machine's next event, the end of the run, another context's next step."""
        q = self.m.q
        nxt = q.next_time()
        bound = q.horizon_ns + 1 if nxt is None else min(nxt, q.horizon_ns + 1)
        for t, _, ctx, g in self.steps:
            if t >= bound or g != ctx.gen or ctx.status != ST_WORK or ctx is d:
                continue
            if ctx.sender >= 0 and ctx is self.sender_ctx[ctx.sender]:
                continue
            bound = t
        return bound

    def _bound(self, d: Ctx, members: list[int], outside: int) -> int:
        """The first instant at which something the stretch does not model may happen: ``outside``, or a
        step of a sender not in play."""
        bound = outside
        for t, _, ctx, g in self.steps:
            if t >= bound or g != ctx.gen or ctx.status != ST_WORK or ctx is d:
                continue
            if ctx.sender >= 0 and ctx is self.sender_ctx[ctx.sender] and ctx.sender not in members:
                bound = t
        return bound

    def _members(self, d: Ctx) -> tuple[list[int], _Turn] | None:
        """The senders in play and their state, or None if a context is in a state not modelled."""
        q = self._bq
        assert q is not None
        n = len(self.sender_ctx)
        s = _Turn(n)
        s.pending = [False] * n
        order_of: dict[int, int] = {}
        for _t, order, ctx, g in self.steps:
            if g == ctx.gen and ctx.status == ST_WORK and ctx.sender >= 0:
                order_of[ctx.sender] = order
        members: list[int] = []
        busy = self.busylock
        for i, ctx in enumerate(self.sender_ctx):
            if ctx is d or not ctx.attached:
                continue  # the dequeuer itself; a sender off its CPU (asleep, preempted) stays so
            xcpu = self.xcpus[ctx.cpu]
            if not xcpu.stack or xcpu.stack[-1] is not ctx:
                # An interrupt or softirq runs over it (often the dequeuer itself, net_tx_action() at
                # the sender's local_bh_enable()): it stays frozen for the stretch, whose bound is that
                # context's next step. A lock it holds or waits for is checked below: not modelled.
                continue
            # A softirq raised while it has bottom halves off waits for its local_bh_enable(): the
            # stretch stops before that (see _step).
            s.pending[i] = bool(xcpu.pending)
            if self.m.cpus[ctx.cpu].need_resched:
                return None
            if ctx.status == ST_WORK:
                if ctx.cont == self._snd_xmit:
                    s.senders[i].st = P_USER
                elif ctx.cont == self._snd_root and busy.holder is ctx:
                    s.senders[i].st = P_BGRANT
                elif ctx.cont == self._snd_enqueue and self.root.holder is ctx:
                    s.senders[i].st = P_RGRANT
                else:
                    return None
                s.senders[i].t = ctx.end_ns
                s.senders[i].seq = order_of[i]
            elif ctx.status == ST_WAIT and ctx.lock is busy:
                s.senders[i].st = P_BWAIT
            elif ctx.status == ST_WAIT and ctx.lock is self.root and ctx.contended and busy.holder is ctx:
                s.senders[i].st = P_RWAIT
            else:
                return None
            members.append(i)
        if any(s.senders[i].st == P_RGRANT for i in members):
            return None  # the dequeuer holds the root lock at the top of its loop
        for w in busy.waiters:
            if not (isinstance(w, Ctx) and w.sender in members and s.senders[w.sender].st == P_BWAIT):
                return None
            s.bl_q.append(w.sender)
        for w in self.root.waiters:
            if not (isinstance(w, Ctx) and w.sender in members and s.senders[w.sender].st == P_RWAIT):
                return None
            s.root_q.append(w.sender)
        if sum(1 for i in members if s.senders[i].st == P_RWAIT) != len(s.root_q):
            return None
        if sum(1 for i in members if s.senders[i].st == P_BWAIT) != len(s.bl_q):
            return None
        holder = busy.holder
        if holder is None:
            s.bl_holder = FREE
        elif (
            isinstance(holder, Ctx)
            and holder.sender in members
            and s.senders[holder.sender].st in (P_BGRANT, P_RWAIT)
        ):
            s.bl_holder = holder.sender
        else:
            return None
        s.order = self._order + 1
        s.root_last = self.root.last_cpu
        s.bl_last = busy.last_cpu
        s.band_qlen = [q.band_qlen(b) for b in range(q.bands)]
        for one, sock in zip(s.senders, self.sockets, strict=True):
            one.wmem = sock.wmem_alloc
        s.draw = self._user_i
        return members, s

    # ---- one turn ---------------------------------------------------------------------------------

    def _xmit_plain(self, owner: int, wmem: int) -> bool:
        """sch_direct_xmit() of ``owner``'s packet (its socket holding ``wmem`` before the orphan) is
        plain: skb_orphan_try() must wake nobody, the driver must neither stop the ring nor arm its
        vector (the dummy device just frees the skb)."""
        nic = self.nic
        sock = self.sockets[owner]
        if (
            (nic is None or self.cfg.orphan == "xmit")
            and sock.sleeping
            and 2 * (wmem - sock.truesize) <= sock.sndbuf
        ):
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
        self, d: Ctx, members: list[int], base: _Turn, turn: _Turn, t0: int, bound: int
    ) -> tuple[int, int, int] | None:
        """The turn from ``t0`` (the dequeuer holds the root lock) into ``turn``: (owner and band of the
        packet, when the dequeuer asked for the root lock back), or None if it is not plain."""
        base.copy_into(turn)
        turn.enq.clear()
        band = 0
        for qlen in turn.band_qlen:
            if qlen:
                break
            band += 1
        if band == len(turn.band_qlen):
            return None
        owner = self.owners[band].first()
        turn.band_qlen[band] -= 1
        if not self._xmit_plain(owner, turn.senders[owner].wmem):
            return None
        if self.nic is None or self.cfg.orphan == "xmit":
            turn.senders[owner].wmem -= self.sockets[owner].truesize
        drv = self._drv_ns
        turn.post_d(D_DEQ, t0 + self.costs.deq_ns)  # dequeue_skb() under the root lock
        t_post = -1
        while True:
            i_min = _earliest(turn)
            if (
                i_min < 0
                or turn.d_at < turn.senders[i_min].t
                or (turn.d_at == turn.senders[i_min].t and turn.d_seq < turn.senders[i_min].seq)
            ):
                t_d = turn.d_at
                if t_d >= bound:
                    return None
                state = turn.d_state
                if state == D_HOLD:
                    break
                if state == D_DEQ:  # _q_xmit(): spin_unlock(root), the driver call
                    self._release_root(turn, t_d)
                    turn.post_d(D_DRV, t_d + drv)
                elif turn.root_holder == FREE and not turn.root_q:  # _q_posted(): spin_lock(root)
                    t_post = t_d
                    turn.root_holder = D_ID
                    turn.post_d(D_HOLD, t_d + self._cost(turn.root_last, d.cpu))
                    turn.root_last = d.cpu
                else:
                    t_post = t_d
                    turn.root_q.append(D_ID)
                    turn.d_state, turn.d_at, turn.d_seq = D_WAIT, INF, INF
                continue
            t_min = turn.senders[i_min].t
            if t_min >= bound or not self._step(turn, i_min, t_min):
                return None
        # __qdisc_run()'s checks after the packet: any exit is the event engine's.
        left = 0
        for qlen in turn.band_qlen:  # a loop, not sum(): mypyc calls builtins through Python
            left += qlen
        if left == 0 or self._would_exit(d, turn.d_at):
            return None
        return owner, band, t_post

    def _would_exit(self, d: Ctx, t: int) -> bool:
        rule = self.exit_rule
        if rule == "quota" and d.quota - 1 <= 0:
            return True
        if rule == "quota+jiffy" and d.pkts + 1 >= self.weight_p:
            return True
        if self.m.cpus[d.cpu].need_resched:
            return True
        return rule != "quota" and t // self.tick_ns != d.start_jiffy

    def _step(self, turn: _Turn, i: int, t: int) -> bool:
        """Sender ``i``'s event at ``t`` (False: something the stretch does not model)."""
        st = turn.senders[i].st
        cpu = self.sender_ctx[i].cpu
        if st == P_USER:  # dev_queue_xmit(), contended: spin_lock(busylock)
            if turn.bl_holder == FREE and not turn.bl_q:
                turn.bl_holder = i
                turn.post(i, P_BGRANT, t + self._cost(turn.bl_last, cpu))
                turn.bl_last = cpu
            else:
                turn.bl_q.append(i)
                turn.senders[i].st = P_BWAIT
            return True
        if st == P_BGRANT:  # spin_lock(root)
            if turn.root_holder == FREE and not turn.root_q:
                turn.root_holder = i
                turn.post(i, P_RGRANT, t + self._cost(turn.root_last, cpu))
                turn.root_last = cpu
            else:
                turn.root_q.append(i)
                turn.senders[i].st = P_RWAIT
            return True
        if st == P_RGRANT:  # holding the root lock: the enqueue
            turn.post(i, P_ENQ, t + self.costs.enq_ns)
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
            turn.band_qlen[band] += 1
        else:
            turn.senders[i].wmem -= sock.truesize  # tail drop: kfree_skb() -> sock_wfree()
        turn.enq.append(2 * i + (1 if accepted else 0))
        self._release_root(turn, t)
        turn.bl_holder = FREE
        if turn.bl_q:
            nxt = turn.bl_q.pop(0)
            ncpu = self.sender_ctx[nxt].cpu
            turn.bl_holder = nxt
            turn.post(nxt, P_BGRANT, t + self._cost(turn.bl_last, ncpu))
            turn.bl_last = ncpu
        if turn.senders[i].wmem >= sock.sndbuf:
            return False  # sock_alloc_send_skb() would sleep
        turn.senders[i].wmem += sock.truesize
        turn.post(i, P_USER, t + self._user_draw(turn))
        return True

    def _user_draw(self, turn: _Turn) -> int:
        i = turn.draw + 1
        if i == len(self.user_table):
            i = 0
        turn.draw = i
        return self.user_table[i]

    def _release_root(self, turn: _Turn, t: int) -> None:
        """spin_unlock(root) at ``t``: the next ticket holds it one cache-line move later."""
        turn.root_holder = FREE
        if not turn.root_q:
            return
        nxt = turn.root_q.pop(0)
        if nxt == D_ID:
            cpu = self._d_cpu
            turn.root_holder = D_ID
            turn.post_d(D_HOLD, t + self._cost(turn.root_last, cpu))
        else:
            cpu = self.sender_ctx[nxt].cpu
            turn.root_holder = nxt
            turn.post(nxt, P_RGRANT, t + self._cost(turn.root_last, cpu))
        turn.root_last = cpu

    # ---- committing -------------------------------------------------------------------------------

    def _commit(self, d: Ctx, turn: _Turn, owner: int, band: int, t_post: int) -> None:
        """Apply one plain turn, in the order the event engine would."""
        q = self._bq
        assert q is not None
        from_band = q.dequeue_one()
        assert from_band == band
        taken = self.owners[band].take_one()
        assert taken == owner
        nic = self.nic
        if nic is None or self.cfg.orphan == "xmit":
            self.sockets[owner].free(1)  # skb_orphan_try(): wakes nobody (checked)
        if nic is not None:
            ring = nic.ring_of(owner)
            nic.post(ring, owner, t_post)
            self._posted(ring.index)
        else:
            self.sent_dummy += 1
        self.c.per_cpu_dequeued[d.cpu] += 1
        d.pkts += 1
        if self.exit_rule == "quota":
            d.quota -= 1
        for code in turn.enq:
            s = code >> 1
            accepted = bool(code & 1)
            b = self.sender_band[s]
            took = q.enqueue_one(s, b)
            assert took == accepted
            sock = self.sockets[s]
            if accepted:
                self.owners[b].push((s,), 0, 1)
                self.enqueued[s] += 1
            else:
                self.dropped[s] += 1
                sock.free(1)
            sock.alloc()
        self._user_i = turn.draw

    def _write_back(self, d: Ctx, members: list[int], turn: _Turn) -> None:
        """Leave every context in play as the event engine would have it at the stretch's end: the
        dequeuer holding the root lock at the top of its loop, each sender's next step posted in the
        order the event engine would have posted it."""
        posts: list[tuple[int, int, Ctx]] = [(turn.d_seq, turn.d_at, d)]
        d.cont = self._q_restart
        busy = self.busylock
        busy.holder = None
        busy.waiters.clear()
        for i in members:
            ctx = self.sender_ctx[i]
            st = turn.senders[i].st
            ctx.in_xmit = ctx.contended = st != P_USER
            if st >= P_USER:
                if turn.senders[i].touched:
                    ctx.cont = self._snd_xmit if st == P_USER else self._snd_root
                    posts.append((turn.senders[i].seq, turn.senders[i].t, ctx))
                continue
            ctx.gen += 1
            ctx.status = ST_WAIT
            if st == P_BWAIT:
                ctx.lock = busy
                ctx.cont = self._snd_root
            else:  # P_RWAIT: it holds busylock and spins on the root lock behind the dequeuer
                ctx.lock = self.root
                ctx.cont = self._snd_enqueue
        posts.sort(key=lambda p: p[0])
        for _, t, ctx in posts:
            self._post_step(ctx, t)
        if turn.bl_holder != FREE:
            busy.holder = self.sender_ctx[turn.bl_holder]
        for i in turn.bl_q:
            busy.waiters.append(self.sender_ctx[i])
        busy.last_cpu = turn.bl_last
        root = self.root
        root.holder = d
        root.waiters.clear()
        for i in turn.root_q:
            root.waiters.append(self.sender_ctx[i])
        root.last_cpu = turn.root_last


def _earliest(turn: _Turn) -> int:
    """The sender in play whose event comes first (instant, then posting order), or -1."""
    best = -1
    bt = bq = INF
    for one in turn.live:
        if one.st >= P_USER:
            t = one.t
            if t < bt or (t == bt and one.seq < bq):
                best, bt, bq = one.index, t, one.seq
    return best
