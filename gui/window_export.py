"""File ▸ Export…: figures of the window (``gui.main_window.MainWindow``, passed in: this module sits
below it). Which parts can be exported (the whole window, each panel shown, the explainer, the
controls), the caption a figure carries, the dialog that chooses, and the writing through
``gui.export``, which loads only when a figure is written (it brings the command line's writers). A
file that cannot be written becomes a dialog; the run goes on.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from PySide6.QtWidgets import QDialog, QWidget

if TYPE_CHECKING:
    from gui.figures import FigureOptions


def export_targets(window: Any) -> dict[str, QWidget]:
    window.finish_startup()
    targets: dict[str, QWidget] = {"Whole window": window}
    for name, panel in window.panels.items():
        if panel is not window.qdisc or window.frame.qdisc_shown:
            targets[name] = cast(QWidget, panel)
    targets["Explainer"] = window.explainer
    targets["Controls"] = window.controls
    return targets


def figure_caption(window: Any) -> str:
    """What a figure's caption says: the story, its settings and seed (the status line), the time."""
    title = window.playback.scenario.title or window.playback.scenario.name
    t_s = window.playback.simulation.now_ns / 1e9
    settings = " · ".join(part.strip() for part in window.status_label.text().split("·") if part.strip())
    return f"schedlab · {title} · {settings} · t = {t_s:.6f} s"


def export_to(window: Any, target: str, path: str, options: FigureOptions | None = None) -> bool:
    widget = export_targets(window)[target]
    window.render_latest(widget)  # a panel behind a tab may be frames behind
    from gui.export import ExportError, export_widget  # only when exporting: it loads the CLI's writers

    source = Path(window.source)
    try:
        export_widget(widget, path, inputs=[source] if source.is_file() else [], options=options)
    except ExportError as exc:
        window.show_error("Export failed", str(exc))
        return False
    window.statusBar().showMessage(f"Exported {target.lower()} to {path}", 5000)
    return True


def export_dialog(window: Any) -> None:
    from gui.figure_dialog import FigureDialog, file_stem

    name = file_stem(window.playback.scenario.name)
    dialog = FigureDialog(window, list(export_targets(window)), f"schedlab-{name}", window.settings)
    if dialog.exec() == QDialog.DialogCode.Accepted:
        dialog.remember()
        export_to(
            window, dialog.target.currentText(), dialog.path.text(), dialog.options(figure_caption(window))
        )
