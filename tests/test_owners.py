"""The run-length owner FIFO gives exactly what taking packets one by one from a plain list would."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from model.net.owners import PatternFifo

pushes = st.lists(
    st.tuples(
        st.lists(st.integers(0, 3), min_size=1, max_size=4).map(tuple), st.integers(0, 3), st.integers(1, 9)
    ),
    max_size=12,
)


def expand(cpus: tuple[int, ...], offset: int, n: int) -> list[int]:
    return [cpus[(offset + i) % len(cpus)] for i in range(n)]


@given(pushes, st.lists(st.integers(1, 7), max_size=12))
def test_first_take_one_and_take_agree_with_a_plain_list(
    runs: list[tuple[tuple[int, ...], int, int]], takes: list[int]
) -> None:
    fifo, twin, plain = PatternFifo(), PatternFifo(), []
    for cpus, offset, n in runs:
        offset %= len(cpus)
        fifo.push(cpus, offset, n)
        twin.push(cpus, offset, n)
        plain += expand(cpus, offset, n)
    for k in takes:
        got = []
        for _ in range(min(k, len(plain))):
            assert fifo.first() == plain[0]
            got.append(fifo.take_one())
            plain.pop(0)
        counts: dict[int, int] = {}
        twin.take(len(got), counts)
        assert {c: got.count(c) for c in set(got)} == counts
        assert fifo.qlen == twin.qlen == len(plain)
