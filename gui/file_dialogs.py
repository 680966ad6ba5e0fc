"""The window's file dialogs and its error dialog: nothing in them reads a file, or shows markup.

Qt's file dialog asks an icon provider for each listed file's icon and type, and the stock provider
finds both from the file's content (``QMimeDatabase``) where the name does not settle it: listing
``/proc`` opens ``/proc/kmsg`` (reading it takes the kernel's messages from whoever else reads them)
and a FIFO would block. ``FileTypeIconProvider`` answers from what ``stat`` already said (folder,
file, or neither) and never opens anything; the dialogs are Qt's own (``DontUseNativeDialog``), the
only ones that take a provider. The path a dialog returns is checked with ``os.stat`` by whoever
opens it (``model.scenario_file``, ``model.cli.outputs``) before anything reads or writes it.

Error messages are plain text in a ``QMessageBox`` that shows them as such: a key named
``<h1>…</h1><img …>`` is shown, never rendered.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QFileInfo, QMimeData, Qt
from PySide6.QtGui import QAbstractFileIconProvider, QIcon
from PySide6.QtWidgets import QFileDialog, QFileIconProvider, QMessageBox, QWidget

from model.keyspec import one_line

SCENARIO_SUFFIXES = (".toml", ".json")  # a scenario file, or an rt-app workload (model.rtapp)
SCENARIO_FILTER = "Scenario files and rt-app workloads (*.toml *.json)"
EXPORT_FILTERS = "PNG image (*.png);;SVG (*.svg)"


class FileTypeIconProvider(QFileIconProvider):
    """Icons and type names from a file's kind alone: no file is opened to tell its type."""

    def icon(self, what: Any) -> QIcon:  # Qt override: icon(IconType) and icon(QFileInfo)
        if isinstance(what, QFileInfo):
            kind = (
                QAbstractFileIconProvider.IconType.Folder
                if what.isDir()
                else QAbstractFileIconProvider.IconType.File
            )
            return super().icon(kind)
        return super().icon(what)

    def type(self, info: QFileInfo) -> str:  # Qt override
        if info.isDir():
            return "Folder"
        if info.isFile():
            suffix = info.suffix().upper()
            return f"{suffix} file" if suffix else "File"
        return "Special file"


def file_dialog(parent: QWidget, title: str, name_filter: str, *, save_as: str = "") -> QFileDialog:
    """A dialog that opens an existing file, or (``save_as``: the proposed name) names one to write."""
    folder = str(Path(save_as).parent) if save_as and Path(save_as).parent != Path(".") else ""
    dialog = QFileDialog(parent, title, folder, name_filter)
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
    dialog.setOption(QFileDialog.Option.DontUseCustomDirectoryIcons, True)
    provider = FileTypeIconProvider()
    dialog.setIconProvider(provider)
    dialog._icon_provider = provider  # type: ignore[attr-defined]  # Qt does not own it: keep it alive
    if save_as:
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.selectFile(Path(save_as).name)
    else:
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
    return dialog


def chosen_path(dialog: QFileDialog) -> tuple[str, str]:
    """Run ``dialog``; the path chosen ("" if cancelled) and the name filter it was chosen under."""
    if not dialog.exec():
        return "", ""
    files = dialog.selectedFiles()
    return (files[0] if files else ""), dialog.selectedNameFilter()


def error_box(parent: QWidget, title: str, message: str) -> QMessageBox:
    """A warning that shows ``message`` as one line of plain text, markup and all."""
    box = QMessageBox(
        QMessageBox.Icon.Warning, one_line(title), one_line(message), QMessageBox.StandardButton.Ok, parent
    )
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return box


def dropped_scenario(mime: QMimeData) -> str | None:
    """The scenario file a drag carries (one local ``.toml`` file or rt-app ``.json`` workload), or None:
    what the window opens on a drop."""
    urls = mime.urls() if mime.hasUrls() else []
    if len(urls) != 1 or not urls[0].isLocalFile():
        return None
    path = urls[0].toLocalFile()
    return path if Path(path).suffix.lower() in SCENARIO_SUFFIXES else None
