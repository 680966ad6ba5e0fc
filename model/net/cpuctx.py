"""Execution contexts on each CPU: the task, the softirq over it, the hard interrupt over that.

Every piece of transmit-path work runs in a context (``Ctx``) on one CPU: a sender task or
ksoftirqd (task level), a ``__do_softirq`` invocation (softirq level) or a NIC vector's handler
(hardirq level). Only the innermost context of a CPU runs; a context pushed over another freezes it
for as long as it runs, so a sender's user work, a dequeue loop or a lock spin stops while an
interrupt or a softirq runs on its CPU, and the machine charges that time as hardirq or softirq
(``Machine.irq_enter``/``irq_exit``), never twice.

Work is a chain of timed steps: ``_work(ctx, ns, cont)`` runs ``cont(ctx)`` after ``ns`` of the
context's own running time. ``_lock`` spins on a ``SpinLock``; a lock granted to a frozen context is
held (ticket semantics) and used when the context runs again. A context has at most one step
pending, kept in the context itself (its end and the order it was posted in); the next step is found
by looking over the few contexts that have one (a heap of posted steps cost more than the look: a
tuple and two calls into Python for every step). The steps' next end waits behind one event of the
machine's queue, so that while the transmit path runs the steps due now, the machine's queue shows
the next event from outside the transmit path: the horizon of the closed form
(``model.net.stretch_bridge``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from model.copyable import mypyc_attr
from model.events import PRIO_TASK
from model.machine import IRQ_HARD, IRQ_SOFT, Machine
from model.net.locks import SpinLock

TASK: Final = 0
SOFTIRQ: Final = 1
HARDIRQ: Final = 2
# What a context is doing.
ST_IDLE: Final = 0  # nothing pending (a finished softirq, a task between programs)
ST_WORK: Final = 1  # a timed step is running; its end is an event
ST_FROZEN: Final = 2  # a timed step was interrupted: left_ns of it remain
ST_WAIT: Final = 3  # spinning on a lock
ST_READY: Final = 4  # a lock was granted while the context was frozen: it continues at grant_ns


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class Ctx:
    """One execution context; the transmit path keeps its loop state here."""

    __slots__ = ("attached", "cont", "contended", "cpu", "end_ns", "gen", "grant_ns", "in_softirq",
                 "in_xmit", "kind", "left_ns", "listed", "lock", "name", "napi_n", "pkts", "q_cont", "quota",
                 "restart", "sender", "sirq_cont", "skb_band", "skb_owner", "start_jiffy", "status", "t0",
                 "todo", "vectors")  # fmt: skip

    def __init__(self, cpu: int, kind: int, name: str) -> None:
        self.cpu = cpu
        self.kind = kind
        self.name = name
        self.status = ST_IDLE
        self.cont: Callable[[Ctx], None] | None = None
        self.end_ns = 0
        self.left_ns = 0
        self.grant_ns = 0
        self.gen = 0  # the posting order of its pending step (while ST_WORK)
        self.listed = False  # in CpuEngine.working
        self.lock: SpinLock | None = None
        self.attached = kind != TASK  # task contexts: on the CPU (machine attach) or not
        self.sender = -1  # the sender id of a sender task's context, -1 otherwise
        self.in_xmit = False  # a sender inside dev_queue_xmit (bottom halves off)
        self.in_softirq = False  # ksoftirqd inside __do_softirq
        self.contended = False  # __dev_xmit_skb's `contended`: it holds (or waits for) busylock
        # The dequeue loop (__qdisc_run) this context runs, if any.
        self.q_cont: Callable[[Ctx], None] | None = None
        self.quota = 0
        self.start_jiffy = 0
        self.pkts = 0
        self.t0 = 0
        self.skb_owner = -1
        self.skb_band = -1
        # The softirq pass this context runs, if any.
        self.sirq_cont: Callable[[Ctx], None] | None = None
        self.todo = 0
        self.restart = 0
        self.vectors: list[int] = []
        self.napi_n = 0  # packets the NAPI poll in progress found done


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class XCpu:
    """The transmit path's view of one CPU: its context stack and softirq state."""

    __slots__ = ("hardirq", "index", "irq_queue", "napi", "pending", "sched_here", "softirq", "stack",
                 "task")  # fmt: skip

    def __init__(self, index: int) -> None:
        self.index = index
        self.stack: list[Ctx] = []  # innermost last
        self.task: Ctx | None = None  # the transmit-path task the machine runs here, if any
        self.softirq = Ctx(index, SOFTIRQ, f"softirq/{index}")
        self.hardirq = Ctx(index, HARDIRQ, f"hardirq/{index}")
        self.pending = 0  # local_softirq_pending() bits
        self.sched_here = False  # the qdisc sits on this CPU's softnet_data.output_queue
        self.napi: list[int] = []  # rings whose NAPI poll is scheduled here
        self.irq_queue: list[int] = []  # vectors waiting for the current hard interrupt to end

    def bh_disabled(self) -> bool:
        """in_interrupt() for softirq purposes: a softirq runs, or the task has bottom halves off."""
        if self.stack and self.stack[-1].kind != TASK:
            return True
        task = self.task
        return task is not None and (task.in_xmit or task.in_softirq)


class CpuEngine:
    def __init__(self, machine: Machine) -> None:
        self.m = machine
        self.xcpus = [XCpu(i) for i in range(len(machine.cpus))]
        # The contexts that had a step posted: each has one pending while ST_WORK (others leave the
        # list when next looked over).
        self.working: list[Ctx] = []
        self._order = 0
        self._proxy_t = -1  # when the machine-queue event for the next step fires; -1: none posted
        self._proxy_gen = 0
        self.in_burst = False  # running the steps due now: the machine's queue holds no proxy
        self._on_proxy_cb = self._on_proxy  # bound once

    # ---- timed steps ------------------------------------------------------------------------------

    def _runs(self, ctx: Ctx) -> bool:
        stack = self.xcpus[ctx.cpu].stack
        return bool(stack) and stack[-1] is ctx

    def _work(self, ctx: Ctx, ns: int, cont: Callable[[Ctx], None]) -> None:
        """Run ``cont(ctx)`` after ``ns`` of this context's running time."""
        ctx.cont = cont
        ctx.lock = None
        if self._runs(ctx):
            self._post_step(ctx, self.m.q.now_ns + ns)
        else:
            ctx.status = ST_FROZEN
            ctx.left_ns = ns

    def _post_step(self, ctx: Ctx, end_ns: int) -> None:
        ctx.status = ST_WORK
        self._order += 1
        ctx.gen = self._order  # the step's order marks it current (no counter of its own to box)
        ctx.end_ns = end_ns
        if not ctx.listed:
            ctx.listed = True
            self.working.append(ctx)
        if self._proxy_t < 0 or end_ns < self._proxy_t:
            self._arm_proxy(end_ns)

    def _arm_proxy(self, t: int) -> None:
        self._proxy_gen += 1
        self._proxy_t = t
        self.m.q.push(t, PRIO_TASK, self._on_proxy_cb, self._proxy_gen)

    def _on_proxy(self, gen: int) -> None:
        """Run every step that ends now, in posting order; then the next instant's, while the machine's
        queue would dispatch its proxy event next anyway (``EventQueue.dispatch_inline``: nothing else
        is due by then); then wait for the next one."""
        if gen != self._proxy_gen:
            return
        q = self.m.q
        while True:
            now = q.now_ns
            self._proxy_t = now  # steps posted meanwhile for now or later need no new proxy event
            self.in_burst = True
            while True:
                ctx = self.next_step()
                if ctx is None or ctx.end_ns > now:
                    break
                ctx.status = ST_IDLE
                cont = ctx.cont
                assert cont is not None
                cont(ctx)
            self.in_burst = False
            self._proxy_t = -1
            if ctx is None:
                return
            if not q.dispatch_inline(ctx.end_ns):
                self._arm_proxy(ctx.end_ns)
                return

    def next_step(self) -> Ctx | None:
        """The context whose step ends first (then: posted first), or None; contexts with no step
        pending leave ``working`` here."""
        work = self.working
        best: Ctx | None = None
        i = 0
        while i < len(work):
            ctx = work[i]
            if ctx.status != ST_WORK:
                ctx.listed = False
                work[i] = work[-1]  # the list's order does not matter
                work.pop()
                continue
            if best is None or ctx.end_ns < best.end_ns or (ctx.end_ns == best.end_ns and ctx.gen < best.gen):
                best = ctx
            i += 1
        return best

    def _freeze(self, ctx: Ctx) -> None:
        if ctx.status == ST_WORK:
            ctx.left_ns = ctx.end_ns - self.m.q.now_ns
            ctx.status = ST_FROZEN

    def _resume(self, ctx: Ctx) -> None:
        cont = ctx.cont
        if ctx.status == ST_FROZEN and cont is not None:
            self._work(ctx, ctx.left_ns, cont)
        elif ctx.status == ST_READY and cont is not None:
            self._work(ctx, max(ctx.grant_ns - self.m.q.now_ns, 0), cont)

    # ---- locks ------------------------------------------------------------------------------------

    def _lock(self, ctx: Ctx, lock: SpinLock, cont: Callable[[Ctx], None]) -> None:
        t = lock.acquire(ctx, self.m.q.now_ns)
        if t >= 0:
            self._work(ctx, t - self.m.q.now_ns, cont)
        else:
            ctx.cont = cont
            ctx.lock = lock
            ctx.status = ST_WAIT

    def _trylock(self, ctx: Ctx, lock: SpinLock) -> int:
        """The instant ``ctx`` holds ``lock``, or -1."""
        return lock.trylock(ctx, self.m.q.now_ns)

    def _unlock(self, lock: SpinLock) -> None:
        nxt, t = lock.release(self.m.q.now_ns)
        if nxt is not None:
            assert isinstance(nxt, Ctx)
            nxt.lock = None
            if self._runs(nxt):
                cont = nxt.cont
                assert cont is not None
                self._work(nxt, t - self.m.q.now_ns, cont)
            else:
                nxt.status = ST_READY
                nxt.grant_ns = t

    # ---- the context stack ------------------------------------------------------------------------

    def _push(self, xcpu: XCpu, ctx: Ctx) -> None:
        """``ctx`` (a softirq or hard interrupt) starts over whatever runs on this CPU."""
        if xcpu.stack:
            self._freeze(xcpu.stack[-1])
        xcpu.stack.append(ctx)
        self.m.irq_enter(xcpu.index, IRQ_HARD if ctx.kind == HARDIRQ else IRQ_SOFT)

    def _hard_to_soft(self, xcpu: XCpu) -> None:
        """irq_exit() -> invoke_softirq(): the hard interrupt's context goes on as the softirq."""
        stack = xcpu.stack
        assert stack[-1] is xcpu.hardirq
        stack[-1] = xcpu.softirq
        self.m.irq_switch(xcpu.index, IRQ_SOFT)

    def _pop(self, xcpu: XCpu) -> None:
        """The innermost (interrupt) context ends; what it interrupted runs again."""
        ctx = xcpu.stack.pop()
        ctx.status = ST_IDLE
        self.m.irq_exit(xcpu.index)  # may reschedule: detach and attach run from inside
        if xcpu.stack:
            self._resume(xcpu.stack[-1])

    def _attach(self, xcpu: XCpu, ctx: Ctx) -> None:
        """The machine runs transmit-path task ``ctx`` on this CPU (no interrupt context is open)."""
        if xcpu.stack:
            raise AssertionError(f"cpu{xcpu.index}: a task attached under an open interrupt context")
        xcpu.task = ctx
        ctx.attached = True
        xcpu.stack.append(ctx)
        self._resume(ctx)

    def _detach(self, xcpu: XCpu, ctx: Ctx) -> None:
        if xcpu.task is not ctx:
            return
        self._freeze(ctx)
        ctx.attached = False
        xcpu.task = None
        if ctx in xcpu.stack:
            xcpu.stack.remove(ctx)
