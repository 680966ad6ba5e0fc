"""Wire time, defined once: Ethernet frame sizes, ns per frame at a link rate, and TCP goodput.

Every frame costs its IP packet plus the Ethernet overhead on the wire: header, FCS, preamble and the
inter-frame gap (38 bytes). A TCP segment carries an MSS of payload in an MTU-sized packet, so a link's
TCP goodput at line rate is ``link_mbps * MSS / (MTU + overhead)``: 94.1 Mbit/s on 100 Mbit Ethernet.
"""

from __future__ import annotations

ETH_OVERHEAD_BYTES = 14 + 4 + 8 + 12  # Ethernet header, FCS, preamble, inter-frame gap
TCP_IP_HEADER_BYTES = 20 + 20 + 12  # IPv4, TCP, TCP timestamps option (on by default in Linux)
MTU_BYTES = 1500
MSS_BYTES = MTU_BYTES - TCP_IP_HEADER_BYTES  # 1448
TCP_FRAME_BYTES = MTU_BYTES + ETH_OVERHEAD_BYTES  # 1538: one full TCP segment on the wire


def frame_bytes(ip_bytes: int) -> int:
    """Bytes on the wire for an IP packet of ``ip_bytes``."""
    return ip_bytes + ETH_OVERHEAD_BYTES


def frame_ns(ip_bytes: int, link_mbps: int) -> int:
    """Nanoseconds one frame of an ``ip_bytes`` packet occupies the wire (rounded up)."""
    return -(-frame_bytes(ip_bytes) * 8 * 1000 // link_mbps)


def tcp_payload_ns(payload_bytes: int, link_mbps: int) -> int:
    """Wire time of ``payload_bytes`` of TCP payload sent in full segments, each MSS of payload costing
    a whole frame (a fluid wire: no partial frames); rounded up."""
    bits = payload_bytes * TCP_FRAME_BYTES * 8
    return -(-bits * 1000 // (MSS_BYTES * link_mbps))


def tcp_goodput_mbps(link_mbps: float) -> float:
    """TCP payload Mbit/s of a link at line rate, with full segments."""
    return link_mbps * MSS_BYTES / TCP_FRAME_BYTES
