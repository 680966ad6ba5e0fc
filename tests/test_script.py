"""Scripted tasks (kind = "script") and rt-app workloads: golden schedules worked out by hand from the
steps' semantics (rt-app.c), the rt-app loader's mapping and its one-line refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from model import script_steps as st
from model.cli import main
from model.cli.runs import run_once
from model.rtapp import parse_rtapp
from model.scenario import ScenarioError, parse_scenario
from model.sched import POLICIES
from model.simulation import Simulation
from model.snapshot import SwitchRecord

MS = 1_000_000
HEAD = """
[scenario]
duration_s = {duration}
[machine]
cpus = {cpus}
hz = 1000
context_switch_ns = 0
syscall_ns = 0
[sched]
policy = "{policy}"
"""


def task(name: str, steps: str, cpu: int = -1, loop: int = -1, extra: str = "") -> str:
    return f"""
[[tasks]]
name = "{name}"
kind = "script"
cpu = {cpu}
script.loop = {loop}
script.steps = [{steps}]
{extra}"""


def schedule(text: str, until_ns: int) -> dict[str, list[tuple[float, float]]]:
    """Each task's stints on a CPU, (start, end) in ms, from the switch records."""
    sim = Simulation(parse_scenario(text), trace="full")
    records = sim.advance(until_ns).events
    names = {t.tid: t.name for t in sim.machine.tasks}
    out: dict[str, list[tuple[float, float]]] = {n: [] for n in names.values()}
    running: dict[int, tuple[int, int]] = {}
    for r in records:
        if isinstance(r, SwitchRecord):
            if r.cpu in running:
                tid, since = running.pop(r.cpu)
                out[names[tid]].append((since / MS, r.t_ns / MS))
            if r.tid:
                running[r.cpu] = (r.tid, r.t_ns)
    return out


@pytest.mark.parametrize("policy", list(POLICIES))
def test_a_mutex_orders_two_pinned_tasks_under_every_policy(policy: str) -> None:
    # A takes m first (spawned first), holds it 3 ms; B, blocked on m, runs when A unlocks. Each then
    # sleeps 10 ms, and whoever finds m held waits for the other's unlock.
    text = HEAD.format(duration=1, cpus=2, policy=policy)
    text += task("A", '{lock="m"}, {run_us=3000}, {unlock="m"}, {sleep_us=10000}', cpu=0)
    text += task("B", '{lock="m"}, {run_us=1000}, {unlock="m"}, {sleep_us=10000}', cpu=1)
    got = schedule(text, 44 * MS)
    assert got["A"] == [(0, 3), (13, 16), (26, 29), (39, 42)]
    # B's empty stints: it runs at once on its idle CPU, finds m held and blocks at the same instant
    assert got["B"] == [(0, 0), (3, 4), (14, 14), (16, 17), (27, 27), (29, 30), (40, 40), (42, 43)]


def test_a_condition_variable_hands_work_to_a_waiting_consumer() -> None:
    text = HEAD.format(duration=1, cpus=2, policy="cfs-2.6.24")
    text += task("P", '{run_us=1000}, {lock="m"}, {signal="c"}, {unlock="m"}, {sleep_us=5000}', cpu=0)
    text += task("C", '{lock="m"}, {wait="c", mutex="m"}, {unlock="m"}, {run_us=500}', cpu=1)
    got = schedule(text, 14 * MS)
    assert got["P"] == [(0, 1), (6, 7), (12, 13)]
    assert got["C"] == [(0, 0), (1, 1.5), (7, 7.5), (13, 13.5)]  # (0, 0): C waits at once


def test_a_barrier_holds_the_first_until_the_last_arrives() -> None:
    text = HEAD.format(duration=1, cpus=2, policy="eevdf")
    text += task("A", '{run_us=1000}, {barrier="b"}', cpu=0)
    text += task("B", '{run_us=3000}, {barrier="b"}', cpu=1)
    got = schedule(text, 8 * MS)
    assert got["A"] == [(0, 1), (3, 4), (6, 7)]
    assert got["B"] == []  # never blocks: on its CPU from 0 without a switch


@pytest.mark.parametrize(
    ("absolute", "after"), [(False, [(22, 24), (32, 34), (42, 42)]), (True, [(20, 22), (30, 32), (40, 40)])]
)
def test_a_late_timer_restarts_from_now_unless_absolute(absolute: bool, after: list[tuple[int, int]]) -> None:
    # One 12 ms run overshoots the 10 ms timer; three 2 ms runs follow on the same timer; after the last
    # timer's sleep the script ends (loop = 1) and so does the task, in an empty stint.
    flag = "true" if absolute else "false"
    steps = (
        f'{{repeat=1, steps=[{{run_us=12000}}, {{timer_us=10000, timer="t", absolute={flag}}}]}}, '
        f'{{repeat=3, steps=[{{run_us=2000}}, {{timer_us=10000, timer="t"}}]}}'
    )
    text = HEAD.format(duration=1, cpus=1, policy="o1") + task("P", steps, loop=1)
    assert schedule(text, 50 * MS)["P"] == [(0, 14), *after]


def test_runtime_is_wall_time_in_rt_apps_32_us_pieces() -> None:
    alone = HEAD.format(duration=1, cpus=1, policy="cfs-2.6.23") + task(
        "R", "{runtime_us=5000}, {sleep_us=50000}"
    )
    assert schedule(alone, 20 * MS)["R"][0] == (0, 5.024)  # the first check past 5 ms: 157 pieces
    # Beside a hog, a 40 ms runtime ends by the clock, with less than 40 ms of CPU, and at most one
    # 32 µs piece after its 40 ms (the piece it was in when the clock passed them).
    shared = HEAD.format(duration=1, cpus=1, policy="cfs-2.6.23")
    shared += task("R", "{runtime_us=40000}, {sleep_us=50000}") + '\n[[tasks]]\nname = "H"\nkind = "hog"\n'
    got = schedule(shared, 60 * MS)["R"]
    end = got[-1][1]
    ran = sum(b - a for a, b in got)
    assert len(got) > 1 and end >= 40 and ran < 40
    assert sum(min(b, end) - max(a, 40) for a, b in got if b > 40) <= 0.032 + 1e-9


def test_a_script_that_lets_no_time_pass_is_refused() -> None:
    text = HEAD.format(duration=1, cpus=1, policy="o1") + task("X", '{lock="m"}, {unlock="m"}')
    with pytest.raises(ScenarioError, match="without time passing"):
        parse_scenario(text, "x.toml")
    with pytest.raises(ScenarioError, match="without time passing"):  # usleep(0) returns at once
        parse_scenario(HEAD.format(duration=1, cpus=1, policy="o1") + task("X", "{sleep_us=0}, {yield=true}"))
    for bad, says in [
        ("{jump=1}", "allowed: run_us"),
        ("{run_us=0}", "run_us"),
        ("{run_us=1, sleep_us=2}", "one action"),
    ]:
        with pytest.raises(ScenarioError, match=says):
            parse_scenario(HEAD.format(duration=1, cpus=1, policy="o1") + task("X", bad), "x.toml")


WORKLOAD = {
    "global": {"duration": 2, "calibration": "CPU0", "default_policy": "SCHED_OTHER", "logdir": "./"},
    "tasks": {
        "video": {"loop": -1, "run": 3000, "timer": {"ref": "unique", "period": 16000}},
        "hog": {"priority": 5, "run": 10000},
        "pair": {
            "instance": 2,
            "phases": {
                "p0": {"loop": 3, "lock": "m", "run": 500, "unlock": "m", "sleep": 2000},
                "p1": {"run": 100, "barrier": "b", "yield": ""},
            },
        },
    },
}
SAME_IN_TOML = """
[scenario]
name = "workload"
duration_s = 2.0
[[tasks]]
name = "video"
kind = "script"
script.steps = [{run_us = 3000}, {timer_us = 16000, timer = "unique"}]
[[tasks]]
name = "hog"
kind = "script"
nice = 5
script.steps = [{run_us = 10000}]
[[tasks]]
name = "pair"
kind = "script"
count = 2
script.steps = [
  {repeat = 3, name = "p0", steps = [{lock = "m"}, {run_us = 500}, {unlock = "m"}, {sleep_us = 2000}]},
  {repeat = 1, name = "p1", steps = [{run_us = 100}, {barrier = "b"}, {yield = true}]},
]
"""


def test_an_rt_app_workload_is_the_scenario_it_maps_to(tmp_path: Path) -> None:
    sc = parse_rtapp(json.dumps(WORKLOAD), str(tmp_path / "workload.json"))
    assert sc.duration_s == 2.0 and sc.machine.cpus == 1
    video, hog, pair = sc.tasks
    assert video.script == st.Script((st.Run(3 * MS), st.Timer("unique", 16 * MS)), -1, 0)
    assert hog.nice == 5 and pair.count == 2
    assert [s.name for s in pair.script.steps if isinstance(s, st.Repeat)] == ["p0", "p1"]
    a, _ = run_once(sc, None)
    b, _ = run_once(parse_scenario(SAME_IN_TOML), None)
    assert a.summary()["threads"] == b.summary()["threads"]
    video_share = a.summary()["threads"]["video"]["share"]
    assert 0.17 < video_share < 0.19  # 3 ms every 16 ms, as the workload says


def test_unique_timers_belong_to_an_instance_and_shared_ones_to_all(tmp_path: Path) -> None:
    shares = {}
    for ref in ("unique", "shared"):
        w = {
            "global": {"duration": 1},
            "tasks": {"t": {"instance": 2, "run": 1000, "timer": {"ref": ref, "period": 10000}}},
        }
        sim, _ = run_once(parse_rtapp(json.dumps(w), "w.json"), None)
        shares[ref] = sim.summary()["threads"]["t.0"]["share"]
    # rt-app: a shared timer moves on one period at each use, by either instance
    assert shares["unique"] == pytest.approx(0.1, abs=0.005)
    assert shares["shared"] == pytest.approx(0.05, abs=0.005)


def test_unsupported_rt_app_events_are_named_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    w = {
        "tasks": {
            "a": {"run": 100, "mem": 4096},
            "b": {"policy": "SCHED_FIFO", "phases": {"x": {"run": 10, "fork": "a", "suspend": ""}}},
        }
    }
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(w))
    code = main(["run", str(path)])
    _, err = capsys.readouterr()
    assert code == 2 and len(err.strip().splitlines()) == 1
    for expect in [str(path), "task 'a': 'mem'", "task 'b' phase 'x': 'fork'", "'suspend'", "SCHED_FIFO"]:
        assert expect in err


def test_run_accepts_rt_app_json_with_duplicate_event_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "dup.json"
    path.write_text('{"tasks": {"t": {"loop": 2, "run": 1000, "sleep": 1000, "run": 2000, "sleep": 5000}}}')
    sc = parse_rtapp(path.read_text(), str(path))
    (t,) = sc.tasks
    assert t.script.loop == 1 and t.script.steps == (
        st.Repeat(2, (st.Run(MS), st.Sleep(MS), st.Run(2 * MS), st.Sleep(5 * MS)), ""),
    )
    code = main(["run", str(path), "--json", "--duration", "0.1"])
    out, _ = capsys.readouterr()
    assert code == 0 and json.loads(out)["threads"]["t"]["cpu_s"] == pytest.approx(0.006)
