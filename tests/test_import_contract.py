"""The model never imports Qt or the GUI: import each ``model`` module alone in a fresh interpreter,
and run the headless commands.

import-linter checks the import statements; this checks what importing really loads (a lazy import
inside a function body or a plugin registry would slip past a static check only when it runs).
"""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN = ("PySide6", "pyqtgraph", "gui")

PROBE = """
import importlib, sys
importlib.import_module(sys.argv[1])
loaded = sorted({name.split(".")[0] for name in sys.modules} & set(sys.argv[2:]))
print(" ".join(loaded))
"""


def model_modules() -> list[str]:
    """Every module and package under ``model/``, found on disk without importing any of them."""
    names = ["model"]
    pending = [(ROOT / "model", "model.")]
    while pending:
        folder, prefix = pending.pop()
        for info in pkgutil.iter_modules([str(folder)], prefix):
            names.append(info.name)
            if info.ispkg:
                pending.append((folder / info.name.rsplit(".", 1)[-1], info.name + "."))
    return sorted(names)


@pytest.mark.parametrize("module", model_modules())
def test_model_module_loads_no_qt_and_no_gui(module: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, module, *FORBIDDEN],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, f"importing {module} failed:\n{done.stderr}"
    assert done.stdout.split() == [], f"importing {module} loaded {done.stdout.strip()}"


HEADLESS_RUN = """
import sys
from model.cli import main
code = main(sys.argv[1:])
loaded = sorted({name.split(".")[0] for name in sys.modules} & {"PySide6", "pyqtgraph", "gui"})
print(code, *loaded)
"""


@pytest.mark.parametrize(
    ("argv", "status"),
    [
        (["list"], "0"),
        (["run", "cfs-yield-2007", "--duration", "0.05", "--json"], "0"),
        (["run", "nope"], "2"),
    ],
)
def test_headless_commands_load_no_qt_and_no_gui(argv: list[str], status: str) -> None:
    """``schedlab list`` and ``schedlab run`` stay headless while they run, not only when imported."""
    done = subprocess.run(
        [sys.executable, "-c", HEADLESS_RUN, *argv], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].split() == [status]
