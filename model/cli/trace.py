"""``schedlab trace``: a run as Chrome trace-event JSON (``model.perfetto``), for Perfetto UI.

The file is bounded: the writer projects the whole window's size from what the first part wrote, and
stops as soon as the projection or the bytes written pass ``--max-mb``, with one line that says how
big the trace would be and which ``--from``/``--to`` window would fit. Nothing appears at the
destination until the trace is complete (``model.cli.outputs``); progress shows on a terminal, and
Ctrl-C leaves no partial file.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TextIO

from model.cli.outputs import check_output, open_atomic_text, option_what
from model.cli.progress import Progress
from model.cli.runs import build_scenario, checked_seed, input_files
from model.keyspec import shown_path
from model.perfetto import Event, TraceLost, trace_events
from model.scenario import ScenarioError
from model.sched.base import NSEC_PER_SEC
from model.simulation import Simulation

PROBE_FRACTION = 0.05  # project the size once this much of the window is written
MB = 1_000_000
MAX_MB = 100_000  # --max-mb: a bound, not a promise that the disk holds it


def write_trace(
    sim: Simulation,
    path: Path,
    from_ns: int,
    to_ns: int,
    sample_ns: int,
    max_bytes: int,
    progress: Progress | None = None,
    what: str = "",
) -> int:
    """Write ``sim``'s trace from ``from_ns`` to ``to_ns`` to ``path``; returns the bytes written.

    ``sim`` must be fresh and built with ``trace="recent"``. Raises ScenarioError, leaving nothing at
    ``path``, if the trace would pass ``max_bytes``; OutputError (a line starting with ``what``, by
    default the path) if the file cannot be written.
    """
    with open_atomic_text(path, what or f"cannot write {path}") as fh:
        fh.write('{"displayTimeUnit": "ns", "traceEvents": [\n')
        written = _write_events(sim, fh, from_ns, to_ns, sample_ns, max_bytes, progress)
        meta = {"scenario": sim.scenario.name, "seed": sim.seed, "from_s": from_ns / NSEC_PER_SEC}
        meta["to_s"] = to_ns / NSEC_PER_SEC
        fh.write(f'\n], "otherData": {json.dumps(meta)}}}\n')
    return written


def _write_events(
    sim: Simulation,
    fh: TextIO,
    from_ns: int,
    to_ns: int,
    sample_ns: int,
    max_bytes: int,
    progress: Progress | None,
) -> int:
    written = 0
    first = True
    window = max(to_ns - from_ns, 1)
    probed = False
    try:
        for events in trace_events(sim, from_ns, to_ns, sample_ns):
            chunk = _chunk(events, first)
            first = first and not chunk
            fh.write(chunk)
            written += len(chunk)
            done = max(sim.now_ns - from_ns, 0)
            if progress is not None:
                progress.update(done / NSEC_PER_SEC)
            if not probed and done >= window * PROBE_FRACTION:
                probed = True
                _refuse_if_too_big(written * window / max(done, 1), max_bytes, from_ns, done, written)
            if written > max_bytes:
                _refuse_if_too_big(written * window / max(done, 1), max_bytes, from_ns, done, written)
    except TraceLost as exc:
        raise ScenarioError(f"trace: {exc}; use a smaller --sample-ms") from None
    return written


def _chunk(events: list[Event], first: bool) -> str:
    if not events:
        return ""
    text = ",\n".join(json.dumps(e, separators=(",", ":")) for e in events)
    return text if first else ",\n" + text


def _refuse_if_too_big(projected: float, max_bytes: int, from_ns: int, done_ns: int, written: int) -> None:
    if projected <= max_bytes:
        return
    rate = written / max(done_ns, 1)  # bytes per simulated ns so far
    fits_s = max_bytes / rate / NSEC_PER_SEC * 0.9
    start = from_ns / NSEC_PER_SEC
    raise ScenarioError(
        f"trace: about {projected / MB:.0f} MB, over --max-mb {max_bytes / MB:g}; narrow the window, "
        f"e.g. --from {start:g} --to {start + fits_s:.3g}, or raise --max-mb"
    )


def cmd_trace(args: argparse.Namespace) -> int:
    seed = checked_seed(args.seed)
    scenario = build_scenario(args.scenario, args.set, args.duration)
    out = check_output(args.out, option_what("--out", args.out), inputs=input_files(args.scenario))
    if out.suffix.lower() != ".json":
        raise ScenarioError(f"--out {shown_path(out)}: a trace is JSON; name it FILE.json")
    end_s = scenario.duration_s if args.t_to is None else args.t_to
    if not (0 <= args.t_from < end_s <= scenario.duration_s):
        raise ScenarioError(
            f"--from {args.t_from:g} --to {end_s:g}: need 0 <= --from < --to <= the duration, "
            f"{scenario.duration_s:g} s (--duration)"
        )
    if args.sample_ms is None:  # the policies' keys change at ticks (and switches): one sample a tick
        args.sample_ms = 1000 / scenario.machine.hz
    if not 0.001 <= args.sample_ms <= 1000:
        raise ScenarioError(f"--sample-ms {args.sample_ms:g}: allowed 0.001..1000")
    if not 0 < args.max_mb <= MAX_MB:
        raise ScenarioError(f"--max-mb {args.max_mb:g}: allowed above 0, at most {MAX_MB:,}")
    sim = Simulation(scenario, seed, trace="recent")
    from_ns, to_ns = round(args.t_from * NSEC_PER_SEC), round(end_s * NSEC_PER_SEC)
    with Progress("trace", end_s - args.t_from, " s", args.progress or None) as bar:
        size = write_trace(
            sim,
            out,
            from_ns,
            to_ns,
            round(args.sample_ms * 1e6),
            round(args.max_mb * MB),
            bar,
            option_what("--out", args.out),
        )
    print(
        f"{out}: {size / MB:.1f} MB, {args.t_from:g} s to {end_s:g} s of {scenario.name}; "
        "open it in Perfetto UI (ui.perfetto.dev)"
    )
    return 0
