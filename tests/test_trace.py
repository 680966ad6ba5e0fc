"""``schedlab trace``: Chrome trace-event JSON checked event by event against the format Perfetto reads,
its content against the same run's summary, and its size bound."""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from model.cli import main
from model.cli.runs import build_scenario, run_once
from model.perfetto import TraceBuilder, trace_events
from model.sched.base import NSEC_PER_SEC
from model.simulation import Simulation
from model.snapshot import TenureRecord

PHASES = {"X", "C", "M", "i"}


def trace(tmp_path: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    out = tmp_path / "run.json"
    code = main(["trace", *argv, "--out", str(out)])
    _, err = capsys.readouterr()
    assert code == 0, err
    with out.open(encoding="utf-8") as fh:
        return json.load(fh)  # a JSON parser loads it whole


def check_format(doc: dict[str, Any], to_us: float) -> list[dict[str, Any]]:
    """Every event against the trace-event format; returns the events."""
    assert doc["displayTimeUnit"] == "ns"
    events = doc["traceEvents"]
    named_threads: set[tuple[int, int]] = set()
    named_procs: set[int] = set()
    for e in events:
        assert e["ph"] in PHASES, e
        assert isinstance(e["name"], str) and e["name"], e
        assert type(e["pid"]) is int and type(e["tid"]) is int, e
        if e["ph"] == "M":
            assert e["name"] in ("process_name", "thread_name"), e
            assert isinstance(e["args"]["name"], str) and e["args"]["name"]
            (
                named_threads.add((e["pid"], e["tid"]))
                if e["name"] == "thread_name"
                else named_procs.add(e["pid"])
            )
            continue
        assert isinstance(e["ts"], int | float) and 0 <= e["ts"] <= to_us, e  # microseconds
        assert isinstance(e["args"], dict), e
        if e["ph"] == "X":
            assert isinstance(e["dur"], int | float) and e["dur"] >= 0, e
            assert e["ts"] + e["dur"] <= to_us + 1e-6, e
        elif e["ph"] == "C":
            assert e["args"], e
            assert all(isinstance(v, int | float) and not isinstance(v, bool) for v in e["args"].values()), e
        elif e["ph"] == "i":
            assert e["s"] in ("t", "p", "g"), e
        if "bind_id" in e:
            assert e["ph"] == "X" and type(e["bind_id"]) is int, e
            assert e.get("flow_in") or e.get("flow_out"), e
    for e in events:
        if e["ph"] == "X":
            assert (e["pid"], e["tid"]) in named_threads, f"lane without a thread_name: {e}"
        if e["ph"] != "M":
            assert e["pid"] in named_procs
    return events


def check_lanes_do_not_overlap(events: list[dict[str, Any]]) -> None:
    lanes: dict[tuple[int, int], list[tuple[float, float]]] = defaultdict(list)
    for e in events:
        if e["ph"] == "X":
            lanes[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e["dur"]))
    for lane, slices in lanes.items():
        slices.sort()
        for (_, end), (start, _) in pairwise(slices):
            assert start >= end - 1e-3, f"overlapping slices on {lane}: {end} > {start}"


def check_flows(events: list[dict[str, Any]]) -> int:
    """Each flow id: one start (flow_out), one end (flow_in), steps between, in time order."""
    flows: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for e in events:
        if "bind_id" in e:
            flows[e["bind_id"]].append(e)
    for fid, evs in flows.items():
        starts = [e for e in evs if e.get("flow_out") and not e.get("flow_in")]
        ends = [e for e in evs if e.get("flow_in") and not e.get("flow_out")]
        assert len(starts) == 1 and len(ends) == 1, f"flow {fid}: {evs}"
        order = sorted(evs, key=lambda e: e["ts"])
        assert order[0] is starts[0] and order[-1] is ends[0], f"flow {fid} out of order"
        for a, b in pairwise(order):
            assert a["ts"] + a["dur"] <= b["ts"] + 1e-3, f"flow {fid} goes back in time"
    return len(flows)


def test_2007_trace_has_every_lane_and_matches_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["cfs-yield-2007", "--duration", "0.5", "--set", "sched.policy=o1"]
    events = check_format(trace(tmp_path, capsys, *argv), 0.5e6)
    check_lanes_do_not_overlap(events)
    assert check_flows(events) > 0  # wakeups
    names = {e["args"]["name"] for e in events if e["ph"] == "M"}
    assert {"CPUs", "tasks", "cpu0", "cpu0 interrupts", "iperf-data", "iperf-reporter"} <= names
    phases = {(e["ph"], e["name"]) for e in events}
    for expect in [
        ("X", "Running"),
        ("X", "Sleeping"),
        ("X", "hardirq"),
        ("X", "softirq"),
        ("C", "bandwidth"),
    ]:
        assert expect in phases
    assert any(e["ph"] == "C" and "prio" in e["args"] for e in events)  # O(1) entries: dynamic prio
    sim, _ = run_once(build_scenario(argv[0], [argv[-1]], 0.5), None)
    ran: dict[str, int] = defaultdict(int)
    for e in events:
        if e["ph"] == "X" and e["pid"] == 1 and e["tid"] < 2000:
            ran[e["name"]] += 1
    for name, t in sim.summary()["threads"].items():
        assert abs(ran[name] - t["switches"]) <= 1, (name, ran[name], t["switches"])


def test_eevdf_trace_has_lag_and_deadline_counters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = check_format(
        trace(tmp_path, capsys, "yield-playground", "--duration", "0.2", "--set", "sched.policy=eevdf"), 0.2e6
    )
    keys = {k for e in events if e["ph"] == "C" and e["pid"] == 2 for k in e["args"]}
    assert {"vruntime_ns", "lag_ns", "deadline_ns"} <= keys


def test_2011_trace_has_tenures_hand_overs_and_qdisc_counters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["qdisc-fairness-2011", "--duration", "0.02", "--set", "qdisc.exit_rule=quota"]
    events = check_format(trace(tmp_path, capsys, *argv), 0.02e6)
    check_lanes_do_not_overlap(events)
    assert check_flows(events) > 0
    tenures = [e for e in events if e["name"] == "dequeue"]
    assert any(
        e.get("flow_in") and e.get("flow_out") for e in tenures
    )  # a step: in from one CPU, out to the next
    counters = {e["name"]: e["args"] for e in events if e["ph"] == "C"}
    assert set(counters["qdisc backlog"]) == {"band0", "band1", "band2"}
    assert set(counters["dequeued"]) == {"cpu0", "cpu1", "cpu2", "cpu3"}
    sim, _ = run_once(build_scenario(argv[0], [argv[-1]], 0.02), None)
    per_cpu = sim.summary()["qdisc"]["per_cpu_dequeued"]
    traced = [0] * 4
    for e in tenures:
        traced[e["tid"] - 3000] += e["args"]["packets"]
    for cpu in range(4):  # every tenure is in the trace, but the one still going on at the end
        assert per_cpu[cpu] - 64 <= traced[cpu] <= per_cpu[cpu]


def test_a_trace_window_and_the_run_it_comes_from(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    events = check_format(
        trace(tmp_path, capsys, "yield-playground", "--duration", "1", "--from", "0.4", "--to", "0.6"), 0.6e6
    )
    stamped = [e["ts"] for e in events if e["ph"] != "M"]
    assert min(stamped) >= 0.4e6 - 1e-3 and max(stamped) <= 0.6e6
    # Tracing and stepping change nothing: the traced simulation ends as an untraced run does.
    scenario = build_scenario("yield-playground", [], 0.6)
    sim = Simulation(scenario, None, trace="recent")
    for _ in trace_events(sim, 0, round(0.6 * NSEC_PER_SEC), 1_000_000):
        pass
    plain, _ = run_once(scenario, None)
    assert {k: v for k, v in sim.summary().items() if k != "sim"} == {
        k: v for k, v in plain.summary().items() if k != "sim"
    }


def test_a_trace_too_big_is_refused_and_leaves_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "big.json"
    code = main(["trace", "qdisc-fairness-2011", "--duration", "0.05", "--out", str(out), "--max-mb", "0.05"])
    _, err = capsys.readouterr()
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and "--from" in err and "--to" in err and "MB" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--from", "2", "--to", "1"], "--from"),
        (["--to", "99"], "--to"),
        (["--sample-ms", "0"], "--sample-ms"),
    ],
)
def test_bad_trace_windows_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], says: str
) -> None:
    code = main(["trace", "yield-playground", "--out", str(tmp_path / "t.json"), *argv])
    _, err = capsys.readouterr()
    assert code == 2 and says in err and len(err.strip().splitlines()) == 1


@dataclass(frozen=True, slots=True)
class FutureRecord:
    """A record type the trace module has never heard of (the transmit path is being rewritten)."""

    t_ns: int
    cpu: int
    ring_slot: int
    reason: str


def test_records_and_fields_it_does_not_know_still_come_out() -> None:
    sim = Simulation(build_scenario("qdisc-fairness-2011", [], 0.01), None, trace="recent")
    builder = TraceBuilder(sim, 0, 10_000_000)
    (event,) = builder.records((FutureRecord(2_000, 1, 7, "new"),))
    assert event["ph"] == "i" and event["name"] == "FutureRecord" and event["ts"] == 2.0
    assert event["args"] == {"cpu": 1, "ring_slot": 7, "reason": "new"}
    tenure = TenureRecord(1_000, 2, 500, 9, "quota")
    builder.records((tenure,))
    (closed,) = builder.finish(sim.snapshot())[-1:]
    assert closed["name"] == "dequeue" and closed["args"] == {
        "packets": 9,
        "exit_reason": "quota",
        "context": "",
    }


def test_the_transmit_paths_interrupt_contexts_are_traced_as_charged() -> None:
    # The 2011 transmit path runs its NAPI polls and NET_TX softirqs in open-ended contexts, which the
    # trace left out: the CPU lanes and Perfetto drew a sender running where its CPU was in softirq up
    # to a quarter of the time. Each stretch is now a record, and they add up to what the CPU charged.
    from model.snapshot import IrqRecord

    sim = Simulation(build_scenario("qdisc-fairness-2011", [], 0.05), trace="full")
    snap = sim.advance(50_000_000)
    pieces = [r for r in snap.events if isinstance(r, IrqRecord) and r.open_context]
    assert pieces and all((r.hardirq_ns == 0) != (r.softirq_ns == 0) for r in pieces)
    for view in snap.cpus:  # the stretch still running is the snapshot's to say (open_irq_since_ns)
        hard = sum(r.hardirq_ns for r in pieces if r.cpu == view.index)
        soft = sum(r.softirq_ns for r in pieces if r.cpu == view.index)
        if view.open_irq_since_ns >= 0:
            running = snap.t_ns - view.open_irq_since_ns
            hard, soft = (hard + running, soft) if view.state == "hardirq" else (hard, soft + running)
        assert (hard, soft) == (view.hardirq_ns, view.softirq_ns), view.index
    assert sum(r.softirq_ns for r in pieces) > 0.05 * 4 * 50_000_000  # a share worth drawing
    for cpu in range(4):  # one CPU's stretches never overlap
        mine = sorted((r.t_ns, r.t_ns + r.dur_ns) for r in pieces if r.cpu == cpu)
        assert all(a[1] <= b[0] for a, b in pairwise(mine))
