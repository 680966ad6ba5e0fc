"""The base of the stage panels, ``render(snapshot)``, and the text sizing every panel shares.

A panel's ``render`` shadows ``QWidget.render``, which export still needs (a QSvgGenerator or a QImage
is drawn through it), so the dispatch lives here once: a Snapshot goes to ``show_snapshot``, anything
else to Qt. ``HoverTipsPanel`` adds the hover tooltips of the panels that describe what they draw.
``styled_font`` sizes a widget's text in standard-theme points and ``rescale_fonts``
re-applies the theme's scale (``gui.draw.theme``) after a mode or zoom change.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPointF, QRectF, QSize
from PySide6.QtGui import QFont, QHelpEvent, QPainter
from PySide6.QtWidgets import QToolTip, QWidget

from gui.draw import theme
from gui.draw.handler_guard import guarded_bool
from gui.draw.text_log import painter
from model.snapshot import Snapshot


class SnapshotPanel(QWidget):
    """A stage panel. One that paints itself lays out in logical pixels (its size over the theme's text
    scale) with the standard fonts and paints through ``begin_painting``, whose painter is scaled by
    that factor: the zoom and the large-text modes then scale every text and line of it alike."""

    @property
    def zoom(self) -> float:
        return theme.current().font_factor

    def lw(self) -> float:
        """Width in logical pixels."""
        return self.width() / self.zoom

    def lh(self) -> float:
        """Height in logical pixels."""
        return self.height() / self.zoom

    def logical_size(self) -> QSize:
        return QSize(int(self.lw()), int(self.lh()))

    def logical_rect(self) -> QRectF:
        return QRectF(0.0, 0.0, self.lw(), self.lh())

    def to_logical(self, pos: QPointF) -> QPointF:
        return QPointF(pos.x() / self.zoom, pos.y() / self.zoom)

    def begin_painting(self) -> QPainter:
        p = painter(self)
        p.scale(self.zoom, self.zoom)
        return p

    def render(self, snapshot: Snapshot, *args: object, **kwargs: object) -> None:  # type: ignore[override]
        if isinstance(snapshot, Snapshot):
            self.show_snapshot(snapshot)
        else:
            QWidget.render(self, snapshot, *args, **kwargs)

    def show_snapshot(self, snapshot: Snapshot) -> None:
        raise NotImplementedError

    def apply_theme(self) -> None:
        """The theme changed (mode or zoom): rebuild fonts and pens, lay out again."""
        self.update()


class HoverTipsPanel(SnapshotPanel):
    """A panel that says in a tooltip what is drawn under the mouse: ``describe_at(pos)`` in logical
    pixels, "" where nothing is (the tooltip then goes)."""

    @guarded_bool
    def event(self, event: QEvent) -> bool:  # Qt override: hover tooltips
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            text = self.describe_at(self.to_logical(QPointF(event.pos())))
            if text:
                QToolTip.showText(event.globalPos(), text, self)
            else:
                QToolTip.hideText()
            return True
        return super().event(event)

    def describe_at(self, pos: QPointF) -> str:
        raise NotImplementedError


BASE_PT = "schedlab_base_pt"  # a widget's text size in the standard theme, kept to rescale it
BASE_BOLD = "schedlab_base_bold"
# A control that floats over a panel (the graphs' "More ▾"): a figure of the panel leaves it out.
CHROME = "schedlab_figure_chrome"


def styled_font(widget: QWidget, pt: float, bold: bool = False) -> None:
    """Give ``widget`` text of ``pt`` points (standard theme), scaled by the theme now and whenever the
    window calls ``rescale_fonts``."""
    widget.setProperty(BASE_PT, float(pt))
    widget.setProperty(BASE_BOLD, bool(bold))
    _apply_font(widget)


def _apply_font(widget: QWidget) -> None:
    f = QFont(widget.font())
    f.setPointSizeF(theme.pt(float(widget.property(BASE_PT))))
    f.setBold(bool(widget.property(BASE_BOLD)))
    widget.setFont(f)


def rescale_fonts(root: QWidget) -> None:
    """Re-apply the theme's text scale to every widget under ``root`` that ``styled_font`` sized."""
    for w in (root, *root.findChildren(QWidget)):
        if w.property(BASE_PT) is not None:
            _apply_font(w)
