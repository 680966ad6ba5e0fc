"""Pictures of a widget (a panel, a plot or the whole window) as PNG, SVG or PDF files.

``gui.figures`` draws them into memory (PNG at any scale, SVG that other renderers draw as Qt does,
PDF; pyqtgraph's own SVG exporter crashes under PySide6 6.12), and they are written as every output
file is (``model.cli.outputs``): the path checked first, the bytes into a temporary file renamed into
place when complete, so a full disk or a bad path never leaves half a picture or destroys the old one,
and libpng or QSvg never write a message of their own. Failures raise ``ExportError`` with a
one-line message naming the path and what is wrong: the window shows it in a dialog, the CLI prints it
and exits 2.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtWidgets import QWidget

from gui.figures import FigureError, FigureOptions, figure_bytes
from model.cli.outputs import OutputError, check_output, write_bytes_atomic
from model.keyspec import shown_path

FORMATS = (".png", ".svg", ".pdf")


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
    widget: QWidget,
    path: str | Path,
    *,
    what: str = "",
    inputs: Sequence[Path | str] = (),
    options: FigureOptions | None = None,
) -> Path:
    """Write ``widget`` as it looks now to ``path`` (``.png``, ``.svg`` or ``.pdf``, drawn by
    ``gui.figures`` at ``options``' scale, with its caption); return the path."""
    what = what or _what(path)
    path = check_path(path, what=what, inputs=inputs)
    try:
        data = figure_bytes(widget, path.suffix.lower(), options or FigureOptions())
        write_bytes_atomic(path, what, data)
    except (OutputError, FigureError) as exc:
        raise ExportError(f"{what}: {exc}" if isinstance(exc, FigureError) else str(exc)) from None
    return path
