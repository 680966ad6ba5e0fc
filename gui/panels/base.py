"""The base of the stage panels: ``render(snapshot)`` draws a model snapshot.

A panel's ``render`` shadows ``QWidget.render``, which export still needs (a QSvgGenerator or a QImage
is drawn through it), so the dispatch lives here once: a Snapshot goes to ``show_snapshot``, anything
else to Qt.
"""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from model.snapshot import Snapshot


class SnapshotPanel(QWidget):
    def render(self, snapshot: Snapshot, *args: object, **kwargs: object) -> None:  # type: ignore[override]
        if isinstance(snapshot, Snapshot):
            self.show_snapshot(snapshot)
        else:
            QWidget.render(self, snapshot, *args, **kwargs)

    def show_snapshot(self, snapshot: Snapshot) -> None:
        raise NotImplementedError
