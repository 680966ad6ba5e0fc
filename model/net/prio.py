"""The ``prio`` qdisc (net/sched/sch_prio.c, 3.0): strict-priority bands of pfifo children.

``PrioQdisc`` classifies by ``skb->priority`` through its priomap, tail-drops at each band's pfifo
limit (the device's ``tx_queue_len``), dequeues strictly by band (band 0 first, FIFO within a band) and
carries the root's requeue slot (``q->gso_skb``, include/net/sch_generic.h) that ``dev_requeue_skb``
fills when the driver is busy. Bulk operations cost O(bands + runs); see ``model.net.qdisc``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from model.net.bands import BandedQdisc
from model.net.qdisc import (
    DEFAULT_TX_QUEUE_LEN,
    TC_PRIO_BESTEFFORT,
    TC_PRIO_BULK,
    TC_PRIO_CONTROL,
    TC_PRIO_FILLER,
    TC_PRIO_INTERACTIVE,
    TC_PRIO_INTERACTIVE_BULK,
    TC_PRIO_MAX,
    Qdisc,
)

__all__ = [
    "DEFAULT_BANDS",
    "DEFAULT_PRIOMAP",
    "DEFAULT_PRIO_HANDLE",
    "DEFAULT_TX_QUEUE_LEN",
    "TCQ_PRIO_BANDS",
    "TCQ_PRIO_MIN_BANDS",
    "TC_PRIO_BESTEFFORT",
    "TC_PRIO_BULK",
    "TC_PRIO_CONTROL",
    "TC_PRIO_FILLER",
    "TC_PRIO_INTERACTIVE",
    "TC_PRIO_INTERACTIVE_BULK",
    "TC_PRIO_MAX",
    "PrioQdisc",
]

# include/linux/pkt_sched.h: TCQ_PRIO_BANDS 16 is the most bands prio_tune() accepts; 2 the fewest.
TCQ_PRIO_BANDS = 16
TCQ_PRIO_MIN_BANDS = 2
# iproute2 tc/q_prio.c: `tc qdisc add ... prio` without options sends bands 3 and this priomap (the
# kernel itself requires options). pfifo_fast hard-codes the same prio2band.
DEFAULT_BANDS = 3
DEFAULT_PRIOMAP: tuple[int, ...] = (1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1)
# `tc qdisc add dev X root handle 1: prio`: handle 1: is TC_H_MAKE(1 << 16, 0).
DEFAULT_PRIO_HANDLE = 0x0001_0000

_TC_H_MAJ_MASK = 0xFFFF_0000
_TC_H_MIN_MASK = 0x0000_FFFF
_U32_MAX = 0xFFFF_FFFF


def _check_int(field: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{field} must be an integer, got {value!r}")
    return value


def _check_tune(
    bands: object, priomap: Iterable[object], limit: object, handle: object
) -> tuple[int, tuple[int, ...], int, int]:
    """sch_prio.c prio_tune(): bands outside 2..TCQ_PRIO_BANDS and priomap entries >= bands are -EINVAL.

    Typed ``object``: the values come from users, and the checks must hold in a compiled build too."""
    n = _check_int("bands", bands)
    if not TCQ_PRIO_MIN_BANDS <= n <= TCQ_PRIO_BANDS:
        raise ValueError(f"bands must be {TCQ_PRIO_MIN_BANDS}..{TCQ_PRIO_BANDS} (TCQ_PRIO_BANDS), got {n}")
    entries = tuple(priomap)
    if len(entries) != TC_PRIO_MAX + 1:
        raise ValueError(
            f"priomap must have {TC_PRIO_MAX + 1} entries (one per priority 0..{TC_PRIO_MAX}), "
            f"got {len(entries)}"
        )
    bands_of: list[int] = []
    for prio, entry in enumerate(entries):
        band = _check_int(f"priomap[{prio}]", entry)
        if not 0 <= band < n:
            raise ValueError(f"priomap[{prio}] must be a band 0..{n - 1} (bands={n}), got {band}")
        bands_of.append(band)
    packets = _check_int("limit", limit)
    if packets < 0:
        raise ValueError(f"limit (tx_queue_len) must be >= 0 packets, got {packets}")
    major = _check_int("handle", handle)
    if major & _TC_H_MIN_MASK or not 0 < major <= _U32_MAX:
        raise ValueError(f"handle must be a qdisc handle MAJ:0 (0x10000..0xffff0000), got {major:#x}")
    return n, tuple(bands_of), packets, major


class PrioQdisc(BandedQdisc):
    """A root prio qdisc with ``bands`` pfifo children of ``limit`` packets each.

    SIMPLIFICATION: no tc filters (prio_classify() falls back to the priomap, as with an empty
    filter_list), packets have no size (no byte counters, bfifo or psched_mtu), and the configuration is
    fixed at creation (a live `tc qdisc change` is a new PrioQdisc).

    ``limit`` is the device ``tx_queue_len``: sch_fifo.c fifo_init() with no options sets
    ``q->limit = tx_queue_len ? : 1`` per child, so 3 bands hold up to 3 * 1000 packets by default.
    """

    __slots__ = ("_handle", "_priomap")

    def __init__(
        self,
        bands: object = DEFAULT_BANDS,
        priomap: Iterable[object] = DEFAULT_PRIOMAP,
        limit: object = DEFAULT_TX_QUEUE_LEN,
        handle: object = DEFAULT_PRIO_HANDLE,
    ) -> None:
        n, priomap_bands, packets, handle_major = _check_tune(bands, priomap, limit, handle)
        # sch_fifo.c fifo_init(): `u32 limit = qdisc_dev(sch)->tx_queue_len ? : 1;`
        super().__init__(n, packets or 1, f"bands={n}")
        self._priomap = priomap_bands
        self._handle = handle_major

    # --- configuration -------------------------------------------------------------------------

    @property
    def kind(self) -> str:
        return "prio"

    @property
    def priomap(self) -> tuple[int, ...]:
        """prio2band: the band of each ``skb->priority & TC_PRIO_MAX``."""
        return self._priomap

    @property
    def limit(self) -> int:
        """Per-band pfifo limit in packets."""
        return self._limit

    @property
    def handle(self) -> int:
        return self._handle

    def band_for_priority(self, skb_priority: int) -> int:
        """sch_prio.c prio_classify() with no filters attached."""
        if not 0 <= skb_priority <= _U32_MAX:
            raise ValueError(f"skb_priority must be a u32 0..{_U32_MAX:#x}, got {skb_priority}")
        if skb_priority & _TC_H_MAJ_MASK != self._handle:
            # No filter: a priority with a major part (some other qdisc's class) counts as 0.
            prio = 0 if skb_priority & _TC_H_MAJ_MASK else skb_priority
            return self._priomap[prio & TC_PRIO_MAX]
        # skb->priority = <our handle>:<minor> (SO_PRIORITY set to a class id) picks band minor-1; as
        # u32, minor 0 wraps to 0xffffffff, which like any band >= bands falls back to prio2band[0].
        band = ((skb_priority & _TC_H_MIN_MASK) - 1) & _U32_MAX
        if band >= self._bands:
            return self._priomap[0]
        return band

    def accepts(self, band: int, band_qlens: list[int]) -> bool:
        """pfifo_enqueue(): a band takes a packet while it holds fewer than its limit."""
        return band_qlens[band] < self._limit

    def _room(self, band: int) -> int:
        """sch_fifo.c pfifo_enqueue(): `if (likely(skb_queue_len(&sch->q) < sch->limit)) return
        qdisc_enqueue_tail(skb, sch); return qdisc_reshape_fail(skb, sch);` (tail drop, child drops++),
        and prio_enqueue() then bumps the root's qlen or drops. The requeue slot is the root's, so it
        does not count against a band's limit."""
        return self._limit - self._fifos[band].qlen


if TYPE_CHECKING:
    _IMPLEMENTS_QDISC: type[Qdisc] = PrioQdisc  # mypy proves PrioQdisc satisfies the protocol
