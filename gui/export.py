"""Screenshots of a widget (a panel or the whole window) as PNG or SVG.

PNG goes through ``QWidget.grab()``; SVG through ``QSvgGenerator`` and ``QWidget.render()`` (pyqtgraph's
own SVG exporter crashes under PySide6 6.12). Both are drawn into memory, then written as every output
file is (``model.cli.outputs``): the path checked first, the bytes into a temporary file renamed into
place when complete, so a full disk or a bad path never leaves half a picture or destroys the old one,
and libpng or QSvg never write a message of their own. Failures raise ``ExportError`` with a
one-line message naming the path and what is wrong: the window shows it in a dialog, the CLI prints it
and exits 2.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QBuffer, QIODevice, QPoint, QRect, QSize
from PySide6.QtGui import QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QWidget

from model.cli.outputs import OutputError, check_output, write_bytes_atomic
from model.keyspec import shown_path

FORMATS = (".png", ".svg")


class ExportError(OutputError):
    """An export that cannot be written; the message is one line."""


def _what(path: str | Path) -> str:
    return f"cannot export to {shown_path(path)}"


def check_path(path: str | Path, *, what: str = "", inputs: Sequence[Path | str] = ()) -> Path:
    """``path`` if a picture can be written there (checked before the drawing, or the run, starts)."""
    try:
        return check_output(str(path), what or _what(path), suffixes=FORMATS, inputs=inputs)
    except OutputError as exc:
        raise ExportError(str(exc)) from None


def export_widget(
    widget: QWidget, path: str | Path, *, what: str = "", inputs: Sequence[Path | str] = ()
) -> Path:
    """Write ``widget`` as it looks now to ``path`` (``.png`` or ``.svg``); return the path."""
    what = what or _what(path)
    path = check_path(path, what=what, inputs=inputs)
    data = _png_bytes(widget, what) if path.suffix.lower() == ".png" else _svg_bytes(widget, what)
    try:
        write_bytes_atomic(path, what, data)
    except OutputError as exc:
        raise ExportError(str(exc)) from None
    return path


def _png_bytes(widget: QWidget, what: str) -> bytes:
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not widget.grab().save(buffer, "PNG"):
        raise ExportError(f"{what}: the PNG could not be made")
    buffer.close()
    return bytes(buffer.data().data())


def _svg_bytes(widget: QWidget, what: str) -> bytes:
    size = widget.size()
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    gen = QSvgGenerator()
    gen.setOutputDevice(buffer)
    gen.setSize(QSize(size))
    gen.setViewBox(QRect(0, 0, size.width(), size.height()))
    gen.setTitle(widget.windowTitle() or "schedlab")
    gen.setDescription("exported by schedlab")
    painter = QPainter()
    if not painter.begin(gen):
        raise ExportError(f"{what}: the SVG could not be made")
    try:
        widget.render(painter, QPoint(0, 0))
    finally:
        painter.end()
    buffer.close()
    svg = bytes(buffer.data().data())
    if not svg.rstrip().endswith(b"</svg>"):
        raise ExportError(f"{what}: the SVG could not be made")
    return svg
