"""The transmit path's parts, alone: ticket spinlocks, socket send buffers, the NIC's rings and wire."""

from __future__ import annotations

import numpy as np
import pytest

from model.net.locks import SpinLock
from model.net.nic import DESC_PER_PACKET, Nic, TxRing, Wire
from model.net.sockets import SK_WMEM_DEFAULT, UdpSocket, udp_truesize


class Owner:
    def __init__(self, cpu: int) -> None:
        self.cpu = cpu


def rng() -> np.random.Generator:
    return np.random.default_rng(0)


# ---- spinlocks -----------------------------------------------------------------------------------


def test_a_ticket_lock_serves_waiters_in_arrival_order_one_cache_line_move_after_each_release() -> None:
    lock = SpinLock("root", 80, "ticket", rng())
    a, b, c = Owner(0), Owner(1), Owner(2)
    assert lock.acquire(a, 1_000) == 1_080  # last held elsewhere (never): the line moves
    assert lock.acquire(b, 1_010) == -1 and lock.acquire(c, 1_020) == -1
    assert lock.release(1_500) == (b, 1_580)
    assert lock.release(1_700) == (c, 1_780)
    assert lock.release(1_900) == (None, 0)
    assert lock.acquire(c, 2_000) == 2_000  # its own cache line: no move


def test_a_ticket_trylock_fails_while_anyone_holds_a_ticket() -> None:
    lock = SpinLock("root", 80, "ticket", rng())
    a, b, c = Owner(0), Owner(1), Owner(2)
    lock.acquire(a, 0)
    assert lock.trylock(c, 10) == -1  # held
    lock.acquire(b, 20)
    lock.release(30)  # b holds now
    assert lock.trylock(c, 40) == -1
    lock.release(200)
    assert lock.trylock(c, 210) == 290 and not lock.waiters


def test_a_test_and_set_lock_lets_a_trylock_in_whenever_it_is_free() -> None:
    lock = SpinLock("root", 0, "tas", rng())
    a, b, c = Owner(0), Owner(1), Owner(2)
    lock.acquire(a, 0)
    lock.acquire(b, 1)
    winner, _ = lock.release(2)
    assert winner is b
    lock.release(3)
    assert lock.trylock(c, 4) == 4


def test_an_unknown_spinlock_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="ticket or tas"):
        SpinLock("x", 0, "mcs", rng())


# ---- socket send buffer --------------------------------------------------------------------------


def test_socket_constants_follow_the_3_0_formulas() -> None:
    assert SK_WMEM_DEFAULT == (232 + 256) * 256 == 124_928
    # 1500 + LL_RESERVED_SPACE 16 + 15 = 1531 -> SKB_DATA_ALIGN 1536, + sizeof(struct sk_buff)
    assert udp_truesize(1500) == 1536 + 232


def test_a_sender_allocates_while_below_its_sndbuf_and_is_woken_only_at_half() -> None:
    sock = UdpSocket(sndbuf=10_000, truesize=1_000)
    n = 0
    while sock.can_alloc():
        sock.alloc()
        n += 1
    assert n == 10 and sock.in_flight() == 10  # the last one pushed it to exactly sndbuf
    sock.sleeping = True
    woken = [sock.free(1) for _ in range(5)]
    assert woken == [False, False, False, False, True]  # (wmem << 1) <= sndbuf once 5 remain
    with pytest.raises(AssertionError):
        sock.free(6)


# ---- the NIC ---------------------------------------------------------------------------------------


def test_each_sending_cpu_has_its_own_ring_and_vectors_spread_over_the_interrupt_cpus() -> None:
    nic = Nic(4, 512, 20, 40, 1_230, (1, 2), per_cpu=True)
    assert [nic.ring_of(cpu).index for cpu in range(4)] == [0, 1, 2, 3]
    assert [r.vector_cpu for r in nic.rings] == [1, 2, 1, 2]
    single = Nic(4, 512, 20, 40, 1_230, (1, 2), per_cpu=False)
    assert {single.ring_of(cpu).index for cpu in range(4)} == {0}


def test_a_ring_stops_below_desc_needed_and_a_clean_wakes_it_at_the_threshold() -> None:
    nic = Nic(1, 64, 20, 40, 1_000, (0,), per_cpu=True)
    ring = nic.rings[0]
    posted = 0
    while not nic.post(ring, 0, 0):
        posted += 1
    # 63 usable descriptors, 2 per packet: the post that leaves fewer than 20 unused stops it.
    assert ring.unused() < 20 <= ring.unused() + DESC_PER_PACKET and posted == (63 - 20) // 2
    nic.wire.advance(10**9)
    assert ring.done == posted + 1 and ring.unsent == 0
    cleaned, woken = nic.clean_n(ring, 5, {})
    assert (cleaned, woken) == (5, False) and ring.stopped  # 5 packets free 10 descriptors: not yet 40
    freed: dict[int, int] = {}
    cleaned, woken = nic.clean_n(ring, ring.done, freed)
    assert woken and not ring.stopped and freed == {0: cleaned}


def test_the_wire_serves_rings_round_robin_a_packet_at_a_time() -> None:
    rings = [TxRing(i, 512, 0) for i in range(3)]
    wire = Wire(rings, 100)
    rings[0].unsent, rings[1].unsent, rings[2].unsent = 10, 2, 0
    wire.advance(400)  # 4 packets: 0, 1, 0, 1
    assert [r.done for r in rings] == [2, 2, 0]
    wire.advance(1_000)  # ring 1 is empty: ring 0 alone
    assert [r.done for r in rings] == [8, 2, 0] and wire.sent == 10
    assert wire.busy_ring == 0 and wire.next_done(rings[0]) == 1_100  # its next packet is on the wire
    assert wire.next_done(rings[2]) == -1
