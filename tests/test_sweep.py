"""``schedlab sweep``: every combination and seed, the same values in parallel as one after another and
as single runs, on a local Dask cluster too; metric names checked first; Ctrl-C and closed pipes quiet."""

from __future__ import annotations

import contextlib
import csv
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from model.cli import EXIT_BROKEN_PIPE, EXIT_INTERRUPTED, main
from model.cli import jobs as jobs_module
from model.cli.runs import build_scenario, run_once
from model.metrics import metric_at

SWEEP = [
    "sweep", "qdisc-fairness-2011", "--vary", "qdisc.weight_p=8,64", "--vary", "qdisc.exit_rule=time,quota",
    "--seeds", "1-2", "--metric", "fairness_jain", "--duration", "0.02",
]  # fmt: skip


def sweep_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, *extra: str) -> str:
    out = tmp_path / f"{name}.csv"
    code = main([*SWEEP, "--out", str(out), *extra])
    _, err = capsys.readouterr()
    assert code == 0, err
    return out.read_text()


def test_parallel_sweep_is_the_sequential_one_and_the_single_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = sweep_csv(tmp_path, capsys, "one", "--jobs", "1")
    two = sweep_csv(tmp_path, capsys, "two", "--jobs", "2")
    assert one == two
    rows = list(csv.DictReader(one.splitlines()))
    assert len(rows) == 2 * 2 * 2
    for row in rows:
        sets = [f"qdisc.weight_p={row['qdisc.weight_p']}", f"qdisc.exit_rule={row['qdisc.exit_rule']}"]
        sim, _ = run_once(build_scenario("qdisc-fairness-2011", sets, 0.02), int(row["seed"]))
        assert float(row["fairness_jain"]) == metric_at(sim.summary(), "fairness_jain")


def test_sweep_plot_has_every_line_and_the_seed_spread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plot = tmp_path / "jain.svg"
    code = main([*SWEEP, "--jobs", "1", "--plot", str(plot)])
    out, err = capsys.readouterr()
    assert code == 0, err
    text = plot.read_text()
    assert "qdisc.exit_rule=time" in text and "qdisc.exit_rule=quota" in text
    assert text.count('fill-opacity="0.15"') == 2  # a min-max band per line
    assert "median" in out


def test_sweep_on_a_local_dask_cluster(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip(
        "distributed", reason="the dask extra is not installed (pip install 'schedlab[dask]')"
    )
    from distributed import LocalCluster

    local = sweep_csv(tmp_path, capsys, "local", "--jobs", "1")
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        remote = sweep_csv(
            tmp_path, capsys, "dask", "--executor", "dask", "--scheduler", cluster.scheduler_address
        )
    assert remote == local


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--vary", "qdisc.weight_p=8", "--metric", "jain"], "allowed: bandwidth_mbps"),
        (["--vary", "qdisc.weight_p=8,0", "--metric", "fairness_jain"], "qdisc.weight_p"),
        (["--vary", "qdisc.nope=1", "--metric", "fairness_jain"], "qdisc.nope"),
        (["--vary", "qdisc.weight_p", "--metric", "fairness_jain"], "KEY=V1,V2"),
        (["--vary", "qdisc.weight_p=8", "--metric", "fairness_jain", "--seeds", "5-1"], "--seeds"),
        (["--vary", "qdisc.weight_p=8", "--metric", "fairness_jain", "--jobs", "0"], "--jobs"),
        (["--vary", "qdisc.weight_p=8", "--metric", "fairness_jain", "--executor", "dask"], "--scheduler"),
        (["--vary", "qdisc.weight_p=8", "--metric", "fairness_jain", "--out", "x.txt"], "CSV"),
        (
            ["--vary", "qdisc.weight_p=8,64", "--set", "qdisc.weight_p=4", "--metric", "fairness_jain"],
            "also given",
        ),
        (
            [
                "--vary",
                "qdisc.bands=3",
                "--set",
                "qdisc.weight_p=4",
                "--set",
                "qdisc.weight_p=8",
                "--metric",
                "x",
            ],
            "twice",
        ),
    ],
)
def test_bad_sweeps_are_one_line(capsys: pytest.CaptureFixture[str], argv: list[str], says: str) -> None:
    code = main(["sweep", "qdisc-fairness-2011", "--duration", "0.01", *argv])
    _, err = capsys.readouterr()
    assert code == 2 and says in err and len(err.strip().splitlines()) == 1, err


def test_ctrl_c_ends_a_sweep_quietly_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    done = []

    def interrupted(source: object, metric: str, job: jobs_module.Job) -> tuple[int, float | None]:
        if done:
            raise KeyboardInterrupt
        done.append(job)
        return job.index, 1.0

    monkeypatch.setattr(jobs_module, "run_job", interrupted)
    out = tmp_path / "s.csv"
    code = main([*SWEEP, "--jobs", "1", "--out", str(out), "--plot", str(tmp_path / "s.svg")])
    stdout, err = capsys.readouterr()
    assert code == EXIT_INTERRUPTED and err == "" and stdout == ""
    assert list(tmp_path.iterdir()) == []


def test_a_closed_pipe_ends_quietly() -> None:
    """The reader is gone before the command writes (as with `| head` on a long output)."""
    schedlab = Path(sys.executable).with_name("schedlab")
    if not schedlab.exists():
        pytest.skip("the schedlab script is not installed beside this Python")
    for argv in (
        ["run", "yield-playground", "--duration", "0.2", "--json"],
        ["compare", "--preset", "compat-yield", "--duration", "0.2"],
        ["sweep", "yield-playground", "--vary", "sched.policy=o1,bfs", "--metric", "bandwidth_mbps",
         "--duration", "0.05", "--jobs", "1"],
    ):  # fmt: skip
        read, write = os.pipe()
        os.close(read)
        done = subprocess.run(
            [str(schedlab), *argv], stdout=write, stderr=subprocess.PIPE, timeout=120, check=False
        )
        os.close(write)
        assert done.stderr == b"", (argv, done.stderr)
        assert done.returncode == EXIT_BROKEN_PIPE, argv


def test_ctrl_c_stops_a_parallel_sweep_and_its_workers(tmp_path: Path) -> None:
    """SIGINT to the process group, as a terminal's Ctrl-C sends it: status 130, no output, no file,
    no worker left behind."""
    schedlab = Path(sys.executable).with_name("schedlab")
    if not schedlab.exists():
        pytest.skip("the schedlab script is not installed beside this Python")
    argv = [*SWEEP[:3], "qdisc.weight_p=1,2,4,8,16,32", "--metric", "fairness_jain", "--duration", "10"]
    with subprocess.Popen(
        [str(schedlab), *argv, "--jobs", "2", "--out", "s.csv", "--plot", "s.svg"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    ) as proc:
        time.sleep(3)
        assert proc.poll() is None, "the sweep ended before the test could interrupt it"
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == EXIT_INTERRUPTED and out == b"" and err == b""
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ProcessLookupError):
        os.killpg(proc.pid, 0)  # the whole group, workers included, is gone


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue  # ended while listed
            if int(stat.rpartition(")")[2].split()[1]) == pid:
                out.append(int(entry.name))
    return out


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds the workers through /proc")
def test_a_killed_worker_ends_the_sweep_in_one_line(tmp_path: Path) -> None:
    """A worker killed from outside (the OOM killer): one line, status 2, no file, nothing left running.
    A multiprocessing.Pool waited for the lost run forever."""
    schedlab = Path(sys.executable).with_name("schedlab")
    if not schedlab.exists():
        pytest.skip("the schedlab script is not installed beside this Python")
    argv = [*SWEEP[:3], "qdisc.weight_p=1,2,4,8,16,32", "--metric", "fairness_jain", "--duration", "10"]
    with subprocess.Popen(
        [str(schedlab), *argv, "--jobs", "2", "--out", "s.csv"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    ) as proc:
        deadline = time.monotonic() + 30
        while not (workers := _children(proc.pid)) and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(1)
        assert proc.poll() is None and workers, "no worker to kill"
        os.kill(workers[-1], signal.SIGKILL)
        try:
            out, err = proc.communicate(timeout=60)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 2 and out == b"", err
    assert len(err.strip().splitlines()) == 1 and b"worker process" in err, err
    assert list(tmp_path.iterdir()) == []


def test_the_table_prints_every_row_with_the_columns_decimals() -> None:
    # "93.9" stood over "64.23" (four significant digits each, the zeros dropped), and a count of a
    # million packets would print as 1.235e+06.
    from model.cli.sweep import decimals

    assert decimals([93.9, 64.23]) == 2 and f"{93.9:.{decimals([93.9, 64.23])}f}" == "93.90"
    assert decimals([0.5356, 0.9876]) == 4
    assert decimals([1_234_567.0, 12.0]) == 0
    assert decimals([0.0012]) == 6 and decimals([0.0]) == 0 and decimals([]) == 0
    assert decimals([float("nan"), 5.0]) == 3
