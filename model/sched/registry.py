"""What a policy declares about itself, in its own module: the types of the policy registry.

Each policy module ends with a ``PolicyInfo``; ``model.sched`` collects them. Everything that names a
policy is built from it: the scenario's ``[sched]`` keys and their validation, the live settings, the
window's controls, labels, status line and "Now:" line, and the bench list. A tunable belongs to the
policies that declare it and is sent only to them; a scenario may still carry it under another policy,
where it is kept and does nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal, Protocol

from model.sched.base import NSEC_PER_MSEC, SchedPolicy
from model.snapshot import YieldOutcome

ControlKind = Literal["check", "radios", "spin"]
ViewKind = Literal["o1", "cfs-2.6.23", "cfs-2.6.24", "bfs", "eevdf"]  # see model.snapshot.VIEW_KINDS


@dataclass(frozen=True, slots=True)
class Tunable:
    """One of a policy's settings, as the scenario key ``sched.<key>``."""

    key: str
    default: int
    title: str  # what the kernel calls it: "sched_compat_yield", "RUN_TO_PARITY"
    help: str  # one line on what it does (tooltips, --set errors)
    choices: tuple[tuple[int, str], ...] = ()  # (value, label); empty for a range
    lo: int = 0  # a range's bounds, when there are no choices
    hi: int = 0
    live: bool = True  # applies mid-run, like a sysctl; False: a new run
    control: ControlKind = "check"  # "check": 0/1, labelled by choice 1; "radios"; "spin" for a range
    about_yield: bool = False  # matters only where something calls sched_yield()

    def allowed(self) -> tuple[int, ...] | range:
        return tuple(v for v, _ in self.choices) if self.choices else range(self.lo, self.hi + 1)

    def status_words(self, value: int) -> str:
        """A few words for the status line: "sched_compat_yield = 1", "sched_yield(): 6.17+"."""
        if self.control == "radios":
            label = dict(self.choices).get(value, str(value))
            return f"{self.title}: {label.split(':')[0]}"
        return f"{self.title} = {value}"


class LandingWords(Protocol):
    """A policy's words for where one yield left the yielder; ``brief``: without the numbers (a narrow
    panel's line: "in place", "expired array", "later deadline")."""

    def __call__(self, outcome: YieldOutcome, brief: bool = False) -> str: ...


@dataclass(frozen=True, slots=True)
class PolicyInfo:
    """A scheduler policy as the rest of schedlab knows it."""

    name: str  # as in scenarios and on the command line: "cfs-2.6.23"
    label: str  # as on screen: "CFS: Linux 2.6.23"
    kernel: str  # the kernel (or patch) version modelled
    source: str  # the source it follows, file and functions
    factory: Callable[[int, int], SchedPolicy]  # (ncpus, hz) -> a fresh policy
    view_kind: ViewKind  # the run-queue view its ``runqueue_view`` returns
    describe_yield: Callable[[Mapping[str, int]], str]  # what sched_yield() does, under these tunables
    describe_landing: LandingWords  # where one yield left the yielder, in words
    tunables: tuple[Tunable, ...] = ()
    global_queue: bool = False  # one run queue for all CPUs (every CPU's view shows the same queue)

    def tunable(self, key: str) -> Tunable | None:
        return next((t for t in self.tunables if t.key == key), None)


def fmt_ms(ns: int, signed: bool = False) -> str:
    """Nanoseconds in ms, three decimals, for the registry's words: 12.345 ms, +0.700 ms."""
    return f"{ns / NSEC_PER_MSEC:{'+' if signed else ''}.3f} ms"


def landing_words(outcome: YieldOutcome, key_name: str, brief: bool = False) -> str:
    """The words of the landings every policy shares; ``key_name`` names ``outcome.key_ns`` (left out
    when ``brief``)."""
    if outcome.reason == "alone":
        return "alone: no-op"
    if outcome.reason == "already_rightmost":
        return "rightmost (already)"
    if outcome.reason == "ineligible":
        return "ineligible: no-op"
    words = outcome.landing.replace("_", " ")
    return words if brief else f"{words} ({key_name} {fmt_ms(outcome.key_ns)})"
