"""The classic A/B pairs of the three stories and the playground, and two three-way comparisons (a
story's whole arc: the problem and both remedies, three kernels' exit rules), declared once as data:
``schedlab compare --preset`` runs them, and the window offers the same list as one-click buttons.

Each preset names the built-in scenario it was made for and what a scenario needs for it to mean
anything (an iperf client for a ``thread_rest`` build, a qdisc for an exit rule, a task that yields
for what a yield does), so a preset used on a scenario without that part is refused with a line that
says why, instead of comparing two equal runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from model.compare import Side
from model.scenario import Scenario, ScenarioError

Needs = Literal["", "iperf-client", "qdisc", "yielder"]


@dataclass(frozen=True)
class Preset:
    name: str
    title: str
    scenario: str  # the built-in scenario it was made for (the default of ``compare --preset``)
    sides: tuple[Side, ...]
    needs: Needs = ""


def _side(label: str, title: str, *settings: str) -> Side:
    return Side(label, tuple((s.partition("=")[0], s.partition("=")[2]) for s in settings), title)


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset(
            "o1-vs-cfs",
            "O(1) (2.6.22) against CFS 2.6.23: where a sched_yield() sends the yielder",
            "cfs-yield-2007",
            (
                _side("A", "O(1) 2.6.22", "sched.policy=o1"),
                _side("B", "CFS 2.6.23", "sched.policy=cfs-2.6.23"),
            ),
            "yielder",
        ),
        Preset(
            "compat-yield",
            "CFS 2.6.23 with sched_compat_yield 0 and 1",
            "cfs-yield-2007",
            (
                _side("A", "compat_yield 0", "sched.policy=cfs-2.6.23", "sched.compat_yield=0"),
                _side("B", "compat_yield 1", "sched.policy=cfs-2.6.23", "sched.compat_yield=1"),
            ),
            "yielder",
        ),
        Preset(
            "yield-remedies",
            "CFS 2.6.23 and iperf's sched_yield(), then each remedy: sched_compat_yield 1, the fixed build",
            "cfs-yield-2007",
            (
                _side(
                    "A",
                    "sched_yield, compat 0",
                    "sched.policy=cfs-2.6.23",
                    "sched.compat_yield=0",
                    "iperf.thread_rest=sched_yield",
                ),
                _side(
                    "B",
                    "compat_yield 1",
                    "sched.policy=cfs-2.6.23",
                    "sched.compat_yield=1",
                    "iperf.thread_rest=sched_yield",
                ),
                _side(
                    "C",
                    "fixed build",
                    "sched.policy=cfs-2.6.23",
                    "sched.compat_yield=0",
                    "iperf.thread_rest=fixed",
                ),
            ),
            "iperf-client",
        ),
        Preset(
            "fixed-build",
            "iperf's thread_rest() with sched_yield() against the fixed build (condition variables)",
            "cfs-yield-2007",
            (
                _side("A", "sched_yield build", "iperf.thread_rest=sched_yield"),
                _side("B", "fixed build", "iperf.thread_rest=fixed"),
            ),
            "iperf-client",
        ),
        Preset(
            "bfs-yield",
            "BFS's sched_yield(): 2009's new deadline against v0.318's deadline kept",
            "yield-playground",
            (
                _side("A", "BFS 2009", "sched.policy=bfs", "sched.yield_expires=1"),
                _side("B", "BFS v0.318", "sched.policy=bfs", "sched.yield_expires=0"),
            ),
            "yielder",
        ),
        Preset(
            "eevdf-yield",
            "EEVDF's sched_yield(): 6.6-6.16's later deadline against 6.17's forfeited request",
            "yield-playground",
            (
                _side("A", "EEVDF 6.6-6.16", "sched.policy=eevdf", "sched.yield_forfeit=0"),
                _side("B", "EEVDF 6.17+", "sched.policy=eevdf", "sched.yield_forfeit=1"),
            ),
            "yielder",
        ),
        Preset(
            "time-vs-quota",
            "__qdisc_run's exit rule: 3.0-rc4's time against 3.1's packet quota",
            "qdisc-fairness-2011",
            (
                _side("A", "3.0-rc4 time", "qdisc.exit_rule=time"),
                _side("B", "3.1 quota", "qdisc.exit_rule=quota"),
            ),
            "qdisc",
        ),
        Preset(
            "exit-rules",
            "__qdisc_run's three exit rules: 3.0-rc4's time, jamal's quota with the jiffy, 3.1's quota",
            "qdisc-fairness-2011",
            (
                _side("A", "3.0-rc4 time", "qdisc.exit_rule=time"),
                _side("B", "jamal's quota+jiffy", "qdisc.exit_rule=quota+jiffy"),
                _side("C", "3.1 quota", "qdisc.exit_rule=quota"),
            ),
            "qdisc",
        ),
        Preset(
            "weight-p",
            "3.1's quota with weight_p 64 against 8",
            "qdisc-fairness-2011",
            (
                _side("A", "weight_p 64", "qdisc.exit_rule=quota", "qdisc.weight_p=64"),
                _side("B", "weight_p 8", "qdisc.exit_rule=quota", "qdisc.weight_p=8"),
            ),
            "qdisc",
        ),
    )
}


def preset(name: str) -> Preset:
    found = PRESETS.get(name)
    if found is None:
        raise ScenarioError(f"unknown preset '{name}'; presets: {', '.join(PRESETS)}")
    return found


def check_applies(p: Preset, scenario: Scenario, source: str) -> None:
    """Refuse a preset on a scenario that lacks the part its settings act on."""
    if p.needs == "iperf-client" and not (scenario.iperf.enabled and scenario.iperf.mode == "client"):
        raise ScenarioError(
            f"preset {p.name} changes iperf's client build, and {source} runs no iperf client; "
            f"try {p.scenario}"
        )
    if p.needs == "yielder" and not scenario.may_yield:
        raise ScenarioError(
            f"preset {p.name} is about what a sched_yield() does, and no task of {source} yields; "
            f"try {p.scenario}"
        )
    if p.needs == "qdisc" and not scenario.has_qdisc:
        raise ScenarioError(
            f"preset {p.name} changes the qdisc, and {source} has no qdisc (no senders); try {p.scenario}"
        )
