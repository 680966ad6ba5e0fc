"""The UDP senders: ``sendto()`` -> ``sock_alloc_send_skb()`` -> ``dev_queue_xmit()`` (3.0), one per CPU.

A sender's loop: allocate an skb against its socket send buffer (or sleep in ``sock_wait_for_wmem``
until ``sock_wfree`` wakes it through the scheduler), do its user-side work for the packet
(``user_ns``), then ``dev_queue_xmit()`` with bottom halves off (``rcu_read_lock_bh``):
``__dev_xmit_skb()`` reads RUNNING without a lock (``contended``), takes ``busylock`` if the qdisc was
running, takes the root lock, enqueues, and if ``qdisc_run_begin()`` succeeds releases busylock and
dequeues for everyone. ``rcu_read_unlock_bh()`` then runs the softirqs raised meanwhile on this CPU
(a dequeuer that left by its exit rule meets its own NET_TX here, and tries the root lock again in
``net_tx_action``). The return to user space is where a pending ``need_resched`` switches tasks.
"""

from __future__ import annotations

import numpy as np

from model.machine import Machine
from model.net.cpuctx import ST_FROZEN, TASK, Ctx
from model.net.qdisc import Qdisc
from model.net.softirq import SoftirqEngine
from model.net.txconfig import TxConfig
from model.task import Task


class SenderCounts:
    """What the qdisc did with one sender's packets (fields, which mypyc keeps unboxed: a count in a
    list would be boxed anew at every packet)."""

    __slots__ = ("dropped", "enqueued")

    def __init__(self) -> None:
        self.enqueued = 0  # packets the qdisc accepted
        self.dropped = 0  # tail drops


class SenderEngine(SoftirqEngine):
    def __init__(self, machine: Machine, qdisc: Qdisc, cfg: TxConfig, rng: np.random.Generator) -> None:
        super().__init__(machine, qdisc, cfg, rng)
        ncpus = len(machine.cpus)
        self.sender_ctx = [Ctx(i, TASK, f"sender/{i}") for i in range(ncpus)]
        for i, ctx in enumerate(self.sender_ctx):
            ctx.sender = i
        self.sender_task: list[Task | None] = [None] * ncpus
        self.sender_band = [0] * ncpus
        self.sender_counts = [SenderCounts() for _ in range(ncpus)]
        # Each packet's user work, drawn once from the seeded RNG: a table read in turn (as ints, so the
        # closed form and the event engine read the very same values); a tuple, which copies of the run share.
        k = cfg.costs
        spread = (rng.standard_normal(8192) * k.user_jitter).tolist() if k.user_jitter > 0 else [0.0]
        self.user_table: tuple[int, ...] = tuple(
            [max(1, round(k.user_ns * max(0.1, 1.0 + j))) for j in spread]
        )
        self._user_i = 0
        # Its continuations, bound once: each mention of ``self._method`` makes a new bound-method object.
        self._snd_alloc_cb = self._snd_alloc
        self._snd_xmit_cb = self._snd_xmit
        self._snd_root_cb = self._snd_root
        self._snd_enqueue_cb = self._snd_enqueue
        self._snd_enqueued_cb = self._snd_enqueued
        self._snd_unlock_cb = self._snd_unlock
        self._snd_return_cb = self._snd_return

    @property
    def enqueued(self) -> list[int]:
        """Per sender: packets the qdisc accepted."""
        return [c.enqueued for c in self.sender_counts]

    @property
    def dropped(self) -> list[int]:
        """Per sender: packets the qdisc tail-dropped."""
        return [c.dropped for c in self.sender_counts]

    # ---- what the machine calls (model.actions.Driven) --------------------------------------------

    def attach_sender(self, sender: int, task: Task, band: int, cpu: int) -> None:
        ctx = self.sender_ctx[sender]
        if self.sender_task[sender] is None:
            self.sender_task[sender] = task
            self.sender_band[sender] = band
            ctx.cont = self._snd_alloc_cb
            ctx.status = ST_FROZEN
            ctx.left_ns = 0
        self._attach(self.xcpus[cpu], ctx)

    def detach_sender(self, sender: int, cpu: int) -> None:
        self._detach(self.xcpus[cpu], self.sender_ctx[sender])

    def sender_preemptible(self, sender: int) -> bool:
        return not self.sender_ctx[sender].in_xmit

    def _wake_sender(self, sender: int, waker: Ctx) -> None:
        task = self.sender_task[sender]
        assert task is not None
        self.m.wake(task)

    # ---- the loop ---------------------------------------------------------------------------------

    def _user_ns(self) -> int:
        i = self._user_i + 1
        if i == len(self.user_table):
            i = 0
        self._user_i = i
        return self.user_table[i]

    def _snd_alloc(self, ctx: Ctx) -> None:
        """sock_alloc_send_pskb(): charge the socket, or sleep until sock_def_write_space() wakes us."""
        sock = self.sockets[ctx.sender]
        if sock.can_alloc():
            sock.alloc()
            self._work(ctx, self._user_ns(), self._snd_xmit_cb)
            return
        sock.sleeping = True
        self.c.sender_sleeps += 1
        ctx.cont = self._snd_alloc_cb  # sock_wait_for_wmem() checks again when woken
        ctx.status = ST_FROZEN
        ctx.left_ns = 0
        self.m.block_driven(ctx.cpu)

    def _snd_xmit(self, ctx: Ctx) -> None:
        """dev_queue_xmit() -> __dev_xmit_skb(): ``contended = qdisc_is_running(q)``."""
        ctx.in_xmit = True
        ctx.contended = self.running is not None
        if ctx.contended:
            self._lock(ctx, self.busylock, self._snd_root_cb)
        else:
            self._snd_root(ctx)

    def _snd_root(self, ctx: Ctx) -> None:
        self._lock(ctx, self.root, self._snd_enqueue_cb)

    def _snd_enqueue(self, ctx: Ctx) -> None:
        self._work(ctx, self.costs.enq_ns, self._snd_enqueued_cb)

    def _snd_enqueued(self, ctx: Ctx) -> None:
        s = ctx.sender
        band = self.sender_band[s]
        if self._bq is not None:
            accepted = self._bq.enqueue_one(s, band)  # the same, natively (model.net.qrun)
        else:
            accepted = self.qdisc.enqueue(s, band, 1)[0] > 0
        if accepted:
            self.sender_counts[s].enqueued += 1
        else:
            self.sender_counts[s].dropped += 1
            self.sockets[s].free(1)  # kfree_skb() -> sock_wfree(); the writer is awake: no wakeup
        if self._run_begin():
            if ctx.contended:
                self._unlock(self.busylock)
                ctx.contended = False
            self._qdisc_run(ctx, self._snd_unlock_cb)
        else:
            self._snd_unlock(ctx)

    def _snd_unlock(self, ctx: Ctx) -> None:
        self._unlock(self.root)
        if ctx.contended:
            self._unlock(self.busylock)
            ctx.contended = False
        self._snd_bh_enable(ctx)

    def _snd_bh_enable(self, ctx: Ctx) -> None:
        """rcu_read_unlock_bh() -> local_bh_enable(): softirqs raised meanwhile run now, here."""
        ctx.in_xmit = False
        xcpu = self.xcpus[ctx.cpu]
        if xcpu.pending:
            ctx.cont = self._snd_return_cb
            ctx.status = ST_FROZEN
            ctx.left_ns = 0
            self._push(xcpu, xcpu.softirq)
            self._do_softirq(xcpu.softirq, self._softirq_ctx_done_cb)
        else:
            self._snd_return(ctx)

    def _snd_return(self, ctx: Ctx) -> None:
        """The return from sendto(): a pending need_resched switches tasks here."""
        self._preempt_point(ctx, self._snd_alloc_cb)
