"""Who owns the packets in a FIFO, kept run-length encoded even when senders interleave.

A dequeuer's tenure serves the contended senders in ``busylock`` order, round robin, so the packets
they enqueue interleave one per sender. ``PatternFifo`` stores such a stretch as one run: the
rotation (a tuple of CPUs), where in it the run starts, and how many packets it holds. Taking a
prefix of any length costs O(CPUs), never O(packets), and gives exactly what taking the packets one
by one would: the transmit path uses it beside each prio band and for the NIC's TX ring, where the
owner of a packet decides whose socket send buffer its completion frees.
"""

from __future__ import annotations

from collections import deque

from model.copyable import mypyc_attr

# A rotation of CPUs -> (its canonical rotation, where that one starts in it). Few distinct tuples
# occur (the busylock line's rotations), and pushes happen once per stretch of a tenure.
_CANON: dict[tuple[int, ...], tuple[tuple[int, ...], int]] = {}


def _canonical(cpus: tuple[int, ...]) -> tuple[tuple[int, ...], int]:
    got = _CANON.get(cpus)
    if got is None:
        start = cpus.index(min(cpus))
        got = _CANON[cpus] = (cpus[start:] + cpus[:start], start)
    return got


def pattern_counts(cpus: tuple[int, ...], offset: int, n: int, out: dict[int, int]) -> None:
    """Add to ``out`` each CPU's share of ``n`` packets dealt round robin over ``cpus`` from ``offset``."""
    m = len(cpus)
    if m == 1:
        cpu = cpus[0]
        out[cpu] = out.get(cpu, 0) + n
        return
    full, rem = divmod(n, m)
    for i, cpu in enumerate(cpus):
        share = full + 1 if (i - offset) % m < rem else full
        if share:
            out[cpu] = out.get(cpu, 0) + share


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class _Run:
    """``count`` packets owned round robin by ``cpus`` (a canonical rotation), from ``cpus[offset]``."""

    __slots__ = ("count", "cpus", "offset")

    def __init__(self, cpus: tuple[int, ...], offset: int, count: int) -> None:
        self.cpus = cpus
        self.offset = offset
        self.count = count


class PatternFifo:
    """A FIFO of packets whose owners are runs ``(cpus, offset, count)``."""

    __slots__ = ("_runs", "qlen")

    def __init__(self) -> None:
        self._runs: deque[_Run] = deque()
        self.qlen = 0

    def push(self, cpus: tuple[int, ...], offset: int, n: int) -> None:
        if n <= 0:
            return
        m = len(cpus)
        if m > 1:
            # One canonical rotation per cycle of CPUs, so that consecutive turns merge into one run.
            cpus, start = _canonical(cpus)
            offset = (offset - start) % m
        self._append(cpus, offset, n)

    def _append(self, cpus: tuple[int, ...], offset: int, n: int) -> None:
        """``push`` of a canonical rotation (as stored in any PatternFifo)."""
        runs = self._runs
        self.qlen += n
        if runs:
            last = runs[-1]
            if last.cpus == cpus and (len(cpus) == 1 or (last.offset + last.count) % len(cpus) == offset):
                last.count += n
                return
        runs.append(_Run(cpus, offset, n))

    def take(self, n: int, out: dict[int, int] | None, taken: PatternFifo | None = None) -> int:
        """Take up to ``n`` packets from the head, counted per CPU into ``out`` and appended to ``taken``."""
        left = n
        runs = self._runs
        while left and runs:
            run = runs[0]
            count = run.count
            k = left if left < count else count
            if out is not None:
                pattern_counts(run.cpus, run.offset, k, out)
            if taken is not None:
                taken._append(run.cpus, run.offset, k)
            if k == count:
                runs.popleft()
            else:
                run.offset = (run.offset + k) % len(run.cpus)
                run.count = count - k
            left -= k
        got = n - left
        self.qlen -= got
        return got

    def first(self) -> int:
        """The owner of the head packet (the FIFO is not empty)."""
        run = self._runs[0]
        return run.cpus[run.offset]

    def take_one(self) -> int:
        """Take the head packet; its owner (``take(1, out)`` for one packet, without the counts)."""
        run = self._runs[0]
        owner = run.cpus[run.offset]
        if run.count == 1:
            self._runs.popleft()
        else:
            run.offset = (run.offset + 1) % len(run.cpus)
            run.count -= 1
        self.qlen -= 1
        return owner

    def head(self, max_packets: int) -> tuple[tuple[int, int], ...]:
        """The first packets as ``(cpu, count)`` runs, for drawing (at most ``max_packets`` packets)."""
        out: list[tuple[int, int]] = []
        left = max_packets
        for run in self._runs:
            cpus, offset = run.cpus, run.offset
            k = min(left, run.count)
            if len(cpus) == 1:
                out.append((cpus[0], k))
            else:
                out.extend((cpus[(offset + i) % len(cpus)], 1) for i in range(k))
            left -= k
            if not left:
                break
        return tuple(out)
