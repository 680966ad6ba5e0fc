"""The ``schedlab`` command: the GUI by default, and the headless ``list``, ``run``, ``bench``, ``export``.

Headless commands never import Qt. Bad input ends with one line on stderr naming what is wrong and
what is allowed, and exit status 2.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

import model
from model.metrics import per_interval
from model.scenario import Scenario, ScenarioError, builtin_names, load_scenario
from model.sched.base import NSEC_PER_SEC
from model.simulation import Simulation

EXIT_USAGE = 2


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="schedlab", description="Linux CPU and packet scheduling, made visible.")
    sub = p.add_subparsers(dest="command")
    sub.add_parser("list", help="built-in scenarios, one line each")
    run = sub.add_parser("run", help="run a scenario headless and print its metrics")
    run.add_argument("scenario", help="built-in name or path to a .toml file")
    _add_common(run)
    run.add_argument(
        "--duration", type=float, metavar="S", help="simulated seconds (default: the scenario's)"
    )
    run.add_argument("--json", action="store_true", help="print one JSON object of metrics")
    run.add_argument("--csv", metavar="FILE", help="write the time series (per interval) to FILE")
    bench = sub.add_parser("bench", help="simulated seconds per wall second for every shipped scenario")
    bench.add_argument("--duration", type=float, default=None, metavar="S", help="simulated seconds per run")
    bench.add_argument(
        "--repeat", type=int, default=3, metavar="N", help="runs per row; the fastest is shown (default 3)"
    )
    sw = sub.add_parser("sweep", help="run a scenario over a grid of settings and seeds; print metrics")
    sw.add_argument("scenario", help="built-in name or path to a .toml file")
    sw.add_argument("--vary", action="append", default=[], metavar="KEY=V1,V2...", help="values to sweep")
    sw.add_argument("--seeds", default="1", metavar="A-B", help="seeds, e.g. 1-3 (default 1)")
    sw.add_argument("--metric", action="append", default=[], metavar="NAME",
                    help="a dotted field of run --json, e.g. fairness_jain, qdisc.max_min")  # fmt: skip
    sw.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a dotted key")
    sw.add_argument("--duration", type=float, metavar="S", help="simulated seconds (default: the scenario's)")
    sw.add_argument("--out", metavar="FILE.csv", help="also write the rows to a CSV file")
    gui = sub.add_parser("gui", help="open the explainer window")
    gui.add_argument("scenario", nargs="?", help="built-in name or path to a .toml file")
    export = sub.add_parser("export", help="render the window to PNG or SVG, headless")
    export.add_argument("scenario")
    export.add_argument("--out", required=True, metavar="FILE.png|FILE.svg")
    export.add_argument("--at", type=float, default=2.0, metavar="S", help="simulated time of the picture")
    export.add_argument("--size", default="1600x1000", metavar="WxH")
    _add_common(export)
    return p


def _add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a dotted key")
    p.add_argument("--seed", type=int, metavar="N", help="random seed (default: the scenario's)")


def build_scenario(name: str, sets: Sequence[str], duration: float | None = None) -> Scenario:
    overrides: dict[str, str] = {}
    for item in sets:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise ScenarioError(f"--set {item!r}: expected KEY=VALUE, e.g. --set sched.policy=o1")
        overrides[key.strip()] = value.strip()
    if duration is not None:
        overrides["scenario.duration_s"] = repr(duration)
    return load_scenario(name).with_overrides(overrides)


def run_once(scenario: Scenario, seed: int | None) -> tuple[Simulation, float]:
    sim = Simulation(scenario, seed, trace="off")
    start = time.perf_counter()
    sim.advance(round(scenario.duration_s * NSEC_PER_SEC))
    return sim, time.perf_counter() - start


def _cmd_list() -> int:
    for name in builtin_names():
        sc = load_scenario(name)
        print(f"{name:24s} {sc.title}")
    return 0


def _cmd_run(args: argparse.Namespace) -> int:
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
        _write_csv(sim, Path(args.csv))
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        _print_human(summary)
    return 0


def _print_human(s: dict[str, Any]) -> None:
    print(f"{s['scenario']}  seed {s['seed']}  {s['duration_s']:.3f} s simulated in {s['sim']['wall_s']} s")
    print(f"  bandwidth        {s['bandwidth_mbps']:.1f} Mbit/s")
    print(f"  context switches {s['context_switches_per_s']:.0f}/s")
    for name, t in s["threads"].items():
        print(
            f"  {name:18s} cpu {t['share'] * 100:5.1f} %  yields {t['yields']:>10d}  switches {t['switches']}"
        )
    for i, c in enumerate(s["cpus"]):
        print(
            f"  cpu{i}  busy {c['busy'] * 100:5.1f} %  task {c['user'] * 100:5.1f} %  "
            f"hardirq {c['hardirq'] * 100:5.1f} %  softirq {c['softirq'] * 100:5.1f} %"
        )
    q = s.get("qdisc")
    if q:
        counts = " / ".join(f"{n:,}" for n in q["per_cpu_dequeued"])
        reasons = ", ".join(f"{k} {v:,}" for k, v in q["exit_reasons"].items() if v)
        print(f"  dequeued per CPU {counts}  (Jain {s['fairness_jain']:.3f})")
        print(f"  dequeuer tenures {q['runs']:,}: {reasons}")
        print(f"  qdisc            enqueued {q['enqueued']:,}  dropped {q['dropped']:,}  ", end="")
        print(f"backlog {q['backlog']:,}")
    rx = s.get("rx")
    if rx:
        missed = rx["rx_missed"]
        print(f"  NIC receive      {rx['interrupts']:,} interrupts, {missed:,} frames missed (ring full)")


def _write_csv(sim: Simulation, path: Path) -> None:
    data = sim.series.view()
    cols = sim.series.columns
    t = data[:, 0]
    dt = np.diff(t, prepend=0).astype(np.float64)
    dt[dt == 0] = 1
    header = ["t_s", "bandwidth_mbps"]
    out = [t / NSEC_PER_SEC, per_interval(data[:, cols.index("acked_bytes")]) * 8e3 / dt]
    for i, name in enumerate(cols):
        if name.endswith("_ns") and name != "t_ns":
            header.append(name[:-3] + "_share")
            out.append(per_interval(data[:, i]) / dt)
        elif name.endswith("_yields"):
            header.append(name + "_per_s")
            out.append(per_interval(data[:, i]) * 1e9 / dt)
    try:
        with path.open("w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(header)
            for row in np.column_stack(out):
                w.writerow([f"{v:.6g}" for v in row])
    except OSError as exc:
        raise ScenarioError(f"--csv {path}: cannot write: {exc.strerror}") from None


def _cmd_bench(args: argparse.Namespace) -> int:
    """Every shipped scenario (the 2007 one under every policy and build, the 2011 one under each
    exit rule): simulated seconds per wall second, events per wall second, packets per wall second."""
    if args.repeat < 1:
        raise UsageError(f"--repeat must be at least 1, got {args.repeat}")
    build = "compiled with mypyc" if model.NATIVE else "pure Python (not compiled: see the README, Speed)"
    print(f"model: {build}; wall time: the fastest of {args.repeat} run(s) per row")
    head = ("scenario", "sim s", "wall s", "sim s/wall s", "events/s", "packets/s")
    print(f"{head[0]:44s} {head[1]:>6s} {head[2]:>7s} {head[3]:>13s} {head[4]:>10s} {head[5]:>11s}")
    variants: list[tuple[str, list[str]]] = []
    for name in builtin_names():
        sc = load_scenario(name)
        if sc.iperf.enabled and sc.iperf.mode == "client":
            for policy in ("o1", "cfs-2.6.23", "cfs-2.6.24", "bfs", "eevdf"):
                for rest in ("usleep0", "sched_yield", "fixed"):
                    variants.append((name, [f"sched.policy={policy}", f"iperf.thread_rest={rest}"]))
        elif any(t.kind == "sender" for t in sc.tasks):
            variants += [(name, [f"qdisc.exit_rule={rule}"]) for rule in ("time", "quota+jiffy", "quota")]
        else:
            variants.append((name, []))
    for name, sets in variants:
        scenario = build_scenario(name, sets, args.duration)
        sim, wall_s = run_once(scenario, None)
        for _ in range(args.repeat - 1):
            wall_s = min(wall_s, run_once(scenario, None)[1])
        label = name + ("" if not sets else " " + " ".join(s.split("=")[1] for s in sets))
        events = sim.machine.q.dispatched
        packets = sum(sim.txpath.c.per_cpu_dequeued) if sim.txpath is not None else 0
        pps = f"{packets / wall_s:11.3g}" if packets else f"{'-':>11s}"
        print(
            f"{label:44s} {scenario.duration_s:6.1f} {wall_s:7.3f} {scenario.duration_s / wall_s:13.1f} "
            f"{events / wall_s:10.0f} {pps}"
        )
    return 0


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, list):
        return "/".join(_fmt(v) for v in value)
    if isinstance(value, dict):
        return " ".join(f"{k}:{_fmt(v)}" for k, v in value.items())
    return str(value)


def _cmd_sweep(args: argparse.Namespace) -> int:
    from model.sweep import parse_seeds, parse_vary, sweep

    if not args.metric:
        raise UsageError("sweep needs at least one --metric, e.g. --metric fairness_jain")
    base = build_scenario(args.scenario, args.set, args.duration)
    vary = parse_vary(args.vary)
    seeds = parse_seeds(args.seeds)
    if args.out:
        parent = Path(args.out).resolve().parent
        if not parent.is_dir() or not os.access(parent, os.W_OK):
            raise ScenarioError(f"--out {args.out}: cannot write there (no such folder, or not writable)")
    header = [k for k, _ in vary] + ["seed", *args.metric]
    print("  ".join(header))
    rows: list[list[str]] = []
    for row in sweep(base, vary, seeds, args.metric):
        cells = [v for _, v in row.sets] + [str(row.seed)] + [_fmt(m) for m in row.metrics]
        rows.append(cells)
        print("  ".join(cells), flush=True)
    if args.out:
        tmp = Path(args.out + ".tmp")
        with tmp.open("w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(header)
            w.writerows(rows)
        tmp.replace(args.out)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = _parser().parse_args(argv)
        if args.command == "list":
            return _cmd_list()
        if args.command == "run":
            return _cmd_run(args)
        if args.command == "bench":
            return _cmd_bench(args)
        if args.command == "sweep":
            return _cmd_sweep(args)
        from gui.app import main as gui_main  # Qt only from here on

        return gui_main(args)
    except (UsageError, ScenarioError) as exc:
        print(f"schedlab: error: {exc}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
