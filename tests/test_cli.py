"""The headless command line: its JSON contract and one-line errors with exit status 2."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from model.cli import main
from model.keyspec import KeySpec, allowed_text
from model.scenario import section_specs


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_list_names_every_builtin_story(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "list")
    assert code == 0
    names = {line.split()[0] for line in out.splitlines()}
    assert {"cfs-yield-2007", "bfs-saturated-2009", "qdisc-fairness-2011"} <= names


def test_run_json_has_the_contract_fields(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    csv_path = tmp_path / "series.csv"
    argv = ["run", "cfs-yield-2007", "--set", "sched.policy=o1", "--duration", "0.5", "--seed", "7"]
    code, out, _ = run(capsys, *argv, "--json", "--csv", str(csv_path))
    assert code == 0
    d = json.loads(out)
    for key in ("scenario", "seed", "duration_s", "settings", "bandwidth_mbps", "threads", "cpus"):
        assert key in d
    assert "system_context_switches_per_s" in d
    assert d["seed"] == 7
    assert d["duration_s"] == pytest.approx(0.5)
    assert d["settings"]["sched.policy"] == "o1"
    for key in ("sched.compat_yield", "iperf.thread_rest", "machine.cpus", "machine.hz"):
        assert key in d["settings"]
    assert set(d["threads"]["iperf-data"]) == {"cpu_s", "share", "yields", "switches"}
    assert set(d["cpus"][0]) == {"busy", "user", "hardirq", "softirq"}
    assert {"events", "wall_s"} <= set(d["sim"])
    rows = csv_path.read_text().splitlines()
    assert rows[0].startswith("t_s,bandwidth_mbps")
    assert len(rows) == 6  # header + five 100 ms intervals


def test_run_json_for_the_qdisc_story(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "run", "qdisc-fairness-2011", "--duration", "0.02", "--json")
    assert code == 0
    d = json.loads(out)
    q = d["qdisc"]
    assert set(q["exit_reasons"]) == {"quota", "need_resched", "jiffy", "empty", "tx_busy"}
    assert len(q["per_cpu_dequeued"]) == 4
    assert 0 < d["fairness_jain"] <= 1
    assert len(q["bands"]) == 3
    assert q["runs"] > 0


def test_run_text_splits_the_packets_offered_to_the_qdisc(capsys: pytest.CaptureFixture[str]) -> None:
    # "qdisc enqueued 416,961 dropped 265,457": the first count took in the drops; the line now says
    # what it is and how it splits, each number the JSON's own.
    code, out, _ = run(capsys, "run", "qdisc-fairness-2011", "--duration", "0.02", "--json")
    q = json.loads(out)["qdisc"]
    code, text, _ = run(capsys, "run", "qdisc-fairness-2011", "--duration", "0.02")
    assert code == 0 and q["dropped"] > 0
    line = next(x for x in text.splitlines() if x.strip().startswith("qdisc "))
    assert line.split() == [
        "qdisc", "offered", f"{q['enqueued']:,}", "dequeued", f"{q['dequeued']:,}",
        "dropped", f"{q['dropped']:,}", "backlog", f"{q['backlog']:,}",
    ]  # fmt: skip
    assert q["enqueued"] == q["dequeued"] + q["dropped"] + q["backlog"]
    # Each CPU's dequeues, then its share of them (jamal's table, and the window's cpuN tiles).
    line = next(x for x in text.splitlines() if x.strip().startswith("dequeued per CPU"))
    counts = q["per_cpu_dequeued"]
    shares = " / ".join(f"{100 * n / sum(counts):.1f}" for n in counts)
    numbers = " / ".join(f"{n:,}" for n in counts)
    assert line.strip().startswith(f"dequeued per CPU {numbers}  ({shares} %, Jain")
    # Why the loops ended, each reason's count and share of the exits (as jamal counted them).
    line = next(x for x in text.splitlines() if x.strip().startswith("dequeuer tenures"))
    exits = {k: v for k, v in q["exit_reasons"].items() if v}
    assert len(exits) >= 2
    assert line.split(": ", 1)[1] == ", ".join(
        f"{k} {v:,} ({100 * v / sum(q['exit_reasons'].values()):.1f} %)" for k, v in exits.items()
    )


def test_run_lists_the_scenarios_threads_before_the_kernels(capsys: pytest.CaptureFixture[str]) -> None:
    # ksoftirqd/0..3 have the first tids (the kernel made them first) but are rarely the story.
    code, out, _ = run(capsys, "run", "qdisc-fairness-2011", "--duration", "0.01")
    assert code == 0
    names = [line.split()[0] for line in out.splitlines() if re.match(r"  (sender|ksoftirqd)", line)]
    assert names == [f"sender.{i}" for i in range(4)] + [f"ksoftirqd/{i}" for i in range(4)], names


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["run", "nope"], "unknown scenario 'nope'"),
        (["run", "cfs-yield-2007", "--set", "sched.polcy=o1"], "sched.polcy"),
        (["run", "cfs-yield-2007", "--set", "sched.policy=ule"], "one of o1, cfs-2.6.23"),
        (["run", "cfs-yield-2007", "--set", "machine.cpus=0"], "1..64"),
        (["run", "cfs-yield-2007", "--set", "sched.compat_yield=2"], "one of 0, 1"),
        (["run", "cfs-yield-2007", "--set", "nonsense"], "KEY=VALUE"),
        (["run", "cfs-yield-2007", "--duration", "x"], "--duration: 'x' is not a number"),
        (["run", "qdisc-fairness-2011", "--set", "qdisc.exit_rule=jiffies"], "time, quota+jiffy, quota"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], needle: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert needle in err


def test_a_long_word_is_a_string_as_a_short_one_is(capsys: pytest.CaptureFixture[str]) -> None:
    # A 150-letter title was refused as "a bare word or number of 150 characters; at most 100 (allowed:
    # a string of at most 200 characters)"; only the key's own limit refuses a word now.
    title = "x" * 150
    run = ["run", "cfs-yield-2007", "--duration", "0.01", "--set"]
    assert main([*run, f"scenario.title={title}", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["settings"]["scenario.title"] == title
    assert main([*run, f"scenario.title={title * 2}"]) == 2
    assert capsys.readouterr().err.strip().endswith("allowed: a string of at most 200 characters")
    assert main([*run, f"machine.cpus={'1' * 150}"]) == 2
    assert "a bare word or number of 150 characters" in capsys.readouterr().err  # a number stays refused


def test_a_refused_true_or_false_reads_as_it_was_typed(capsys: pytest.CaptureFixture[str]) -> None:
    # "--set machine.cpus=true" was refused as "machine.cpus = True" (Python's spelling, not TOML's).
    run = ["run", "cfs-yield-2007", "--duration", "0.01", "--set"]
    assert main([*run, "machine.cpus=true"]) == 2
    assert "machine.cpus = true is not allowed" in capsys.readouterr().err
    assert main([*run, "net.irq_cpus=[false]"]) == 2
    err = capsys.readouterr().err
    assert "[false]" in err and "False" not in err


def test_an_output_name_a_bare_word_would_blur_is_quoted(capsys: pytest.CaptureFixture[str]) -> None:
    # "--plot x y.gif: unknown format '.gif'" left where the name ends to the reader; a plain name
    # stays as typed ("--out x.gif").
    args = ["sweep", "cfs-yield-2007", "--vary", "sched.policy=o1,bfs", "--metric", "bandwidth_mbps"]
    assert main([*args, "--plot", "x y.gif"]) == 2
    assert "--plot 'x y.gif': unknown format '.gif'; allowed: .svg, .png" in capsys.readouterr().err
    assert main([*args, "--plot", "x.gif"]) == 2
    assert "--plot x.gif: unknown format '.gif'" in capsys.readouterr().err
    run = ["run", "cfs-yield-2007", "--duration", "0.01"]
    assert main([*run, "--csv", "no such folder/a b.csv"]) == 2
    assert "--csv 'no such folder/a b.csv': " in capsys.readouterr().err


def test_malformed_and_unknown_keys_in_a_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[machine\ncpus = 2\n")
    code, _, err = run(capsys, "run", str(bad))
    assert code == 2
    assert "malformed TOML" in err and str(bad) in err
    unknown = tmp_path / "unknown.toml"
    unknown.write_text("[machine]\ncpus = 2\nturbo = true\n")
    code, _, err = run(capsys, "run", str(unknown))
    assert code == 2
    assert "machine.turbo" in err and "cpus" in err


def test_unwritable_csv_path(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(
        capsys, "run", "cfs-yield-2007", "--duration", "0.1", "--csv", str(tmp_path / "no" / "x.csv")
    )
    assert code == 2
    assert "--csv" in err


def test_the_readme_example_scenario_runs(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    block = readme.split("```toml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "example.toml"
    path.write_text(block)
    code, out, err = run(capsys, "run", str(path), "--duration", "0.2", "--json")
    assert code == 0, err
    assert set(json.loads(out)["threads"]) == {"hog", "niced", "poller", "maker"}


def _readme_row(spec: KeySpec) -> str:
    value = spec.default
    if isinstance(value, bool):
        shown = "`true`" if value else "`false`"
    elif isinstance(value, tuple):
        shown = "`[" + ", ".join(str(v) for v in value) + "]`"
    else:
        shown = "(empty)" if value == "" else f"`{value}`"
    return f"| `{spec.key}` | {shown} | {allowed_text(spec)} | {spec.doc} |"


@pytest.mark.parametrize("section", ["machine", "qdisc", "xmit"])
def test_the_readme_key_table_of_the_transmit_path_is_the_specs(section: str) -> None:
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    documented = [line for line in readme.splitlines() if re.match(rf"\| `{section}\.\w+` \|", line)]
    expected = [_readme_row(spec) for spec in section_specs(section).values()]
    assert documented == expected, f"README's {section}.* rows differ from model/scenario_sections.py"


def test_csv_replaces_the_file_only_when_complete(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    target = tmp_path / "series.csv"
    target.write_text("an older run\n")
    code, _, err = run(capsys, "run", "cfs-yield-2007", "--duration", "0.2", "--csv", str(target))
    assert code == 0, err
    assert target.read_text().startswith("t_s,bandwidth_mbps")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["series.csv"]  # no temporary file left


def test_csv_onto_a_folder_fails_in_one_line_and_leaves_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "taken").mkdir()
    code, _, err = run(capsys, "run", "cfs-yield-2007", "--duration", "0.1", "--csv", str(tmp_path / "taken"))
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and "--csv" in err and "cannot write" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]
    assert not list((tmp_path / "taken").iterdir())


@pytest.mark.parametrize("cpus", [1, 2, 8])
def test_set_machine_cpus_resizes_the_2011_story_as_the_cpus_control_does(
    capsys: pytest.CaptureFixture[str], cpus: int
) -> None:
    # One sender per CPU and the NIC's interrupts on CPUs that exist (cpu1 and cpu2; the last CPU when
    # fewer), so every count in range runs; before, two CPUs were refused and eight kept four senders.
    code, out, err = run(
        capsys, "run", "qdisc-fairness-2011", "--set", f"machine.cpus={cpus}", "--duration", "0.01", "--json"
    )
    assert code == 0, err
    d = json.loads(out)
    senders = [name for name in d["threads"] if name.startswith("sender")]
    assert len(senders) == cpus == len(d["cpus"])
    assert d["settings"]["net.irq_cpus"] == sorted({min(c, cpus - 1) for c in (1, 2)})


def test_an_explicit_irq_cpus_beside_a_new_cpu_count_is_kept(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["run", "qdisc-fairness-2011", "--set", "machine.cpus=8", "--set", "net.irq_cpus=[0,7]"]
    code, out, err = run(capsys, *argv, "--duration", "0.01", "--json")
    assert code == 0, err
    assert json.loads(out)["settings"]["net.irq_cpus"] == [0, 7]


def test_run_text_states_a_bandwidth_only_where_something_is_on_a_network(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The playground (three tasks, no network) printed "bandwidth 0.0 Mbit/s".
    code, out, _ = run(capsys, "run", "yield-playground", "--duration", "0.02")
    assert code == 0 and "bandwidth" not in out and "context switches" in out
    for story in ("cfs-yield-2007", "bfs-saturated-2009", "qdisc-fairness-2011"):
        code, out, _ = run(capsys, "run", story, "--duration", "0.02")
        assert code == 0 and "  bandwidth " in out, story


def test_a_schedlab_process_starts_no_blas_threads() -> None:
    """numpy's OpenBLAS would start a spinning thread per core (about 0.1 s of CPU per process); the
    model does no linear algebra, so it asks for one unless the user set a number."""
    code = (
        "import model.cli, numpy, os; "
        "print(os.environ['OPENBLAS_NUM_THREADS'], len(os.listdir('/proc/self/task')))"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["1", "1"]  # the setting, and the process's threads: the main one alone
    env["OPENBLAS_NUM_THREADS"] = "2"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split()[0] == "2"  # the user's own setting stands
