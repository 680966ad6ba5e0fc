"""What changes with the number of CPUs: a scenario resized to ``n`` CPUs, with what depends on the CPU
count adjusted so that the CPUs control never offers a value the run would refuse.

Three things depend on it: the CPUs that take the NIC's interrupts (``net.irq_cpus``), tasks pinned to
a CPU (``[[tasks]] cpu``, ``iperf.cpu``) and packet senders that are one per CPU (``[[tasks]]`` of
kind ``sender`` whose ``count`` reaches the last CPU). A CPU that no longer exists is replaced by the
last one; senders that were one per CPU stay one per CPU. Pure: it builds a new Scenario value.
"""

from __future__ import annotations

import dataclasses

from model.scenario import Scenario


def _on(cpu: int, cpus: int) -> int:
    return cpu if cpu < cpus else cpus - 1


def with_cpus(scenario: Scenario, cpus: int) -> Scenario:
    """``scenario`` on ``cpus`` CPUs, its CPU-bound settings and tasks moved onto CPUs that exist. A
    count the scenario loader refuses raises its ``ScenarioError`` (one line: what is allowed)."""
    old = scenario.machine.cpus
    irq = tuple(dict.fromkeys(_on(c, cpus) for c in scenario.net.irq_cpus))
    tasks = []
    for t in scenario.tasks:
        first = max(t.cpu, 0)
        if t.kind == "sender" and first + t.count >= old:  # one per CPU from ``first`` to the last
            first = min(first, cpus - 1)
            tasks.append(dataclasses.replace(t, cpu=first if t.cpu >= 0 else t.cpu, count=cpus - first))
        elif t.cpu >= cpus:
            tasks.append(dataclasses.replace(t, cpu=cpus - 1))
        else:
            tasks.append(t)
    iperf = scenario.iperf
    if iperf.cpu >= cpus:
        iperf = dataclasses.replace(iperf, cpu=cpus - 1)
    resized = dataclasses.replace(
        scenario,
        machine=dataclasses.replace(scenario.machine, cpus=cpus),
        net=dataclasses.replace(scenario.net, irq_cpus=irq),
        iperf=iperf,
        tasks=tuple(tasks),
    )
    return resized.with_overrides({"machine.cpus": cpus})  # the loader's own checks of the result


def cpu_note(scenario: Scenario) -> str:
    """What the CPUs control changes besides the count, in this scenario (for its tooltip)."""
    parts = []
    if any(t.kind == "sender" for t in scenario.tasks):
        parts.append("one packet sender per CPU")
    if scenario.net.irq_cpus and (scenario.iperf.enabled or any(t.kind == "sender" for t in scenario.tasks)):
        parts.append(
            "NIC interrupts on CPUs "
            + ", ".join(map(str, scenario.net.irq_cpus))
            + " (the last CPU when fewer)"
        )
    return "; ".join(parts)
