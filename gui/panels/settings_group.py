"""A titled group of settings that paints itself cheaply.

Fusion paints a ``QGroupBox`` frame by stretching a translucent nine-patch image over the whole box
(``qDrawBorderPixmap``), which costs about 0.5 ms a box: with four boxes in the settings column, a
tenth of a full repaint of the window. ``SettingsGroup`` keeps everything else of ``QGroupBox``
(the style's margins, title placement and size hints, so the layout is unchanged) and paints the
same rounded frame and title with two painter calls, in opaque colours.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QRectF, Qt
from PySide6.QtGui import QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QGroupBox, QStyle, QStyleOptionGroupBox

from gui.draw.handler_guard import guarded

# The nine-patch's look over the background (a faint wash inside a slightly darker rim), in opaque
# colours: the raster engine blends a translucent fill or pen over a box this size 10-20 times slower.
FILL_DARKER = 101
RIM_DARKER = 111
CORNER_PX = 2.0


class SettingsGroup(QGroupBox):
    def frame_and_label(self) -> tuple[QRect, QRect]:
        """Where the style puts the frame and the title (its margins, as a QGroupBox has them)."""
        option = QStyleOptionGroupBox()
        self.initStyleOption(option)
        style, box = self.style(), QStyle.ComplexControl.CC_GroupBox
        frame = style.subControlRect(box, option, QStyle.SubControl.SC_GroupBoxFrame, self)
        return frame, style.subControlRect(box, option, QStyle.SubControl.SC_GroupBoxLabel, self)

    @guarded
    def paintEvent(self, event: QPaintEvent) -> None:
        frame, label = self.frame_and_label()
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        background = self.palette().color(QPalette.ColorRole.Window)
        painter.setPen(background.darker(RIM_DARKER))
        painter.setBrush(background.darker(FILL_DARKER))
        painter.drawRoundedRect(QRectF(frame).adjusted(0.5, 0.5, -0.5, -0.5), CORNER_PX, CORNER_PX)
        group = QPalette.ColorGroup.Active if self.isEnabled() else QPalette.ColorGroup.Disabled
        painter.setPen(self.palette().color(group, QPalette.ColorRole.WindowText))
        painter.drawText(label, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, self.title())
        painter.end()
