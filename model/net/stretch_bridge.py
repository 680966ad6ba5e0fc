"""The closed form's two edges with the event engine (``model.net.closedform`` computes the turns in
between): how far a stretch may go (the next step of anything outside it), the stretch's state gathered
from the contexts, locks, sockets and bands (None where a context is in a state the stretch does not
model), and, after it, each turn applied and every context left as the event engine would have it.
"""

from __future__ import annotations

import numpy as np

from model.machine import Machine
from model.net.cpuctx import ST_WAIT, ST_WORK, Ctx
from model.net.qdisc import Qdisc
from model.net.senders import SenderEngine
from model.net.stretch import FREE, P_BGRANT, P_BWAIT, P_RGRANT, P_RWAIT, P_USER, TurnState
from model.net.txconfig import TxConfig


class StretchBridge(SenderEngine):
    def __init__(self, machine: Machine, qdisc: Qdisc, cfg: TxConfig, rng: np.random.Generator) -> None:
        super().__init__(machine, qdisc, cfg, rng)
        self.sender_cpu = [ctx.cpu for ctx in self.sender_ctx]  # a sender's CPU (fixed: its context's)
        # The skb's charge leaves its socket at the driver call (skb_orphan_try; the dummy device frees
        # the skb there), not at the TX clean.
        self._orphan_at_xmit = self.nic is None or cfg.orphan == "xmit"

    # ---- the stretch's bounds and state -----------------------------------------------------------

    def _bound_outside(self, d: Ctx) -> int:
        """The first instant at which something other than the senders' own steps may happen: the
        machine's next event, the end of the run, another context's next step."""
        q = self.m.q
        nxt = q.next_time()
        bound = q.horizon_ns + 1 if nxt is None else min(nxt, q.horizon_ns + 1)
        for t, order, ctx in self.steps:
            if t >= bound or order != ctx.gen or ctx.status != ST_WORK or ctx is d:
                continue
            if ctx.sender >= 0 and ctx is self.sender_ctx[ctx.sender]:
                continue
            bound = t
        return bound

    def _bound(self, d: Ctx, members: list[int], outside: int) -> int:
        """The first instant at which something the stretch does not model may happen: ``outside``, or a
        step of a sender not in play."""
        bound = outside
        for t, order, ctx in self.steps:
            if t >= bound or order != ctx.gen or ctx.status != ST_WORK or ctx is d:
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
        s.pending = [False] * n
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
            s.pending[i] = bool(xcpu.pending)
            st = self._sender_state(ctx)
            # P_RGRANT cannot be: the dequeuer holds the root lock at the top of its loop.
            if st < 0 or st == P_RGRANT or self.m.cpus[ctx.cpu].need_resched:
                return None
            one = s.senders[i]
            one.st = st
            if st >= P_USER:  # its step is in the heap (ST_WORK), posted in the order ctx.gen
                one.t = ctx.end_ns
                one.seq = ctx.gen
            members.append(i)
        if not self._lock_queues(s, members):
            return None
        s.order = self._order + 1
        s.band_qlen = [q.band_qlen(b) for b in range(q.bands)]
        for k in range(n):  # an index loop: mypyc calls zip() through Python
            s.senders[k].wmem = self.sockets[k].wmem_alloc
        s.draw = self._user_i
        return members, s

    def _sender_state(self, ctx: Ctx) -> int:
        """A sender's state in a stretch (P_*) from its context, or -1 if the stretch does not model it."""
        busy = self.busylock
        if ctx.status == ST_WORK:
            if ctx.cont == self._snd_xmit:
                return P_USER
            if ctx.cont == self._snd_root and busy.holder is ctx:
                return P_BGRANT
            if ctx.cont == self._snd_enqueue and self.root.holder is ctx:
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

    def _commit(self, d: Ctx, turn: TurnState, owner: int, band: int, t_post: int) -> None:
        """Apply one plain turn, in the order the event engine would."""
        q = self._bq
        assert q is not None
        from_band = q.dequeue_one()  # owner: _turn read it off this band's head, unchanged since
        assert from_band == band
        nic = self.nic
        if self._orphan_at_xmit:
            self.sockets[owner].free(1)  # skb_orphan_try(): wakes nobody (checked)
        if nic is not None:
            ring = nic.ring_of(owner)
            nic.post(ring, owner, t_post)
            self._posted(ring.index)
        else:
            self.sent_dummy += 1
        per_cpu = self.c.per_cpu_dequeued
        per_cpu[d.cpu] = per_cpu[d.cpu] + 1  # not +=: mypyc makes an item's += a generic number op
        d.pkts += 1
        if self.exit_rule == "quota":
            d.quota -= 1
        for k in range(turn.n_enq):
            code = turn.enq[k]
            s = code >> 1
            accepted = bool(code & 1)
            b = self.sender_band[s]
            took = q.enqueue_one(s, b)
            assert took == accepted
            sock = self.sockets[s]
            if accepted:
                self.sender_counts[s].enqueued += 1
            else:
                self.sender_counts[s].dropped += 1
                sock.free(1)
            sock.alloc()
        self._user_i = turn.draw

    def _write_back(self, d: Ctx, members: list[int], turn: TurnState) -> None:
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
            ctx.gen = -1  # a step it had pending is stale
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
        root = self.root
        root.holder = d
        root.waiters.clear()
        # Each lock's waiters in ticket order (the dequeuer, holding the root lock, waits for nothing).
        for _ticket, i, st in sorted((one.ticket, one.index, one.st) for one in turn.live if one.st < P_USER):
            (busy if st == P_BWAIT else root).waiters.append(self.sender_ctx[i])
        busy.last_cpu = turn.bl_last
        root.last_cpu = turn.root_last
