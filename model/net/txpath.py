"""``dev_queue_xmit()`` and the dequeuer role: senders on several CPUs sharing one root qdisc (2011 story).

Kernel rules modelled (KERNEL.md §E.2–E.8, 3.0):

* A sender enqueues under the root lock; if the qdisc's RUNNING bit is clear it sets it and becomes
  *the dequeuer*; if it was set when it arrived (``contended``) it first queues on ``busylock``.
* The dequeuer loops in ``__qdisc_run``: dequeue under the root lock, release it for the driver
  call, take it back. Each release lets the ``busylock`` holder in for its enqueue, so contended
  senders are served one per dequeue, in ``busylock`` order (x86 ticket locks are FIFO).
* The loop ends when the queue empties, when the driver stops the TX queue (``tx_busy``), or by the
  exit rule: ``time`` (3.0-rc4: ``need_resched()`` or a jiffy change) or ``quota`` (3.1+:
  ``weight_p`` packets or ``need_resched()``). Except after ``empty``, ``__netif_schedule`` raises
  NET_TX on the exiting CPU; the root lock goes to the ``busylock`` holder, which enqueues and takes
  RUNNING; only if nobody waits does the exiting CPU's own softirq take the role again.
* The NIC cleans its TX ring in NAPI on the CPU that takes its interrupt (``net.irq_cpus``), with
  bottom halves enabled only: on a CPU inside ``dev_queue_xmit`` (a dequeuer, a ``busylock`` spinner)
  the clean waits until it leaves. A clean frees the senders' socket memory (``sock_wfree``), waking
  senders blocked on their send buffer, and ``netif_wake_queue`` raises NET_TX on that CPU, whose
  ``net_tx_action`` takes the role if nobody holds the root lock.

A tenure is computed in closed form up to the next point where something can change (quota,
jiffy, TX queue stop, a contender filling its send buffer, a sender arriving, a NIC interrupt,
``need_resched``); ``per_packet=True`` steps one packet at a time through the same rules.

# SIMPLIFICATION (``busylock = "saturated"``, the default): contended senders are saturating: after
# its enqueue a sender with send-buffer room is back on ``busylock`` before its next turn. With
# ``busylock = "timed"`` each served sender is away for its ``user_ns`` instead (one event per turn).
# Costs are per-tenure constants (jittered per tenure from the seeded RNG). The NIC's own interrupt
# and clean times are charged to the CPU but do not shift the transmit path's timing.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np

from model.events import PRIO_IRQ, PRIO_TASK
from model.machine import Machine
from model.net.owners import PatternFifo, pattern_counts
from model.net.prio import PrioQdisc
from model.snapshot import TenureRecord

EXIT_REASONS = ("quota", "need_resched", "jiffy", "empty", "tx_busy")
ABSENT, USER, BLOCKED, CONTEND, DEQUEUE = "absent", "user", "blocked", "contend", "dequeue"


@dataclass(frozen=True, slots=True)
class TxCosts:
    user_ns: int  # a sender's work per packet before dev_queue_xmit (sendmsg, skb, UDP/IP)
    enq_ns: int  # enqueue under the root lock
    deq_ns: int  # dequeue under the root lock
    drv_ns: int  # the driver's ndo_start_xmit, root lock released
    lock_ns: int  # a lock moving between CPUs
    wake_ns: int  # a sender woken by a TX completion, until it runs again
    clean_ns: int  # NAPI TX clean per descriptor
    jitter: float  # relative spread of the per-tenure packet cycle
    busylock_timed: bool = False  # each served sender spends user_ns away before it queues again
    user_jitter: float = 0.0  # timed mode: relative spread of each packet's user_ns (seeded RNG)


@dataclass(frozen=True, slots=True)
class NicConfig:
    kind: str  # "nic" or "dummy"
    ring: int
    stop_free: int  # the driver stops the queue below this many free descriptors
    wake_free: int  # and wakes it at a clean that leaves this many free
    wire_ns: int  # per packet on the wire
    itr_ns: int  # at least this long between completion interrupts
    irq_cpus: tuple[int, ...]


@dataclass(eq=False, slots=True)
class Sender:
    cpu: int
    band: int
    wmem_pkts: int  # the socket send buffer, in packets of this size
    inflight: int = 0  # its packets in the qdisc or the TX ring
    state: str = ABSENT
    gen: int = 0  # invalidates a stale "ready" event
    frozen_left_ns: int = -1  # user-space work left when a softirq tenure froze it
    ready_ns: int = 0  # when it next reaches dev_queue_xmit (state USER)
    enqueued: int = 0
    dropped: int = 0


@dataclass
class Counters:
    per_cpu_dequeued: list[int]
    per_cpu_runs: list[int]
    exit_reasons: dict[str, int] = field(default_factory=lambda: dict.fromkeys(EXIT_REASONS, 0))
    runs: int = 0
    requeues: int = 0


class TxPath:
    def __init__(
        self,
        machine: Machine,
        qdisc: PrioQdisc,
        costs: TxCosts,
        nic: NicConfig,
        exit_rule: str,
        weight_p: int,
        rng: np.random.Generator,
        per_packet: bool = False,
    ) -> None:
        self.m = machine
        self.q = qdisc
        self.costs = costs
        self.nic = nic
        self.exit_rule = exit_rule
        self.weight_p = weight_p
        self.per_packet = per_packet
        # Plain float lists: indexing a numpy array per tenure costs more than the rest of the step.
        self._jitter: list[float] = (rng.standard_normal(4096) * costs.jitter).tolist()  # per tenure
        self._jitter_i = 0
        self._irq_jitter: list[float] = (rng.standard_normal(4096) * costs.jitter).tolist()  # per interrupt
        self._irq_jitter_i = 0
        self.rng = rng
        self._base_contended = costs.deq_ns + max(costs.drv_ns, costs.lock_ns + costs.enq_ns) + costs.lock_ns
        self._base_alone = costs.deq_ns + costs.drv_ns
        # The share of its loop a sender spends between its enqueue and run_begin (_net_tx_action).
        self._at_lock = (costs.enq_ns + costs.lock_ns) / (costs.user_ns + costs.enq_ns + costs.lock_ns)
        self._stopped_period_ns = costs.user_ns + costs.enq_ns + costs.lock_ns  # a loop meeting a stopped txq
        self._nic = nic.kind == "nic"
        self._limit = qdisc.limit
        self._ring_room = nic.ring - nic.stop_free + 1  # posting this many more stops the queue
        self._wire_ns = nic.wire_ns
        ncpus = len(machine.cpus)
        self.senders: dict[int, Sender] = {}
        self.owners = [PatternFifo() for _ in range(qdisc.bands)]
        self.ring = PatternFifo()  # descriptors posted and not yet cleaned
        self.ring_posted = 0
        self.wire_free_ns = 0
        self.wire_done = 0  # completions already cleaned
        self.stopped = False
        self.requeued_in_stop = False
        self.fifo: deque[int] = deque()  # busylock order of contended senders
        self.d = -1  # the CPU holding RUNNING
        self.t_step = 0
        self.t_tenure = 0
        self.k_tenure = 0
        self.start_jiffy = 0
        self.quota_left = 0
        self.cycle_ns = 1
        self.cycle_alone_ns = 1  # this tenure's packet cycle without and with busylock contenders
        self.cycle_contended_ns = 1
        self.jiffy_end_ns = 0  # the first jiffy boundary after the tenure's start
        self.step_gen = 0
        self.pending_clean: set[int] = set()
        self.irq_rr = 0
        self.irq_armed = False
        self.t_last_irq = -(10**12)
        self.c = Counters([0] * ncpus, [0] * ncpus)

    # ---- senders ---------------------------------------------------------------------------------

    def attach(self, cpu: int, band: int, wmem_pkts: int) -> None:
        """A sender task runs its send loop on ``cpu`` (called when the task gets the CPU)."""
        s = self.senders.get(cpu)
        if s is None:
            s = self.senders[cpu] = Sender(cpu, band, wmem_pkts)
        if s.state == ABSENT:
            self._to_user(s, self.m.now_ns)

    def detach(self, cpu: int) -> None:
        """The sender task lost its CPU (preempted): it stops sending until attached again."""
        s = self.senders.get(cpu)
        if s is None or s.state == ABSENT:
            return
        if s.state == DEQUEUE:
            self._settle()
            self._end_tenure("need_resched")
        if s.state == CONTEND:
            self._settle()
            self.fifo.remove(cpu)
            self._replan()
        s.state = ABSENT
        s.gen += 1

    def need_resched(self, cpu: int) -> None:
        """The scheduler set need_resched on ``cpu``: a tenure there ends after its current packet."""
        if self.d == cpu:
            self._settle()
            self._replan()

    def _to_user(self, s: Sender, at_ns: int, extra_ns: int = 0, post: bool = True) -> None:
        """Back in user space: block on the send buffer, or build the next packet (``post``: its
        arrival is an event; the caller that puts it straight back on busylock passes False)."""
        s.gen += 1
        if s.inflight >= s.wmem_pkts:
            s.state = BLOCKED  # sock_alloc_send_skb() sleeps until sock_wfree() makes room
            return
        s.state = USER
        s.ready_ns = at_ns + extra_ns + self._user_ns()
        if post and not self.stopped:  # while the queue is stopped the loop runs in closed form
            self.m.q.push(max(s.ready_ns, self.m.now_ns), PRIO_TASK, self._on_ready, (s, s.gen))

    def _user_ns(self) -> int:
        """A sender's user-space work for its next packet: jittered per packet in the timed mode."""
        k = self.costs
        if not k.busylock_timed or k.user_jitter <= 0:
            return k.user_ns
        # Without a per-packet spread the senders phase-lock onto the dequeuer's cycle: each one
        # reaches busylock just after a turn and is served at once, so the line is empty at every
        # quota exit, an artefact of constant costs.
        return max(1, round(k.user_ns * max(0.1, 1.0 + k.user_jitter * float(self.rng.standard_normal()))))

    def _settle_stopped(self) -> None:
        """The senders' loops while the TX queue was stopped: each attempt enqueues (or is dropped)
        and meets the stopped queue; a sender whose send buffer fills blocks."""
        now = self.m.now_ns
        period = self._stopped_period_ns
        for s in self.senders.values():
            if s.state != USER or s.ready_ns > now or s.frozen_left_ns >= 0:
                continue
            attempts = (now - s.ready_ns) // period + 1
            room = s.wmem_pkts - s.inflight
            if not self.requeued_in_stop:
                self.requeued_in_stop = True
                self.c.requeues += 1  # the first one parks its packet in gso_skb (dev_requeue_skb)
            accepted, dropped = self.q.enqueue(s.cpu, s.band, attempts if attempts < room else room)
            self.owners[s.band].push((s.cpu,), 0, accepted)
            s.inflight += accepted
            s.enqueued += accepted
            s.dropped += dropped
            s.ready_ns += attempts * period
            if s.inflight >= s.wmem_pkts:
                s.state = BLOCKED
                s.gen += 1

    def _resume_senders(self) -> None:
        """The queue is awake again: senders building packets get their next arrival as an event."""
        push, now, on_ready = self.m.q.push, self.m.now_ns, self._on_ready
        for s in self.senders.values():
            if s.state == USER and s.frozen_left_ns < 0:
                s.gen += 1
                push(s.ready_ns if s.ready_ns > now else now, PRIO_TASK, on_ready, (s, s.gen))

    def _on_ready(self, arg: tuple[Sender, int]) -> None:
        s, gen = arg
        if gen != s.gen or s.state != USER or s.frozen_left_ns >= 0:
            return
        now = self.m.now_ns
        if self.d >= 0:  # contended: spin on busylock
            self._settle()
            s.state = CONTEND
            self.fifo.append(s.cpu)
            self._replan()
            return
        self._enqueue(s.cpu, 1)
        if self.stopped:
            # It takes RUNNING, dequeue_skb() meets the stopped queue: requeue, and back to user space.
            if not self.requeued_in_stop:
                self.requeued_in_stop = True
                self.c.requeues += 1
            self._to_user(s, now, self.costs.enq_ns)
            return
        s.state = DEQUEUE
        self._start_tenure(s.cpu, now + self.costs.enq_ns)

    def _enqueue(self, cpu: int, n: int) -> None:
        s = self.senders[cpu]
        accepted, dropped = self.q.enqueue(cpu, s.band, n)
        self.owners[s.band].push((s.cpu,), 0, accepted)
        s.inflight += accepted
        s.enqueued += accepted
        s.dropped += dropped

    # ---- the dequeuer's tenure -------------------------------------------------------------------

    def _start_tenure(self, cpu: int, t_start: int) -> None:
        """``cpu`` sets RUNNING at ``t_start`` (from its own dev_queue_xmit, or from NET_TX in softirq)."""
        self.d = cpu
        self.t_step = self.t_tenure = t_start
        self.k_tenure = 0
        self.start_jiffy = t_start // self.m.tick_ns
        self.jiffy_end_ns = (self.start_jiffy + 1) * self.m.tick_ns
        self.quota_left = self.weight_p
        self._jitter_i = (self._jitter_i + 1) % len(self._jitter)
        factor = max(0.5, 1.0 + self._jitter[self._jitter_i])
        self.cycle_alone_ns = max(1, round(self._base_alone * factor))
        self.cycle_contended_ns = max(1, round(self._base_contended * factor))
        self.c.runs += 1
        self.c.per_cpu_runs[cpu] += 1
        self._replan()

    def _settle(self) -> None:
        """Apply the packets of the current tenure that completed strictly before now."""
        if self.d < 0:
            return
        now = self.m.now_ns
        if now <= self.t_step:
            return
        k = (now - self.t_step - 1) // self.cycle_ns
        if k > 0:
            self._advance(k)
            self.t_step += k * self.cycle_ns
            self.step_gen += 1  # the posted step counted these packets too: the caller re-plans

    def _replan(self) -> None:
        """Post the end of the next stretch of packets, up to the first point where something changes."""
        if self.d < 0:
            return
        # One packet of the dequeuer's loop; with contenders the root lock bounces to an enqueuer.
        self.cycle_ns = c = self.cycle_contended_ns if self.fifo else self.cycle_alone_ns
        if self._nic:
            self._arm_irq()  # the NIC interrupts for the completions this tenure will cause
        n = self._packets_to_next_point(c)
        self.step_gen += 1
        self.m.q.push(self.t_step + n * c, PRIO_TASK, self._on_step, (self.step_gen, n))

    def _packets_to_next_point(self, c: int) -> int:
        if self.per_packet or self.m.cpus[self.d].need_resched:
            return 1
        fifo = self.fifo
        if fifo and self.costs.busylock_timed:
            return 1  # each served sender leaves the line: every turn is a point where it changes
        n = self._limit  # a stretch never holds more than a band: bulk == one by one
        if self._nic:
            k = self._ring_room - self.ring.qlen
            n = k if k < n else n
        if self.exit_rule == "quota":
            n = self.quota_left if self.quota_left < n else n
        else:
            k = -(-(self.jiffy_end_ns - self.t_step) // c)
            n = k if k < n else n
        if not fifo:
            qlen = self.q.qlen
            n = qlen if qlen < n else n
            return n if n > 1 else 1
        m = len(fifo)
        senders = self.senders
        pos = 1
        for cpu in fifo:
            s = senders[cpu]
            k = pos + (s.wmem_pkts - s.inflight - 1) * m  # its enqueue that fills its send buffer
            n = k if k < n else n
            pos += 1
        return n if n > 1 else 1

    def _on_step(self, arg: tuple[int, int]) -> None:
        gen, n = arg
        if gen != self.step_gen:
            return
        self._advance(n)
        self.t_step += n * self.cycle_ns
        reason = self._exit_reason()
        if reason:
            self._end_tenure(reason)
        else:
            self._replan()

    def _advance(self, n: int) -> None:
        """``n`` turns of the loop: dequeue + post to the device, while contenders enqueue in turn."""
        qlen = self.q.qlen
        first = n if n < qlen else qlen
        sent = self._dequeue(first)
        if self.fifo and self.costs.busylock_timed:
            # The busylock holder enqueues during the driver call, then goes back to user space.
            head = self.fifo.popleft()
            self._enqueue(head, 1)
            self._to_user(self.senders[head], self.t_step, self.costs.enq_ns + self.costs.lock_ns)
        elif self.fifo:
            self._contenders_enqueue(n)
        if n > first:
            sent += self._dequeue(n - first)
        self.k_tenure += sent
        self.quota_left -= sent
        self.c.per_cpu_dequeued[self.d] += sent
        if sent and self._nic:
            w, c, t0 = self._wire_ns, self.cycle_ns, self.t_step
            # A FIFO wire: the last completion is the later of the backlog's end and the posting pace.
            last = t0 + c + sent * w if c < w else t0 + sent * c + w
            free = self.wire_free_ns + sent * w
            self.wire_free_ns = free if free > last else last
            self.ring_posted += sent
            self._arm_irq()

    def _contenders_enqueue(self, n: int) -> None:
        """The busylock line's enqueues over ``n`` turns: one per turn, round robin in line order."""
        q = self.q
        cpus = tuple(self.fifo)
        shares: dict[int, int] = {}
        pattern_counts(cpus, 0, n, shares)
        senders = self.senders
        band = senders[cpus[0]].band
        if all(senders[c].band == band for c in cpus) and q.band_qlen(band) + n <= self._limit:
            # One band with room: the turns' packets go in as one interleaved run.
            q.enqueue(cpus[0], band, n)
            self.owners[band].push(cpus, 0, n)
            for cpu, share in shares.items():
                senders[cpu].inflight += share
                senders[cpu].enqueued += share
        else:  # SIMPLIFICATION: with several bands or drops, bands are filled sender by sender
            for cpu, share in shares.items():
                s = senders[cpu]
                accepted, dropped = q.enqueue(cpu, s.band, share)
                self.owners[s.band].push((cpu,), 0, accepted)
                s.inflight += accepted
                s.enqueued += accepted
                s.dropped += dropped
        self.fifo.rotate(-(n % len(cpus)))
        for cpu in cpus:
            s = senders[cpu]
            if s.inflight >= s.wmem_pkts:
                self.fifo.remove(cpu)
                s.state = BLOCKED

    def _dequeue(self, n: int) -> int:
        """Dequeue ``n`` packets into the device: the NIC's TX ring, or a dummy device that frees them."""
        if n <= 0:
            return 0
        band_pkts = self.q.dequeue_bands(n)
        owners = self.owners
        if self._nic:
            for band, count in enumerate(band_pkts):
                if count:
                    owners[band].take(count, None, self.ring)
        else:
            freed: dict[int, int] = {}
            for band, count in enumerate(band_pkts):
                if count:
                    owners[band].take(count, freed)
            if freed:
                self._free(freed)
        return sum(band_pkts)

    def _exit_reason(self) -> str:
        """__qdisc_run()'s checks after a packet, in the kernel's order."""
        if self._nic and self.nic.ring - self.ring.qlen < self.nic.stop_free:
            return "tx_busy"
        if self.q.qlen == 0:
            return "empty"
        if self.exit_rule == "quota" and self.quota_left <= 0:
            return "quota"
        if self.m.cpus[self.d].need_resched:
            return "need_resched"
        if self.exit_rule == "time" and self.t_step // self.m.tick_ns != self.start_jiffy:
            return "jiffy"
        return ""

    def _end_tenure(self, reason: str) -> None:
        now = max(self.m.now_ns, self.t_step)
        old = self.d
        self.c.exit_reasons[reason] += 1
        if self.m.tracing:
            self.m.record(TenureRecord(self.t_tenure, old, now - self.t_tenure, self.k_tenure, reason))
        self.step_gen += 1
        self.d = -1
        s_old = self.senders.get(old)
        if reason == "tx_busy":
            self.stopped = True
            self.requeued_in_stop = False
            # Each busylock spinner in turn enqueues, takes the free RUNNING bit, meets the stopped queue.
            for cpu in list(self.fifo):
                self._enqueue(cpu, 1)
                self._to_user(self.senders[cpu], now, self.costs.enq_ns + self.costs.lock_ns)
            if self.fifo:
                self.requeued_in_stop = True
                self.c.requeues += 1
            self.fifo.clear()
        elif self.fifo:
            # The root lock goes to the busylock holder: it enqueues and finds RUNNING clear.
            head = self.fifo.popleft()
            self._enqueue(head, 1)
            self.senders[head].state = DEQUEUE
            if not self.costs.busylock_timed and s_old is not None and s_old.state == DEQUEUE:
                # Saturated senders: the old dequeuer is back in the busylock line before its turn.
                self._return_from_tenure(s_old, now, post=False)
                if s_old.state == USER:
                    s_old.gen += 1
                    s_old.state = CONTEND
                    self.fifo.append(old)
            else:
                self._return_from_tenure(s_old, now)
            self._start_tenure(head, now + self.costs.lock_ns + self.costs.enq_ns)
            return
        elif reason != "empty":
            # Nobody waits: the exiting CPU's own NET_TX softirq takes the root lock and the role again.
            self._start_tenure(old, now + self.costs.lock_ns)
            return
        self._return_from_tenure(s_old, now)
        if old in self.pending_clean:
            self.pending_clean.discard(old)
            self._clean(old)

    def _return_from_tenure(self, s: Sender | None, now: int, post: bool = True) -> None:
        """The old dequeuer leaves __qdisc_run: a sender goes back to user space; a softirq returns."""
        if s is None:
            return
        if s.state == DEQUEUE:
            self._to_user(s, now, post=post)
        elif s.frozen_left_ns >= 0:
            left, s.frozen_left_ns = s.frozen_left_ns, -1
            self._to_user(s, now, left - self.costs.user_ns)
        if s.cpu in self.pending_clean and self.d != s.cpu:
            self.pending_clean.discard(s.cpu)
            self._clean(s.cpu)

    # ---- the NIC: TX completions, cleaning in NAPI, stop and wake -------------------------------

    def _arm_irq(self) -> None:
        if self.irq_armed or not self.nic.irq_cpus:
            return
        self.irq_armed = True
        # The NIC's throttle timer runs free of the CPUs' ticks: its period wanders a little.
        self._irq_jitter_i = (self._irq_jitter_i + 1) % len(self._irq_jitter)
        gap = round(self.nic.itr_ns * (1.0 + self._irq_jitter[self._irq_jitter_i]))
        self.m.q.push(max(self.m.now_ns, self.t_last_irq + gap), PRIO_IRQ, self._on_nic_irq, None)

    def _completed(self, t: int) -> int:
        """Descriptors the wire has finished by ``t`` (all posted ones once it is idle)."""
        backlog = -(-(self.wire_free_ns - t) // self.nic.wire_ns) if self.wire_free_ns > t else 0
        return self.ring_posted - backlog

    def _on_nic_irq(self, _arg: object) -> None:
        now = self.m.now_ns
        self._settle()  # (posting while settling must not arm a second interrupt)
        self.irq_armed = False
        if self._completed(now) <= self.wire_done:
            if self.ring.qlen:  # nothing finished yet: interrupt when the next one does
                self.irq_armed = True
                t_next = self.wire_free_ns - (self.ring_posted - self.wire_done - 1) * self.nic.wire_ns
                self.m.q.push(max(t_next, now + 1), PRIO_IRQ, self._on_nic_irq, None)
            elif self.d >= 0:  # a tenure is posting: look again one throttle period later
                self.irq_armed = True
                self.m.q.push(now + self.nic.itr_ns, PRIO_IRQ, self._on_nic_irq, None)
            self._replan()
            return
        self.t_last_irq = now
        cpu = self.nic.irq_cpus[self.irq_rr % len(self.nic.irq_cpus)]
        self.irq_rr += 1
        s = self.senders.get(cpu)
        if self.d == cpu or (s is not None and s.state == CONTEND):
            # Bottom halves are off in dev_queue_xmit(): NAPI runs when this CPU leaves it.
            self.pending_clean.add(cpu)
            if s is not None and s.state == CONTEND:
                pos = self.fifo.index(cpu)
                t = self.t_step + (pos + 1) * self.cycle_ns
                self.m.q.push(max(t, now), PRIO_IRQ, self._on_deferred_clean, cpu)
        else:
            self._clean(cpu)  # freed descriptors move the point where the queue stops
        self._replan()
        if self.ring.qlen:
            self._arm_irq()

    def _on_deferred_clean(self, cpu: int) -> None:
        s = self.senders.get(cpu)
        if cpu in self.pending_clean and self.d != cpu and (s is None or s.state != DEQUEUE):
            self.pending_clean.discard(cpu)
            self._settle()
            self._clean(cpu)
            self._replan()

    def _clean(self, cpu: int) -> None:
        """NAPI's TX clean on ``cpu``: free finished descriptors, wake senders and maybe the queue."""
        now = self.m.now_ns
        done = self._completed(now) - self.wire_done
        if done <= 0:
            return
        self.wire_done += done
        freed: dict[int, int] = {}
        self.ring.take(done, freed)
        self.m.raise_irq(cpu, 0, self.costs.clean_ns * done, _noop, None)
        self._free(freed)
        if self.stopped and self.nic.ring - self.ring.qlen >= self.nic.wake_free:
            self._settle_stopped()
            self.stopped = False  # netif_wake_queue(): __netif_schedule() raises NET_TX here
            self._net_tx_action(cpu)
            self._resume_senders()

    def _free(self, freed: dict[int, int]) -> None:
        """sock_wfree(): send-buffer room comes back; a blocked sender wakes once half of it is free."""
        for cpu, n in freed.items():
            s = self.senders.get(cpu)
            if s is None:
                continue
            s.inflight -= n
            if s.state == BLOCKED and 2 * s.inflight <= s.wmem_pkts:
                self._to_user(s, self.m.now_ns, self.costs.wake_ns)

    def _net_tx_action(self, cpu: int) -> None:
        """NET_TX on ``cpu`` after a wake: trylock the root lock; take RUNNING if it is clear."""
        if self.d >= 0 or not self.q.qlen:
            return
        # A sender between its enqueue and run_begin holds the root lock: trylock fails, and that
        # sender becomes the dequeuer. Each sender building packets is there this share of its loop.
        k = self.costs
        racers = [s for s in self.senders.values() if s.state == USER and s.cpu != cpu]
        if racers:
            at_lock = self._at_lock
            draws = self.rng.random(len(racers)).tolist()  # one draw per racer, in order
            holders = [s for s, u in zip(racers, draws, strict=True) if u < at_lock]
        else:
            holders = racers
        if holders:
            s = holders[int(self.rng.integers(len(holders)))]
            s.gen += 1
            self._enqueue(s.cpu, 1)
            s.state = DEQUEUE
            self._start_tenure(s.cpu, self.m.now_ns + k.enq_ns)
            return
        s_irq = self.senders.get(cpu)
        if s_irq is not None and s_irq.state == USER:
            s_irq.frozen_left_ns = k.user_ns  # SIMPLIFICATION: it restarts its packet afterwards
            s_irq.gen += 1
        self._start_tenure(cpu, self.m.now_ns + k.lock_ns)

    # ---- live settings and what the rest of the model reads ----------------------------------------

    def set_exit_rule(self, exit_rule: str, weight_p: int) -> None:
        """The 3.0 -> 3.1 switch or a new ``weight_p``, applied at once like a sysctl."""
        self._settle()
        self.quota_left += weight_p - self.weight_p
        self.exit_rule = exit_rule
        self.weight_p = weight_p
        self._replan()

    def settle(self) -> None:
        """Bring the counters up to now (packets of the current stretch that have completed)."""
        self._settle()
        self._replan()

    def transmitted(self) -> int:
        """Packets that left the device: completions on the wire (a dummy device takes them at once)."""
        if self.nic.kind == "dummy":
            return sum(self.c.per_cpu_dequeued)
        return self._completed(self.m.now_ns)

    def busylock_waiters(self) -> tuple[int, ...]:
        """The CPUs spinning for busylock behind its holder (the head of the line), in arrival order."""
        return tuple(self.fifo)[1:]

    def band_heads(self, band: int, max_packets: int) -> tuple[tuple[int, int], ...]:
        return self.owners[band].head(max_packets)


def _noop(_arg: object) -> None:
    pass
