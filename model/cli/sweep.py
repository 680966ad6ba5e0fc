"""``schedlab sweep``: one metric over every combination of the ``--vary`` settings and every seed.

Each combination and seed is one independent run (a ``Job``), so the runs go to the local cores in
parallel (``--jobs``, multiprocessing) or to a Dask cluster (``--executor dask``, ``model.cli.
jobs``), and the results, put back in job order, are the same as one run after another. The
metric is a dotted path into ``run --json`` (``fairness_jain``, ``threads.iperf-reporter.share``); a
name that is not there is refused before the sweep starts, with the names that are. ``--out`` writes
one CSV row per run, ``--plot`` the metric against the first ``--vary`` (median line, min–max band
over the seeds), both whole or not at all.
"""

from __future__ import annotations

import argparse
import csv
import io
import itertools
import math
import os
import statistics
from collections.abc import Sequence

from model.cli.figures import Figure, Line, Panel, check_figure_path, write_figure
from model.cli.jobs import Job, Source, run_jobs
from model.cli.outputs import check_output, option_what, write_bytes_atomic
from model.cli.progress import Progress
from model.cli.runs import input_files, run_once
from model.keyspec import shown, shown_path
from model.metrics import metric_at, metric_paths
from model.rtapp import read_file_text
from model.scenario import ScenarioError, scenario_path

MAX_JOBS = 100_000  # a sweep larger than this is surely a typo in --vary or --seeds


def split_values(text: str) -> list[str]:
    """``V1,V2,...`` split at the commas outside brackets (``net.irq_cpus=[0,3],[0]``)."""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += {"[": 1, "]": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return out


def parse_vary(items: Sequence[str]) -> list[tuple[str, list[str]]]:
    vary: list[tuple[str, list[str]]] = []
    for item in items:
        key, eq, values = item.partition("=")
        vals = split_values(values) if eq else []
        if not key.strip() or not vals or any(v == "" for v in vals):
            raise ScenarioError(
                f"--vary {shown(item)}: expected KEY=V1,V2,..., e.g. --vary qdisc.weight_p=8,64"
            )
        if key.strip() in (k for k, _ in vary):
            raise ScenarioError(
                f"--vary {shown(key.strip())}: given twice; list all its values in one --vary"
            )
        vary.append((key.strip(), vals))
    return vary


def parse_seeds(text: str | None) -> list[int | None]:
    if text is None:
        return [None]
    lo, dash, hi = text.partition("-")
    try:
        a = int(lo)
        b = int(hi) if dash else a
    except ValueError:
        raise ScenarioError(f"--seeds {shown(text)}: expected A-B (e.g. 1-5) or one seed") from None
    if not 0 <= a <= b < 2**63:
        raise ScenarioError(f"--seeds {shown(text)}: need 0 <= A <= B < 2**63 (scenario.seed's range)")
    if b - a + 1 > MAX_JOBS:  # before the list is made: 0-9223372036854775806 is no list to build
        raise ScenarioError(f"--seeds {shown(text)}: {b - a + 1:,} seeds; at most {MAX_JOBS:,} runs in all")
    return list(range(a, b + 1))


def make_jobs(vary: list[tuple[str, list[str]]], seeds: list[int | None]) -> list[Job]:
    runs = math.prod(len(vals) for _, vals in vary) * len(seeds)  # counted before any is made
    if runs > MAX_JOBS:
        raise ScenarioError(f"the sweep has {runs:,} runs; at most {MAX_JOBS:,}")
    combos = list(itertools.product(*[[(k, v) for v in vals] for k, vals in vary]))
    return [Job(i, combo, seed) for i, (combo, seed) in enumerate(itertools.product(combos, seeds))]


def _source(args: argparse.Namespace) -> Source:
    """The scenario, a file's text read once (as ``load_any`` reads it: a regular file below its limit)."""
    path, builtin = scenario_path(args.scenario)
    if builtin:
        return Source(args.scenario, None, tuple(args.set), args.duration)
    return Source(args.scenario, read_file_text(path), tuple(args.set), args.duration)


def _check_metric(source: Source, metric: str, first: Job) -> None:
    """Refuse a metric the runs do not report, from a 1 ms run of the first job."""
    sim, _ = run_once(
        source.build(first.settings).with_overrides({"scenario.duration_s": "0.001"}), first.seed
    )
    summary = sim.summary()
    if metric_at(summary, metric) is None:
        names = ", ".join(
            p for p in metric_paths(summary) if not p.startswith(("seed", "sim.", "settings.", "duration_s"))
        )
        raise ScenarioError(
            f"--metric {metric!r}: not a number in run --json; allowed: {names} "
            "(* for an index adds up every entry: cpus.*.hardirq)"
        )


def cmd_sweep(args: argparse.Namespace) -> int:
    source = _source(args)
    vary = parse_vary(args.vary)
    set_keys = {item.partition("=")[0].strip() for item in args.set}
    for key, _ in vary:
        if key in set_keys:  # the --vary values would silently replace the --set one
            raise ScenarioError(f"--vary {key}: also given by --set; give it in one of the two")
    jobs = make_jobs(vary, parse_seeds(args.seeds))
    for key, vals in vary:  # every value checked before any run: one line naming the bad one
        for v in vals:
            source.build([(key, v)])
    inputs = input_files(args.scenario)
    out = plot = None
    if args.out is not None:
        out = check_output(args.out, option_what("--out", args.out), inputs=inputs)
        if out.suffix.lower() != ".csv":
            raise ScenarioError(f"--out {shown_path(out)}: the sweep's rows are CSV; name it FILE.csv")
    if args.plot is not None:
        plot = check_output(args.plot, option_what("--plot", args.plot), inputs=inputs)
        check_figure_path(plot, "--plot")
    if out is not None and plot is not None and os.path.abspath(out) == os.path.abspath(plot):
        raise ScenarioError(f"--out and --plot name one file, {shown_path(out)}; give each its own")
    workers = args.jobs if args.jobs is not None else len(os.sched_getaffinity(0))
    if not 1 <= workers <= 1024:
        raise ScenarioError(f"--jobs {workers}: allowed 1..1024")
    _check_metric(source, args.metric, jobs[0])
    with Progress(f"sweep {len(jobs)} runs", len(jobs), " runs", args.progress or None) as bar:
        values = run_jobs(source, args.metric, jobs, workers, args.executor, args.scheduler, bar)
    header, rows = result_rows(vary, jobs, values, args.metric)
    if out is not None:
        write_bytes_atomic(out, option_what("--out", args.out), csv_text(header, rows).encode("utf-8"))
    if plot is not None:
        write_figure(
            sweep_figure(source, vary, jobs, values, args.metric), plot, option_what("--plot", args.plot)
        )
    print_table(vary, jobs, values, args.metric)
    return 0


def result_rows(
    vary: list[tuple[str, list[str]]], jobs: list[Job], values: list[float | None], metric: str
) -> tuple[list[str], list[list[str]]]:
    header = [k for k, _ in vary] + ["seed", metric]
    rows = [
        [v for _, v in job.settings] + ["" if job.seed is None else str(job.seed), _cell(value)]
        for job, value in zip(jobs, values, strict=True)
    ]
    return header, rows


def _cell(value: float | None) -> str:
    return "" if value is None else repr(value)


def csv_text(header: list[str], rows: list[list[str]]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue()


def _groups(jobs: list[Job], values: list[float | None]) -> dict[tuple[tuple[str, str], ...], list[float]]:
    out: dict[tuple[tuple[str, str], ...], list[float]] = {}
    for job, value in zip(jobs, values, strict=True):
        out.setdefault(job.settings, [])
        if value is not None:
            out[job.settings].append(value)
    return out


def print_table(
    vary: list[tuple[str, list[str]]], jobs: list[Job], values: list[float | None], metric: str
) -> None:
    keys = [k for k, _ in vary]
    print(
        "  ".join(f"{k:>16s}" for k in keys)
        + f"  {'runs':>5s}  {metric + ' median':>20s}  {'min':>10s}  {'max':>10s}"
    )
    groups = _groups(jobs, values)
    places = decimals([v for vals in groups.values() for v in vals])
    for settings, vals in groups.items():
        cells = "  ".join(f"{v:>16s}" for _, v in settings)
        if vals:
            med, lo, hi = statistics.median(vals), min(vals), max(vals)
            print(f"{cells}  {len(vals):5d}  {med:20.{places}f}  {lo:10.{places}f}  {hi:10.{places}f}")
        else:
            print(f"{cells}  {0:5d}  {'-':>20s}")


def decimals(values: list[float]) -> int:
    """The decimals a column prints with: four significant digits for its largest value (0 to 6), the
    same in every row, so that 93.90 stands over 64.23 and a count of packets prints whole."""
    big = max((abs(v) for v in values if math.isfinite(v)), default=0.0)
    if big == 0:
        return 0
    return min(max(3 - math.floor(math.log10(big)), 0), 6)


def sweep_figure(
    source: Source,
    vary: list[tuple[str, list[str]]],
    jobs: list[Job],
    values: list[float | None],
    metric: str,
) -> Figure:
    """The metric against the first swept key; one line per combination of the other keys."""
    x_key, x_values = vary[0]
    groups = _groups(jobs, values)
    lines: list[Line] = []
    others = list(itertools.product(*[[(k, v) for v in vals] for k, vals in vary[1:]]))
    for style, rest in enumerate(others):
        xs, med, lo, hi = [], [], [], []
        for i, xv in enumerate(x_values):
            vals = groups.get(((x_key, xv), *rest), [])
            if vals:
                xs.append(float(i))
                med.append(statistics.median(vals))
                lo.append(min(vals))
                hi.append(max(vals))
        label = " ".join(f"{k}={v}" for k, v in rest) or metric
        lines.append(Line(label, xs, med, style, lo, hi))
    seeds = sorted({j.seed for j in jobs if j.seed is not None})
    seed_text = f"seeds {seeds[0]}-{seeds[-1]}" if seeds else "the scenario's seed"
    base = source.build([])
    caption = (
        f"{base.name}, {base.duration_s:g} s simulated, {seed_text}; line: median over the seeds, band and "
        f"whiskers: min to max" + (f"; --set {' '.join(source.sets)}" if source.sets else "")
    )
    return Figure(
        f"{metric} against {x_key}",
        caption,
        x_key,
        (Panel(metric, tuple(lines)),),
        x_ticks=tuple((float(i), v) for i, v in enumerate(x_values)),
        panel_height=340,
    )
