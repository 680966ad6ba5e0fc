"""A simple TCP send path: a socket send buffer drained by a link at its rate, with TX-completion interrupts.

``write()`` reserves room in the send buffer (blocking while it is full, as ``sk_stream_wait_memory``
does), the bytes then go to the device, and they leave the buffer when the device's completion
interrupt acknowledges them; that interrupt wakes a blocked writer once enough room is free
(``sk_stream_write_space``). The device side is a ``TxDevice``; the prio qdisc and the dequeuer
role plug in between the socket and the link (``model/net/``), behind the same ``submit`` call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from model.actions import WaitQueue
from model.copyable import mypyc_attr
from model.events import PRIO_IRQ
from model.machine import Machine
from model.net.wire import MSS_BYTES, tcp_payload_ns


class TxDevice(Protocol):
    def submit(self, sock: TcpSendSocket, nbytes: int) -> None:
        """Hand ``nbytes`` of ``sock``'s data to the transmit path."""
        ...


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class TcpSendSocket:
    """One connected TCP socket's send side."""

    def __init__(self, machine: Machine, sndbuf_bytes: int, device: TxDevice) -> None:
        self.machine = machine
        self.sndbuf_bytes = sndbuf_bytes
        self.device = device
        self.queued_bytes = 0  # sk_wmem_queued: written, not yet acknowledged (goodput: the link's)
        self.waitq = WaitQueue("sk_sleep")

    def reserve(self, nbytes: int) -> bool:
        """Room for a ``write()`` of ``nbytes``? If so, claim it."""
        if self.queued_bytes + nbytes > self.sndbuf_bytes:
            return False
        self.queued_bytes += nbytes
        return True

    def commit(self, nbytes: int) -> None:
        """The copied bytes go to the device."""
        self.device.submit(self, nbytes)

    def ack(self, nbytes: int) -> None:
        self.queued_bytes -= nbytes
        # sk_stream_write_space(): wake writers once free space >= half of what is queued.
        if self.waitq.tasks and self.sndbuf_bytes - self.queued_bytes >= self.queued_bytes // 2:
            self.machine.wake_all(self.waitq)


@dataclass(slots=True)
class _Pending:
    sock: TcpSendSocket
    nbytes: int


@dataclass(slots=True)
class LinkConfig:
    link_mbps: int
    tx_irq_frames: int  # interrupt mitigation: one TX-completion interrupt per this many frames
    tx_irq_ns: int  # hard interrupt cost per completion interrupt
    ack_softirq_ns_per_frame: int  # NET_RX softirq cost of the returning ACKs, per data frame
    irq_cpu: int


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class LinkDevice:
    """A NIC that puts frames on the wire at link rate and signals completions in bursts.

    # SIMPLIFICATION: the returning ACK is folded into the TX completion (on a LAN the round trip is
    # far shorter than a burst), the wire is fluid (no partial frames), and the receiver never limits.
    """

    def __init__(self, machine: Machine, cfg: LinkConfig) -> None:
        self.machine = machine
        self.cfg = cfg
        self.backlog: list[_Pending] = []  # per socket, bytes not yet on the wire
        self.busy = False
        self.burst_bytes = cfg.tx_irq_frames * MSS_BYTES
        self.frames_sent = 0
        self.bursts_carried = 0  # bytes of the bursts the wire has finished
        self._burst_start_ns = 0  # the burst on the wire now (while busy)
        self._burst_end_ns = 0
        self._burst_nbytes = 0

    def carried_bytes(self, now_ns: int) -> int:
        """Bytes the wire has carried by ``now_ns``, the burst on it counted as far as it has gone.

        This is the run's goodput counter. The socket hears of a burst only at its completion
        interrupt, ``tx_irq_frames`` frames at once (the ACKs folded in, above), where a real receiver
        ACKs every second segment: counted in those lumps, a 10 ms window of a 100 Mbit/s link holds
        one burst more or less than the wire carried in it, and the graph drew up to 111 Mbit/s."""
        if not self.busy or now_ns <= self._burst_start_ns:
            return self.bursts_carried
        if now_ns >= self._burst_end_ns:
            return self.bursts_carried + self._burst_nbytes
        span = self._burst_end_ns - self._burst_start_ns
        return self.bursts_carried + self._burst_nbytes * (now_ns - self._burst_start_ns) // span

    def submit(self, sock: TcpSendSocket, nbytes: int) -> None:
        for entry in self.backlog:
            if entry.sock is sock:
                entry.nbytes += nbytes
                break
        else:
            self.backlog.append(_Pending(sock, nbytes))
        if not self.busy:
            self._start_burst()

    def wire_ns(self, payload_bytes: int) -> int:
        return tcp_payload_ns(payload_bytes, self.cfg.link_mbps)

    def _start_burst(self) -> None:
        entry = self.backlog[0]
        sock = entry.sock
        nbytes = min(entry.nbytes, self.burst_bytes)
        entry.nbytes -= nbytes
        if entry.nbytes == 0:
            self.backlog.pop(0)
        self.busy = True
        done = self.machine.now_ns + self.wire_ns(nbytes)
        self._burst_start_ns, self._burst_end_ns, self._burst_nbytes = self.machine.now_ns, done, nbytes
        self.machine.q.push(done, PRIO_IRQ, self._on_burst_done, (sock, nbytes))

    def _on_burst_done(self, arg: tuple[TcpSendSocket, int]) -> None:
        nbytes = arg[1]
        frames = -(-nbytes // MSS_BYTES)
        self.frames_sent += frames
        self.bursts_carried += nbytes
        cfg = self.cfg
        self.machine.raise_irq(cfg.irq_cpu, cfg.tx_irq_ns, cfg.ack_softirq_ns_per_frame * frames, _ack, arg)
        self.busy = False
        if self.backlog:
            self._start_burst()


def _ack(arg: tuple[TcpSendSocket, int]) -> None:
    sock, nbytes = arg
    sock.ack(nbytes)
