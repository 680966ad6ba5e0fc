"""What changes with the number of CPUs: ``machine.cpus`` set on a scenario (``--set``, a sweep, a
compare side, the window's CPUs control, a lesson step) resizes what depends on the count, so that
every count in range gives a run, and the same run everywhere.

Three things depend on it: the CPUs that take the NIC's interrupts (``net.irq_cpus``), tasks pinned to
a CPU (``[[tasks]] cpu``, ``iperf.cpu``) and packet senders that are one per CPU (``[[tasks]]`` of
kind ``sender`` whose ``count`` reaches the last CPU). A CPU that no longer exists is replaced by the
last one; senders that were one per CPU stay one per CPU. A key set in the same override
(``--set machine.cpus=8 --set net.irq_cpus=[0,5]``) is the user's and is kept as given. Pure: it
builds new values.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from typing import Protocol

from model.scenario_sections import IperfSpec, MachineSpec, NetSpec, TaskSpec


class CpuBound(Protocol):
    """What of a scenario depends on its CPU count (``model.scenario.Scenario`` has it)."""

    @property
    def machine(self) -> MachineSpec: ...
    @property
    def net(self) -> NetSpec: ...
    @property
    def iperf(self) -> IperfSpec: ...
    @property
    def tasks(self) -> tuple[TaskSpec, ...]: ...


def _on(cpu: int, cpus: int) -> int:
    return cpu if cpu < cpus else cpus - 1


def follow_cpus(
    scenario: CpuBound, old: int, given: Collection[str] = ()
) -> tuple[NetSpec, IperfSpec, tuple[TaskSpec, ...]]:
    """``scenario``'s net, iperf and tasks moved onto the CPUs it has now (its ``machine.cpus`` was
    ``old``); the keys in ``given`` were set explicitly and are left alone."""
    cpus = scenario.machine.cpus
    net = scenario.net
    if "net.irq_cpus" not in given:
        net = dataclasses.replace(net, irq_cpus=tuple(dict.fromkeys(_on(c, cpus) for c in net.irq_cpus)))
    iperf = scenario.iperf
    if "iperf.cpu" not in given and iperf.cpu >= cpus:
        iperf = dataclasses.replace(iperf, cpu=cpus - 1)
    tasks: list[TaskSpec] = []
    for t in scenario.tasks:
        first = max(t.cpu, 0)
        if t.kind == "sender" and first + t.count >= old:  # one per CPU from ``first`` to the last
            first = min(first, cpus - 1)
            tasks.append(dataclasses.replace(t, cpu=first if t.cpu >= 0 else t.cpu, count=cpus - first))
        elif t.cpu >= cpus:
            tasks.append(dataclasses.replace(t, cpu=cpus - 1))
        else:
            tasks.append(t)
    return net, iperf, tuple(tasks)


def cpu_note(scenario: CpuBound) -> str:
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
