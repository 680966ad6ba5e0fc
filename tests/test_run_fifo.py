"""A band's run-length FIFO gives exactly what a plain list of packets would, through any mix of pushes,
one-packet pops and bulk pops (long enough for the consumed prefix to be dropped)."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given
from hypothesis import strategies as st

from model.net.qdisc import RunFifo

# (flow, packets) to push, or (-1, n): take n packets, one at a time if n is odd, in bulk if even.
ops = st.lists(st.tuples(st.integers(-1, 3), st.integers(1, 9)), max_size=400)


@given(ops)
def test_run_fifo_agrees_with_a_plain_list(steps: list[tuple[int, int]]) -> None:
    check(steps)


def test_run_fifo_agrees_with_a_plain_list_past_a_long_consumed_prefix() -> None:
    # 100 single-packet runs, then 81 taken one by one: the consumed runs outnumber the rest.
    check([(k % 2, 1) for k in range(100)] + [(-1, 81), (2, 3), (-1, 1), (-1, 30)])


def check(steps: list[tuple[int, int]]) -> None:
    fifo, plain = RunFifo(), []
    for flow, n in steps:
        if flow >= 0:
            fifo.push(flow, n)
            plain += [flow] * n
        elif n % 2:
            for _ in range(min(n, len(plain))):
                assert fifo.head_flow() == plain[0]
                assert fifo.pop_one() == plain.pop(0)
        else:
            out: list[tuple[int, int, int]] = []
            assert fifo.pop_into(n, 2, out) == min(n, len(plain))
            got = [f for band, f, k in out for _ in range(k) if band == 2]
            assert got == plain[:n]
            del plain[:n]
        assert fifo.qlen == len(plain)
        runs = fifo.head_runs(fifo.nruns())
        assert [f for f, k in runs for _ in range(k)] == plain
        assert all(a[0] != b[0] for a, b in pairwise(runs))  # adjacent runs merged
