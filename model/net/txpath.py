"""``dev_queue_xmit()`` and the dequeuer role, 3.0: senders on several CPUs sharing one root qdisc.

The transmit path is built in layers, one mechanism per module (KERNEL.md §E, 3.0 sources):

* ``cpuctx``: execution contexts per CPU (task, softirq, hard interrupt): CPU time is conserved,
  an interrupt or softirq stops whatever runs under it;
* ``locks``: the root lock and ``busylock`` as x86 ticket spinlocks (or test-and-set);
* ``qrun``: ``__qdisc_run()`` and its exit rules, ``sch_direct_xmit()``, ``dev_requeue_skb()``;
* ``nic``: the ixgbe port (a TX ring per sending CPU, the wire, stop and wake) or the dummy device;
* ``softirq``: the NIC's interrupts, ``__do_softirq()`` and its restart limit, ``net_tx_action()``,
  NAPI TX clean, ksoftirqd;
* ``senders``: the UDP senders, their socket send buffers and ``__dev_xmit_skb()``;
* ``stretch_bridge``: a stretch of the closed form's bounds, its state gathered from the contexts, and
  its turns applied back (``stretch``: that state);
* ``closedform``: whole turns of the dequeue loop without events, where nothing else can happen;
* this module: the whole, as the simulation and the view use it.

The qdisc is any ``model.net.qdisc.Qdisc``; the transmit path keeps who sent each queued packet.
"""

from __future__ import annotations

import numpy as np

from model.copyable import mypyc_attr
from model.machine import Machine
from model.net.closedform import ClosedForm
from model.net.cpuctx import Ctx
from model.net.qdisc import Qdisc
from model.net.qrun import Counters
from model.net.txconfig import EXIT_REASONS, EXIT_RULES, TxConfig

__all__ = ["EXIT_REASONS", "EXIT_RULES", "Counters", "TxPath"]


# model.copyable: a run is copied. Built only by compiled code (Simulation): with serializable alone,
# mypyc 2.4 would skip __init__ in a call from Python code.
@mypyc_attr(serializable=True)
class TxPath(ClosedForm):
    def __init__(self, machine: Machine, qdisc: Qdisc, cfg: TxConfig, rng: np.random.Generator) -> None:
        super().__init__(machine, qdisc, cfg, rng)

    # ---- live settings ----------------------------------------------------------------------------

    def set_exit_rule(self, exit_rule: str, weight_p: int) -> None:
        """The 3.0 -> 3.1 switch or a new ``weight_p``, applied at once like a sysctl: a loop in
        progress keeps its start (its jiffy) and counts its quota from what it has sent."""
        if exit_rule not in EXIT_RULES:
            raise ValueError(f"exit rule must be one of {', '.join(EXIT_RULES)}, got {exit_rule!r}")
        d = self.running
        if d is not None:
            d.quota += weight_p - self.weight_p
        self.exit_rule = exit_rule
        self.weight_p = weight_p

    def settle(self) -> None:
        """Bring the device's counters up to now."""
        if self.nic is not None:
            self.nic.wire.advance(self.m.q.now_ns)

    # ---- what the rest of the model reads ---------------------------------------------------------

    def transmitted(self) -> int:
        """Packets that left the device (a dummy device takes them at once)."""
        if self.nic is None:
            return self.sent_dummy
        return self.nic.transmitted(self.m.q.now_ns)

    def dequeuer_cpu(self) -> int:
        return self.running.cpu if self.running is not None else -1

    def dequeuer_since_ns(self) -> int:
        """When the dequeuer's tenure (its __qdisc_run) began, -1 when nobody dequeues."""
        return self.running.t0 if self.running is not None else -1

    @staticmethod
    def _cpu_of(owner: object) -> int:
        return owner.cpu if isinstance(owner, Ctx) else -1

    def root_lock_cpu(self) -> int:
        return self._cpu_of(self.root.holder)

    def busylock_cpu(self) -> int:
        return self._cpu_of(self.busylock.holder)

    def busylock_waiters(self) -> tuple[int, ...]:
        """The CPUs spinning for busylock behind its holder, in ticket order."""
        return tuple(self._cpu_of(w) for w in self.busylock.waiters)

    def band_heads(self, band: int, max_packets: int) -> tuple[tuple[int, int], ...]:
        """The first ``max_packets`` packets of ``band`` as ``(sending CPU, packets)`` runs, head first."""
        out: list[tuple[int, int]] = []
        left = max_packets
        for cpu, count in self.qdisc.band_contents(band, max_packets):  # a packet's flow is its sender
            if left <= 0:
                break
            out.append((cpu, min(count, left)))
            left -= count
        return tuple(out)

    def ring_used(self) -> tuple[int, ...]:
        return tuple(r.used for r in self.nic.rings) if self.nic is not None else ()

    def ring_stopped(self) -> tuple[bool, ...]:
        return tuple(r.stopped for r in self.nic.rings) if self.nic is not None else ()
