"""The model compiled with mypyc is the same model, and ``./run.sh`` never runs a stale build of it.

``./run.sh test`` compiles the model first (setup.py with SCHEDLAB_COMPILE=1, in place) and, in CI,
sets SCHEDLAB_EXPECT_NATIVE=1, so a build that silently fell back to Python fails here. The pure side
of each comparison is the model's ``.py`` files copied into a temporary folder, where no compiled
module lies beside them. The make-style check that keeps the build current is run.sh's own shell
functions, run here on small fake trees.
"""

from __future__ import annotations

import json
import os
import runpy
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import model

ROOT = Path(__file__).resolve().parent.parent
RUN_SH = ROOT / "run.sh"
EXT = sysconfig.get_config_var("EXT_SUFFIX")
GROUP = f"model/_native__mypyc{EXT}"

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

needs_native = pytest.mark.skipif(
    not model.NATIVE, reason="the model is not compiled here (./run.sh compiles it)"
)


@pytest.fixture(scope="module")
def pure_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The model's Python sources alone, in a folder of their own."""
    tree = tmp_path_factory.mktemp("pure")
    shutil.copytree(ROOT / "model", tree / "model", ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    return tree


SCHEDLAB = "import sys; from model.cli import main; sys.exit(main())"


def run_json(args: list[str], tree: Path, csv_path: Path) -> tuple[dict[str, object], str]:
    """``schedlab run ARGS --json --csv`` with the model package that lies in ``tree``."""
    done = subprocess.run(
        [sys.executable, "-c", SCHEDLAB, "run", *args, "--json", "--csv", str(csv_path)],
        cwd=tree, capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    return json.loads(done.stdout), csv_path.read_text()


def test_the_build_is_native_where_it_is_expected() -> None:
    if os.environ.get("SCHEDLAB_EXPECT_NATIVE") != "1":
        pytest.skip("SCHEDLAB_EXPECT_NATIVE is not set: this run may use the Python sources")
    assert model.NATIVE, "run.sh compiled the model, but Python does not load the compiled modules"


def loaded_from(tree: Path) -> tuple[bool, str]:
    """(model.NATIVE, the file model.simulation loaded from) for the model package in ``tree``."""
    code = "import model, model.simulation as s; print(model.NATIVE, s.__file__)"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tree, capture_output=True, text=True, timeout=60, check=True
    )
    native, path = done.stdout.split()
    return native == "True", Path(path).name


def test_native_says_which_files_python_loads(pure_tree: Path) -> None:
    assert loaded_from(pure_tree) == (False, "simulation.py")
    if model.NATIVE:
        assert loaded_from(ROOT) == (True, f"simulation{EXT}")


@needs_native
@pytest.mark.parametrize("case", CASES)
def test_compiled_and_pure_models_agree(case: str, pure_tree: Path, tmp_path: Path) -> None:
    native, native_csv = run_json(CASES[case], ROOT, tmp_path / "native.csv")
    pure, pure_csv = run_json(CASES[case], pure_tree, tmp_path / "pure.csv")
    assert native["sim"].pop("compiled") is True and pure["sim"].pop("compiled") is False  # type: ignore[attr-defined]
    for summary in (native, pure):
        summary["sim"].pop("wall_s")  # type: ignore[attr-defined]
    assert native == pure
    assert native_csv == pure_csv


# ---- run.sh: the compiled model is rebuilt whenever it is not current ------------------------------


def shell(tree: Path, script: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run ``script`` in ``tree`` with run.sh's functions defined (sourced: its main does not run)."""
    prelude = f'source "{RUN_SH}"; cd "{tree}"; PY="{env.pop("PY", sys.executable)}"; '
    prelude += f'NATIVE_STASH="{tree}/stash"; apt_install() {{ return 1; }}; '
    return subprocess.run(
        ["bash", "-c", prelude + script],
        env={**os.environ, **env}, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


def make_tree(tmp_path: Path) -> Path:
    """A model tree compiled a while ago: sources an hour old, its compiled modules half an hour old."""
    tree = tmp_path / "tree"
    sources = ["model/__init__.py", "model/a.py", "model/sub/__init__.py", "model/sub/b.py", "model/cli/c.py"]
    built = [GROUP, f"model/a{EXT}", f"model/sub/b{EXT}"]
    for i, name in enumerate(sources + built):
        path = tree / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {i}\n")
        age_s = 3600 if name.endswith(".py") else 1800
        os.utime(path, (path.stat().st_mtime - age_s,) * 2)
    return tree


def state(tree: Path) -> str:
    done = shell(tree, f'native_state "{EXT}"')
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_build_newer_than_every_source_is_current(tmp_path: Path) -> None:
    assert state(make_tree(tmp_path)) == "current"


@pytest.mark.parametrize("edited", ["model/a.py", "model/sub/b.py", "model/sub/__init__.py"])
def test_an_edited_source_makes_the_build_stale(tmp_path: Path, edited: str) -> None:
    tree = make_tree(tmp_path)
    (tree / edited).write_text("# an edit\n")
    assert state(tree) == f"{edited} changed"


def test_the_command_line_is_not_part_of_the_build(tmp_path: Path) -> None:
    tree = make_tree(tmp_path)
    (tree / "model/cli/c.py").write_text("# an edit\n")
    assert state(tree) == "current"


def test_a_new_module_or_a_missing_build_is_not_current(tmp_path: Path) -> None:
    tree = make_tree(tmp_path)
    new = tree / "model/new.py"
    new.write_text("x = 1\n")
    os.utime(new, (new.stat().st_mtime - 7200,) * 2)  # older than the build, as a copied file may be
    assert state(tree) == "model/new.py is not compiled"
    (tree / GROUP).unlink()
    assert state(tree) == "not compiled yet"


def test_compiled_modules_without_their_source_are_removed(tmp_path: Path) -> None:
    tree = make_tree(tmp_path)
    orphans = [f"model/gone{EXT}", f"model/cli/c{EXT}", "model/a.cpython-39-x86_64-linux-gnu.so"]
    for name in orphans:
        (tree / name).write_text("")
    done = shell(tree, f'remove_orphans "{EXT}"')
    assert done.returncode == 0, done.stderr
    assert not [name for name in orphans if (tree / name).exists()]
    assert all((tree / name).exists() for name in (GROUP, f"model/a{EXT}", f"model/sub/b{EXT}"))
    assert done.stderr.count("removing") == len(orphans)


def test_run_sh_compiles_the_modules_setup_py_compiles() -> None:
    done = shell(ROOT, "compiled_sources")
    assert done.returncode == 0, done.stderr
    listed = subprocess.run(
        [sys.executable, "-c", "import runpy; print(*runpy.run_path('setup.py', run_name='x')"
         "['compiled_sources'](), sep=chr(10))"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=True,
    ).stdout.split()  # fmt: skip
    assert done.stdout.split() == listed
    assert "model/simulation.py" in listed and not [p for p in listed if p.endswith("__init__.py")]


def test_an_in_place_build_replaces_a_library_by_a_rename(tmp_path: Path) -> None:
    # setuptools' copy wrote the new library over the old one where it lay: a running window, which
    # maps it, died with a segmentation fault at its next call into the model (seen while a random-use
    # run of the window was going on during a rebuild).
    import mmap

    from setuptools import Distribution

    build_ext = runpy.run_path(str(ROOT / "setup.py"), run_name="x")["InPlaceByRename"]
    new, lib = tmp_path / "new.so", tmp_path / "model.so"
    new.write_bytes(b"new" * 1000)
    lib.write_bytes(b"old" * 1000)
    command = build_ext(Distribution())
    command.inplace = True
    with lib.open("rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        assert command.copy_file(str(new), str(lib)) == (str(lib), True)
        assert mapped[:3] == b"old", "the running process's pages were rewritten"
    assert lib.read_bytes() == new.read_bytes() and sorted(p.name for p in tmp_path.iterdir()) == [
        "model.so",
        "new.so",
    ]


def test_pure_moves_the_build_aside_and_back_unchanged(tmp_path: Path) -> None:
    tree = make_tree(tmp_path)
    before = {p: p.stat().st_mtime for p in tree.glob("model/**/*.so")}
    done = shell(tree, "ensure_native", SCHEDLAB_PURE="1")
    assert done.returncode == 0, done.stderr
    assert not list(tree.glob("model/**/*.so")), "SCHEDLAB_PURE=1 left compiled modules beside the sources"
    done = shell(tree, f'unstash_native; native_state "{EXT}"')
    assert done.returncode == 0, done.stderr
    assert {p: p.stat().st_mtime for p in tree.glob("model/**/*.so")} == before
    assert done.stdout.strip() == "current"
    assert not (tree / "stash").exists()


def fake_python(tmp_path: Path, cc: str, include: Path) -> Path:
    """A stand-in for the venv's python that answers run.sh's two questions: EXT_SUFFIX, the toolchain."""
    script = tmp_path / "python"
    script.write_text(
        "#!/bin/sh\n"
        f'case "$*" in *EXT_SUFFIX*) echo "{EXT}" ;; *) printf "%s\\n" "{cc}" "{include}" 3.11 ;; esac\n'
    )
    script.chmod(0o755)
    return script


def test_a_missing_compiler_and_headers_are_named_with_their_packages(tmp_path: Path) -> None:
    py = fake_python(tmp_path, "no-such-cc-here", tmp_path / "no-include")
    done = shell(tmp_path, "toolchain_gaps", PY=str(py))
    lines = [line.split("\t") for line in done.stdout.splitlines()]
    assert [packages for _, packages in lines] == ["gcc libc6-dev", "python3.11-dev"]
    assert lines[0][0] == "no C compiler (no-such-cc-here)"
    assert lines[1][0].startswith("no Python headers")
    include = tmp_path / "include"
    include.mkdir()
    (include / "Python.h").write_text("")
    done = shell(tmp_path, "toolchain_gaps", PY=str(fake_python(tmp_path, "sh", include)))
    assert done.stdout == ""


def test_without_a_compiler_a_stale_build_is_removed_and_one_line_says_so(tmp_path: Path) -> None:
    tree = make_tree(tmp_path)
    (tree / "model/a.py").write_text("# an edit\n")
    py = fake_python(tmp_path, "no-such-cc-here", tmp_path / "no-include")
    done = shell(tree, "ensure_native", PY=str(py), SCHEDLAB_PURE="")
    assert done.returncode == 0, done.stderr
    assert not list(tree.glob("model/**/*.so")), "a stale compiled model was left in place"
    err = done.stderr.strip().splitlines()
    assert len(err) == 1 and "runs from its Python sources" in err[0]
    assert "sudo apt-get install gcc libc6-dev python3.11-dev" in err[0]


def fake_builder(tmp_path: Path, outcome: str) -> Path:
    """A stand-in python whose ``setup.py build_ext`` writes empty compiled modules for every source
    (``ok``), also edits a source meanwhile (``edit``), keeps them as they were, as setuptools does
    when the generated C code is unchanged (``kept``), or fails (``fail``)."""
    include = tmp_path / "include"
    include.mkdir(exist_ok=True)
    (include / "Python.h").write_text("")
    script = tmp_path / "python"
    script.write_text(
        "#!/bin/bash\n"
        'case "$*" in\n'
        f'  *EXT_SUFFIX*) echo "{EXT}" ;;\n'
        f'  *setup.py*) [ {outcome} = fail ] && {{ echo "error: model/a.py:1: bad" >&2; exit 1; }}\n'
        f"    [ {outcome} = kept ] && exit 0\n"
        f'    for py in $(compiled_sources); do : >"${{py%.py}}{EXT}"; done; : >"{GROUP}"\n'
        # The edit comes a moment into the build, as it would in a real one (minutes): file times come
        # from the kernel's coarse clock (a few ms a tick), the build's start from a fine one, so an
        # edit in the build's first tick would carry a time before its start.
        f"    [ {outcome} = edit ] && {{ sleep 0.05; echo '# saved during the build' >>model/a.py; }}\n"
        "    exit 0 ;;\n"
        f'  *) printf "%s\\n" sh "{include}" 3.11 ;;\n'
        "esac\n"
    )
    script.chmod(0o755)
    return script


def rebuild(tmp_path: Path, outcome: str) -> tuple[Path, subprocess.CompletedProcess[str]]:
    tree = make_tree(tmp_path)
    (tree / "model/sub/b.py").write_text("# an edit\n")
    # The fake build runs in a child shell: it needs compiled_sources from run.sh too.
    done = shell(tree, "export -f compiled_sources; ensure_native", PY=str(fake_builder(tmp_path, outcome)))
    assert done.returncode == 0, done.stderr
    return tree, done


@pytest.mark.parametrize("outcome", ["ok", "kept"])
def test_a_stale_build_is_rebuilt_and_then_current(tmp_path: Path, outcome: str) -> None:
    tree, done = rebuild(tmp_path, outcome)
    assert "model/sub/b.py changed" in done.stderr and "compiled 2 model modules" in done.stderr
    assert state(tree) == "current"


def test_a_source_saved_during_the_build_is_seen_as_newer(tmp_path: Path) -> None:
    tree, _ = rebuild(tmp_path, "edit")
    assert state(tree) == "model/a.py changed"


def test_a_failed_build_leaves_the_sources_and_says_why(tmp_path: Path) -> None:
    tree, done = rebuild(tmp_path, "fail")
    assert not list(tree.glob("model/**/*.so")), "a failed build left compiled modules in place"
    assert "error: model/a.py:1: bad" in done.stderr and "compiling the model failed" in done.stderr
