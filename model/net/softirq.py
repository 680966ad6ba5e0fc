"""Interrupts and softirqs of the transmit path (3.0 kernel/softirq.c, net/core/dev.c, ixgbe).

* A NIC vector interrupts its CPU (at most every ``itr_ns``, once the ring has a finished packet
  and NAPI re-enabled it): the hard handler ``napi_schedule()``s, which raises NET_RX. On the way out,
  ``irq_exit()`` runs ``__do_softirq()`` at once unless the CPU is already in a softirq or has bottom
  halves off (a sender inside ``dev_queue_xmit``); then the softirq waits for ``local_bh_enable()``.
* ``__do_softirq()`` runs the pending softirqs (NET_TX before NET_RX), and again while new ones were
  raised, for at most ``MAX_SOFTIRQ_RESTART`` (10) passes; what is still pending then goes to
  ``ksoftirqd/N``, a task of the machine (nice 0, bound to its CPU) that the scheduler runs like any
  other; waking it can set ``need_resched`` on that CPU (``wakeup_softirqd()``).
* ``net_tx_action()`` takes the qdisc off this CPU's output queue and ``spin_trylock``s its root lock:
  on success it clears SCHED and runs ``qdisc_run()``; on failure ``__netif_reschedule()`` puts it back
  and raises NET_TX again, so the next pass tries again.
* NET_RX polls the vector's rings: ``ixgbe_clean_tx_irq()`` frees finished descriptors and wakes a
  stopped ring, whose ``netif_wake_subqueue()`` calls ``__netif_schedule()`` on this CPU.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from model.events import PRIO_IRQ, PRIO_TASK
from model.machine import Machine
from model.net.cpuctx import HARDIRQ, ST_FROZEN, ST_IDLE, TASK, Ctx, XCpu
from model.net.qdisc import Qdisc
from model.net.qrun import NET_RX, NET_TX, QdiscRunner
from model.net.txconfig import TxConfig
from model.task import Task, TaskState


class SoftirqEngine(QdiscRunner):
    def __init__(self, machine: Machine, qdisc: Qdisc, cfg: TxConfig, rng: np.random.Generator) -> None:
        super().__init__(machine, qdisc, cfg, rng)
        nrings = len(self.nic.rings) if self.nic is not None else 0
        self.vec_enabled = [True] * nrings  # the vector's interrupt is unmasked (not in NAPI)
        self.vec_last = [-(10**15)] * nrings  # its last interrupt
        self.vec_gen = [0] * nrings
        self.vec_armed = [False] * nrings  # an interrupt event is posted
        self._itr_jitter: tuple[float, ...] = tuple((rng.standard_normal(4096) * cfg.costs.jitter).tolist())
        self._itr_i = 0
        self.ksoftirqd: list[Task | None] = [None] * len(machine.cpus)
        self.ksoftirqd_ctx = [Ctx(i, TASK, f"ksoftirqd/{i}") for i in range(len(machine.cpus))]
        # Its continuations, bound once: each mention of ``self._method`` makes a new bound-method object.
        self._hardirq_done_cb = self._hardirq_done
        self._softirq_ctx_done_cb = self._softirq_ctx_done
        self._tx_trylock_cb = self._tx_trylock
        self._tx_locked_cb = self._tx_locked
        self._tx_unlock_cb = self._tx_unlock
        self._napi_next_cb = self._napi_next
        self._napi_cleaned_cb = self._napi_cleaned
        self._ksoftirqd_loop_cb = self._ksoftirqd_loop
        self._ksoftirqd_sleep_cb = self._ksoftirqd_sleep
        self._ksoftirqd_pass_done_cb = self._ksoftirqd_pass_done

    # ---- NIC vector interrupts ----------------------------------------------------------------------

    def _posted(self, ring_index: int) -> None:
        if self.vec_enabled[ring_index] and not self.vec_armed[ring_index]:
            self._arm(ring_index)

    def _arm(self, ring_index: int) -> None:
        """Post the vector's next interrupt: its ring's next finished packet, throttled by EITR."""
        nic = self.nic
        assert nic is not None
        now = self.m.q.now_ns
        nic.wire.advance(now)
        ring = nic.rings[ring_index]
        t = now if ring.done else nic.wire.next_done(ring)
        if t < 0:
            return  # nothing in flight: the next post arms it
        self._itr_i = (self._itr_i + 1) % len(self._itr_jitter)
        gap = round(self.cfg.itr_ns * (1.0 + self._itr_jitter[self._itr_i]))
        t = max(t, self.vec_last[ring_index] + gap, now)
        self.vec_armed[ring_index] = True
        self.vec_gen[ring_index] += 1
        self.m.q.push(t, PRIO_IRQ, self._on_vector, (ring_index, self.vec_gen[ring_index]))

    def _on_vector(self, arg: tuple[int, int]) -> None:
        ring_index, gen = arg
        if gen != self.vec_gen[ring_index]:
            return
        self.vec_armed[ring_index] = False
        nic = self.nic
        assert nic is not None
        nic.wire.advance(self.m.q.now_ns)
        ring = nic.rings[ring_index]
        if not ring.done:  # posts to other rings delayed the packet this interrupt waited for
            self._arm(ring_index)
            return
        self.vec_enabled[ring_index] = False  # EIAM masks the vector until napi_complete()
        self.vec_last[ring_index] = self.m.q.now_ns
        self.c.interrupts += 1
        xcpu = self.xcpus[ring.vector_cpu]
        if xcpu.stack and xcpu.stack[-1].kind == HARDIRQ:
            xcpu.irq_queue.append(ring_index)  # handlers run with interrupts off: it waits its turn
            return
        hard = xcpu.hardirq
        hard.vectors = [ring_index]
        self._push(xcpu, hard)
        self._work(hard, self.costs.irq_ns, self._hardirq_done_cb)

    def _hardirq_done(self, ctx: Ctx) -> None:
        xcpu = self.xcpus[ctx.cpu]
        xcpu.napi.extend(ctx.vectors)  # napi_schedule(): ____napi_schedule raises NET_RX
        xcpu.pending |= NET_RX
        if xcpu.irq_queue:
            ctx.vectors = [xcpu.irq_queue.pop(0)]
            self._work(ctx, self.costs.irq_ns, self._hardirq_done_cb)
            return
        below = xcpu.stack[-2] if len(xcpu.stack) > 1 else None
        if below is not None and (below.kind != TASK or below.in_xmit or below.in_softirq):
            self._pop(xcpu)  # in_interrupt(): the softirq runs later, where bottom halves come back
            return
        self._hard_to_soft(xcpu)
        self._do_softirq(xcpu.softirq, self._softirq_ctx_done_cb)

    def _softirq_ctx_done(self, ctx: Ctx) -> None:
        self._pop(self.xcpus[ctx.cpu])

    # ---- __do_softirq -------------------------------------------------------------------------------

    def _do_softirq(self, ctx: Ctx, cont: Callable[[Ctx], None]) -> None:
        ctx.sirq_cont = cont
        ctx.restart = self.cfg.max_softirq_restart
        self._softirq_pass(ctx)

    def _softirq_pass(self, ctx: Ctx) -> None:
        xcpu = self.xcpus[ctx.cpu]
        ctx.todo = xcpu.pending
        xcpu.pending = 0
        self._softirq_next(ctx)

    def _softirq_next(self, ctx: Ctx) -> None:
        if ctx.todo & NET_TX:
            ctx.todo &= ~NET_TX
            self._net_tx_action(ctx)
        elif ctx.todo & NET_RX:
            ctx.todo &= ~NET_RX
            self._net_rx_action(ctx)
        else:
            xcpu = self.xcpus[ctx.cpu]
            ctx.restart -= 1
            if xcpu.pending and ctx.restart > 0:
                self._softirq_pass(ctx)
                return
            if xcpu.pending:
                self._wakeup_softirqd(xcpu)
            cont = ctx.sirq_cont
            assert cont is not None
            cont(ctx)

    def _wakeup_softirqd(self, xcpu: XCpu) -> None:
        task = self.ksoftirqd[xcpu.index]
        if task is not None and task.state == TaskState.SLEEPING:
            self.c.ksoftirqd_wakeups += 1
            self.m.wake(task)

    # ---- NET_TX -------------------------------------------------------------------------------------

    def _net_tx_action(self, ctx: Ctx) -> None:
        xcpu = self.xcpus[ctx.cpu]
        if not xcpu.sched_here:
            self._softirq_next(ctx)
            return
        xcpu.sched_here = False  # the output queue is taken (SCHED stays set)
        self._work(ctx, self.costs.tx_action_ns, self._tx_trylock_cb)

    def _tx_trylock(self, ctx: Ctx) -> None:
        t = self._trylock(ctx, self.root)
        if t < 0:
            self.c.tx_action_trylock_failed += 1
            xcpu = self.xcpus[ctx.cpu]
            xcpu.sched_here = True  # __netif_reschedule(): back on this CPU's output queue
            xcpu.pending |= NET_TX
            self._softirq_next(ctx)
            return
        self.sched = False  # clear_bit(__QDISC_STATE_SCHED)
        self._work(ctx, t - self.m.q.now_ns, self._tx_locked_cb)

    def _tx_locked(self, ctx: Ctx) -> None:
        if self._run_begin():
            self._qdisc_run(ctx, self._tx_unlock_cb)
        else:
            self._tx_unlock(ctx)

    def _tx_unlock(self, ctx: Ctx) -> None:
        self._unlock(self.root)
        self._softirq_next(ctx)

    # ---- NET_RX: NAPI polls the TX rings ------------------------------------------------------------

    def _net_rx_action(self, ctx: Ctx) -> None:
        xcpu = self.xcpus[ctx.cpu]
        ctx.vectors = xcpu.napi
        xcpu.napi = []
        self._napi_next(ctx)

    def _napi_next(self, ctx: Ctx) -> None:
        if not ctx.vectors:
            self._softirq_next(ctx)
            return
        nic = self.nic
        assert nic is not None
        ring = nic.rings[ctx.vectors[0]]
        nic.wire.advance(self.m.q.now_ns)
        ctx.napi_n = ring.done  # the packets this poll finds done
        self._work(ctx, self.costs.clean_ns * ring.done, self._napi_cleaned_cb)

    def _napi_cleaned(self, ctx: Ctx) -> None:
        nic = self.nic
        assert nic is not None
        ring_index = ctx.vectors.pop(0)
        ring = nic.rings[ring_index]
        freed: dict[int, int] = {}
        _, woken = nic.clean_n(ring, ctx.napi_n, freed)
        if woken:
            self.c.ring_wakes += 1
            self._netif_schedule(ctx.cpu)
        extra = 0
        if self.cfg.orphan == "completion":
            for sender, n in freed.items():
                extra += self._sock_free(sender, n, ctx)
        self.vec_enabled[ring_index] = True  # napi_complete(): ixgbe_irq_enable_queues()
        self._arm(ring_index)
        if extra:
            self._work(ctx, extra, self._napi_next_cb)
        else:
            self._napi_next(ctx)

    # ---- ksoftirqd ----------------------------------------------------------------------------------

    def attach_ksoftirqd(self, cpu: int) -> None:
        ctx = self.ksoftirqd_ctx[cpu]
        if ctx.cont is None:
            ctx.cont = self._ksoftirqd_loop_cb
            ctx.status = ST_FROZEN
            ctx.left_ns = 0
        self._attach(self.xcpus[cpu], ctx)

    def detach_ksoftirqd(self, cpu: int) -> None:
        self._detach(self.xcpus[cpu], self.ksoftirqd_ctx[cpu])

    def ksoftirqd_preemptible(self, cpu: int) -> bool:
        return not self.ksoftirqd_ctx[cpu].in_softirq

    def _ksoftirqd_loop(self, ctx: Ctx) -> None:
        """run_ksoftirqd(): while softirqs are pending, __do_softirq() then cond_resched(); else sleep."""
        if self.xcpus[ctx.cpu].pending:
            ctx.in_softirq = True
            self._do_softirq(ctx, self._ksoftirqd_pass_done_cb)
            return
        ctx.cont = self._ksoftirqd_loop_cb  # what it does when woken
        ctx.status = ST_FROZEN
        ctx.left_ns = 0
        self.m.q.push(self.m.q.now_ns, PRIO_TASK, self._ksoftirqd_sleep_cb, ctx)

    def _ksoftirqd_sleep(self, ctx: Ctx) -> None:
        if not ctx.attached or ctx.status != ST_FROZEN or ctx.cont != self._ksoftirqd_loop_cb:
            return
        if not self._runs(ctx):
            return  # an interrupt froze it first: it runs its loop again when the interrupt ends
        if self.xcpus[ctx.cpu].pending:
            ctx.status = ST_IDLE
            self._ksoftirqd_loop(ctx)
            return
        self.m.block_driven(ctx.cpu)

    def _ksoftirqd_pass_done(self, ctx: Ctx) -> None:
        ctx.in_softirq = False
        self._preempt_point(ctx, self._ksoftirqd_loop_cb)

    def _preempt_point(self, ctx: Ctx, cont: Callable[[Ctx], None]) -> None:
        """The task reaches a point where the kernel reschedules (cond_resched, syscall return)."""
        ctx.cont = cont
        ctx.status = ST_FROZEN
        ctx.left_ns = 0
        self.m.preempt_point(ctx.cpu)
        if ctx.attached and ctx.status == ST_FROZEN and self._runs(ctx):
            ctx.status = ST_IDLE
            cont(ctx)
