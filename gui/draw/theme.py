"""The look in force: the display mode's colours, text scale and line scale, times the zoom.

Modes: ``standard`` (white background, dark grey text), ``projector`` (PhET's projector mode: white,
black text, darker greys, thick lines and larger text, for a washed-out beamer) and ``large`` (the
standard colours with large text, for the back row). The zoom (Ctrl+= / Ctrl+- / Ctrl+0) multiplies
every text and line on top. Tasks, CPUs and bands keep their Okabe–Ito colours in every mode, always
backed by a pattern and a label (``palette``), so nothing is told by colour alone.

There is one theme at a time: ``set_theme`` makes it current and retints ``palette``'s shared colours
in place (panels paint with them), and the window then asks every panel to ``apply_theme()``. Panels
size text with ``pt(n)``, text-related geometry with ``px(n)`` and pens with ``line(n)``, where ``n``
is the standard size. Pure: no widget is touched here.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from PySide6.QtGui import QColor, QFont

from gui.draw import palette

MODES = ("standard", "projector", "large")
MODE_LABELS = {
    "standard": "Standard",
    "projector": "Projector: high contrast, thick lines",
    "large": "Large text",
}
ZOOM_STEPS = (0.8, 0.9, 1.0, 1.1, 1.25, 1.4, 1.6, 1.8, 2.0)


@dataclass(frozen=True, slots=True)
class Theme:
    mode: str = "standard"
    zoom: float = 1.0
    text_scale: float = 1.0
    line_scale: float = 1.0
    background: str = "#FFFFFF"
    text: str = "#222222"
    grey: str = "#BBBBBB"
    light_grey: str = "#EEEEEE"
    note: str = "#FFF6D5"  # the explainer's "Now:" box
    bold_titles: bool = False

    @property
    def font_factor(self) -> float:
        return self.text_scale * self.zoom

    @property
    def line_factor(self) -> float:
        return self.line_scale * self.zoom


MODE_THEMES = {
    "standard": Theme(),
    "projector": Theme(
        mode="projector",
        text_scale=1.15,
        line_scale=2.0,
        text="#000000",
        grey="#666666",
        light_grey="#DDDDDD",
        note="#FFF0B0",
        bold_titles=True,
    ),
    "large": Theme(mode="large", text_scale=1.4, line_scale=1.4),
}

_current = MODE_THEMES["standard"]


def current() -> Theme:
    return _current


def make_theme(mode: str, zoom: float = 1.0) -> Theme:
    """The theme of ``mode`` (unknown: standard) at ``zoom`` (clamped to the zoom steps' range)."""
    base = MODE_THEMES.get(mode, MODE_THEMES["standard"])
    return replace(base, zoom=min(max(zoom, ZOOM_STEPS[0]), ZOOM_STEPS[-1]))


def set_theme(theme: Theme) -> None:
    """Make ``theme`` current and retint the palette's shared colours to it."""
    global _current
    _current = theme
    for color, value in (
        (palette.BACKGROUND, theme.background),
        (palette.TEXT, theme.text),
        (palette.GREY, theme.grey),
        (palette.LIGHT_GREY, theme.light_grey),
    ):
        color.setRgba(QColor(value).rgba())


def next_zoom(zoom: float, step: int) -> float:
    """The zoom one step in (``step`` 1) or out (-1) from ``zoom``; 0 resets to 1."""
    if step == 0:
        return 1.0
    if step > 0:
        return next((z for z in ZOOM_STEPS if z > zoom + 1e-9), ZOOM_STEPS[-1])
    return next((z for z in reversed(ZOOM_STEPS) if z < zoom - 1e-9), ZOOM_STEPS[0])


def pt(size: float) -> float:
    """A text size, in points, for a standard size of ``size`` points."""
    return size * _current.font_factor


def px(size: float) -> float:
    """A length that goes with text (a row, a box for a label), for a standard ``size`` in pixels."""
    return size * _current.font_factor


def line(width: float) -> float:
    """A pen width for a standard ``width``."""
    return width * _current.line_factor


def stroke(width: float) -> float:
    """A pen width for a standard ``width`` inside a panel painted through a painter already scaled by
    the text factor (``SnapshotPanel.begin_painting``): the mode's extra thickness only."""
    return width * _current.line_scale / _current.text_scale


def font(size: float, bold: bool = False, family: str | None = None) -> QFont:
    f = QFont(family) if family else QFont()
    f.setPointSizeF(pt(size))
    f.setBold(bold)
    return f


def color(name: str) -> QColor:
    """One of the theme's own colours by field name (``text``, ``note``, ...)."""
    return QColor(getattr(_current, name))
