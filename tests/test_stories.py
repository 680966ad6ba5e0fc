"""The stories' mechanisms, checked as orderings and ratios of the model's own outputs.

No seed figure is an expected value here: the CLI table in the README compares with the seeds.
"""

from __future__ import annotations

from functools import cache

import pytest

from model.scenario import load_scenario
from model.sched.base import NSEC_PER_SEC
from model.simulation import SetTunable, Simulation


@cache
def run(name: str, duration_s: float = 2.0, **sets: object) -> dict:  # type: ignore[type-arg]
    overrides = {k.replace("__", "."): v for k, v in sets.items()}
    sim = Simulation(load_scenario(name).with_overrides(overrides), trace="off")
    sim.advance(int(duration_s * NSEC_PER_SEC))
    return sim.summary()


def iperf_share(s: dict) -> float:  # type: ignore[type-arg]
    return s["threads"]["iperf-data"]["share"] + s["threads"]["iperf-reporter"]["share"]


class TestStory2007:
    def test_cfs_default_yield_gives_the_poller_half_the_cpu(self) -> None:
        s = run("cfs-yield-2007", sched__policy="cfs-2.6.23", sched__compat_yield=0)
        data, rep = (s["threads"][n]["share"] for n in ("iperf-data", "iperf-reporter"))
        assert abs(data - rep) < 0.1 * (data + rep)

    @pytest.mark.parametrize("policy", ["cfs-2.6.23", "cfs-2.6.24"])
    def test_cfs_is_slower_than_o1_with_the_sched_yield_build(self, policy: str) -> None:
        o1 = run("cfs-yield-2007", sched__policy="o1")["bandwidth_mbps"]
        cfs = run("cfs-yield-2007", sched__policy=policy)["bandwidth_mbps"]
        assert cfs < 0.8 * o1

    @pytest.mark.parametrize("policy", ["cfs-2.6.23", "cfs-2.6.24"])
    def test_compat_yield_restores_the_o1_bandwidth(self, policy: str) -> None:
        o1 = run("cfs-yield-2007", sched__policy="o1")["bandwidth_mbps"]
        compat = run("cfs-yield-2007", sched__policy=policy, sched__compat_yield=1)["bandwidth_mbps"]
        assert compat == pytest.approx(o1, rel=0.05)

    @pytest.mark.parametrize("build", ["usleep0", "fixed"])
    @pytest.mark.parametrize("policy", ["o1", "cfs-2.6.23", "bfs", "eevdf"])
    def test_other_builds_are_fast_under_every_policy(self, build: str, policy: str) -> None:
        o1 = run("cfs-yield-2007", sched__policy="o1")["bandwidth_mbps"]
        s = run("cfs-yield-2007", sched__policy=policy, iperf__thread_rest=build)
        assert s["bandwidth_mbps"] == pytest.approx(o1, rel=0.05)

    def test_fixed_build_uses_far_less_cpu(self) -> None:
        yield_build = run("cfs-yield-2007", sched__policy="cfs-2.6.23")
        fixed = run("cfs-yield-2007", sched__policy="cfs-2.6.23", iperf__thread_rest="fixed")
        assert iperf_share(fixed) < 0.85 * iperf_share(yield_build)
        assert fixed["threads"]["iperf-reporter"]["yields"] == 0

    def test_live_compat_toggle_changes_bandwidth_mid_run(self) -> None:
        sim = Simulation(load_scenario("cfs-yield-2007"), trace="off", sample_ns=100_000_000)
        sim.advance(NSEC_PER_SEC)
        before = sim.acked_bytes()
        sim.apply(SetTunable("sched.compat_yield", 1))
        sim.advance(NSEC_PER_SEC)
        after = sim.acked_bytes() - before
        assert after > 1.3 * before
        assert sim.summary()["toggles"] == [{"t_s": 1.0, "key": "sched.compat_yield", "value": 1}]


class TestStory2009:
    def test_scheduler_does_not_matter_when_interrupts_saturate_the_cpu(self) -> None:
        cfs = run("bfs-saturated-2009", 1.0, sched__policy="cfs-2.6.24")
        bfs = run("bfs-saturated-2009", 1.0, sched__policy="bfs")
        assert bfs["bandwidth_mbps"] == pytest.approx(cfs["bandwidth_mbps"], rel=0.05)
        for s in (cfs, bfs):
            assert s["cpus"][0]["hardirq"] > 0.85
            assert s["system_context_switches_per_s"] < 1000

    def test_without_the_udelay_the_link_is_the_limit(self) -> None:
        slow = run("bfs-saturated-2009", 1.0)["bandwidth_mbps"]
        fast = run("bfs-saturated-2009", 0.3, net__udelay_us=0)
        assert fast["bandwidth_mbps"] > 2 * slow
        assert fast["cpus"][0]["busy"] < 0.5

    def test_a_longer_stall_costs_goodput(self) -> None:
        base = run("bfs-saturated-2009", 1.0)["bandwidth_mbps"]
        longer = run("bfs-saturated-2009", 1.0, net__udelay_us=6000)["bandwidth_mbps"]
        assert longer < 0.6 * base

    def test_a_window_larger_than_the_ring_overflows_it_and_the_sender_backs_off(self) -> None:
        s = run("bfs-saturated-2009", 2.0, net__rwnd_bytes=4_194_304)
        assert s["rx"]["rx_missed"] > 0
        assert s["rx"]["sender_losses"] == s["rx"]["rx_missed"]
        assert s["rx"]["sender_cwnd"] < 2 * 256  # halved at each overflow instead of growing on


@pytest.mark.parametrize("duration_s", [0.0501, 0.333, 0.5])
def test_cpu_time_never_exceeds_the_run_even_mid_interrupt(duration_s: float) -> None:
    s = run("bfs-saturated-2009", duration_s)
    for cpu in s["cpus"]:
        assert cpu["busy"] <= 1.0 + 1e-9
        assert cpu["hardirq"] + cpu["softirq"] + cpu["user"] == pytest.approx(cpu["busy"])
