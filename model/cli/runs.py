"""``schedlab list`` and ``schedlab run``: scenarios built from the command line, run headless.

``run_once`` is the one place the command line reads the wall clock: the model itself never does.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Sequence
from pathlib import Path

import model
from model.cli.report import print_human
from model.cli.series_csv import write_csv
from model.rtapp import load_any
from model.scenario import Scenario, ScenarioError, builtin_names, load_scenario
from model.sched.base import NSEC_PER_SEC
from model.simulation import Simulation


def build_scenario(
    name: str, sets: Sequence[str], duration: float | None = None, base: Scenario | None = None
) -> Scenario:
    """A built-in scenario, a TOML file or an rt-app JSON workload (or ``base``, already loaded), with
    ``--set KEY=VALUE`` overrides and ``--duration``."""
    overrides: dict[str, str] = {}
    for item in sets:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise ScenarioError(f"--set {item!r}: expected KEY=VALUE, e.g. --set sched.policy=o1")
        overrides[key.strip()] = value.strip()
    if duration is not None:
        overrides["scenario.duration_s"] = repr(duration)
    return (load_any(name) if base is None else base).with_overrides(overrides)


def run_once(scenario: Scenario, seed: int | None) -> tuple[Simulation, float]:
    """Run ``scenario`` to its end; the simulation and the wall seconds the run took."""
    sim = Simulation(scenario, seed, trace="off")
    start = time.perf_counter()
    sim.advance(round(scenario.duration_s * NSEC_PER_SEC))
    return sim, time.perf_counter() - start


def cmd_list() -> int:
    for name in builtin_names():
        sc = load_scenario(name)
        print(f"{name:24s} {sc.title}")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    scenario = build_scenario(args.scenario, args.set, args.duration)
    if args.csv:  # refuse before running, so that no run's result is lost to a bad path
        parent = Path(args.csv).resolve().parent
        if not parent.is_dir() or not os.access(parent, os.W_OK):
            raise ScenarioError(f"--csv {args.csv}: cannot write there (no such folder, or not writable)")
    sim, wall_s = run_once(scenario, args.seed)
    summary = sim.summary()
    summary["sim"]["wall_s"] = round(wall_s, 4)
    summary["sim"]["compiled"] = model.NATIVE
    if args.csv:
        write_csv(sim, Path(args.csv))
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print_human(summary)
    return 0
