"""Screenshots of a widget (a panel or the whole window) as PNG or SVG.

PNG goes through ``QWidget.grab()``; SVG through ``QSvgGenerator`` and ``QWidget.render()`` (pyqtgraph's
own SVG exporter crashes under PySide6 6.12). Failures raise ``ExportError`` with a one-line message
naming the path and what is wrong: the window shows it in a dialog, the CLI prints it and exits 2.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QPoint, QRect, QSize
from PySide6.QtGui import QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QWidget

from model.scenario import ScenarioError

FORMATS = (".png", ".svg")


class ExportError(ScenarioError):
    """An export that cannot be written; the message is one line."""


def check_path(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise ExportError(
            f"cannot export to '{path}': unknown extension '{path.suffix}'; allowed: .png, .svg"
        )
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise ExportError(f"cannot export to '{path}': folder '{parent}' does not exist")
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise ExportError(f"cannot export to '{path}': permission denied")
    return suffix


def export_widget(widget: QWidget, path: str | Path) -> Path:
    """Write ``widget`` as it looks now to ``path`` (``.png`` or ``.svg``); return the path."""
    path = Path(path)
    suffix = check_path(path)
    if suffix == ".png":
        if not widget.grab().save(str(path), "PNG"):
            raise ExportError(f"cannot export to '{path}': the PNG could not be written")
    else:
        _write_svg(widget, path)
        if not path.is_file() or path.stat().st_size == 0:
            raise ExportError(f"cannot export to '{path}': the SVG could not be written")
    return path


def _write_svg(widget: QWidget, path: Path) -> None:
    size = widget.size()
    gen = QSvgGenerator()
    gen.setFileName(str(path))
    gen.setSize(QSize(size))
    gen.setViewBox(QRect(0, 0, size.width(), size.height()))
    gen.setTitle(widget.windowTitle() or "schedlab")
    gen.setDescription("exported by schedlab")
    painter = QPainter()
    if not painter.begin(gen):
        raise ExportError(f"cannot export to '{path}': the SVG could not be opened for writing")
    try:
        widget.render(painter, QPoint(0, 0))
    finally:
        painter.end()
