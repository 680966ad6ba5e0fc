"""The closed form's two edges with the event engine (``model.net.closedform`` computes the turns in
between): how far a stretch may go (the next step of anything outside it), the stretch's state gathered
from the contexts, locks, sockets and bands (None where a context is in a state the stretch does not
model), and, after it, each turn applied and every context left as the event engine would have it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from model.machine import Machine
from model.net.cpuctx import ST_WAIT, ST_WORK, Ctx
from model.net.qdisc import Qdisc
from model.net.senders import SenderEngine
from model.net.stretch import (
    D_DEQ,
    D_DRV,
    D_HOLD,
    D_ID,
    D_WAIT,
    FREE,
    P_BGRANT,
    P_BWAIT,
    P_RGRANT,
    P_RWAIT,
    P_USER,
    TurnState,
)
from model.net.txconfig import TxConfig


class StretchBridge(SenderEngine):
    def __init__(self, machine: Machine, qdisc: Qdisc, cfg: TxConfig, rng: np.random.Generator) -> None:
        super().__init__(machine, qdisc, cfg, rng)
        # The skb's charge leaves its socket at the driver call (skb_orphan_try; the dummy device frees
        # the skb there), not at the TX clean.
        self._orphan_at_xmit = self.nic is None or cfg.orphan == "xmit"
        # The turn in hand (the closed form's _turn leaves them; fields, not a tuple: no allocation).
        self._t_owner = 0  # its packet's sender
        self._t_band = 0  # its band
        self._t_post = -1  # when the dequeuer asked for the root lock back (-1: not yet)

    # ---- the stretch's bounds and state -----------------------------------------------------------

    def _bound_outside(self, d: Ctx) -> int:
        """The first instant at which something other than the senders' own steps may happen: the
        machine's next event, the end of the run, another context's next step."""
        q = self.m.q
        nxt = q.next_time()
        bound = q.horizon_ns + 1 if nxt is None else min(nxt, q.horizon_ns + 1)
        for ctx in self.working:
            t = ctx.end_ns
            if t >= bound or ctx.status != ST_WORK or ctx is d:
                continue
            if ctx.sender >= 0 and ctx is self.sender_ctx[ctx.sender]:
                continue
            bound = t
        return bound

    def _bound(self, d: Ctx, members: list[int], outside: int) -> int:
        """The first instant at which something the stretch does not model may happen: ``outside``, or a
        step of a sender not in play."""
        bound = outside
        for ctx in self.working:
            t = ctx.end_ns
            if t >= bound or ctx.status != ST_WORK or ctx is d:
                continue
            if ctx.sender >= 0 and ctx is self.sender_ctx[ctx.sender] and ctx.sender not in members:
                bound = t
        return bound

    def _members(self, d: Ctx) -> tuple[list[int], TurnState] | None:
        """The senders in play and their state, or None if a context is in a state not modelled."""
        q = self._bq
        assert q is not None
        n = len(self.sender_ctx)
        s = TurnState(n)
        members: list[int] = []
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
            s.senders[i].pending = bool(xcpu.pending)
            st = self._sender_state(ctx)
            # P_RGRANT cannot be: the dequeuer holds the root lock at the top of its loop.
            if st < 0 or st == P_RGRANT or self.m.cpus[ctx.cpu].need_resched:
                return None
            one = s.senders[i]
            one.st = st
            if st >= P_USER:  # its step is pending (ST_WORK), posted in the order ctx.gen
                one.t = ctx.end_ns
                one.seq = ctx.gen
            members.append(i)
        if not self._lock_queues(s, members):
            return None
        s.order = self._order + 1
        s.band_qlen = [q.band_qlen(b) for b in range(q.bands)]
        for k in range(n):  # an index loop: mypyc calls zip() through Python
            one = s.senders[k]
            sock = self.sockets[k]
            one.wmem = sock.wmem_alloc
            one.sndbuf = sock.sndbuf
            one.truesize = sock.truesize
            one.cpu = self.sender_ctx[k].cpu
            one.band = self.sender_band[k]
        s.draw = self._user_i
        return members, s

    def _sender_state(self, ctx: Ctx) -> int:
        """A sender's state in a stretch (P_*) from its context, or -1 if the stretch does not model it."""
        busy = self.busylock
        if ctx.status == ST_WORK:
            # A sender's continuation is always one of the bound-once methods (a copied or parked run
            # keeps them one object: pickle and deepcopy share what is referenced twice).
            if ctx.cont is self._snd_xmit_cb:
                return P_USER
            if ctx.cont is self._snd_root_cb and busy.holder is ctx:
                return P_BGRANT
            if ctx.cont is self._snd_enqueue_cb and self.root.holder is ctx:
                return P_RGRANT
            return -1
        if ctx.status == ST_WAIT and ctx.lock is busy:
            return P_BWAIT
        if ctx.status == ST_WAIT and ctx.lock is self.root and ctx.contended and busy.holder is ctx:
            return P_RWAIT
        return -1

    def _lock_queues(self, s: TurnState, members: list[int]) -> bool:
        """Busylock's and the root lock's holders, ticket queues and last CPUs into ``s``; False if a
        holder or a waiter is not a sender in play in the matching state."""
        busy = self.busylock
        for w in busy.waiters:
            if not (isinstance(w, Ctx) and w.sender in members and s.senders[w.sender].st == P_BWAIT):
                return False
            s.wait(s.senders[w.sender], P_BWAIT)
        for w in self.root.waiters:
            if not (isinstance(w, Ctx) and w.sender in members and s.senders[w.sender].st == P_RWAIT):
                return False
            s.wait(s.senders[w.sender], P_RWAIT)
        rwait = bwait = 0  # loops, not sum() over a generator: mypyc builds a generator object
        for i in members:
            st = s.senders[i].st
            if st == P_RWAIT:
                rwait += 1
            elif st == P_BWAIT:
                bwait += 1
        if rwait != s.root_waiting or bwait != s.bl_waiting:
            return False
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
            return False
        s.root_last = self.root.last_cpu
        s.bl_last = busy.last_cpu
        return True

    # ---- applying it ------------------------------------------------------------------------------

    def _commit(self, d: Ctx, turn: TurnState, whole: bool) -> None:
        """Apply one turn, whole or as far as it went (its dequeuer's step pending in ``turn.d_state``),
        in the order the event engine would: the dequeue at its start, the driver call's skb_orphan_try(),
        the packet on its ring, the exit rule's count; the senders' enqueues as they came (their tail
        drops wait for the stretch's end: _drops)."""
        q = self._bq
        assert q is not None
        owner = self._t_owner
        from_band = q.dequeue_one()  # owner: _turn read it off this band's head, unchanged since
        assert from_band == self._t_band
        stage = turn.d_state
        if self._orphan_at_xmit and (whole or stage != D_DEQ):
            self.sockets[owner].free(1)  # skb_orphan_try(): wakes nobody (checked)
        # _q_posted() ran (the ring neither stopped nor armed: checked).
        if whole or stage in (D_WAIT, D_HOLD):
            self._sent(d, owner, self._t_post)
        if whole and self.exit_rule == "quota":
            d.quota -= 1
        if not whole:  # the event engine goes on with this skb
            d.skb_owner = owner
            d.skb_band = self._t_band
        for k in range(turn.n_enq):
            s = turn.enq[k]
            took = q.enqueue_one(s, self.sender_band[s])
            assert took
            self.sender_counts[s].enqueued += 1
            self.sockets[s].alloc()
        self._user_i = turn.draw

    def _drops(self, members: list[int], turn: TurnState) -> None:
        """The stretch's tail drops, counted at once: each was an skb charged to its socket and freed
        again by kfree_skb() (sock_wfree() waking nobody: its writer is the sender itself), a packet
        offered to the band and dropped. Nothing else depends on them: the socket's memory is as it was."""
        q = self._bq
        assert q is not None
        for i in members:
            n = turn.senders[i].drops
            if n:
                q.tail_drops(self.sender_band[i], n)
                self.sender_counts[i].dropped += n
                self.sockets[i].charged += n

    def _write_back(self, d: Ctx, members: list[int], turn: TurnState, whole: bool) -> None:
        """Leave every context in play as the event engine would have it at the stretch's end: the
        dequeuer at the top of its loop after whole turns (``whole``), else where its cut turn left it
        (its dequeue, driver call or check pending, or queued for the root lock); each sender's next
        step posted in the order the event engine would have posted it, or queued for its lock."""
        posts: list[tuple[int, int, Ctx]] = []
        root = self.root
        busy = self.busylock
        d_state = turn.d_state
        if d_state == D_WAIT:  # _q_posted(): spinning on the root lock, _q_check() when it has it
            d.status = ST_WAIT
            d.lock = root
            d.cont = self._q_check_cb
        else:
            d.lock = None
            if d_state == D_DEQ:
                d.cont = self._q_xmit_cb
            elif d_state == D_DRV:
                d.cont = self._q_posted_cb
            else:  # D_HOLD: its check done with the turn (whole), or the event engine's to do
                d.cont = self._q_restart_cb if whole else self._q_check_cb
            posts.append((turn.d_seq, turn.d_at, d))
        for i in members:
            ctx = self.sender_ctx[i]
            one = turn.senders[i]
            st = one.st
            ctx.in_xmit = ctx.contended = st != P_USER
            if st >= P_USER:
                if one.touched:
                    ctx.lock = None
                    ctx.cont = self._sender_cont(st)
                    posts.append((one.seq, one.t, ctx))
                continue
            ctx.status = ST_WAIT
            if st == P_BWAIT:
                ctx.lock = busy
                ctx.cont = self._snd_root_cb
            else:  # P_RWAIT: it holds busylock and spins on the root lock
                ctx.lock = root
                ctx.cont = self._snd_enqueue_cb
        posts.sort()  # by posting order, which is unique: the contexts themselves are never compared
        for _, t, ctx in posts:
            self._post_step(ctx, t)
        busy.holder = None if turn.bl_holder == FREE else self.sender_ctx[turn.bl_holder]
        holder = turn.root_holder
        root.holder = d if holder == D_ID else None if holder == FREE else self.sender_ctx[holder]
        # Each lock's waiters in ticket order, the dequeuer among the root lock's if it waits.
        waiting = [(one.ticket, one.index, one.st) for one in turn.live if one.st < P_USER]
        if d_state == D_WAIT:
            waiting.append((turn.d_ticket, D_ID, P_RWAIT))
        busy.waiters.clear()
        root.waiters.clear()
        for _ticket, i, st in sorted(waiting):
            (busy if st == P_BWAIT else root).waiters.append(d if i == D_ID else self.sender_ctx[i])
        busy.last_cpu = turn.bl_last
        root.last_cpu = turn.root_last

    def _sender_cont(self, st: int) -> Callable[[Ctx], None]:
        """What a sender with a step pending in state ``st`` does when it ends (model.net.senders)."""
        if st == P_USER:
            return self._snd_xmit_cb  # its packet built: dev_queue_xmit()
        if st == P_BGRANT:
            return self._snd_root_cb  # holding busylock: spin_lock(root)
        if st == P_RGRANT:
            return self._snd_enqueue_cb  # holding the root lock: the enqueue
        return self._snd_enqueued_cb  # P_ENQ: enqueued
