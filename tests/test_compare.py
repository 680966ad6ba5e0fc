"""A/B compare: sides in lockstep are the same runs as alone, differences are read off their summaries,
presets are data that refuse the wrong scenario, and the figure is a plain SVG (or PNG)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from model.cli import main
from model.cli.runs import build_scenario, run_once
from model.compare import Lockstep, Side, differences, parse_side, side_scenario
from model.metrics import metric_at, metric_paths
from model.presets import PRESETS
from model.scenario import ScenarioError
from model.sched.base import NSEC_PER_SEC
from model.simulation import SetTunable, live_command


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_lockstep_sides_are_the_runs_they_would_be_alone() -> None:
    base = build_scenario("cfs-yield-2007", [], 0.6)
    sides = [parse_side("A", ["sched.policy=o1"]), parse_side("B", ["sched.policy=cfs-2.6.23"])]
    lock = Lockstep(base, sides)
    for _ in range(3):
        snaps = lock.advance(200_000_000)
        assert len({s.t_ns for s in snaps}) == 1  # one clock
    for side, summary in zip(sides, lock.summaries(), strict=True):
        alone, _ = run_once(side_scenario(base, side), None)
        assert {k: v for k, v in summary.items() if k != "sim"} == {
            k: v for k, v in alone.summary().items() if k != "sim"
        }


def test_a_live_toggle_on_one_side_only() -> None:
    base = build_scenario("yield-playground", [], 0.4)
    lock = Lockstep(base, [Side("A", ()), Side("B", ())])
    lock.advance(100_000_000)
    lock.apply(SetTunable("sched.compat_yield", 1), sides=[1])
    lock.advance(300_000_000)
    a, b = lock.summaries()
    assert a["toggles"] == [] and b["toggles"] == [{"t_s": 0.1, "key": "sched.compat_yield", "value": 1}]
    assert a["threads"] != b["threads"]


@pytest.mark.parametrize("value", [2.0, 0.5, True, [2], "2"])
def test_a_live_value_of_the_wrong_kind_is_refused_in_one_line(value: object) -> None:
    # A float came through the compare window's text box and ended in a TypeError; 2.0 and True passed
    # ``in range`` before.
    with pytest.raises(ScenarioError, match=r"^qdisc\.weight_p = .*; allowed: 1\.\.100000$"):
        live_command("qdisc.weight_p", value)
    assert live_command("qdisc.weight_p", 2) == SetTunable("qdisc.weight_p", 2)
    with pytest.raises(ScenarioError, match="not a live setting"):
        live_command("xmit.user_ns", 2)


def test_differences_are_read_off_the_summaries() -> None:
    base = build_scenario("qdisc-fairness-2011", [], 0.05)
    lock = Lockstep(
        base, [parse_side("A", ["qdisc.exit_rule=time"]), parse_side("B", ["qdisc.exit_rule=quota"])]
    )
    lock.advance(round(0.05 * NSEC_PER_SEC))
    sa, sb = lock.summaries()
    found = {d.metric.path: d for d in differences([sa, sb], ["A", "B"])}
    jain = found["fairness_jain"]
    assert jain.values == (sa["fairness_jain"], sb["fairness_jain"])
    assert jain.texts == (f"Jain {sa['fairness_jain']:.2f} → {sb['fairness_jain']:.2f}",)
    bw = found["bandwidth_mbps"]
    delta = sb["bandwidth_mbps"] - sa["bandwidth_mbps"]
    sign = "" if f"{abs(delta):.1f}" == "0.0" else "+" if delta > 0 else "−"
    assert bw.texts == (f"B − A: {sign}{abs(delta):.1f} Mbit/s",)
    # The story's table (each CPU's share of the dequeues) follows Jain's index; the threads come last,
    # sender.0 before ksoftirqd/0.
    paths = [d.metric.path for d in differences([sa, sb], ["A", "B"])]
    shares = [f"qdisc.per_cpu_dequeue_shares.{cpu}" for cpu in range(4)]
    assert paths[:7] == ["bandwidth_mbps", "fairness_jain", *shares, "system_context_switches_per_s"]
    for cpu, path in enumerate(shares):
        counts = [s["qdisc"]["per_cpu_dequeued"] for s in (sa, sb)]
        assert found[path].values == pytest.approx([100 * c[cpu] / sum(c) for c in counts], abs=0.01)
        assert found[path].metric.label == f"cpu{cpu} dequeues"
    assert len({found[p].values for p in shares}) > 1  # not one number four times
    threads = [p.removeprefix("threads.").removesuffix(".share") for p in paths if p.startswith("threads.")]
    assert threads == [f"sender.{i}" for i in range(4)] + [f"ksoftirqd/{i}" for i in range(4)]


def test_compare_json_from_a_preset(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "compare", "--preset", "compat-yield", "--duration", "1", "--json")
    assert code == 0, err
    d = json.loads(out)
    assert [s["label"] for s in d["sides"]] == ["A", "B"]
    assert d["sides"][1]["settings"] == {"sched.policy": "cfs-2.6.23", "sched.compat_yield": "1"}
    for diff in d["differences"]:
        values = [metric_at(s["summary"], diff["metric"]) for s in d["sides"]]
        scale = 100.0 if diff["unit"] == "%" else 1.0
        assert diff["values"] == pytest.approx([v * scale for v in values if v is not None])
        assert diff["vs_a"] == pytest.approx([diff["values"][1] - diff["values"][0]])
    assert d["same_outcome"] is False


def test_the_yield_remedies_preset_shows_either_remedy_restoring_the_bandwidth(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # What the README says of it: the sched_yield build under CFS is slow, each remedy brings it back.
    code, out, err = run(capsys, "compare", "--preset", "yield-remedies", "--duration", "3", "--json")
    assert code == 0, err
    a, b, c = (s["summary"]["bandwidth_mbps"] for s in json.loads(out)["sides"])
    assert a < 0.75 * b and b == pytest.approx(c, rel=0.01), (a, b, c)


def test_compare_prints_the_difference_and_notes_equal_runs(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "compare",
        "cfs-yield-2007",
        "--a",
        "sched.policy=o1",
        "--b",
        "sched.policy=bfs",
        "--duration",
        "0.5",
    )
    assert code == 0 and "B − A:" in out and "bandwidth" in out
    # iperf's build does nothing in a scenario without iperf: said, not hidden
    code, out, _ = run(
        capsys, "compare", "yield-playground", "--a", "iperf.thread_rest=fixed",
        "--b", "iperf.thread_rest=usleep0", "--duration", "0.2",
    )  # fmt: skip
    assert code == 0 and "came out the same" in out


def test_a_side_given_twice_has_both_settings(capsys: pytest.CaptureFixture[str]) -> None:
    """``--b K=V --b K2=V2`` is one side with both, as ``--set`` repeats (the first was dropped)."""
    code, out, err = run(
        capsys, "compare", "bfs-saturated-2009", "--a", "sched.policy=cfs-2.6.24", "--b", "sched.policy=bfs",
        "--b", "net.udelay_us=500", "--duration", "0.2", "--json",
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["sides"][1]["settings"] == {"sched.policy": "bfs", "net.udelay_us": "500"}


def test_compare_lines_up_its_columns_under_a_long_label(capsys: pytest.CaptureFixture[str]) -> None:
    # "context switches (system) (/s)" is 30 characters in a 28-wide column: its numbers sat two
    # columns right of the others.
    code, out, _ = run(
        capsys, "compare", "cfs-yield-2007", "--a", "sched.policy=o1", "--b", "sched.policy=bfs",
        "--duration", "0.1",
    )  # fmt: skip
    assert code == 0
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.split() == ["A", "B"])
    rows = [line for line in lines[head + 1 :] if "B − A" in line or "→" in line]
    assert any("context switches (system) (/s)" in row for row in rows)
    # Every difference starts in one column, three past the end of the header's "B" (and so of every
    # B value, right-aligned under it).
    starts = {row.index("B − A") if "B − A" in row else row.index("Jain") for row in rows}
    assert starts == {len(lines[head]) + 3}, (lines[head], rows)


def test_compare_names_idle_kernel_threads_on_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    # The 2011 pair printed four rows "ksoftirqd/N CPU (%)  0.0  0.0  B − A: 0.0 points".
    code, out, _ = run(capsys, "compare", "--preset", "time-vs-quota", "--duration", "0.05")
    assert code == 0
    lines = out.splitlines()
    assert not [line for line in lines if line.lstrip().startswith("ksoftirqd/")]
    idle = [line for line in lines if "on every side" in line]
    assert idle == ["  (ksoftirqd/0, ksoftirqd/1, ksoftirqd/2, ksoftirqd/3: 0.0 % CPU on every side)"]
    assert sum(line.lstrip().startswith("sender.") for line in lines) == 4  # busy threads keep their rows
    code, out, _ = run(capsys, "compare", "--preset", "time-vs-quota", "--duration", "0.05", "--json")
    paths = [d["metric"] for d in json.loads(out)["differences"]]
    assert [f"threads.ksoftirqd/{cpu}.share" for cpu in range(4)] == paths[-4:]  # the data keeps them


def test_each_cpus_dequeue_share_is_compared_only_between_machines_of_one_size() -> None:
    # machine.cpus=4 against 2 printed cpu0 and cpu1 rows only: 38.2 + 0.0 % of A's dequeues.
    base = build_scenario("qdisc-fairness-2011", [], 0.02)
    sizes = {}
    for b_cpus in (2, 4):
        lock = Lockstep(base, [parse_side("A", []), parse_side("B", [f"machine.cpus={b_cpus}"])])
        lock.advance(round(0.02 * NSEC_PER_SEC))
        paths = [d.metric.path for d in differences(lock.summaries(), ["A", "B"])]
        sizes[b_cpus] = [p for p in paths if p.startswith("qdisc.per_cpu_dequeue_shares.")]
        assert "fairness_jain" in paths
    assert sizes == {2: [], 4: [f"qdisc.per_cpu_dequeue_shares.{cpu}" for cpu in range(4)]}


def test_compare_figure_is_plain_svg(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fig = tmp_path / "ab.svg"
    code, _, err = run(capsys, "compare", "--preset", "weight-p", "--duration", "0.3", "--out", str(fig))
    assert code == 0, err
    root = ET.parse(fig).getroot()
    assert root.tag.endswith("svg")
    text = fig.read_text()
    assert "A: weight_p 64" in text and "B: weight_p 8" in text
    assert 'stroke-dasharray="9 4"' in text  # B differs by its dash, not only its colour
    assert "Jain index" in text
    assert "<style" not in text and "class=" not in text


def test_a_three_way_figure_wraps_its_caption_inside_the_picture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The caption names every side's settings: with three sides it ran off the figure's right edge.
    from model.cli.figures import CHAR_EM

    fig = tmp_path / "abc.svg"
    code, _, err = run(
        capsys, "compare", "--preset", "yield-remedies", "--duration", "0.3", "--out", str(fig)
    )
    assert code == 0, err
    root = ET.parse(fig).getroot()
    width = float(root.attrib["width"])
    texts = [t for t in root.iter() if t.tag.endswith("text") and t.attrib.get("text-anchor") == "start"]
    caption = [t for t in texts if float(t.attrib["font-size"]) == 11 and float(t.attrib["y"]) < 140]
    assert len(caption) >= 4  # three lines of settings, the notes under them
    joined = " ".join(t.text or "" for t in caption)
    assert "C: sched.policy=cfs-2.6.23 sched.compat_yield=0 iperf.thread_rest=fixed" in joined
    for t in texts:
        size = float(t.attrib["font-size"])
        assert float(t.attrib["x"]) + len(t.text or "") * CHAR_EM * size <= width, t.text
    ys = [float(t.attrib["y"]) for t in caption]
    assert ys == sorted(ys) and len(set(ys)) == len(ys)  # one under another, none over another


def test_compare_figure_as_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("cairosvg", reason="PNG figures need the png extra (CairoSVG)")
    fig = tmp_path / "ab.png"
    code, _, err = run(capsys, "compare", "--preset", "o1-vs-cfs", "--duration", "0.3", "--out", str(fig))
    assert code == 0, err
    assert fig.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["yield-playground", "--preset", "time-vs-quota"], "no qdisc"),
        (["yield-playground", "--preset", "fixed-build"], "no iperf client"),
        (["qdisc-fairness-2011", "--preset", "compat-yield"], "no task of qdisc-fairness-2011 yields"),
        (["cfs-yield-2007", "--a", "sched.policy=o1"], "--b"),
        (["cfs-yield-2007", "--a", "scenario.seed=3", "--b", "sched.policy=o1"], "every side shares it"),
        (["cfs-yield-2007", "--a", "sched.policy=o1", "--b", "sched.policy=o2"], "--b"),
        (["cfs-yield-2007", "--a", "x=1", "--c", "sched.policy=o1"], "--b"),
        (
            ["cfs-yield-2007", "--a", "sched.policy=o1", "--b", "sched.policy=bfs", "--b", "sched.policy=o1"],
            "--b sets sched.policy twice ('bfs', then 'o1')",
        ),
        (["cfs-yield-2007", "--preset", "o1-vs-cfs", "--a", "sched.policy=bfs"], "--preset"),
        (["cfs-yield-2007", "--a", "sched.policy=o1", "--b", "sched.policy=bfs", "--out", "x.gif"], ".svg"),
    ],
)
def test_bad_compares_are_one_line(capsys: pytest.CaptureFixture[str], argv: list[str], says: str) -> None:
    code, _, err = run(capsys, "compare", *argv)
    assert code == 2 and says in err and len(err.strip().splitlines()) == 1, err


def test_presets_are_data_with_two_or_three_sides_that_differ() -> None:
    for p in PRESETS.values():
        base = build_scenario(p.scenario, [], 0.01)
        assert [s.label for s in p.sides] in (["A", "B"], ["A", "B", "C"]), p.name
        settings = [str(sorted(side_scenario(base, s).settings().items())) for s in p.sides]
        assert len(set(settings)) == len(settings), p.name
    assert sum(len(p.sides) == 3 for p in PRESETS.values()) == 2


def test_metric_paths_name_every_number_of_a_summary() -> None:
    sim, _ = run_once(build_scenario("qdisc-fairness-2011", [], 0.01), None)
    s = sim.summary()
    paths = metric_paths(s)
    assert {"fairness_jain", "bandwidth_mbps", "qdisc.per_cpu_dequeued.3", "threads.sender.2.share"} <= set(
        paths
    )
    assert all(metric_at(s, p) is not None for p in paths)
    assert metric_at(s, "threads.sender.2.share") == s["threads"]["sender.2"]["share"]
    assert metric_at(s, "scenario") is None and metric_at(s, "no.such") is None
    # * adds up every entry: the dequeues of all CPUs, every CPU's softirq time (a share of one CPU)
    assert metric_at(s, "qdisc.per_cpu_dequeued.*") == sum(s["qdisc"]["per_cpu_dequeued"])
    assert metric_at(s, "cpus.*.softirq") == pytest.approx(sum(c["softirq"] for c in s["cpus"]))
    assert metric_at(s, "cpus.*.no_such") is None and metric_at(s, "threads.*") is None


def test_compare_shows_interrupts_where_any_side_spends_a_tenth_of_a_cpu_on_them() -> None:
    """2009: CFS and BFS alike leave the CPU to the NIC's interrupts; the sides' rows say so. A side
    without the interrupt load keeps the rows, as they are the difference; 2007 has no such rows."""

    def rows(story: str, a: list[str], b: list[str]) -> dict[str, tuple[float, ...]]:
        base = build_scenario(story, [], 0.2)
        lock = Lockstep(base, [parse_side("A", a), parse_side("B", b)])
        lock.advance(round(0.2 * NSEC_PER_SEC))
        return {d.metric.label: d.values for d in differences(lock.summaries(), ["A", "B"])}

    cfs_bfs = rows("bfs-saturated-2009", ["sched.policy=cfs-2.6.24"], ["sched.policy=bfs"])
    hard, soft = cfs_bfs["hardirq, all CPUs"], cfs_bfs["softirq, all CPUs"]
    assert min(hard) > 80 and hard[0] == pytest.approx(hard[1], abs=1.0) and min(soft) > 0
    quiet = rows("bfs-saturated-2009", ["net.udelay_us=3000"], ["net.udelay_us=0", "net.link_mbps=100"])
    assert (
        quiet["hardirq, all CPUs"][0] > 80
        and sum(quiet["hardirq, all CPUs"][1:]) + sum(quiet["softirq, all CPUs"][1:]) < 10
    )
    assert "hardirq, all CPUs" not in rows(
        "cfs-yield-2007", ["sched.compat_yield=0"], ["sched.compat_yield=1"]
    )


@pytest.mark.parametrize(("name", "more"), [("bfs-yield", "B"), ("eevdf-yield", "A")])
def test_the_playground_yield_presets_show_the_versions_apart(
    capsys: pytest.CaptureFixture[str], name: str, more: str
) -> None:
    # BFS v0.318 keeps the deadline and gives the yielder several times its 2009 share; EEVDF before
    # 6.17 leaves it eligible, about the hog's share, far more than a forfeited request leaves it.
    code, out, err = run(capsys, "compare", "--preset", name, "--duration", "1", "--json")
    assert code == 0, err
    sides = {s["label"]: s["summary"]["threads"]["yielder"]["share"] for s in json.loads(out)["sides"]}
    less = "A" if more == "B" else "B"
    assert sides[more] > 3 * sides[less], sides
