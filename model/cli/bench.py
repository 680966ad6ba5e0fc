"""``schedlab bench``: how fast the model runs, as numbers printed per shipped scenario.

Rows: the 2007 story under every policy and ``thread_rest`` build, the 2011 story under each exit
rule (time, quota+jiffy, quota), every other scenario once. Columns: simulated seconds, the fastest
wall time of ``--repeat`` runs, simulated seconds per wall second, events and packets per wall second.
"""

from __future__ import annotations

import argparse

import model
from model.cli.parser import UsageError
from model.cli.runs import build_scenario, run_once
from model.keyspec import shown
from model.net.txconfig import EXIT_RULES
from model.scenario import builtin_names, load_scenario, option_value
from model.sched import POLICIES

THREAD_REST_BUILDS = ("usleep0", "sched_yield", "fixed")
MAX_REPEAT = 1000


def bench_variants() -> list[tuple[str, list[str]]]:
    """Every row: a built-in scenario and its ``--set`` overrides."""
    variants: list[tuple[str, list[str]]] = []
    for name in builtin_names():
        sc = load_scenario(name)
        if sc.iperf.enabled and sc.iperf.mode == "client":
            for policy in POLICIES:
                for rest in THREAD_REST_BUILDS:
                    variants.append((name, [f"sched.policy={policy}", f"iperf.thread_rest={rest}"]))
        elif sc.has_qdisc:
            variants += [(name, [f"qdisc.exit_rule={rule}"]) for rule in EXIT_RULES]
        else:
            variants.append((name, []))
    return variants


def row_label(name: str, sets: list[str]) -> str:
    """A row's label: the scenario and the values of its overrides, e.g. ``cfs-yield-2007 o1 fixed``."""
    return name + ("" if not sets else " " + " ".join(s.split("=")[1] for s in sets))


def cmd_bench(args: argparse.Namespace) -> int:
    if args.repeat < 1:
        raise UsageError(f"--repeat must be at least 1, got {args.repeat}")
    if args.repeat > MAX_REPEAT:
        raise UsageError(f"--repeat must be at most {MAX_REPEAT}, got {args.repeat}")
    if args.duration is not None:  # checked before the table's first line is printed
        option_value("--duration", args.duration, "scenario.duration_s")
    rows = [(name, sets) for name, sets in bench_variants() if args.only in row_label(name, sets)]
    if not rows:
        labels = ", ".join(row_label(name, sets) for name, sets in bench_variants())
        raise UsageError(f"--only {shown(args.only)}: no row's label contains it; the rows are: {labels}")
    build = "compiled with mypyc" if model.NATIVE else "pure Python (not compiled: see the README, Speed)"
    print(f"model: {build}; wall time: the fastest of {args.repeat} run(s) per row")
    head = ("scenario", "sim s", "wall s", "sim s/wall s", "events/s", "packets/s")
    print(f"{head[0]:44s} {head[1]:>6s} {head[2]:>7s} {head[3]:>13s} {head[4]:>10s} {head[5]:>11s}")
    for name, sets in rows:
        scenario = build_scenario(name, sets, args.duration)
        sim, wall_s = run_once(scenario, None)
        for _ in range(args.repeat - 1):
            wall_s = min(wall_s, run_once(scenario, None)[1])
        label = row_label(name, sets)
        events = sim.machine.q.dispatched
        packets = sum(sim.txpath.c.per_cpu_dequeued) if sim.txpath is not None else 0
        pps = f"{packets / wall_s:11.3g}" if packets else f"{'-':>11s}"
        print(
            f"{label:44s} {scenario.duration_s:6.1f} {wall_s:7.3f} {scenario.duration_s / wall_s:13.1f} "
            f"{events / wall_s:10.0f} {pps}"
        )
    return 0
