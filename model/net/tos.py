"""IP TOS → ``skb->priority``: what ``setsockopt(IP_TOS)`` makes of a TOS byte (2.6 / 3.0 kernels).

``setsockopt(IP_TOS)`` (net/ipv4/ip_sockglue.c) stores ``sk->sk_priority = rt_tos2priority(tos)`` and
IP output copies it into ``skb->priority``, which a prio qdisc then maps to a band through its priomap.
"""

from __future__ import annotations

from model.net.qdisc import (
    TC_PRIO_BESTEFFORT,
    TC_PRIO_BULK,
    TC_PRIO_FILLER,
    TC_PRIO_INTERACTIVE,
    TC_PRIO_INTERACTIVE_BULK,
)

# include/linux/ip.h
IPTOS_TOS_MASK = 0x1E
IPTOS_LOWDELAY = 0x10
IPTOS_THROUGHPUT = 0x08
IPTOS_RELIABILITY = 0x04
IPTOS_MINCOST = 0x02

# net/ipv4/route.c (2.6 / 3.0): ip_tos2prio[16], with ECN_OR_COST(class) = TC_PRIO_##class.
# Index 1 (TOS 0x02, "min cost") is FILLER here; later kernels changed it to ECN_OR_COST(BESTEFFORT).
IP_TOS2PRIO: tuple[int, ...] = (
    TC_PRIO_BESTEFFORT,        # 0
    TC_PRIO_FILLER,            # 1  ECN_OR_COST(FILLER)
    TC_PRIO_BESTEFFORT,        # 2
    TC_PRIO_BESTEFFORT,        # 3  ECN_OR_COST(BESTEFFORT)
    TC_PRIO_BULK,              # 4
    TC_PRIO_BULK,              # 5  ECN_OR_COST(BULK)
    TC_PRIO_BULK,              # 6
    TC_PRIO_BULK,              # 7  ECN_OR_COST(BULK)
    TC_PRIO_INTERACTIVE,       # 8
    TC_PRIO_INTERACTIVE,       # 9  ECN_OR_COST(INTERACTIVE)
    TC_PRIO_INTERACTIVE,       # 10
    TC_PRIO_INTERACTIVE,       # 11 ECN_OR_COST(INTERACTIVE)
    TC_PRIO_INTERACTIVE_BULK,  # 12
    TC_PRIO_INTERACTIVE_BULK,  # 13 ECN_OR_COST(INTERACTIVE_BULK)
    TC_PRIO_INTERACTIVE_BULK,  # 14
    TC_PRIO_INTERACTIVE_BULK,  # 15 ECN_OR_COST(INTERACTIVE_BULK)
)  # fmt: skip


def rt_tos2priority(tos: int) -> int:
    """``ip_tos2prio[IPTOS_TOS(tos) >> 1]`` (include/net/route.h). The ECN/precedence bits are ignored."""
    if not 0 <= tos <= 0xFF:
        raise ValueError(f"tos must be a byte 0..255 (0x00..0xff), got {tos}")
    return IP_TOS2PRIO[(tos & IPTOS_TOS_MASK) >> 1]


def tos_to_priority(tos: int) -> int:
    """The ``skb->priority`` (a TC_PRIO_* value) of packets sent by a socket with ``IP_TOS = tos``."""
    return rt_tos2priority(tos)
