"""``schedlab compare``: two to four runs of one scenario and seed in lockstep, their headline metrics
side by side and the differences as numbers; ``--json`` the same as data, ``--out`` a figure.

The sides come from ``--a KEY=VALUE…``, ``--b …`` (``--c``, ``--d``) or a named preset
(``model.presets``); ``--set`` changes every side alike. The runs advance together in steps
(``model.compare.Lockstep``), so a long compare shows progress and Ctrl-C stops all of them at once.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import numpy as np

from model.cli.figures import Figure, Line, Panel, check_figure_path, write_figure
from model.cli.outputs import check_output, option_what
from model.cli.parser import UsageError
from model.cli.progress import Progress
from model.cli.runs import build_scenario, checked_seed, input_files
from model.compare import SIDE_LABELS, Difference, Lockstep, Side, differences, parse_side, same_outcome
from model.metrics import KERNEL_ROLES, interval_table
from model.presets import check_applies, preset
from model.sched.base import NSEC_PER_SEC

STEPS = 50  # lockstep advances per run: progress granularity, at no measurable cost


def _sides(args: argparse.Namespace) -> tuple[str, list[Side]]:
    given = [(label, getattr(args, label.lower())) for label in SIDE_LABELS]
    if args.preset:
        if any(items for _, items in given):
            raise UsageError("--preset names both sides; use it without --a/--b (--set applies to all sides)")
        p = preset(args.preset)
        return args.scenario or p.scenario, list(p.sides)
    if args.scenario is None:
        raise UsageError("compare: name a scenario (or a --preset)")
    sides = [parse_side(label, items) for label, items in given if items is not None]
    labels = [s.label for s in sides]
    if labels != list(SIDE_LABELS[: len(labels)]) or len(sides) < 2:
        raise UsageError("compare needs --a and --b (then --c, --d in order), each with KEY=VALUE settings")
    return args.scenario, sides


def cmd_compare(args: argparse.Namespace) -> int:
    name, sides = _sides(args)
    base = build_scenario(name, args.set, args.duration)
    if args.preset:
        check_applies(preset(args.preset), base, name)
    seed = checked_seed(args.seed)
    out = None
    if args.out is not None:
        out = check_output(args.out, option_what("--out", args.out), inputs=input_files(name))
        check_figure_path(out, "--out")
    lock = Lockstep(base, sides, seed)
    duration_ns = round(base.duration_s * NSEC_PER_SEC)
    start = time.perf_counter()
    with Progress(f"compare {len(sides)} runs", base.duration_s, " s", args.progress or None) as bar:
        for k in range(1, STEPS + 1):
            lock.advance(duration_ns * k // STEPS - lock.now_ns)
            bar.update(lock.now_ns / NSEC_PER_SEC)
    wall_s = time.perf_counter() - start
    summaries = lock.summaries()
    diffs = differences(summaries, [s.label for s in sides])
    if out is not None:
        write_figure(compare_figure(lock, diffs), out, option_what("--out", args.out))
    if args.json:
        print(json.dumps(compare_json(lock, summaries, diffs, wall_s), indent=2))
    else:
        print_compare(lock, diffs, wall_s, same_outcome(summaries))
    return 0


def compare_json(
    lock: Lockstep, summaries: list[dict[str, Any]], diffs: list[Difference], wall_s: float
) -> dict[str, Any]:
    sim = lock.sims[0]
    return {
        "scenario": sim.scenario.name,
        "seed": sim.seed,
        "duration_s": summaries[0]["duration_s"],
        "wall_s": round(wall_s, 4),
        "same_outcome": same_outcome(summaries),
        "sides": [
            {"label": s.label, "title": s.name, "settings": dict(s.settings), "summary": summary}
            for s, summary in zip(lock.sides, summaries, strict=True)
        ],
        "differences": [
            {
                "metric": d.metric.path,
                "label": d.metric.label,
                "unit": d.metric.unit,
                "values": list(d.values),
                "vs_a": [v - d.values[0] for v in d.values[1:]],
                "text": list(d.texts),
            }
            for d in diffs
        ],
    }


def print_compare(lock: Lockstep, diffs: list[Difference], wall_s: float, same: bool) -> None:
    sim = lock.sims[0]
    n = len(lock.sides)
    print(
        f"{sim.scenario.name}  seed {sim.seed}  {sim.now_ns / NSEC_PER_SEC:.3f} s simulated; "
        f"{n} runs in lockstep in {wall_s:.2f} s"
    )
    for s in lock.sides:
        settings = " ".join(f"{k}={v}" for k, v in s.settings)
        print(f"  {s.label}  {s.title:24s} {settings}" if s.title else f"  {s.label}  {s.name}")
    print()
    idle = [d for d in diffs if is_idle_kernel_thread(d)]
    diffs = [d for d in diffs if not is_idle_kernel_thread(d)]
    names = [d.metric.label + (f" ({d.metric.unit})" if d.metric.unit else "") for d in diffs]
    width = max([28, *(len(name) + 1 for name in names)])  # a long label does not push its row right
    print(f"  {'':{width}s}" + "".join(f"{s.label:>12s}" for s in lock.sides))
    for name, d in zip(names, diffs, strict=True):
        values = "".join(f"{d.metric.shown(v):>12s}" for v in d.values)
        print(f"  {name:{width}s}{values}   {';  '.join(d.texts)}")
    if idle:
        threads = ", ".join(d.metric.label.removesuffix(" CPU") for d in idle)
        print(f"  ({threads}: {idle[0].metric.shown(0.0)} % CPU on every side)")
    if same:
        print(
            f"\n  note: the {n} runs came out the same: the settings that differ do nothing in this scenario"
        )


def is_idle_kernel_thread(d: Difference) -> bool:
    """A kernel thread's CPU share that shows as zero on every side: a row that says nothing (the
    table names such threads on one line; --json keeps every row)."""
    path = d.metric.path
    thread = path.removeprefix("threads.").removesuffix(".share")
    return (
        path.startswith("threads.")
        and thread.partition("/")[0] in KERNEL_ROLES
        and all(d.metric.shown(v) == d.metric.shown(0.0) for v in d.values)
    )


def compare_figure(lock: Lockstep, diffs: list[Difference]) -> Figure:
    """Bandwidth per interval of every side, and a second panel: the qdisc's Jain index per interval,
    or else the CPU share of the thread whose share differs most between the sides."""
    sims = lock.sims
    tables = [dict(interval_table(sim.series.columns, sim.series.view())) for sim in sims]
    labels = [f"{s.label}: {s.name}" for s in lock.sides]

    def lines(values: list[np.ndarray]) -> tuple[Line, ...]:
        return tuple(
            Line(label, list(t["t_s"]), list(v), i)
            for i, (label, t, v) in enumerate(zip(labels, tables, values, strict=True))
        )

    panels = []
    if any(t["bandwidth_mbps"].any() for t in tables):  # no network, no bandwidth panel of zeros
        panels.append(Panel("bandwidth (Mbit/s)", lines([t["bandwidth_mbps"] for t in tables]), y_min=0.0))
    if all("fairness_jain" in t for t in tables):
        jains = [t["fairness_jain"] for t in tables]
        panels.append(Panel("Jain index of per-CPU dequeues", lines(jains), y_min=0.0, y_max=1.0))
    else:
        shares = [d for d in diffs if d.metric.path.startswith("threads.")]
        if shares:
            top = max(shares, key=lambda d: max(d.values) - min(d.values))
            thread = top.metric.path[len("threads.") : -len(".share")]
            column = f"{thread}_exec_share"
            if all(column in t for t in tables):
                values = [t[column] * 100.0 for t in tables]
                panels.append(Panel(f"{thread} CPU share (%)", lines(values), y_min=0.0))
    sim = sims[0]
    caption = (
        f"{sim.scenario.name}, seed {sim.seed}, {sim.now_ns / NSEC_PER_SEC:g} s simulated; "
        + "; ".join(
            f"{s.label}: {' '.join(f'{k}={v}' for k, v in s.settings) or 'as the scenario is'}"
            for s in lock.sides
        )
    )
    telling = [d for d in diffs if any(d.values)][:2]  # a metric that is 0 on every side says nothing
    notes = tuple(
        "; ".join(d.texts) if d.metric.arrow else f"{d.metric.label}: {'; '.join(d.texts)}" for d in telling
    )
    return Figure(
        f"{sim.scenario.title or sim.scenario.name}",
        caption,
        "simulated time (s)",
        tuple(panels),
        notes=notes,
    )
