"""The qdisc registry: every root qdisc the transmit path can run, by its tc name (``qdisc.kind``).

The transmit path (``model.net.txpath`` and the modules under it) depends on the ``Qdisc`` protocol
only (``model.net.qdisc``); a qdisc is one module that implements it plus one ``QdiscInfo`` line here.
The scenario's ``qdisc.kind`` takes its choices from ``QDISCS``, and the contract test
(tests/test_qdisc_contract.py) runs every registered qdisc through the 2011 story.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from model.net.pfifo_fast import PfifoFastQdisc
from model.net.prio import DEFAULT_BANDS, DEFAULT_PRIOMAP, PrioQdisc
from model.net.qdisc import Qdisc


@dataclass(frozen=True, slots=True)
class QdiscInfo:
    kind: str  # the tc name, the value of qdisc.kind
    source: str  # where the kernel has it
    configurable: bool  # whether qdisc.bands and qdisc.priomap apply (prio) or are fixed (pfifo_fast)
    factory: Callable[[int, tuple[int, ...], int], Qdisc]  # (bands, priomap, limit) -> a fresh qdisc


def _prio(bands: int, priomap: tuple[int, ...], limit: int) -> Qdisc:
    return PrioQdisc(bands, priomap, limit)


def _pfifo_fast(_bands: int, _priomap: tuple[int, ...], limit: int) -> Qdisc:
    return PfifoFastQdisc(limit)


QDISCS: dict[str, QdiscInfo] = {
    "prio": QdiscInfo("prio", "net/sched/sch_prio.c", True, _prio),
    "pfifo_fast": QdiscInfo("pfifo_fast", "net/sched/sch_generic.c", False, _pfifo_fast),
}


def make_qdisc(kind: str, bands: int, priomap: tuple[int, ...], limit: int) -> Qdisc:
    """A fresh root qdisc of ``kind``; ValueError names what is wrong (a fixed qdisc given bands or a
    priomap of its own, a bad prio configuration)."""
    info = QDISCS.get(kind)
    if info is None:
        raise ValueError(f"kind = {kind!r}; allowed: {', '.join(QDISCS)}")
    if not info.configurable and (bands != DEFAULT_BANDS or tuple(priomap) != DEFAULT_PRIOMAP):
        raise ValueError(
            f"{kind} has {DEFAULT_BANDS} fixed bands and a fixed priomap; set them only for prio"
        )
    return info.factory(bands, priomap, limit)
