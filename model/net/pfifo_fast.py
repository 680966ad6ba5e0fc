"""The ``pfifo_fast`` qdisc (net/sched/sch_generic.c, 3.0): the kernel's default root qdisc.

Three bands with the fixed ``prio2band`` map, no classes and no options: ``pfifo_fast_enqueue`` maps
``skb->priority & TC_PRIO_MAX`` to a band and tail-drops once the *whole* qdisc holds ``tx_queue_len``
packets (``skb_queue_len(&qdisc->q)``, which counts every band and the requeue slot); the dequeue takes
the lowest non-empty band first (``bitmap2band[priv->bitmap]``), FIFO within a band. Unlike ``prio``,
a priority with a major part is not a class id: only its low four bits count. Bulk operations cost
O(bands + runs); the bands and the requeue slot (the root's ``q->gso_skb``) are ``model.net.bands``'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from model.net.bands import BandedQdisc
from model.net.qdisc import (
    DEFAULT_TX_QUEUE_LEN,
    TC_PRIO_MAX,
    Qdisc,
)

# sch_generic.c: #define PFIFO_FAST_BANDS 3 and static const u8 prio2band[TC_PRIO_MAX + 1].
PFIFO_FAST_BANDS = 3
PRIO2BAND: tuple[int, ...] = (1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1)


class PfifoFastQdisc(BandedQdisc):
    """A root pfifo_fast: three FIFO bands sharing one limit of ``limit`` packets (``tx_queue_len``).

    SIMPLIFICATION: packets have no size (no byte counters), as in ``model.net.prio``.
    """

    __slots__ = ()

    def __init__(self, limit: object = DEFAULT_TX_QUEUE_LEN) -> None:
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
            raise ValueError(f"limit (tx_queue_len) must be an integer >= 0 packets, got {limit!r}")
        # pfifo_fast_enqueue(): `skb_queue_len(&qdisc->q) < qdisc_dev(qdisc)->tx_queue_len`; a device
        # with tx_queue_len 0 gets noqueue instead, so 0 is taken as 1 here, as fifo_init() does.
        super().__init__(PFIFO_FAST_BANDS, limit or 1, "pfifo_fast")

    # --- configuration -------------------------------------------------------------------------

    @property
    def kind(self) -> str:
        return "pfifo_fast"

    @property
    def limit(self) -> int:
        """The qdisc's limit in packets, over all bands (tx_queue_len)."""
        return self._limit

    def band_for_priority(self, skb_priority: int) -> int:
        """``prio2band[skb->priority & TC_PRIO_MAX]``."""
        if skb_priority < 0:
            raise ValueError(f"skb_priority must be a u32, got {skb_priority}")
        return PRIO2BAND[skb_priority & TC_PRIO_MAX]

    def accepts(self, band: int, band_qlens: list[int]) -> bool:
        """Whether an enqueue to ``band`` is taken when the bands hold ``band_qlens`` (slot as now)."""
        return sum(band_qlens) + (1 if self._gso is not None else 0) < self._limit

    def _room(self, band: int) -> int:
        """pfifo_fast_enqueue(): `if (skb_queue_len(&qdisc->q) < qdisc_dev(qdisc)->tx_queue_len)`, the
        whole qdisc's length, the requeue slot included."""
        return self._limit - self._qlen


if TYPE_CHECKING:
    _IMPLEMENTS_QDISC: type[Qdisc] = PfifoFastQdisc
