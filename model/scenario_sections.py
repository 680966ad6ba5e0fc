"""The keys of a scenario's sections: one frozen dataclass per section (``[machine]``, ``[sched]``,
``[net]``, ``[qdisc]``, ``[xmit]``, ``[iperf]``, ``[[tasks]]``), each field a key with its default, its
range or choices and what it means (``model.keyspec.spec_field``). ``model.scenario`` puts them
together into a ``Scenario`` and reads them from TOML.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from model.keyspec import spec_field as _spec
from model.net.qdiscs import QDISCS
from model.sched import POLICIES, TUNABLES
from model.script_steps import Script, parse_script

NAME = (1, 64)  # characters of a name (a scenario's, a task's, a channel's)


@dataclass(frozen=True)
class MachineSpec:
    cpus: int = _spec(1, "number of CPUs", 1, 64)
    hz: int = _spec(250, "scheduler tick rate (CONFIG_HZ)", choices=(100, 250, 300, 1000))
    context_switch_ns: int = _spec(5_000, "CPU cost of one context switch", 0, 1_000_000)
    syscall_ns: int = _spec(3_000, "CPU cost of one sched_yield() that does not switch", 0, 1_000_000)
    hrtimers: bool = _spec(
        True,
        "high-resolution timers (CONFIG_HIGH_RES_TIMERS, x86 from 2.6.21): a sleep ends when due and "
        "usleep(0) returns at once; false: sleeps end on a tick",
    )
    tick_skew: bool = _spec(
        False,
        "each CPU's tick half a tick / CPUs after the one before (tick_setup_sched_timer before 3.5; "
        "since, only with skew_tick=1); false: every CPU ticks on the jiffy",
    )


def _default_tunables() -> tuple[tuple[str, int], ...]:
    return tuple((key, t.default) for key, t in TUNABLES.items())


@dataclass(frozen=True)
class SchedSpec:
    policy: str = _spec("cfs-2.6.23", "CPU scheduler", choices=tuple(POLICIES))
    # Every registered tunable (model.sched.TUNABLES), whatever the policy: one that is not the policy's
    # is kept (a restart under another policy uses it) and does nothing.
    tunables: tuple[tuple[str, int], ...] = field(default_factory=_default_tunables)

    def tunable(self, key: str) -> int:
        return dict(self.tunables)[key]

    def replaced(self, values: Mapping[str, Any]) -> SchedSpec:
        """A copy with ``policy`` and tunables (by key) replaced; the values are validated already."""
        tunables = dict(self.tunables)
        tunables.update((k, int(v)) for k, v in values.items() if k != "policy")
        return SchedSpec(str(values.get("policy", self.policy)), tuple(tunables.items()))


@dataclass(frozen=True)
class NetSpec:
    link_mbps: int = _spec(100, "link rate", 1, 100_000)
    sndbuf_bytes: int = _spec(65_536, "TCP socket send buffer", 8_192, 16_777_216)
    tx_irq_frames: int = _spec(16, "frames per TX-completion interrupt (interrupt mitigation)", 1, 256)
    tx_irq_ns: int = _spec(10_000, "hard interrupt cost per TX-completion interrupt", 0, 10_000_000)
    ack_softirq_ns_per_frame: int = _spec(
        3_000, "softirq cost of returning ACKs per data frame", 0, 1_000_000
    )
    irq_cpus: tuple[int, ...] = _spec(
        (0,),
        "CPUs that take the NIC's interrupts",
        length=(1, 64),
        items="CPU numbers, each below machine.cpus",
    )
    device: str = _spec(
        "nic", "transmit device: a NIC with a TX ring, or dummy (consumes at once)", choices=("nic", "dummy")
    )
    udelay_us: int = _spec(0, "extra busy-wait in the NIC's hard interrupt handler", 0, 100_000)
    irq_base_ns: int = _spec(2_000, "hard interrupt cost without the extra delay", 0, 1_000_000)
    rx_ring: int = _spec(256, "RX ring descriptors (E1000_DEFAULT_RXD)", 8, 4096)
    napi_weight: int = _spec(64, "NAPI weight: frames per poll", 1, 1024)
    netdev_budget: int = _spec(300, "frames per net_rx_action", 1, 10_000)
    rx_pkt_ns: int = _spec(1_200, "NET_RX softirq cost per received frame", 1, 1_000_000)
    itr_per_s: int = _spec(4_000, "interrupt throttle rate (e1000 InterruptThrottleRate)", 100, 100_000)
    rwnd_bytes: int = _spec(174_760, "receiver's advertised TCP window", 2_896, 16_777_216)


@dataclass(frozen=True)
class QdiscSpec:
    kind: str = _spec(
        "prio",
        "the root qdisc: prio (sch_prio.c: bands, priomap and limit per band) or pfifo_fast (sch_generic.c, "
        "the kernel's default: 3 fixed bands, the fixed priomap, one limit for all bands)",
        choices=tuple(QDISCS),
    )
    exit_rule: str = _spec(
        "time",
        "__qdisc_run exit: time (3.0-rc4: need_resched or the next jiffy), quota+jiffy (jamal's patch "
        "as posted: weight_p packets, need_resched or the next jiffy) or quota (3.1: weight_p packets "
        "or need_resched)",
        choices=("time", "quota+jiffy", "quota"),
    )
    weight_p: int = _spec(64, "the dequeue quota in packets (quota+jiffy and quota)", 1, 100_000)
    bands: int = _spec(3, "prio bands (pfifo_fast: 3, fixed)", 2, 16)
    priomap: tuple[int, ...] = _spec(
        (1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1),
        "priority -> band (16 entries; pfifo_fast: fixed)",
        length=(16, 16),
        items="band numbers, each below qdisc.bands",
    )
    limit: int = _spec(
        1000, "the device's tx_queue_len: prio's limit per band, pfifo_fast's for all bands", 1, 100_000
    )
    per_packet: bool = _spec(
        False, "reference mode: every step of every packet is an event (no closed form between change points)"
    )


@dataclass(frozen=True)
class XmitSpec:
    packet_bytes: int = _spec(1500, "IP packet size of the senders' UDP datagrams", 64, 9000)
    user_ns: int = _spec(
        1_000, "a sender's CPU per packet in sendto() before dev_queue_xmit (syscall, skb, copy, UDP/IP)",
        1, 10_000_000,
    )  # fmt: skip
    user_jitter: float = _spec(0.0, "relative spread of each packet's user_ns (seeded RNG)", 0.0, 1.0)
    enq_ns: int = _spec(150, "enqueue under the root lock (prio classify + pfifo)", 1, 1_000_000)
    deq_ns: int = _spec(150, "dequeue_skb() under the root lock", 1, 1_000_000)
    drv_ns: int = _spec(
        600, "NIC: dev_hard_start_xmit() + ixgbe_xmit_frame(), root lock released", 1, 1_000_000
    )
    dummy_ns: int = _spec(250, "dummy device: dev_hard_start_xmit() + dummy_xmit() (kfree_skb)", 1, 1_000_000)
    lock_ns: int = _spec(80, "a spinlock's cache line moving to another CPU", 0, 1_000_000)
    tx_action_ns: int = _spec(150, "one net_tx_action() pass: the output queue and the trylock", 1, 1_000_000)
    ttwu_ns: int = _spec(
        1_000, "try_to_wake_up() of a sleeping sender, charged to the CPU that frees its skb", 0, 1_000_000
    )
    irq_ns: int = _spec(1_500, "NIC: a TX vector's hard interrupt (napi_schedule)", 0, 1_000_000)
    clean_ns: int = _spec(150, "NIC: ixgbe_clean_tx_irq() per packet, in NAPI", 0, 1_000_000)
    jitter: float = _spec(
        0.05, "relative spread of the NIC's interrupt throttle interval (seeded RNG)", 0.0, 0.5
    )
    sndbuf_bytes: int = _spec(
        124_928, "a sender's socket send buffer, sk_sndbuf (3.0 x86-64 wmem_default)", 4_608, 16_777_216
    )
    tx_ring: int = _spec(512, "NIC: descriptors per TX ring (IXGBE_DEFAULT_TXD; 2 per packet)", 64, 65_536)
    tx_stop_free: int = _spec(20, "NIC: a ring stops below this many free descriptors (DESC_NEEDED)", 1, 1024)
    tx_wake_free: int = _spec(
        40, "NIC: a clean wakes a stopped ring at this many free descriptors (TX_WAKE_THRESHOLD)", 1, 4096
    )
    tx_queues: str = _spec(
        "per_cpu",
        "NIC: per_cpu (3.0 ixgbe_select_queue: the sending CPU's ring) or single (one TX ring)",
        choices=("per_cpu", "single"),
    )
    spinlock: str = _spec(
        "ticket", "root lock and busylock: ticket (x86 FIFO, 2.6.25+) or tas (unfair test-and-set)",
        choices=("ticket", "tas"),
    )  # fmt: skip
    softirq_restart: int = _spec(
        10, "__do_softirq passes before ksoftirqd takes the rest (MAX_SOFTIRQ_RESTART)", 1, 1_000
    )
    orphan: str = _spec(
        "xmit",
        "when sock_wfree gives a sender its socket memory back: xmit (3.0 skb_orphan_try, by the "
        "dequeuer) or completion (after the NIC's TX clean, as from 3.5)",
        choices=("xmit", "completion"),
    )


@dataclass(frozen=True)
class IperfSpec:
    enabled: bool = _spec(False, "run iperf (2.0.2's client or 2.0.4's server)")
    mode: str = _spec(
        "client", "client: send through the TCP send path; server: receive", choices=("client", "server")
    )
    recv_ns_per_kb: int = _spec(250, "server: CPU per KB read from the socket", 0, 1_000_000)
    thread_rest: str = _spec(
        "sched_yield",
        "thread_rest() build (the server: fixed is Ingo's reporter, 10 ms sleeps; the others 2.0.4's)",
        choices=("usleep0", "sched_yield", "fixed"),
    )
    loop_ns: int = _spec(
        500_000, "CPU per pass of the data loop: gettimeofday + 8 KB write()", 1_000, 100_000_000
    )
    write_bytes: int = _spec(8_192, "bytes per write() (-l)", 1, 1_048_576)
    report_entry_ns: int = _spec(2_000, "reporter CPU per ring entry (reporter_handle_packet)", 0, 1_000_000)
    reporter_pass_ns: int = _spec(1_000, "reporter CPU per pass over the report list", 1, 1_000_000)
    signal_ns: int = _spec(500, "CPU of one Condition_Signal + ring check", 1, 1_000_000)
    ring_slots: int = _spec(700, "NUM_REPORT_STRUCTS (one slot stays empty)", 2, 100_000)
    nice: int = _spec(0, "nice value of both iperf threads", -20, 19)
    cpu: int = _spec(-1, "pin both threads to this CPU (-1: not pinned)", -1, 63)


TASK_KINDS = ("hog", "yielder", "sleeper", "producer", "consumer", "sender", "script")
SYNC_KINDS = ("condvar", "sched_yield", "usleep0")


@dataclass(frozen=True)
class TaskSpec:
    name: str = _spec("task", "task name", length=NAME)
    kind: str = _spec("hog", "behaviour", choices=TASK_KINDS)
    nice: int = _spec(0, "nice value", -20, 19)
    cpu: int = _spec(-1, "pin to this CPU (-1: not pinned)", -1, 63)
    count: int = _spec(1, "how many identical tasks", 1, 64)
    run_us: int = _spec(
        1_000, "CPU burst per loop (hog chunk, yielder work, sleeper burst, item cost)", 1, 10**8
    )
    sleep_us: int = _spec(10_000, "sleeper: sleep per loop", 0, 10**8)
    channel: str = _spec("ch", "producer/consumer: the shared channel name", length=NAME)
    sync: str = _spec("condvar", "producer/consumer: how the consumer waits", choices=SYNC_KINDS)
    slots: int = _spec(64, "producer/consumer: channel capacity", 1, 1_000_000)
    priority: int = _spec(0, "sender: skb->priority (the prio qdisc maps it to a band)", 0, 15)
    script: Script = _spec(  # noqa: RUF009 (a Script is frozen: one default shared by all is safe)
        Script(), "script: its steps, loop and delay_us (model.script_steps)", parse=parse_script
    )
