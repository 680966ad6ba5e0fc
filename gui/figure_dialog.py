"""File ▸ Export…: what to draw (the window, a panel, the graphs), the format (PNG, SVG, PDF), the
resolution of a PNG (1×, 2×, 300 DPI), a caption, and the file. The dialog remembers its folder,
format, resolution and caption choice across runs (QSettings); ``gui.export`` writes the file.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QWidget,
)

from gui.figures import SCREEN_DPI, FigureOptions
from gui.file_dialogs import chosen_path, file_dialog

FORMAT_NAMES = {".png": "PNG image", ".svg": "SVG drawing", ".pdf": "PDF document"}
SCALES = (("1× (screen)", 1.0), ("2× (high-DPI slides)", 2.0), ("300 DPI (print)", 300 / SCREEN_DPI))


def file_stem(name: str) -> str:
    """A scenario's name as a file name's stem: characters other than letters, digits, "-", "_" and
    "." become "-"."""
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in name)


class FigureDialog(QDialog):
    def __init__(self, parent: QWidget, targets: list[str], base_name: str, settings: Any) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export")
        self._settings = settings
        form = QFormLayout(self)
        self.target = QComboBox()
        self.target.addItems(targets)
        self.format = QComboBox()
        for suffix, name in FORMAT_NAMES.items():
            self.format.addItem(name, suffix)
        self.scale = QComboBox()
        for label, scale in SCALES:
            self.scale.addItem(label, scale)
        self.caption = QCheckBox("scenario, settings, seed and simulated time below the picture")
        suffix = str(settings.value("figure/suffix", ".png"))
        self.format.setCurrentIndex(max(0, self.format.findData(suffix)))
        self.scale.setCurrentIndex(int(settings.value("figure/scale_index", 0)) % len(SCALES))
        self.caption.setChecked(str(settings.value("figure/caption", "false")).lower() == "true")
        folder = str(settings.value("figure/folder", str(Path.home())))
        self.path = QLineEdit(str(Path(folder) / f"{base_name}{suffix}"))
        self.format.currentIndexChanged.connect(self._format_changed)
        browse = QPushButton("Choose…")
        browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.path, 1)
        row.addWidget(browse)
        form.addRow("What", self.target)
        form.addRow("Format", self.format)
        form.addRow("Resolution (PNG)", self.scale)
        form.addRow("Caption", self.caption)
        form.addRow("File", row)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self._format_changed()

    def suffix(self) -> str:
        return str(self.format.currentData())

    def _format_changed(self, _index: int = 0) -> None:
        self.scale.setEnabled(self.suffix() == ".png")
        text = self.path.text()
        path = Path(text)
        if path.name and not text.endswith(("/", os.sep)):  # an emptied box, a folder: no name to change
            self.path.setText(str(path.with_suffix(self.suffix())))

    def _browse(self) -> None:
        filters = f"{FORMAT_NAMES[self.suffix()]} (*{self.suffix()})"
        path, _ = chosen_path(file_dialog(self, "Export to", filters, save_as=self.path.text()))
        if path:
            self.path.setText(path if Path(path).suffix else path + self.suffix())

    def options(self, caption: str) -> FigureOptions:
        scale = float(self.scale.currentData()) if self.suffix() == ".png" else 1.0
        return FigureOptions(scale=scale, caption=caption if self.caption.isChecked() else "")

    def remember(self) -> None:
        path = Path(self.path.text())
        self._settings.setValue("figure/folder", str(path.parent))
        self._settings.setValue("figure/suffix", self.suffix())
        self._settings.setValue("figure/scale_index", self.scale.currentIndex())
        self._settings.setValue("figure/caption", "true" if self.caption.isChecked() else "false")
