"""What stands where the live graphs go until they are built: the window's first frame.

The graphs are drawn with pyqtgraph, whose import and plot building take most of a launch (about half
a second of the 2-core classroom machine). The window paints its first frame without them: this panel
takes the graphs' place in the layout with the same size hints and the graphs' own background, so
nothing moves when ``MainWindow`` swaps the real ``GraphsPanel`` in after that frame (a zero timer).
Until then it keeps what the graphs will need: the latest snapshot and the time window.
"""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QWidget

from gui.draw import palette
from gui.draw.handler_guard import guarded
from model.snapshot import Snapshot

# The size hints of GraphsPanel (its pyqtgraph view's: QGraphicsView's defaults); a test keeps them equal.
SIZE_HINT = (600, 480)
MINIMUM_SIZE_HINT = (68, 68)


class GraphsPlaceholder(QWidget):
    """An empty graphs area of the graphs' background colour; a panel to the window like the graphs."""

    def __init__(self, window_ns: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.window_ns = window_ns
        self.snapshot: Snapshot | None = None

    def render(self, snapshot: Snapshot, *args: object, **kwargs: object) -> None:  # type: ignore[override]
        if isinstance(snapshot, Snapshot):
            self.snapshot = snapshot
        else:
            QWidget.render(self, snapshot, *args, **kwargs)

    def reset(self) -> None:
        self.snapshot = None

    def set_window_ns(self, window_ns: int) -> None:
        self.window_ns = window_ns

    def sizeHint(self) -> QSize:
        return QSize(*SIZE_HINT)

    def minimumSizeHint(self) -> QSize:
        return QSize(*MINIMUM_SIZE_HINT)

    @guarded
    def paintEvent(self, event: QPaintEvent) -> None:  # Qt override
        p = QPainter(self)
        p.fillRect(event.rect(), palette.BACKGROUND)
        p.end()
