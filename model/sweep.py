"""Parameter sweeps: one scenario run over a grid of ``--set`` values and seeds, metrics picked by name.

A metric is a dotted path into ``Simulation.summary()`` (the JSON of ``schedlab run --json``), e.g.
``fairness_jain``, ``qdisc.max_min``, ``qdisc.per_cpu_dequeued`` or ``qdisc.exit_shares.quota``.
The sweep only computes; the command line prints the rows and writes the CSV.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from model.scenario import Scenario, ScenarioError
from model.sched.base import NSEC_PER_SEC
from model.simulation import Simulation


@dataclass(frozen=True, slots=True)
class SweepRow:
    sets: tuple[tuple[str, str], ...]  # the varied keys and their values, in --vary order
    seed: int
    metrics: tuple[Any, ...]  # one value per requested metric


def parse_vary(items: Sequence[str]) -> list[tuple[str, list[str]]]:
    """``KEY=V1,V2,...`` items -> [(key, [values])]."""
    out: list[tuple[str, list[str]]] = []
    for item in items:
        key, eq, values = item.partition("=")
        if not eq or not key or not values:
            raise ScenarioError(f"--vary {item!r}: expected KEY=V1,V2 (--vary qdisc.exit_rule=time,quota)")
        out.append((key.strip(), [v.strip() for v in values.split(",") if v.strip()]))
    return out


def parse_seeds(text: str) -> list[int]:
    """``A-B`` or ``A,B,C`` -> the seeds."""
    try:
        if "-" in text:
            lo, hi = (int(x) for x in text.split("-", 1))
            if hi < lo:
                raise ValueError
            return list(range(lo, hi + 1))
        return [int(x) for x in text.split(",")]
    except ValueError:
        raise ScenarioError(f"--seeds {text!r}: expected A-B (e.g. 1-3) or a list such as 1,4,7") from None


def metric(summary: dict[str, Any], path: str) -> Any:
    """The value at a dotted ``path`` of a run's summary."""
    node: Any = summary
    for part in path.split("."):
        if isinstance(node, dict) and part in node:
            node = node[part]
        else:
            raise ScenarioError(f"--metric {path!r}: no such field in the run's summary (see run --json)")
    return node


def sweep(
    base: Scenario, vary: list[tuple[str, list[str]]], seeds: Sequence[int], metrics: Sequence[str]
) -> Iterator[SweepRow]:
    """Run ``base`` for every combination of the varied values and every seed."""
    keys = [k for k, _ in vary]
    for values in itertools.product(*(vs for _, vs in vary)):
        scenario = base.with_overrides(dict(zip(keys, values, strict=True)))
        for seed in seeds:
            sim = Simulation(scenario, seed, trace="off")
            sim.advance(round(scenario.duration_s * NSEC_PER_SEC))
            summary = sim.summary()
            values_of = tuple(metric(summary, m) for m in metrics)
            yield SweepRow(tuple(zip(keys, values, strict=True)), seed, values_of)
