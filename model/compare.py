"""A/B runs: two to four simulations of one scenario and seed that differ only in chosen settings,
advanced together on one clock, and the differences of their headline metrics as numbers.

``Lockstep`` is what both the command line (``schedlab compare``) and the window use: ``advance(dt)``
moves every side by the same simulated time and returns their snapshots, aligned at one instant;
``apply`` sends a live toggle to one side or to all. ``differences`` turns the sides' summaries into
the lines a person reads ("B − A: +30.8 Mbit/s", "Jain 0.58 → 0.96"), from the headline metrics of
``model.metrics``. The classic pairs of the three stories are named presets (``model.presets``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from model.keyspec import shown
from model.metrics import DEQUEUE_SHARES, Headline, headlines
from model.scenario import Scenario, ScenarioError
from model.simulation import DEFAULT_SAMPLE_NS, SetTunable, Simulation
from model.snapshot import Snapshot

SIDE_LABELS = ("A", "B", "C", "D")
MAX_SIDES = len(SIDE_LABELS)
# Keys a side may not change: every side runs the same scenario, for the same time, from the same seed.
SHARED_KEYS = ("scenario.duration_s", "scenario.seed", "scenario.name")


@dataclass(frozen=True)
class Side:
    """One run of a comparison: its label (A, B, ...), a short title and the settings it changes."""

    label: str
    settings: tuple[tuple[str, str], ...]  # dotted key and value, as given to ``--set``
    title: str = ""

    @property
    def name(self) -> str:
        """The title, or else the settings themselves ("sched.policy=o1")."""
        return self.title or " ".join(f"{k}={v}" for k, v in self.settings) or "as the scenario is"


def parse_side(label: str, items: Sequence[str], title: str = "") -> Side:
    """A side from ``KEY=VALUE`` words (the values of ``--a``, ``--b``, ...)."""
    settings: list[tuple[str, str]] = []
    for item in items:
        raw_key, eq, raw_value = item.partition("=")
        key, value = raw_key.strip(), raw_value.strip()
        if not eq or not key:
            raise ScenarioError(f"--{label.lower()} {shown(item)}: expected KEY=VALUE, e.g. sched.policy=o1")
        if key in SHARED_KEYS:
            raise ScenarioError(
                f"--{label.lower()} {key}: every side shares it; set it for all with --duration or --seed"
            )
        earlier = next((v for k, v in settings if k == key), None)
        if earlier is not None:  # the side's name would show both, while only the last would count
            raise ScenarioError(
                f"--{label.lower()} sets {key} twice ({shown(earlier)}, then {shown(value)}); "
                "give each key once"
            )
        settings.append((key, value))
    return Side(label, tuple(settings), title)


def side_scenario(base: Scenario, side: Side) -> Scenario:
    """The scenario one side runs: ``base`` with the side's settings."""
    try:
        return base.with_overrides(dict(side.settings))
    except ScenarioError as exc:
        raise ScenarioError(f"--{side.label.lower()}: {exc}") from None


class Lockstep:
    """N simulations of one scenario and seed, each with its side's settings, on one clock."""

    def __init__(
        self,
        base: Scenario,
        sides: Sequence[Side],
        seed: int | None = None,
        trace: str = "off",
        sample_ns: int = DEFAULT_SAMPLE_NS,
    ) -> None:
        if not 2 <= len(sides) <= MAX_SIDES:
            raise ScenarioError(
                f"compare needs 2 to {MAX_SIDES} sides (--a, --b, --c, --d), got {len(sides)}"
            )
        self.base = base
        self.sides = tuple(sides)
        self.sims = tuple(Simulation(side_scenario(base, s), seed, sample_ns, trace) for s in self.sides)

    @property
    def now_ns(self) -> int:
        return self.sims[0].now_ns

    def advance(self, dt_ns: int) -> tuple[Snapshot, ...]:
        """Every side ``dt_ns`` further; their snapshots, all at the same simulated instant."""
        return tuple(sim.advance(dt_ns) for sim in self.sims)

    def apply(self, command: SetTunable, sides: Sequence[int] | None = None) -> None:
        """A live toggle on the sides numbered in ``sides`` (all of them by default), at the same instant."""
        for i in range(len(self.sims)) if sides is None else sides:
            self.sims[i].apply(command)

    def summaries(self) -> list[dict[str, Any]]:
        return [sim.summary() for sim in self.sims]


@dataclass(frozen=True)
class Difference:
    """One headline metric across the sides, and how each side differs from the first."""

    metric: Headline
    values: tuple[float, ...]  # per side, as shown (scaled)
    texts: tuple[str, ...]  # per side after the first: "B − A: +30.8 Mbit/s" or "Jain 0.58 → 0.96"


def differences(summaries: Sequence[Mapping[str, Any]], labels: Sequence[str]) -> list[Difference]:
    """The headline metrics every side reports, each with its differences from side A."""
    out: list[Difference] = []
    # Each CPU's share of the dequeues compares only between machines of one size: with other CPU
    # counts, a row per CPU of the smaller machine would leave shares out that the others' rows hold.
    sizes = {len(s.get("qdisc", {}).get("per_cpu_dequeue_shares", ())) for s in summaries}
    for metric in headlines(*summaries):
        if len(sizes) > 1 and metric.path.startswith(DEQUEUE_SHARES):
            continue
        values = [metric.value(s) for s in summaries]
        shown = tuple(v for v in values if v is not None)
        if len(shown) != len(values):
            continue  # a metric one side lacks (a thread only one build has): no difference to state
        a = shown[0]
        texts = tuple(
            metric.difference(a, b, labels[0], label) for b, label in zip(shown[1:], labels[1:], strict=True)
        )
        out.append(Difference(metric, shown, texts))
    return out


def same_outcome(summaries: Sequence[Mapping[str, Any]]) -> bool:
    """Whether every side came out the same, settings aside (the settings that differ did nothing)."""
    stripped = [{k: v for k, v in s.items() if k not in ("settings", "sim")} for s in summaries]
    return all(s == stripped[0] for s in stripped[1:])
