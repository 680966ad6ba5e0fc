"""Figures for slides and papers: a widget (a panel, one plot, or the window) as PNG, SVG or PDF bytes.

PNG at any scale (1×, 2×, or a DPI: scale = DPI / 96) is drawn through the painter, not grabbed from
the screen, so text and lines are sharp at every scale. SVG comes from ``QSvgGenerator`` in SVG 1.1
(so plots keep their clipping) and is made portable (``gui.draw.svg_portable``): it renders the same in
librsvg, CairoSVG and resvg as in Qt. PDF goes through ``QPdfWriter`` at 96 dots per inch, one page
the size of the figure. An optional caption (the scenario, settings, seed and simulated time) is drawn
in a strip below the picture in every format. The bytes are written by ``gui.export``, atomically.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QPoint, QRect, QSize, QSizeF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QImage, QPageLayout, QPageSize, QPainter, QPdfWriter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QMainWindow, QWidget

from gui.draw.svg_portable import portable_svg
from gui.panels.base import CHROME

SCREEN_DPI = 96
CAPTION_PT = 10
CAPTION_PAD = 6
SCALE_RANGE = (0.25, 8.0)  # 24 .. 768 DPI


@dataclass(frozen=True)
class FigureOptions:
    scale: float = 1.0  # PNG only: pixels per widget pixel
    caption: str = ""  # empty: no caption strip


class FigureError(Exception):
    """A figure that could not be drawn; one line."""


def caption_height(widget: QWidget, caption: str) -> int:
    if not caption:
        return 0
    metrics = QFontMetrics(_caption_font())
    rect = metrics.boundingRect(
        QRect(0, 0, max(1, widget.width() - 2 * CAPTION_PAD), 10_000), Qt.TextFlag.TextWordWrap, caption
    )
    return rect.height() + 2 * CAPTION_PAD


def _caption_font() -> QFont:
    font = QFont()
    font.setPointSize(CAPTION_PT)
    return font


def _paint(painter: QPainter, widget: QWidget, caption: str) -> None:
    """The widget at the origin and the caption strip under it, in widget pixels. A panel's figure
    leaves out the controls that float over it (its ``CHROME`` children); the whole window keeps them,
    being a picture of the app."""
    window = isinstance(widget, QMainWindow)
    chrome = [] if window else [w for w in widget.findChildren(QWidget) if w.property(CHROME)]
    hidden = [w for w in chrome if w.isVisible()]
    for w in hidden:
        w.setVisible(False)
    try:
        widget.render(painter, QPoint(0, 0))
    finally:
        for w in hidden:
            w.setVisible(True)
    if caption:
        strip = QRect(0, widget.height(), widget.width(), caption_height(widget, caption))
        painter.fillRect(strip, QColor("white"))
        painter.setPen(QColor("black"))
        painter.setFont(_caption_font())
        text = strip.adjusted(CAPTION_PAD, CAPTION_PAD, -CAPTION_PAD, -CAPTION_PAD)
        painter.drawText(text, int(Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap), caption)


def _full_size(widget: QWidget, caption: str) -> QSize:
    return QSize(widget.width(), widget.height() + caption_height(widget, caption))


def png_bytes(widget: QWidget, options: FigureOptions) -> bytes:
    if not SCALE_RANGE[0] <= options.scale <= SCALE_RANGE[1]:
        raise FigureError(f"scale {options.scale:g}: allowed {SCALE_RANGE[0]:g} .. {SCALE_RANGE[1]:g}")
    size = _full_size(widget, options.caption)
    image = QImage(
        round(size.width() * options.scale), round(size.height() * options.scale), QImage.Format.Format_ARGB32
    )
    image.fill(QColor("white"))
    # Logical pixels stay widget pixels (fonts in points, cosmetic pens in pixels scale with it), so
    # the picture is the widget drawn at ``scale`` times the resolution, not a magnified screenshot.
    image.setDevicePixelRatio(options.scale)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    try:
        _paint(painter, widget, options.caption)
    finally:
        painter.end()
    image.setDevicePixelRatio(1.0)
    dots_per_metre = round(SCREEN_DPI * options.scale / 0.0254)  # the PNG says its DPI (pHYs)
    image.setDotsPerMeterX(dots_per_metre)
    image.setDotsPerMeterY(dots_per_metre)
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):  # type: ignore[call-overload]  # PySide6 takes str
        raise FigureError("the PNG could not be made")
    return bytes(buffer.data().data())


def svg_bytes(widget: QWidget, options: FigureOptions, title: str = "schedlab") -> bytes:
    size = _full_size(widget, options.caption)
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    gen = QSvgGenerator(QSvgGenerator.SvgVersion.Svg11)  # clip paths: plots do not spill over their axes
    gen.setOutputDevice(buffer)
    gen.setSize(size)
    gen.setViewBox(QRect(0, 0, size.width(), size.height()))
    gen.setResolution(SCREEN_DPI)  # width and height in mm that other renderers read as these pixels
    gen.setTitle(title)
    gen.setDescription(options.caption or "exported by schedlab")
    painter = QPainter()
    if not painter.begin(gen):
        raise FigureError("the SVG could not be made")
    try:
        _paint(painter, widget, options.caption)
    finally:
        painter.end()
    buffer.close()
    text = bytes(data.data()).decode("utf-8")
    if not text.rstrip().endswith("</svg>"):
        raise FigureError("the SVG could not be made")
    return portable_svg(text).encode("utf-8")


def pdf_bytes(widget: QWidget, options: FigureOptions, title: str = "schedlab") -> bytes:
    size = _full_size(widget, options.caption)
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QPdfWriter(buffer)
    writer.setTitle(title)
    writer.setCreator("schedlab")
    writer.setResolution(SCREEN_DPI)
    points = QSizeF(size.width() * 72 / SCREEN_DPI, size.height() * 72 / SCREEN_DPI)
    writer.setPageLayout(
        QPageLayout(QPageSize(points, QPageSize.Unit.Point), QPageLayout.Orientation.Portrait, QMarginsF())
    )
    painter = QPainter()
    if not painter.begin(writer):
        raise FigureError("the PDF could not be made")
    try:
        _paint(painter, widget, options.caption)
    finally:
        painter.end()
    buffer.close()
    pdf = bytes(data.data())
    if not pdf.startswith(b"%PDF"):
        raise FigureError("the PDF could not be made")
    return pdf


FORMATS = {".png": png_bytes, ".svg": svg_bytes, ".pdf": pdf_bytes}


def figure_bytes(widget: QWidget, suffix: str, options: FigureOptions) -> bytes:
    """``widget`` as a figure. A panel whose text scrolls (the explainer) has a ``figure_size()``: its
    figure is drawn at that size, the whole text, not the part the window shows."""
    sizer = getattr(widget, "figure_size", None)
    if sizer is None:
        return FORMATS[suffix](widget, options)
    kept = widget.size()
    widget.resize(sizer())
    try:
        return FORMATS[suffix](widget, options)
    finally:
        widget.resize(kept)
