"""File ▸ Export data…: the metrics of this run as CSV or JSON, the same files as the command line's.

The run on screen samples at the playback speed and keeps a bounded window of rows, so the data is
not taken from it: the scenario with its live settings as they are now is run headless from t = 0,
exactly as ``schedlab run SCENARIO --set KEY=VALUE… --seed N --csv FILE`` (or ``--json``) runs it, to
the end of the scenario or to the time on screen. The equivalent command is shown with the result, so
the figure in a paper can be made again from a shell. A progress dialog runs the model in slices and
can cancel; the file appears only when complete. The JSON is ``run --json``'s but for its ``sim``
entry's wall time and build, which belong to the machine that ran it.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox, QProgressDialog

from gui.file_dialogs import chosen_path, file_dialog
from gui.video_dialog import scenario_now
from model.cli.outputs import check_output, open_atomic_text
from model.cli.series_csv import write_csv
from model.scenario import Scenario, ScenarioError, parse_set_value
from model.scenario_toml import toml_value as scenario_file_value
from model.sched.base import NSEC_PER_SEC
from model.simulation import Simulation

SLICES = 50


def command_line(
    scenario: Scenario, loaded: Scenario, seed: int, option: str, path: Path, source: str = ""
) -> str:
    """The ``schedlab run`` line that writes the same file: the scenario as opened (``source``: a
    built-in's name or the file's path; a file's scenario name alone would not be found), the settings
    that differ from it, each value as ``--set`` reads it (TOML: ``[1, 2]``, ``true``), quoted for a
    POSIX shell."""
    sets = set_options(scenario, loaded)
    duration = "" if scenario.duration_s == loaded.duration_s else f" --duration {scenario.duration_s:g}"
    tail = [f"--seed {seed}{duration}", option, shlex.quote(str(path))]
    return " ".join(["schedlab run", shlex.quote(source or loaded.name), *sets, *tail])


def set_options(scenario: Scenario, loaded: Scenario) -> list[str]:
    """``--set KEY=VALUE`` for each setting of ``scenario`` that differs from ``loaded``'s, quoted for a
    POSIX shell (the scenario's own name, title and duration excepted)."""
    base = loaded.settings()
    return [
        f"--set {shlex.quote(f'{k}={toml_value(k, v)}')}"
        for k, v in scenario.settings().items()
        if base.get(k) != v and not k.startswith("scenario.")
    ]


def toml_value(key: str, value: object) -> str:
    """``value`` of ``key`` as a TOML value, which ``--set`` parses back to it (a string as a bare word
    where ``--set`` reads that word back as the same string: ``sched.policy=cfs-2.6.23``; otherwise as a
    scenario file writes it, ``model.scenario_toml``)."""
    if isinstance(value, str):
        try:
            if parse_set_value(key, value) == value:
                return value
        except ScenarioError:
            pass
    return scenario_file_value(value)


def run_headless(scenario: Scenario, seed: int, progress: Any = None) -> Simulation | None:
    """The run as ``schedlab run`` makes it; None if ``progress(done, total)`` returns False."""
    sim = Simulation(scenario, seed, trace="off")
    end_ns = round(scenario.duration_s * NSEC_PER_SEC)
    for i in range(1, SLICES + 1):
        sim.advance(end_ns * i // SLICES - sim.now_ns)
        if progress is not None and not progress(i, SLICES):
            return None
    return sim


def write_data(sim: Simulation, path: Path) -> None:
    """``path``'s suffix picks the format: .csv the interval table of ``--csv``, .json ``--json``."""
    if path.suffix.lower() == ".csv":
        write_csv(sim, path, str(path))
        return
    summary = sim.summary()
    with open_atomic_text(path, str(path)) as fh:
        fh.write(json.dumps(summary, indent=2) + "\n")


def export_data(window: Any, path: Path, to_now: bool = False) -> str | None:
    """Run and write; the equivalent command line, or None (cancelled, or a dialog said why)."""
    scenario = scenario_now(window)
    try:
        check_output(str(path), str(path), suffixes=(".csv", ".json"))
        if to_now:
            scenario = scenario.with_overrides(
                {"scenario.duration_s": max(0.001, window.playback.simulation.now_ns / 1e9)}
            )
    except ScenarioError as exc:
        window.show_error("Cannot export data", str(exc))
        return None
    dialog = QProgressDialog("Running the model…", "Cancel", 0, SLICES, window)
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.setMinimumDuration(300)

    def progress(done: int, total: int) -> bool:
        dialog.setValue(done)
        QApplication.processEvents()
        return not dialog.wasCanceled()

    seed = window.playback.seed
    try:
        sim = run_headless(scenario, seed, progress)
        if sim is None:
            window.statusBar().showMessage("Export cancelled; nothing written", 5000)
            return None
        write_data(sim, path)
    except ScenarioError as exc:
        window.show_error("Cannot export data", str(exc))
        return None
    finally:
        dialog.close()
    option = "--csv" if path.suffix.lower() == ".csv" else "--json >"
    line = command_line(scenario, window.playback.loaded, seed, option, path, window.source)
    window.statusBar().showMessage(f"Wrote {path}: the same as {line}", 10000)
    return line


def data_dialog(window: Any) -> None:
    settings = window.settings
    folder = str(settings.value("data/folder", str(Path.home())))
    suffix = str(settings.value("data/suffix", ".csv"))
    name = f"schedlab-{window.playback.scenario.name}{suffix}"
    path, _ = chosen_path(
        file_dialog(
            window,
            "Export data",
            "CSV, one row per interval (*.csv);;JSON, the run's metrics (*.json)",
            save_as=str(Path(folder) / name),
        )
    )
    if not path:
        return
    out = Path(path)
    settings.setValue("data/folder", str(out.parent))
    settings.setValue("data/suffix", out.suffix.lower() or ".csv")
    answer = QMessageBox.question(
        window,
        "Export data",
        "Run to the end of the scenario? (No: only up to the time on screen.)",
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
    )
    export_data(window, out, to_now=answer == QMessageBox.StandardButton.No)
