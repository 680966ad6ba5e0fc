"""The wheel installs and runs: built from a copy of the sources, unpacked into a folder of its own, and
run from another folder by a Python that cannot see the source tree.

The wheel is the pure one (no SCHEDLAB_COMPILE), built without build isolation so that it takes
seconds; the installed program is found through its entry points, as the ``schedlab`` script finds it.
``python -S`` skips site-packages' ``.pth`` files, so the development install's import finder, which
maps ``model``, ``gui`` and ``schedlab_resources`` to this tree, is not there to hide a missing file.
"""

from __future__ import annotations

import ast
import configparser
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from importlib.metadata import PackageNotFoundError, packages_distributions, requires
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("pyproject.toml", "setup.py", "README.md", "model", "gui", "resources")
BUILTINS = sorted(p.stem for p in (ROOT / "resources" / "scenarios").glob("*.toml"))
LESSONS = sorted(p.stem for p in (ROOT / "resources" / "lessons").glob("*.md"))  # prose; steps beside it
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
DIST_INFO = f"schedlab-{VERSION}.dist-info"

ENTRY_POINT = """
import sys
from importlib.metadata import entry_points
(script,) = entry_points(group=sys.argv[1], name=sys.argv[2])
sys.argv = sys.argv[2:]
sys.exit(script.load()())
"""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("wheel")
    src = work / "src"
    src.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("*.so", "__pycache__"))
        else:
            shutil.copy2(ROOT / name, src / name)
    env = {k: v for k, v in os.environ.items() if k != "SCHEDLAB_COMPILE"}
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "--wheel-dir", str(work / "dist"), str(src)],
        cwd=work, env={**env, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}, capture_output=True, text=True,
        timeout=300, check=True,
    )  # fmt: skip
    (built,) = (work / "dist").glob("schedlab-*.whl")
    return built


@pytest.fixture(scope="module")
def site(wheel: Path) -> Path:
    """The wheel installed: a pure wheel's files go into site-packages as they are."""
    target = wheel.parent.parent / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(target)
    return target


def installed(site: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """``python -S -c ...`` from an empty folder, with the installed wheel and the dependencies only."""
    elsewhere = site.parent / "elsewhere"
    elsewhere.mkdir(exist_ok=True)
    dependencies = sysconfig.get_paths()["purelib"]  # numpy, PySide6: no .pth file runs under -S
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(elsewhere),
        "PYTHONPATH": os.pathsep.join([str(site), dependencies]),
        "QT_QPA_PLATFORM": "offscreen",
    }
    return subprocess.run(
        [sys.executable, "-S", "-c", *argv], cwd=elsewhere, env=env, capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip


def schedlab(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return installed(site, ENTRY_POINT, "console_scripts", "schedlab", *args)


def test_the_wheel_holds_the_packages_and_their_data(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert {n.split("/")[0] for n in names} == {"model", "gui", "schedlab_resources", DIST_INFO}
    for stem in BUILTINS:
        assert f"schedlab_resources/scenarios/{stem}.toml" in names
    assert {"schedlab_resources/schedlab.desktop", "schedlab_resources/icons/schedlab.svg"} <= set(names)
    assert "model/cli/__init__.py" in names and "gui/app.py" in names
    assert not [n for n in names if n.endswith(".so") or "screenshots" in n]


def test_the_installed_program_loads_nothing_from_the_source_tree(site: Path) -> None:
    code = (
        "import model, gui.app, schedlab_resources as r; print(model.__file__, gui.app.__file__, r.__file__)"
    )
    done = installed(site, code)
    assert done.returncode == 0, done.stderr
    for path in done.stdout.split():
        assert Path(path).is_relative_to(site), path


def test_list_names_every_builtin_scenario(site: Path) -> None:
    done = schedlab(site, "list")
    assert done.returncode == 0, done.stderr
    assert [line.split()[0] for line in done.stdout.splitlines()] == BUILTINS


def test_run_prints_the_json_summary(site: Path) -> None:
    done = schedlab(site, "run", "cfs-yield-2007", "--json", "--duration", "0.2")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["scenario"] == "cfs-yield-2007" and summary["duration_s"] == pytest.approx(0.2)
    assert summary["bandwidth_mbps"] > 0 and summary["sim"]["compiled"] is False


def test_a_bad_scenario_is_one_line_and_exit_2(site: Path) -> None:
    done = schedlab(site, "run", "nope")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "built-in scenarios: " + ", ".join(BUILTINS) in done.stderr


def test_the_window_finds_its_lessons_and_icon(site: Path) -> None:
    code = (
        "import sys; from gui.panels.explainer import lesson_path; from gui.app import ICON_FILES;"
        "from model import resource_root; from gui import lessons;"
        "print(*[lesson_path(n) for n in sys.argv[1:]], *[resource_root() / 'icons' / f for f in ICON_FILES],"
        " *[lessons.lesson_path(n) for n in sys.argv[1:] if lessons.has_lesson(n)])"
    )
    done = installed(site, code, *LESSONS)
    assert done.returncode == 0, done.stderr
    paths = [Path(p) for p in done.stdout.split()]
    steps = [n for n in LESSONS if (ROOT / "resources" / "lessons" / f"{n}.steps.toml").is_file()]
    assert steps, "the guided lessons' steps ship beside their prose"
    assert len(paths) == len(LESSONS) + 2 + len(steps)
    assert all(p.is_file() and p.is_relative_to(site) for p in paths), paths


def test_the_desktop_entry_starts_the_gui_script_with_the_shipped_icon(site: Path) -> None:
    entry = configparser.ConfigParser(interpolation=None)
    entry.read(site / "schedlab_resources" / "schedlab.desktop")
    desktop = entry["Desktop Entry"]
    program = desktop["Exec"].split()[0]
    gui_scripts = configparser.ConfigParser()
    gui_scripts.read(site / DIST_INFO / "entry_points.txt")
    assert gui_scripts["gui_scripts"][program] == "gui.app:gui_script"
    assert (site / "schedlab_resources" / "icons" / f"{desktop['Icon']}.svg").is_file()
    assert desktop["Type"] == "Application" and desktop["Terminal"] == "false"


def _canonical(name: str) -> str:
    return name.lower().replace("_", "-")


def _distribution(requirement: str) -> str:
    """The distribution a requirement names (``"numpy>=1.26"`` -> ``"numpy"``), canonical."""
    return _canonical(re.split(r"[\s;<>=!~\[(]", requirement, maxsplit=1)[0])


def test_every_package_the_program_imports_is_a_declared_dependency() -> None:
    """``pip install .`` brings what ``model/`` and ``gui/`` import: each third-party module they name
    belongs to a distribution among the dependencies or an optional extra (here the development
    environment has everything, so nothing else would notice a missing one)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = {k: v for k, v in project["optional-dependencies"].items() if k != "dev"}
    wanted = [*project["dependencies"], *(r for rs in extras.values() for r in rs)]
    declared = {_distribution(r) for r in wanted}
    # ... or that one of those requires itself (shiboken6 comes with PySide6, at PySide6's version)
    for name in list(declared):
        try:
            needs = requires(name) or []
        except PackageNotFoundError:
            continue
        declared |= {_distribution(r) for r in needs if "extra ==" not in r}
    first_party = {"model", "gui", "schedlab_resources"}
    imported: set[str] = set()
    for folder in ("model", "gui"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Import):
                    imported |= {a.name.split(".")[0] for a in node.names}
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    imported.add(node.module.split(".")[0])
    third_party = imported - first_party - set(sys.stdlib_module_names)
    assert {"numpy", "mypy_extensions", "PySide6", "pyqtgraph"} <= third_party  # the walk sees imports
    owners = packages_distributions()
    missing = {m for m in third_party if not {_canonical(d) for d in owners.get(m, [m])} & declared}
    assert not missing, f"imported but not declared in pyproject.toml: {sorted(missing)}"
