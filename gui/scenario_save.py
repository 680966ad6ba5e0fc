"""File ▸ Save scenario as…: this run's scenario with its live settings as they are now and its seed,
written as a scenario file (``model.scenario_toml``) that File ▸ Open scenario… and ``schedlab run
FILE`` read back: a "what if?" tried in the window, kept, run again or shared. The file appears only
when complete (written beside, then renamed into place)."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from gui.file_dialogs import chosen_path, file_dialog
from gui.video_dialog import scenario_now
from gui.window_settings import remember_recent
from model.cli.outputs import check_output, open_atomic_text
from model.scenario import Scenario, ScenarioError
from model.scenario_toml import scenario_toml

FILTER = "schedlab scenario (*.toml)"


def scenario_to_save(window: Any) -> Scenario:
    """The run on screen as a scenario: its live settings now, and the seed it runs with."""
    return scenario_now(window).with_overrides({"scenario.seed": window.playback.seed})


def save_scenario_dialog(window: Any) -> None:
    settings = window.settings
    folder = Path(str(settings.value("scenario/folder", str(Path.home()))))
    proposed = folder / f"{window.playback.scenario.name}.toml"
    path, _ = chosen_path(file_dialog(window, "Save scenario as", FILTER, save_as=str(proposed)))
    if not path:
        return
    out = Path(path) if Path(path).suffix else Path(path).with_suffix(".toml")  # "mine" is mine.toml
    settings.setValue("scenario/folder", str(out.parent))
    save_scenario(window, out)


def save_scenario(window: Any, out: Path) -> bool:
    """Write the file (a dialog says why not); the status bar says how to use it."""
    scenario = scenario_to_save(window)
    loaded = window.playback.loaded
    header = f"A schedlab scenario: {loaded.name} with the settings it had in the window.\n" + (
        "Open it with File > Open scenario..., or run it with: schedlab run FILE"
    )
    try:
        check_output(str(out), str(out), suffixes=(".toml",))
        with open_atomic_text(out, str(out)) as fh:
            fh.write(scenario_toml(scenario, header))
    except (ScenarioError, OSError) as exc:
        window.show_error("Cannot save the scenario", str(exc))
        return False
    remember_recent(window.settings, str(out))
    window.statusBar().showMessage(f"Saved {out}; schedlab run {shlex.quote(str(out))} runs it", 10000)
    return True
