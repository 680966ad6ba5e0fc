"""The dequeuer: ``__qdisc_run()`` with its three exit rules, ``qdisc_restart()`` and ``sch_direct_xmit()``.

Whoever sets the qdisc's RUNNING bit (``qdisc_run_begin()``, under the root lock) loops, in whatever
context it is in (a sender's ``dev_queue_xmit``, NET_TX in softirq, ksoftirqd):

* ``dequeue_skb()`` takes the requeued skb (``gso_skb``) first, but leaves it there while its TX
  ring is stopped, which blocks the whole qdisc; otherwise the prio qdisc's head packet;
* ``sch_direct_xmit()`` releases the root lock for the driver call (``skb_orphan_try()`` then
  ``ndo_start_xmit``), takes it back, and returns the queue length, or 0 when the packet's ring
  stopped; a packet for a ring found stopped is requeued (``dev_requeue_skb()``, which also
  ``__netif_schedule()``s);
* after each packet the exit rule: ``time`` (3.0-rc4: ``need_resched() || jiffies != start_time``),
  ``quota+jiffy`` (jamal's patch as posted: ``quota >= weight_p || need_resched() || jiffies !=
  start_time``) or ``quota`` (3.1: ``--quota <= 0 || need_resched()``); an exit by rule calls
  ``__netif_schedule()``, which raises NET_TX on this CPU unless the qdisc is already scheduled.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

import numpy as np

from model.machine import Machine
from model.net.bands import BandedQdisc
from model.net.cpuctx import CpuEngine, Ctx
from model.net.locks import SpinLock
from model.net.nic import Nic
from model.net.qdisc import Qdisc
from model.net.sockets import UdpSocket
from model.net.txconfig import EXIT_REASONS, TxConfig
from model.snapshot import TenureRecord

NET_TX: Final = 1 << 2  # softirq bits: NET_TX_SOFTIRQ 2
NET_RX: Final = 1 << 3  # NET_RX_SOFTIRQ 3
# Where a CPU ran __qdisc_run(): its sender's dev_queue_xmit(), its NET_TX softirq (net_tx_action() at
# irq exit or local_bh_enable()), or net_tx_action() in its ksoftirqd (the contexts' names' prefixes).
RUN_CONTEXTS: Final = ("sender", "softirq", "ksoftirqd")


@dataclass
class Counters:
    per_cpu_dequeued: list[int]  # packets each CPU transmitted as the dequeuer
    per_cpu_runs: list[int]  # __qdisc_run() calls per CPU
    exit_reasons: dict[str, int] = field(default_factory=lambda: dict.fromkeys(EXIT_REASONS, 0))
    # per CPU: its runs' exit reasons, and the packets it dequeued in each of RUN_CONTEXTS
    per_cpu_exits: list[dict[str, int]] = field(default_factory=list)
    per_cpu_context_dequeued: list[dict[str, int]] = field(default_factory=list)
    runs: int = 0
    empty_runs: int = 0  # __qdisc_run() calls that sent nothing (blocked gso_skb, empty queue)
    requeues: int = 0
    tx_action_trylock_failed: int = 0  # net_tx_action() found the root lock taken
    ksoftirqd_wakeups: int = 0  # __do_softirq() gave its pending work to ksoftirqd
    ring_stops: int = 0
    ring_wakes: int = 0
    sender_sleeps: int = 0  # sock_alloc_send_skb() had to wait for socket memory
    interrupts: int = 0


class QdiscRunner(CpuEngine):
    def __init__(self, machine: Machine, qdisc: Qdisc, cfg: TxConfig, rng: np.random.Generator) -> None:
        super().__init__(machine)
        ncpus = len(machine.cpus)
        self.qdisc = qdisc
        # The qdiscs schedlab ships share BandedQdisc, whose methods mypyc calls natively; through the
        # Qdisc protocol each call is a Python method lookup (about 1.5 k instructions, measured with
        # callgrind: a fifth of a closed-form turn). The per-packet calls (the enqueue, the dequeue) and
        # the closed form (model.net.closedform: any other qdisc runs on the event engine) use it.
        self._bq: BandedQdisc | None = qdisc if isinstance(qdisc, BandedQdisc) else None
        self.cfg = cfg
        self.costs = cfg.costs
        self.rng = rng
        self.exit_rule = cfg.exit_rule
        self.weight_p = cfg.weight_p
        self.tick_ns = machine.tick_ns
        self.root = SpinLock("root", cfg.costs.lock_ns, cfg.spinlock, rng)
        self.busylock = SpinLock("busylock", cfg.costs.lock_ns, cfg.spinlock, rng)
        self.running: Ctx | None = None  # the context holding __QDISC___STATE_RUNNING
        self.sched = False  # __QDISC_STATE_SCHED: on some CPU's output queue
        self.nic: Nic | None = None
        if cfg.device == "nic":
            self.nic = Nic(ncpus, cfg.ring_size, cfg.stop_free, cfg.wake_free, cfg.wire_ns, cfg.irq_cpus,
                           cfg.per_cpu_rings)  # fmt: skip
        self.sockets = [UdpSocket(cfg.sndbuf_bytes, cfg.truesize) for _ in range(ncpus)]
        self.c = Counters([0] * ncpus, [0] * ncpus)
        self.c.per_cpu_exits = [dict.fromkeys(EXIT_REASONS, 0) for _ in range(ncpus)]
        self.c.per_cpu_context_dequeued = [dict.fromkeys(RUN_CONTEXTS, 0) for _ in range(ncpus)]
        self.sent_dummy = 0
        # Its continuations, bound once: each mention of ``self._method`` makes a new bound-method object.
        self._q_restart_cb = self._q_restart
        self._q_blocked_cb = self._q_blocked
        self._q_xmit_cb = self._q_xmit
        self._q_posted_cb = self._q_posted
        self._q_check_cb = self._q_check
        self._q_requeue_cb = self._q_requeue

    # ---- hooks of the later layers ----------------------------------------------------------------

    def _wake_sender(self, sender: int, waker: Ctx) -> None:
        raise NotImplementedError

    def _posted(self, ring_index: int) -> None:
        """A packet went onto a ring: its vector may have to interrupt later (the softirq layer)."""
        raise NotImplementedError

    # ---- socket memory ------------------------------------------------------------------------------

    def _sock_free(self, sender: int, n: int, ctx: Ctx) -> int:
        """sock_wfree() of ``n`` skbs of ``sender`` on ``ctx``'s CPU; returns the extra CPU it costs."""
        if self.sockets[sender].free(n):
            self.sockets[sender].sleeping = False
            self._wake_sender(sender, ctx)
            return self.costs.ttwu_ns
        return 0

    # ---- __netif_schedule ---------------------------------------------------------------------------

    def _netif_schedule(self, cpu: int) -> None:
        """__netif_schedule(): if SCHED was clear, put the qdisc on this CPU's output queue, raise NET_TX."""
        if not self.sched:
            self.sched = True
            xcpu = self.xcpus[cpu]
            xcpu.sched_here = True
            xcpu.pending |= NET_TX

    # ---- the loop -----------------------------------------------------------------------------------

    def _qdisc_run(self, ctx: Ctx, cont: Callable[[Ctx], None]) -> None:
        """qdisc_run_begin() succeeded in ``ctx`` (the root lock is held): run __qdisc_run()."""
        self.running = ctx
        ctx.q_cont = cont
        ctx.quota = self.weight_p
        ctx.start_jiffy = self.m.q.now_ns // self.tick_ns
        ctx.pkts = 0
        ctx.t0 = self.m.q.now_ns
        self.c.runs += 1
        self.c.per_cpu_runs[ctx.cpu] += 1
        self._q_restart(ctx)

    def _q_restart(self, ctx: Ctx) -> None:
        """qdisc_restart() -> dequeue_skb(), under the root lock."""
        q = self.qdisc
        held = q.requeued
        if held is not None:
            if self.nic is not None and self.nic.ring_of(held[0]).stopped:
                self._work(ctx, self.costs.deq_ns, self._q_blocked_cb)  # gso_skb stays: its ring is stopped
                return
            owner, band = held
            q.dequeue_bands(1)
        elif q.qlen == 0:
            self._q_end(ctx, "empty")
            return
        else:
            bq = self._bq
            if bq is not None:  # the same packet, natively (the slot is empty)
                peeked = bq.peek_band()
                assert peeked is not None
                owner = bq.head_flow(peeked)
                band = bq.dequeue_one()
            else:
                band, owner, _ = q.dequeue(1).runs[0]
        ctx.skb_owner = owner
        ctx.skb_band = band
        self._work(ctx, self.costs.deq_ns, self._q_xmit_cb)

    def _q_blocked(self, ctx: Ctx) -> None:
        self._q_end(ctx, "tx_busy")

    def _q_xmit(self, ctx: Ctx) -> None:
        """sch_direct_xmit(): the root lock goes, the driver runs."""
        self._unlock(self.root)
        owner = ctx.skb_owner
        nic = self.nic
        if nic is not None and nic.ring_of(owner).stopped:
            self._lock(ctx, self.root, self._q_requeue_cb)  # NETDEV_TX_BUSY without calling the driver
            return
        cost = self.costs.drv_ns if nic is not None else self.costs.dummy_ns
        if nic is None or self.cfg.orphan == "xmit":
            cost += self._sock_free(owner, 1, ctx)  # skb_orphan_try() (dummy_xmit frees it anyway)
        self._work(ctx, cost, self._q_posted_cb)

    def _q_posted(self, ctx: Ctx) -> None:
        self._sent(ctx, ctx.skb_owner, self.m.q.now_ns)
        self._lock(ctx, self.root, self._q_check_cb)

    def _sent(self, ctx: Ctx, owner: int, t: int) -> None:
        """The driver took ``owner``'s packet at ``t``: onto its TX ring (the dummy device freed it);
        one more packet for the dequeuer ``ctx``."""
        nic = self.nic
        if nic is not None:
            ring = nic.ring_of(owner)
            was_stopped = ring.stopped
            nic.post(ring, owner, t)
            if ring.stopped and not was_stopped:
                self.c.ring_stops += 1
            self._posted(ring.index)
        else:
            self.sent_dummy += 1
        per_cpu = self.c.per_cpu_dequeued
        per_cpu[ctx.cpu] = per_cpu[ctx.cpu] + 1  # not +=: mypyc makes an item's += a generic number op
        ctx.pkts += 1

    def _q_check(self, ctx: Ctx) -> None:
        """Back under the root lock: sch_direct_xmit()'s return value, then the exit rule."""
        if self.qdisc.qlen == 0:
            self._q_end(ctx, "empty")
            return
        if self.nic is not None and self.nic.ring_of(ctx.skb_owner).stopped:
            self._q_end(ctx, "tx_busy")  # `if (ret && netif_tx_queue_frozen_or_stopped(txq)) ret = 0;`
            return
        reason = self._exit_rule(ctx)
        if reason:
            self._netif_schedule(ctx.cpu)
            self._q_end(ctx, reason)
        else:
            self._q_restart(ctx)

    def _exit_rule(self, ctx: Ctx) -> str:
        rule = self.exit_rule
        if rule == "quota":
            ctx.quota -= 1
            if ctx.quota <= 0:
                return "quota"
        elif rule == "quota+jiffy" and ctx.pkts >= self.weight_p:
            return "quota"
        if self.m.cpus[ctx.cpu].need_resched:
            return "need_resched"
        if rule != "quota" and self.m.q.now_ns // self.tick_ns != ctx.start_jiffy:
            return "jiffy"
        return ""

    def _q_requeue(self, ctx: Ctx) -> None:
        """dev_requeue_skb(): the skb parks in gso_skb and the qdisc is rescheduled."""
        self.qdisc.requeue(ctx.skb_owner, ctx.skb_band)
        self.c.requeues += 1
        self._netif_schedule(ctx.cpu)
        self._q_end(ctx, "tx_busy")

    def _q_end(self, ctx: Ctx, reason: str) -> None:
        """qdisc_run_end(): RUNNING is clear; the root lock is still held by ``ctx``."""
        self.c.exit_reasons[reason] += 1
        self.c.per_cpu_exits[ctx.cpu][reason] += 1
        self.c.per_cpu_context_dequeued[ctx.cpu][ctx.name.partition("/")[0]] += ctx.pkts
        if ctx.pkts == 0:
            self.c.empty_runs += 1
        self.running = None
        m = self.m
        if m.tracing:
            m.record(TenureRecord(ctx.t0, ctx.cpu, m.q.now_ns - ctx.t0, ctx.pkts, reason, ctx.name))
        cont = ctx.q_cont
        assert cont is not None
        cont(ctx)

    def _run_begin(self) -> bool:
        """qdisc_run_begin(): under the root lock."""
        return self.running is None
