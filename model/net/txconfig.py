"""The transmit path's settings: CPU costs of each step, and which 3.0 mechanisms are switched on.

Built by ``Simulation`` from the scenario's ``[xmit]``, ``[qdisc]`` and ``[net]`` keys (the specs in
``model.scenario`` document each with its range); the transmit path reads nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass

# __qdisc_run() exit rules (net/sched/sch_generic.c): 3.0-rc4, jamal's patch as posted, 3.1 upstream.
EXIT_RULES = ("time", "quota+jiffy", "quota")
EXIT_REASONS = ("quota", "need_resched", "jiffy", "empty", "tx_busy")
ORPHAN_MODES = ("xmit", "completion")  # when sock_wfree() runs: skb_orphan_try() (3.0) or TX clean


@dataclass(frozen=True, slots=True)
class TxCosts:
    """CPU time of each step, in ns (see the scenario specs for what each covers)."""

    user_ns: int  # a sender's work per packet before dev_queue_xmit (sendmsg, skb, copy, UDP/IP)
    enq_ns: int  # enqueue under the root lock
    deq_ns: int  # dequeue_skb() under the root lock
    drv_ns: int  # ixgbe: dev_hard_start_xmit() + ixgbe_xmit_frame(), root lock released
    dummy_ns: int  # dummy: dev_hard_start_xmit() + dummy_xmit() (kfree_skb)
    lock_ns: int  # a lock's cache line moving to another CPU
    tx_action_ns: int  # one net_tx_action() pass: the output queue and the trylock
    ttwu_ns: int  # try_to_wake_up() of a sleeping sender, charged to the waker
    irq_ns: int  # the NIC vector's hard interrupt (ixgbe_msix_clean_many, napi_schedule)
    clean_ns: int  # ixgbe_clean_tx_irq() per packet
    user_jitter: float  # relative spread of each packet's user_ns (seeded RNG)
    jitter: float  # relative spread of the interrupt throttle interval (seeded RNG)


@dataclass(frozen=True, slots=True)
class TxConfig:
    costs: TxCosts
    exit_rule: str
    weight_p: int
    device: str  # "nic" or "dummy"
    per_cpu_rings: bool  # ixgbe_select_queue() by sending CPU, or a single TX ring
    ring_size: int  # descriptors per ring
    stop_free: int  # DESC_NEEDED
    wake_free: int  # TX_WAKE_THRESHOLD
    wire_ns: int  # one packet on the wire
    itr_ns: int  # at least this long between a vector's interrupts
    irq_cpus: tuple[int, ...]
    sndbuf_bytes: int
    truesize: int
    spinlock: str  # "ticket" or "tas"
    max_softirq_restart: int  # __do_softirq() passes before ksoftirqd takes over
    orphan: str  # "xmit" or "completion"
    per_packet: bool
