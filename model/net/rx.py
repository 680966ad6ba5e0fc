"""The receive path of the 2009 story: a remote TCP sender, the NIC's RX ring, the hard interrupt, NAPI.

Frames arrive at line rate while the sender's window allows (ACK clocking), into a ring of
``rx_ring`` descriptors; a full ring drops them (``rx_missed_errors``). With interrupts enabled, a
frame raises the NIC interrupt on ``irq_cpu``: ``e1000_intr`` masks the NIC's interrupts and, with
the extra ``udelay``, busy-waits in hardirq context; then NAPI polls in NET_RX softirq, ``weight``
frames per poll, ``netdev_budget`` per ``net_rx_action`` or 2 jiffies, and re-enables interrupts
when a poll returns fewer than ``weight`` frames (KERNEL.md §H, §E.6). Processed frames go to the
socket, which wakes the iperf server, and are acknowledged, which lets the sender send more.

Work is computed per poll and per interrupt, never per frame: arrivals between two instants are
counted in closed form from the sender's wire schedule.
"""

from __future__ import annotations

from dataclasses import dataclass

from model.actions import WaitQueue
from model.copyable import mypyc_attr
from model.events import PRIO_IRQ
from model.machine import Machine
from model.net.wire import MSS_BYTES, MTU_BYTES, frame_ns

INITIAL_CWND = 3  # 2.6.30 (RFC 3390 for a 1448-byte MSS)


@dataclass(frozen=True, slots=True)
class RxConfig:
    link_mbps: int
    irq_cpu: int
    udelay_us: int  # the extra busy-wait in e1000_intr (Ingo's udelay(3000))
    irq_base_ns: int  # e1000_intr without the delay
    rx_ring: int  # E1000_DEFAULT_RXD
    napi_weight: int
    netdev_budget: int
    rx_pkt_ns: int  # NET_RX softirq per frame: clean_rx + IP + TCP receive + ACK
    itr_per_s: int  # interrupt throttling: at most this many interrupts per second
    rwnd_bytes: int  # the receiver's advertised window
    tick_ns: int


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class PeerSender:
    """The remote iperf client's TCP: sends MSS frames back to back while in flight < window.

    Congestion control is slow start + AIMD: cwnd += 1 per ACKed segment below ssthresh, +1/cwnd
    above; a loss found at an ACK halves cwnd, once per window of data.
    # SIMPLIFICATION: SACK-style recovery (the lost frames leave the flight and are resent as new
    # frames), no retransmission timeout, and no propagation delay (a LAN).
    """

    def __init__(self, link_mbps: int) -> None:
        self.frame_ns = frame_ns(MTU_BYTES, link_mbps)
        self.cwnd = float(INITIAL_CWND)
        self.ssthresh = float("inf")
        self.in_flight = 0
        self.wire_free_ns = 0  # earliest start of the next frame on the wire
        self.snd_nxt = 0  # frames sent so far
        self.snd_una = 0  # frames acknowledged or found lost
        self.recover = 0  # no new halving until snd_una passes this
        self.losses = 0

    def window(self, rwnd_frames: int) -> int:
        return max(0, min(int(self.cwnd), rwnd_frames))

    def emit(self, t_end_ns: int, rwnd_frames: int) -> int:
        """Frames whose wire slot starts before ``t_end_ns``; they arrive then (no propagation)."""
        room = self.window(rwnd_frames) - self.in_flight
        if room <= 0 or t_end_ns <= self.wire_free_ns:
            return 0
        n = min(room, -(-(t_end_ns - self.wire_free_ns) // self.frame_ns))
        self.wire_free_ns += n * self.frame_ns
        self.in_flight += n
        self.snd_nxt += n
        return n

    def next_send_ns(self, rwnd_frames: int) -> int | None:
        return self.wire_free_ns if self.in_flight < self.window(rwnd_frames) else None

    def on_ack(self, now_ns: int, acked: int, lost: int) -> None:
        if lost:
            self.in_flight -= lost
            self.losses += lost
            if self.snd_una >= self.recover:
                self.ssthresh = max(self.cwnd / 2, 2.0)
                self.cwnd = self.ssthresh
                self.recover = self.snd_nxt
        self.in_flight -= acked
        self.snd_una += acked + lost
        if self.cwnd < self.ssthresh:
            self.cwnd += acked
        else:
            self.cwnd += acked / self.cwnd
        self.wire_free_ns = max(self.wire_free_ns, now_ns)


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class RxSocket:
    """The server's socket: received bytes wait here until the iperf server reads them."""

    def __init__(self, machine: Machine) -> None:
        self.machine = machine
        self.unread_bytes = 0
        self.delivered_bytes = 0
        self.waitq = WaitQueue("sk_sleep")

    def deliver(self, nbytes: int) -> None:
        self.unread_bytes += nbytes
        self.delivered_bytes += nbytes
        if self.waitq.tasks:  # sk_data_ready()
            self.machine.wake_all(self.waitq)

    def read_all(self) -> int:
        n, self.unread_bytes = self.unread_bytes, 0
        return n


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class NicRx:
    """The NIC's receive side and its NAPI softirq, on one CPU."""

    def __init__(self, machine: Machine, cfg: RxConfig, sock: RxSocket) -> None:
        self.machine = machine
        self.cfg = cfg
        self.sock = sock
        self.sender = PeerSender(cfg.link_mbps)
        self.ring = 0
        self.rx_missed = 0
        self.lost_unreported = 0
        self.irq_enabled = True
        self.irq_pending = False  # an interrupt event is queued
        self.last_irq_ns = -(10**12)
        self.interrupts = 0
        self.time_squeeze = 0
        self.budget = 0
        self.softirq_start_ns = 0
        self.irq_gen = 0

    def rwnd_frames(self) -> int:
        return max(0, self.cfg.rwnd_bytes - self.sock.unread_bytes) // MSS_BYTES

    def start(self) -> None:
        self._arm_irq()

    def _arrivals(self) -> None:
        """Frames that reached the NIC up to now go into the ring, or are dropped when it is full."""
        n = self.sender.emit(self.machine.now_ns + 1, self.rwnd_frames())
        room = self.cfg.rx_ring - self.ring
        accepted = min(n, room)
        self.ring += accepted
        self.rx_missed += n - accepted
        self.lost_unreported += n - accepted

    def _arm_irq(self) -> None:
        """Interrupts are enabled: the first frame in the ring raises one (no earlier than ITR allows)."""
        if not self.irq_enabled or self.irq_pending:
            return
        self._arrivals()
        if self.ring:
            first = self.machine.now_ns
        else:
            nxt = self.sender.next_send_ns(self.rwnd_frames())
            if nxt is None:
                return  # nothing can arrive until an ACK or a read opens the window
            first = max(nxt, self.machine.now_ns)
        itr_gap = 1_000_000_000 // self.cfg.itr_per_s
        at = max(first, self.last_irq_ns + itr_gap)
        self.irq_pending = True
        self.irq_gen += 1
        self.machine.q.push(at, PRIO_IRQ, self._on_irq, self.irq_gen)

    def window_opened(self) -> None:
        """The server read data: a window-blocked sender may send again."""
        self._arm_irq()

    def _on_irq(self, gen: int) -> None:
        if gen != self.irq_gen:
            return
        self.irq_pending = False
        self._arrivals()
        if not self.ring:
            self._arm_irq()
            return
        # e1000_intr(): mask the NIC's interrupts, schedule NAPI; plus the extra udelay().
        self.irq_enabled = False
        self.interrupts += 1
        self.last_irq_ns = self.machine.now_ns
        hard = self.cfg.irq_base_ns + self.cfg.udelay_us * 1000
        self.machine.raise_irq(self.cfg.irq_cpu, hard, 0, self._net_rx_action, None)

    def _net_rx_action(self, _arg: object) -> None:
        self.budget = self.cfg.netdev_budget
        self.softirq_start_ns = self.machine.now_ns
        self._poll()

    def _poll(self) -> None:
        self._arrivals()
        n = min(self.cfg.napi_weight, self.ring, self.budget)
        cost = max(n, 1) * self.cfg.rx_pkt_ns  # an empty poll still reads the ring
        self.machine.raise_irq(self.cfg.irq_cpu, 0, cost, self._poll_done, n)

    def _poll_done(self, n: int) -> None:
        self._arrivals()
        self.ring -= n
        self.budget -= n
        lost, self.lost_unreported = self.lost_unreported, 0
        self.sender.on_ack(self.machine.now_ns, n, lost)
        if n:
            self.sock.deliver(n * MSS_BYTES)
        if n < self.cfg.napi_weight:
            # napi_complete() + e1000_irq_enable(): frames already waiting raise the next interrupt.
            self.irq_enabled = True
            self._arm_irq()
        elif self.budget <= 0 or self.machine.now_ns - self.softirq_start_ns > 2 * self.cfg.tick_ns:
            # softnet_break: re-raise NET_RX. SIMPLIFICATION: the softirq restarts at once (no ksoftirqd).
            self.time_squeeze += 1
            self._net_rx_action(None)
        else:
            self._poll()
