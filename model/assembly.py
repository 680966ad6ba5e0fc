"""A scenario's workloads assembled on a machine: iperf and its sockets, the NIC's receive path, the
transmit path with its qdisc and ksoftirqd threads, and the scenario's tasks, in the order the run
depends on (the order tasks are spawned decides early picks, so it is fixed here, in one place).

``model.simulation`` builds the machine and the policy, calls ``assemble`` once, and keeps what it
returns; nothing here runs the machine.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from model.actions import Program
from model.machine import Machine
from model.net.qdisc import Qdisc
from model.net.qdiscs import make_qdisc
from model.net.rx import NicRx, RxConfig, RxSocket
from model.net.sockets import udp_truesize
from model.net.tcp import LinkConfig, LinkDevice, TcpSendSocket
from model.net.txconfig import TxConfig, TxCosts
from model.net.txpath import TxPath
from model.net.wire import frame_ns
from model.scenario import Scenario, ScenarioError, check_consistent
from model.scenario_sections import TaskSpec
from model.sched.base import NSEC_PER_SEC
from model.task import Task
from model.workloads.generic import spawn_tasks
from model.workloads.iperf import Iperf, IperfServer
from model.workloads.sender import ksoftirqd_program, sender_program


@dataclass(slots=True)
class Workloads:
    """What ``assemble`` built; None (or empty) where the scenario has no such part."""

    links: list[LinkDevice] = field(default_factory=list)  # the link under iperf client's TCP socket
    iperf: Iperf | None = None  # iperf's client (the server keeps no state the run reads)
    rx_socket: RxSocket | None = None
    nic_rx: NicRx | None = None
    txpath: TxPath | None = None
    qdisc: Qdisc | None = None


def assemble(sc: Scenario, machine: Machine, rng: np.random.Generator) -> Workloads:
    check_consistent(sc)  # a scenario built in code, not loaded, meets the same rules
    built = Workloads()
    if sc.iperf.enabled and sc.iperf.mode == "server":
        net = sc.net
        built.rx_socket = RxSocket(machine)
        built.nic_rx = NicRx(
            machine,
            RxConfig(
                net.link_mbps,
                net.irq_cpus[0],
                net.udelay_us,
                net.irq_base_ns,
                net.rx_ring,
                net.napi_weight,
                net.netdev_budget,
                net.rx_pkt_ns,
                net.itr_per_s,
                net.rwnd_bytes,
                machine.tick_ns,
            ),
            built.rx_socket,
        )
        IperfServer(machine, built.rx_socket, built.nic_rx, sc.iperf)
        built.nic_rx.start()
    elif sc.iperf.enabled:
        net = sc.net
        link = LinkDevice(
            machine,
            LinkConfig(
                net.link_mbps,
                net.tx_irq_frames,
                net.tx_irq_ns,
                net.ack_softirq_ns_per_frame,
                net.irq_cpus[0],
            ),
        )
        sock = TcpSendSocket(machine, net.sndbuf_bytes, link)
        built.links.append(link)
        built.iperf = Iperf(machine, sock, sc.iperf)
    if sc.has_qdisc:
        built.txpath, built.qdisc = _build_txpath(sc, machine, rng)

    def sender(spec: TaskSpec) -> Callable[[Task], Program]:
        txpath, qdisc = built.txpath, built.qdisc
        assert txpath is not None and qdisc is not None  # a sender task means the path was built
        return sender_program(txpath, qdisc.band_for_priority(spec.priority))

    spawn_tasks(machine, sc.tasks, sender)
    return built


def _build_txpath(sc: Scenario, machine: Machine, rng: np.random.Generator) -> tuple[TxPath, Qdisc]:
    try:
        qdisc = make_qdisc(sc.qdisc.kind, sc.qdisc.bands, sc.qdisc.priomap, sc.qdisc.limit)
    except ValueError as exc:
        raise ScenarioError(f"qdisc: {exc}") from None
    txpath = TxPath(machine, qdisc, tx_config(sc), rng)
    for cpu in range(sc.machine.cpus):
        machine.spawn(f"ksoftirqd/{cpu}", ksoftirqd_program(txpath), 0, cpu, role="ksoftirqd")
    return txpath, qdisc


def tx_config(sc: Scenario) -> TxConfig:
    """The transmit path's settings from the scenario's ``xmit``, ``net`` and ``qdisc`` sections."""
    x, net, qd = sc.xmit, sc.net, sc.qdisc
    costs = TxCosts(
        user_ns=x.user_ns,
        enq_ns=x.enq_ns,
        deq_ns=x.deq_ns,
        drv_ns=x.drv_ns,
        dummy_ns=x.dummy_ns,
        lock_ns=x.lock_ns,
        tx_action_ns=x.tx_action_ns,
        ttwu_ns=x.ttwu_ns,
        irq_ns=x.irq_ns,
        clean_ns=x.clean_ns,
        user_jitter=x.user_jitter,
        jitter=x.jitter,
    )
    return TxConfig(
        costs=costs,
        exit_rule=qd.exit_rule,
        weight_p=qd.weight_p,
        device=net.device,
        per_cpu_rings=x.tx_queues == "per_cpu",
        ring_size=x.tx_ring,
        stop_free=x.tx_stop_free,
        wake_free=x.tx_wake_free,
        wire_ns=frame_ns(x.packet_bytes, net.link_mbps),
        itr_ns=NSEC_PER_SEC // net.itr_per_s,
        irq_cpus=net.irq_cpus,
        sndbuf_bytes=x.sndbuf_bytes,
        truesize=udp_truesize(x.packet_bytes),
        spinlock=x.spinlock,
        max_softirq_restart=x.softirq_restart,
        orphan=x.orphan,
        per_packet=qd.per_packet,
    )
