"""The compare window's Export… (Ctrl+Shift+S, as in the main window): the whole window, the overlaid
graph or one side's CPU lanes as PNG, SVG or PDF, for a slide or a paper. The main window's figure
dialog and writer do the work (``gui.figure_dialog``, ``gui.export``: the path checked first, the bytes
renamed into place when complete); the caption names the story, every side's settings, the seed and
the simulated time. A file that cannot be written becomes a dialog; the runs go on.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QDialog, QMessageBox, QWidget

from gui.figures import FigureOptions
from gui.window_settings import default_settings


def compare_targets(window: Any) -> dict[str, QWidget]:
    """What can be exported, by the name the dialog shows."""
    targets: dict[str, QWidget] = {"Whole window": window, "Graph": window.graph_box}
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
    from gui.figure_dialog import FigureDialog

    name = "".join(c if c.isalnum() or c in "-_." else "-" for c in window.lockstep.base.name)
    settings = figure_settings(window)
    dialog = FigureDialog(window, list(compare_targets(window)), f"schedlab-compare-{name}", settings)
    if dialog.exec() == QDialog.DialogCode.Accepted:
        dialog.remember()
        export_compare(
            window, dialog.target.currentText(), dialog.path.text(), dialog.options(compare_caption(window))
        )
