"""The model compiled with mypyc is the same model: identical results to its Python sources.

``./run.sh test`` compiles the model first and sets SCHEDLAB_EXPECT_NATIVE=1, so in CI these tests run
against the compiled build and a build that silently fell back to Python fails here.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import model

ROOT = Path(__file__).resolve().parent.parent

CASES = {
    "2007 o1 sched_yield": ["cfs-yield-2007", "--duration", "1", "--set", "sched.policy=o1"],
    "2007 cfs-2.6.23 compat": ["cfs-yield-2007", "--duration", "1", "--set", "sched.compat_yield=1"],
    "2007 cfs-2.6.24 usleep0": [
        "cfs-yield-2007", "--duration", "1", "--set", "sched.policy=cfs-2.6.24",
        "--set", "iperf.thread_rest=usleep0",
    ],
    "2007 bfs fixed": ["cfs-yield-2007", "--duration", "1", "--set", "sched.policy=bfs",
                       "--set", "iperf.thread_rest=fixed"],
    "2007 eevdf sched_yield": ["cfs-yield-2007", "--duration", "1", "--set", "sched.policy=eevdf"],
    "2009 cfs-2.6.24": ["bfs-saturated-2009", "--duration", "0.5"],
    "2011 time": ["qdisc-fairness-2011", "--duration", "0.05", "--set", "qdisc.exit_rule=time"],
    "2011 quota+jiffy, dummy": [
        "qdisc-fairness-2011", "--duration", "0.05", "--set", "qdisc.exit_rule=quota+jiffy",
        "--set", "net.device=dummy",
    ],
    "2011 quota, per-packet reference": [
        "qdisc-fairness-2011", "--duration", "0.02", "--set", "qdisc.exit_rule=quota",
        "--set", "qdisc.per_packet=true",
    ],
    "playground": ["yield-playground", "--duration", "0.5", "--seed", "7"],
}  # fmt: skip


def run_json(args: list[str], pure: bool, tmp_path: Path) -> tuple[dict[str, object], str]:
    env = dict(os.environ, SCHEDLAB_PURE="1" if pure else "0")
    csv_path = tmp_path / ("pure.csv" if pure else "native.csv")
    done = subprocess.run(
        [sys.executable, "-m", "gui.cli", "run", *args, "--json", "--csv", str(csv_path)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    summary = json.loads(done.stdout)
    return summary, csv_path.read_text()


def test_the_build_is_native_where_it_is_expected() -> None:
    if os.environ.get("SCHEDLAB_EXPECT_NATIVE") != "1":
        pytest.skip("SCHEDLAB_EXPECT_NATIVE is not set: this run may use the Python sources")
    assert model.NATIVE, "run.sh compiled the model, but model/__init__.py does not use the build"


@pytest.mark.parametrize("case", CASES)
def test_compiled_and_pure_models_agree(case: str, tmp_path: Path) -> None:
    if not model.NATIVE:
        pytest.skip("the model is not compiled here (python -m model.build_native builds it)")
    native, native_csv = run_json(CASES[case], pure=False, tmp_path=tmp_path)
    pure, pure_csv = run_json(CASES[case], pure=True, tmp_path=tmp_path)
    assert native["sim"].pop("compiled") is True and pure["sim"].pop("compiled") is False  # type: ignore[attr-defined]
    for summary in (native, pure):
        summary["sim"].pop("wall_s")  # type: ignore[attr-defined]
    assert native == pure
    assert native_csv == pure_csv


def loaded_from(tree: Path) -> tuple[bool, str]:
    """(model.NATIVE, model.machine's file name) for the model package copied into ``tree``."""
    code = "import model, model.machine; print(model.NATIVE, Path(model.machine.__file__).name)"
    done = subprocess.run(
        [sys.executable, "-c", "from pathlib import Path; " + code], cwd=tree,
        env=dict(os.environ, SCHEDLAB_PURE="0", PYTHONPATH=str(tree)),
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    native, name = done.stdout.split()
    return native == "True", name


def test_an_edited_source_is_not_shadowed_by_a_stale_build(tmp_path: Path) -> None:
    """The compiled modules are used while they match the sources; after an edit, the sources are."""
    if not model.NATIVE:
        pytest.skip("the model is not compiled here (python -m model.build_native builds it)")
    shutil.copytree(ROOT / "model", tmp_path / "model", ignore=shutil.ignore_patterns("__pycache__"))
    assert loaded_from(tmp_path) == (True, Path(importlib.import_module("model.machine").__file__ or "").name)
    with (tmp_path / "model" / "task.py").open("a") as f:
        f.write("# an edit\n")
    assert loaded_from(tmp_path) == (False, "machine.py")


def test_a_missing_compiler_is_named_with_its_package(monkeypatch: pytest.MonkeyPatch) -> None:
    from model import build_native

    monkeypatch.setattr(build_native.shutil, "which", lambda name: None)
    reason = build_native.missing_prerequisite()
    assert reason is not None and "no C compiler" in reason and "apt-get install gcc" in reason


def test_packages_lists_what_run_sh_installs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from model import build_native

    monkeypatch.setattr(build_native.shutil, "which", lambda name: None)
    monkeypatch.setattr(build_native.sysconfig, "get_paths", lambda: {"include": str(tmp_path)})
    assert build_native.main(["--packages"]) == 0
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    assert capsys.readouterr().out.split() == ["gcc", "libc6-dev", f"python{version}-dev"]


def test_missing_python_headers_are_named_with_their_package(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from model import build_native

    monkeypatch.setattr(build_native.shutil, "which", lambda name: "/usr/bin/" + name)
    monkeypatch.setattr(build_native.sysconfig, "get_paths", lambda: {"include": str(tmp_path)})
    reason = build_native.missing_prerequisite()
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    assert reason is not None and "no Python headers" in reason and f"python{version}-dev" in reason


def test_without_a_compiler_the_build_says_so_in_one_line_and_exits_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from model import build_native

    monkeypatch.setattr(build_native.shutil, "which", lambda name: None)
    assert build_native.main([]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("schedlab: cannot compile the model: no C compiler")
