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


def pattern_counts(cpus: tuple[int, ...], offset: int, n: int, out: dict[int, int]) -> None:
    """Add to ``out`` each CPU's share of ``n`` packets dealt round robin over ``cpus`` from ``offset``."""
    m = len(cpus)
    full, rem = divmod(n, m)
    for i, cpu in enumerate(cpus):
        extra = 1 if (i - offset) % m < rem else 0
        share = full + extra
        if share:
            out[cpu] = out.get(cpu, 0) + share


class PatternFifo:
    """A FIFO of packets whose owners are runs ``[cpus, offset, count]``."""

    __slots__ = ("_runs", "qlen")

    def __init__(self) -> None:
        self._runs: deque[list[object]] = deque()
        self.qlen = 0

    def push(self, cpus: tuple[int, ...], offset: int, n: int) -> None:
        if n <= 0:
            return
        m = len(cpus)
        if m > 1:
            # One canonical rotation per cycle of CPUs, so that consecutive turns merge into one run.
            start = cpus.index(min(cpus))
            cpus = cpus[start:] + cpus[:start]
            offset = (offset - start) % m
        runs = self._runs
        if runs:
            last = runs[-1]
            lcpus, loff, lcount = last
            if lcpus == cpus and (m == 1 or (loff + lcount) % m == offset):  # type: ignore[operator]
                last[2] = lcount + n  # type: ignore[operator]
                self.qlen += n
                return
        runs.append([cpus, offset, n])
        self.qlen += n

    def take(self, n: int, out: dict[int, int] | None, taken: PatternFifo | None = None) -> int:
        """Take up to ``n`` packets from the head, counted per CPU into ``out`` and appended to ``taken``."""
        left = n
        runs = self._runs
        while left and runs:
            cpus, offset, count = runs[0]
            assert isinstance(cpus, tuple) and isinstance(offset, int) and isinstance(count, int)
            k = min(left, count)
            if out is not None:
                pattern_counts(cpus, offset, k, out)
            if taken is not None:
                taken.push(cpus, offset, k)
            if k == count:
                runs.popleft()
            else:
                runs[0][1] = (offset + k) % len(cpus)
                runs[0][2] = count - k
            left -= k
        got = n - left
        self.qlen -= got
        return got

    def head(self, max_packets: int) -> tuple[tuple[int, int], ...]:
        """The first packets as ``(cpu, count)`` runs, for drawing (at most ``max_packets`` packets)."""
        out: list[tuple[int, int]] = []
        left = max_packets
        for cpus, offset, count in self._runs:
            assert isinstance(cpus, tuple) and isinstance(offset, int) and isinstance(count, int)
            k = min(left, count)
            if len(cpus) == 1:
                out.append((cpus[0], k))
            else:
                out.extend((cpus[(offset + i) % len(cpus)], 1) for i in range(k))
            left -= k
            if not left:
                break
        return tuple(out)
