"""``schedlab list`` and ``schedlab run``: scenarios built from the command line, run headless.

``run_once`` is the one place the command line reads the wall clock: the model itself never does.
Every option is checked, and the output path too, before the run: a bad one costs no run.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from pathlib import Path

import model
from model.cli.outputs import OutputError, check_output, option_what
from model.cli.report import print_human
from model.cli.series_csv import write_csv
from model.keyspec import shown
from model.rtapp import load_any
from model.scenario import Scenario, ScenarioError, builtin_names, load_scenario, option_value, scenario_path
from model.sched.base import NSEC_PER_SEC
from model.simulation import Simulation


def build_scenario(
    name: str, sets: Sequence[str], duration: float | None = None, base: Scenario | None = None
) -> Scenario:
    """A built-in scenario, a TOML file or an rt-app JSON workload (or ``base``, already loaded), with
    ``--set KEY=VALUE`` overrides and ``--duration``."""
    overrides: dict[str, object] = {}
    for item in sets:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise ScenarioError(f"--set {shown(item)}: expected KEY=VALUE, e.g. --set sched.policy=o1")
        key, value = key.strip(), value.strip()
        if key in overrides:  # only the last would count, and the run's settings would not say so
            raise ScenarioError(
                f"--set {key}: given twice ({shown(str(overrides[key]))}, then {shown(value)}); "
                "give each key once"
            )
        overrides[key] = value
    if duration is not None:
        overrides["scenario.duration_s"] = option_value("--duration", duration, "scenario.duration_s")
    return (load_any(name) if base is None else base).with_overrides(overrides)


def checked_seed(seed: int | None) -> int | None:
    """``--seed``, within ``scenario.seed``'s range (the message names ``--seed``)."""
    return None if seed is None else int(option_value("--seed", seed, "scenario.seed"))


def input_files(name: str) -> list[Path]:
    """The files a command reads for SCENARIO: no output may replace them."""
    return [scenario_path(name)[0]]


RUN_SLICE_NS = 10_000_000  # 10 ms of simulated time: well under a wall second even for the 2011 story


def run_once(scenario: Scenario, seed: int | None) -> tuple[Simulation, float]:
    """Run ``scenario`` to its end; the simulation and the wall seconds the run took."""
    sim = Simulation(scenario, seed, trace="off")
    start = time.perf_counter()
    end_ns = round(scenario.duration_s * NSEC_PER_SEC)
    while sim.now_ns < end_ns:  # in slices: Ctrl-C is seen between them (compiled code never looks)
        sim.run_to(min(sim.now_ns + RUN_SLICE_NS, end_ns))
    return sim, time.perf_counter() - start


def cmd_list() -> int:
    for name in builtin_names():
        sc = load_scenario(name)
        print(f"{name:24s} {sc.title}")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    seed = checked_seed(args.seed)
    scenario = build_scenario(args.scenario, args.set, args.duration)
    csv_what = option_what("--csv", args.csv or "")
    csv_path = None
    if args.csv is not None:  # refuse before running, so that no run's result is lost to a bad path
        csv_path = check_output(args.csv, csv_what, inputs=input_files(args.scenario))
    sim, wall_s = run_once(scenario, seed)
    summary = sim.summary()
    summary["sim"]["wall_s"] = round(wall_s, 4)
    summary["sim"]["compiled"] = model.NATIVE
    failed: OutputError | None = None
    if csv_path is not None:
        try:
            write_csv(sim, csv_path, csv_what)
        except OutputError as exc:  # the summary is still printed: the run is not lost
            failed = exc
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print_human(summary)
    if failed is not None:
        raise failed
    return 0
