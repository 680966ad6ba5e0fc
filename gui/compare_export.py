"""The compare window's Export… (Ctrl+Shift+S, as in the main window): the whole window, the overlaid
graph or one side's CPU lanes as PNG, SVG or PDF, for a slide or a paper. The main window's figure
dialog and writer do the work (``gui.figure_dialog``, ``gui.export``: the path checked first, the bytes
renamed into place when complete); the caption names the story, every side's settings, the seed and
the simulated time. A file that cannot be written becomes a dialog; the runs go on. Copy command puts
on the clipboard the ``schedlab compare`` line that runs the same sides to the time shown.
"""

from __future__ import annotations

import shlex
from typing import Any

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication, QDialog, QMessageBox, QWidget

from gui.figures import FigureOptions
from gui.window_settings import default_settings
from model.presets import PRESETS
from model.scenario import section_specs
from model.sched.base import NSEC_PER_SEC


def compare_targets(window: Any) -> dict[str, QWidget]:
    """What can be exported, by the name the dialog shows."""
    targets: dict[str, QWidget] = {"Whole window": window, "Graph": window.graph}
    for side, lanes in zip(window.sides, window.lanes, strict=True):
        targets[f"Side {side.label}: CPU lanes"] = lanes
    return targets


def compare_caption(window: Any) -> str:
    """The story, each side as its title names it, the seed and the time the picture shows."""
    lock = window.lockstep
    title = lock.base.title or lock.base.name
    sides = "; ".join(f"{s.label}: {s.name}" for s in window.sides)
    return f"schedlab compare · {title} · {sides} · seed {lock.sims[0].seed} · t = {lock.now_ns / 1e9:.6f} s"


def figure_settings(window: Any) -> QSettings:
    """The main window's settings when it opened this one (the dialog remembers folder and format
    there, for both windows); else the user's."""
    settings = getattr(window.parent(), "settings", None)
    return settings if isinstance(settings, QSettings) else default_settings()


def export_compare(window: Any, target: str, path: str, options: FigureOptions | None = None) -> bool:
    """Write ``target`` of the compare ``window`` to ``path``; a dialog, and False, if it cannot be."""
    from gui.export import ExportError, export_widget  # only when exporting: it loads the CLI's writers

    try:
        export_widget(compare_targets(window)[target], path, options=options)
    except ExportError as exc:
        QMessageBox.warning(window, "Export failed", str(exc))
        return False
    window.statusBar().showMessage(f"Exported {target.lower()} to {path}", 5000)
    return True


def compare_export_dialog(window: Any) -> None:
    from gui.figure_dialog import FigureDialog, file_stem

    name = f"schedlab-compare-{file_stem(window.lockstep.base.name)}"
    dialog = FigureDialog(window, list(compare_targets(window)), name, figure_settings(window))
    if dialog.exec() == QDialog.DialogCode.Accepted:
        dialog.remember()
        export_compare(
            window, dialog.target.currentText(), dialog.path.text(), dialog.options(compare_caption(window))
        )


def compare_command(window: Any) -> str:
    """The ``schedlab compare`` line that runs these sides from the start to the time shown, with the
    seed: the headline's numbers (add ``--json``), the graph's curves as a figure (``--out FIG.svg``).
    The scenario is the one the main window opened (its name, or its file's path), with ``--set`` for
    what differs from it; a preset's sides are ``--preset NAME``; "this run" (a side of no settings)
    sets the other sides' keys to the values they have in this run, as the command line wants a
    setting on every side."""
    from gui.data_export import set_options, toml_value  # only when asked: it loads the CLI's writers

    lock, sides = window.lockstep, tuple(window.sides)
    base = lock.base.settings()
    words = ["schedlab compare", shlex.quote(window.source), *set_options(lock.base, window.loaded)]
    preset = next((p.name for p in PRESETS.values() if p.sides == sides), None)
    if preset is not None:
        words.append(f"--preset {preset}")
    else:
        keys = list(dict.fromkeys(k for side in sides for k, _ in side.settings))
        for side in sides:
            settings = side.settings or tuple((k, toml_value(k, base[k])) for k in keys)
            words.append(f"--{side.label.lower()} " + " ".join(shlex.quote(f"{k}={v}") for k, v in settings))
    least_s = float(section_specs("scenario")["duration_s"].lo or 0.0)  # a run at t = 0 runs the least
    seconds = f"{max(lock.now_ns / NSEC_PER_SEC, least_s):.9f}".rstrip("0").rstrip(".")
    words += [f"--seed {lock.sims[0].seed}", f"--duration {seconds}"]
    return " ".join(words)


def copy_compare_command(window: Any) -> str:
    """Put ``compare_command`` on the clipboard and say so in the status bar; the line."""
    line = compare_command(window)
    QApplication.clipboard().setText(line)
    window.statusBar().showMessage(f"Copied: {line}", 10000)
    return line
