"""A UDP sender's socket send buffer, in the 3.0 kernel's own arithmetic (net/core/sock.c).

``sock_alloc_send_pskb()`` allocates while ``sk_wmem_alloc < sk_sndbuf`` and otherwise sleeps in
``sock_wait_for_wmem()``; ``skb_set_owner_w()`` charges the skb's ``truesize`` to the socket; the skb's
destructor ``sock_wfree()`` gives it back and calls ``sock_def_write_space()``, which wakes the
writer only once ``(sk_wmem_alloc << 1) <= sk_sndbuf`` ("Do not wake up a writer until he can make
'significant' progress. --DaveM"). In 3.0 ``dev_hard_start_xmit()`` calls ``skb_orphan_try()``
right before the driver's ``ndo_start_xmit``, so the charge ends when the dequeuer hands the skb to
the device, not when the NIC completes it (``skb_orphan_try`` was removed in 3.5).
"""

from __future__ import annotations

from dataclasses import dataclass

# include/net/sock.h (3.0): SK_WMEM_MAX = (sizeof(struct sk_buff) + 256) * _SK_MEM_PACKETS (256), the
# default sysctl_wmem_default; sizeof(struct sk_buff) is 232 on x86-64 (so wmem_default = 124928).
SIZEOF_SK_BUFF = 232
SK_WMEM_DEFAULT = (SIZEOF_SK_BUFF + 256) * 256
SMP_CACHE_BYTES = 64
ETH_HH_LEN = 16  # LL_RESERVED_SPACE(dev) for Ethernet: ((14 + 0) & ~15) + 16


def udp_truesize(ip_bytes: int) -> int:
    """``skb->truesize`` of one UDP datagram of ``ip_bytes`` (IP header included) that fits the MTU.

    3.0 __ip_append_data(): ``sock_alloc_send_skb(sk, alloclen + hh_len + 15, ...)`` with ``alloclen =
    fraglen`` (the IP packet); __alloc_skb(): ``size = SKB_DATA_ALIGN(size); skb->truesize = size +
    sizeof(struct sk_buff)``."""
    size = ip_bytes + ETH_HH_LEN + 15
    aligned = (size + SMP_CACHE_BYTES - 1) // SMP_CACHE_BYTES * SMP_CACHE_BYTES
    return aligned + SIZEOF_SK_BUFF


@dataclass(eq=False, slots=True)
class UdpSocket:
    sndbuf: int  # sk_sndbuf, bytes
    truesize: int  # bytes charged per skb
    wmem_alloc: int = 0  # sk_wmem_alloc
    sleeping: bool = False  # the writer waits in sock_wait_for_wmem()
    charged: int = 0  # skbs allocated (statistics)

    def can_alloc(self) -> bool:
        """sock_alloc_send_pskb(): ``atomic_read(&sk->sk_wmem_alloc) < sk->sk_sndbuf``."""
        return self.wmem_alloc < self.sndbuf

    def alloc(self) -> None:
        self.wmem_alloc += self.truesize
        self.charged += 1

    def free(self, n: int) -> bool:
        """sock_wfree() of ``n`` skbs; True if sock_def_write_space() must wake the sleeping writer."""
        self.wmem_alloc -= n * self.truesize
        if self.wmem_alloc < 0:
            raise AssertionError("socket memory went negative: an skb was freed twice")
        return self.sleeping and 2 * self.wmem_alloc <= self.sndbuf

    def in_flight(self) -> int:
        """skbs charged and not yet freed."""
        return self.wmem_alloc // self.truesize
